// Command server is a chat server built on a langchaingo conversation chain
// whose memory is byheart, streaming the reply as it is written.
//
//	curl -N -d 'What did we decide about pricing?' 'localhost:8080/chat?conversation=42'
//
// The server holds nothing between requests but each conversation's saved
// memory (Memory.ToJSON), so it can run as many stateless instances in front
// of a shared store. The model is langchaingo's OpenAI client, which reads OPENAI_API_KEY;
// any llms.Model serves.
package main

import (
	"context"
	"io"
	"log"
	"net/http"
	"strings"
	"sync"

	"github.com/byheart/byheart"
	byheartlangchaingo "github.com/byheart/byheart/langchaingo"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
)

func main() {
	llm, err := openai.New()
	if err != nil {
		log.Fatal(err)
	}
	srv := &server{llm: llm, store: newStore()}
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
	llm   llms.Model
	store *store
	opts  byheart.Options // the same for every request: FromJSON needs them
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
	answer, err := s.run(w, r, byheartlangchaingo.Resume(mem, s.opts), question)
	if err != nil {
		log.Printf("conversation %s: %v", id, err) // the exchange is not remembered
		return
	}
	if answer == "" {
		log.Printf("conversation %s: the reply had no text", id)
	}
	// The chain's memory appended the exchange to mem once the reply was complete.
	if err := s.store.save(id, mem); err != nil {
		log.Printf("conversation %s: %v", id, err)
	}
}

// run runs a conversation chain with memory for question and writes the
// reply's text to w as it comes, returning the whole reply.
func (s *server) run(w http.ResponseWriter, r *http.Request, memory *byheartlangchaingo.Memory, question string) (string, error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	flusher, _ := w.(http.Flusher)
	written := false
	answer, err := chains.Run(r.Context(), chains.NewConversation(s.llm, memory), question,
		chains.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
			written = written || len(chunk) > 0
			if _, err := w.Write(chunk); err != nil {
				return err // the client left: stop generating
			}
			if flusher != nil {
				flusher.Flush()
			}
			return nil
		}))
	if err != nil && !written {
		http.Error(w, "the model could not be reached", http.StatusBadGateway)
	}
	return answer, err
}
