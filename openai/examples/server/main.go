// Command server is a chat server that keeps each conversation with byheart
// and answers through the OpenAI Responses API, streaming the reply as it is
// written.
//
//	curl -N -d 'What did we decide about pricing?' 'localhost:8080/chat?conversation=42'
//
// The server holds nothing between requests but each conversation's saved
// memory (Memory.ToJSON), so it can run as many stateless instances in front
// of a shared store. The client reads OPENAI_API_KEY.
package main

import (
	"errors"
	"io"
	"log"
	"net/http"
	"strings"
	"sync"

	"github.com/byheart/byheart"
	byheartopenai "github.com/byheart/byheart/openai"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

func main() {
	srv := &server{client: openai.NewClient(), store: newStore()}
	http.Handle("POST /chat", srv)
	log.Fatal(http.ListenAndServe("localhost:8080", nil))
}

// store keeps each conversation's saved memory. A real server keeps these
// bytes in its database, next to the conversation.
type store struct {
	mu    sync.Mutex
	saved map[string][]byte
	busy  map[string]*sync.Mutex
}

func newStore() *store {
	return &store{saved: map[string][]byte{}, busy: map[string]*sync.Mutex{}}
}

// lock holds conversation id for one request, so two requests to it never
// save over each other, and returns the unlock.
func (s *store) lock(id string) func() {
	s.mu.Lock()
	l, ok := s.busy[id]
	if !ok {
		l = &sync.Mutex{}
		s.busy[id] = l
	}
	s.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// load restores conversation id, or starts it.
func (s *store) load(id string, opts byheart.Options) (*byheart.Memory, error) {
	s.mu.Lock()
	data, ok := s.saved[id]
	s.mu.Unlock()
	if !ok {
		return byheart.New(opts), nil
	}
	return byheart.FromJSON(data, opts)
}

func (s *store) save(id string, mem *byheart.Memory) error {
	data, err := mem.ToJSON()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.saved[id] = data
	s.mu.Unlock()
	return nil
}

type server struct {
	client openai.Client
	store  *store
	opts   byheart.Options // the same for every request: FromJSON needs them
}

// ServeHTTP answers the message in the request body within conversation
// ?conversation=ID, streaming the reply, and remembers the exchange once the
// reply is complete.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("conversation")
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	question := strings.TrimSpace(string(body))
	if id == "" || err != nil || question == "" {
		http.Error(w, "POST a message to /chat?conversation=ID", http.StatusBadRequest)
		return
	}
	defer s.store.lock(id)()
	mem, err := s.store.load(id, s.opts)
	if err != nil {
		http.Error(w, "cannot restore the conversation", http.StatusInternalServerError)
		return
	}
	res, err := mem.Compose(r.Context(), question)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest) // a cancelled request or a query that is not UTF-8
		return
	}
	items, err := byheartopenai.Input(res)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	answer, err := s.stream(w, r, id, items)
	if err != nil {
		log.Printf("conversation %s: %v", id, err) // the exchange is not remembered
		return
	}
	if _, err := mem.Append(byheart.User, question); err != nil {
		log.Printf("conversation %s: %v", id, err)
		return
	}
	if _, err := mem.Append(byheart.Assistant, answer); err != nil {
		log.Printf("conversation %s: %v", id, err)
		return
	}
	if err := s.store.save(id, mem); err != nil {
		log.Printf("conversation %s: %v", id, err)
	}
}

// stream sends the input items to the model and writes the reply's text to
// w as it comes, returning the whole reply. PromptCacheKey routes every call
// of one conversation to the same prompt cache.
func (s *server) stream(w http.ResponseWriter, r *http.Request, id string, items responses.ResponseInputParam) (string, error) {
	stream := s.client.Responses.NewStreaming(r.Context(), responses.ResponseNewParams{
		Model:          openai.ChatModelGPT5_5,
		Instructions:   openai.String("You are a concise assistant."),
		Input:          responses.ResponseNewParamsInputUnion{OfInputItemList: items},
		PromptCacheKey: openai.String("conversation-" + id),
		Store:          openai.Bool(false), // byheart keeps the conversation
	})
	defer stream.Close()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	flusher, _ := w.(http.Flusher)
	var answer strings.Builder
	for stream.Next() {
		delta, ok := stream.Current().AsAny().(responses.ResponseTextDeltaEvent)
		if !ok {
			continue
		}
		answer.WriteString(delta.Delta)
		io.WriteString(w, delta.Delta)
		if flusher != nil {
			flusher.Flush()
		}
	}
	if err := stream.Err(); err != nil {
		if answer.Len() == 0 {
			http.Error(w, "the model could not be reached", http.StatusBadGateway)
		}
		return "", err
	}
	if answer.Len() == 0 {
		return "", errors.New("the reply had no text")
	}
	return answer.String(), nil
}
