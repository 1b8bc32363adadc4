package byheartlangchaingo_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/byheart/byheart"
	byheartlangchaingo "github.com/byheart/byheart/langchaingo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/memory/sqlite3"
	"github.com/tmc/langchaingo/prompts"
	_ "modernc.org/sqlite" // the pure Go SQLite driver, "sqlite"
)

// conversation returns a byheart.Memory holding the given alternating turns,
// the user's first.
func conversation(t *testing.T, opts byheart.Options, texts ...string) *byheart.Memory {
	t.Helper()
	mem := byheart.New(opts)
	for i, text := range texts {
		role := byheart.User
		if i%2 == 1 {
			role = byheart.Assistant
		}
		_, err := mem.Append(role, text)
		require.NoError(t, err)
	}
	return mem
}

// composed is what byheart composes for query, every part as a chat message
// of its role, the query left out.
func composed(t *testing.T, mem *byheart.Memory, query string) []llms.ChatMessage {
	t.Helper()
	res, err := mem.Compose(context.Background(), query)
	require.NoError(t, err)
	var out []llms.ChatMessage
	for _, m := range res.Messages {
		for _, p := range m.Parts {
			if m.Role == byheart.User {
				out = append(out, llms.HumanChatMessage{Content: p.Text})
			} else {
				out = append(out, llms.AIChatMessage{Content: p.Text})
			}
		}
	}
	return out[:len(out)-1]
}

func TestLoadMemoryVariables(t *testing.T) {
	turns := []string{"We decided on 55 euro a month.", "Noted: 55 a month."}
	tests := []struct {
		name    string
		options []memory.ConversationBufferOption
		inputs  map[string]any
		key     string
		asText  func([]llms.ChatMessage) string
	}{
		{
			name:   "by default the history is a Human/AI buffer string under \"history\"",
			inputs: map[string]any{"input": "What did we decide?"},
			key:    "history",
			asText: func(m []llms.ChatMessage) string { s, _ := llms.GetBufferString(m, "Human", "AI"); return s },
		},
		{
			name:    "with ReturnMessages the history is chat messages",
			options: []memory.ConversationBufferOption{memory.WithReturnMessages(true)},
			inputs:  map[string]any{"input": "What did we decide?"},
			key:     "history",
		},
		{
			name: "the buffer's key and prefix options apply",
			options: []memory.ConversationBufferOption{memory.WithMemoryKey("chat"), memory.WithInputKey("question"),
				memory.WithHumanPrefix("Customer"), memory.WithAIPrefix("Agent")},
			inputs: map[string]any{"question": "What did we decide?", "language": "en"},
			key:    "chat",
			asText: func(m []llms.ChatMessage) string { s, _ := llms.GetBufferString(m, "Customer", "Agent"); return s },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := conversation(t, byheart.Options{}, turns...)
			lc := byheartlangchaingo.Resume(mem, byheart.Options{}, tt.options...)
			ctx := context.Background()
			assert.Equal(t, tt.key, lc.GetMemoryKey(ctx))
			assert.Equal(t, []string{tt.key}, lc.MemoryVariables(ctx))

			got, err := lc.LoadMemoryVariables(ctx, tt.inputs)
			require.NoError(t, err)
			want := composed(t, mem, "What did we decide?")
			require.Len(t, got, 1)
			if tt.asText == nil {
				assert.Equal(t, want, got[tt.key])
				return
			}
			assert.Equal(t, tt.asText(want), got[tt.key])
			assert.NotContains(t, got[tt.key], "What did we decide?", "the chain's prompt adds the input itself")
		})
	}
}

func TestLoadMemoryVariablesServesChainsWithSeveralInputs(t *testing.T) {
	opts := byheart.Options{Budget: 600, Chunk: 60}
	var turns []string
	for i := range 10 {
		turns = append(turns, fmt.Sprintf("Filler question %d about the weather today.", i), fmt.Sprintf("Filler answer %d: sunny.", i))
	}
	turns = append(turns[:4], append([]string{"The invoice number is 4417.", "Noted, invoice 4417."}, turns[4:]...)...)
	inputs := map[string]any{"question": "Which invoice number?", "language": "English", "k": 3}
	lc := byheartlangchaingo.Resume(conversation(t, opts, turns...), opts)

	vars, err := lc.LoadMemoryVariables(context.Background(), inputs)
	require.NoError(t, err, "the buffer serves a chain with several inputs, so this memory does too")
	assert.Contains(t, vars["history"], "invoice 4417", "the composition is for the text inputs together")

	keyed, err := byheartlangchaingo.Resume(conversation(t, opts, turns...), opts, memory.WithInputKey("question")).
		LoadMemoryVariables(context.Background(), inputs)
	require.NoError(t, err)
	assert.Contains(t, keyed["history"], "invoice 4417")

	err = lc.SaveContext(context.Background(), inputs, map[string]any{"text": "4417"})
	assert.ErrorIs(t, err, memory.ErrInvalidInputValues, "saving needs an input key, as it does for the buffer")
	_, err = lc.LoadMemoryVariables(context.Background(), map[string]any{"k": 3, "n": 4})
	assert.ErrorIs(t, err, memory.ErrInvalidInputValues, "inputs with no text give nothing to compose for")
}

type failingSource struct{}

func (failingSource) Fetch(context.Context, string) ([]byheart.Item, error) {
	return nil, fmt.Errorf("search is down")
}

func TestLoadMemoryVariablesReportsAFailingExternalSourceWithoutFailing(t *testing.T) {
	opts := byheart.Options{External: failingSource{}}
	lc := byheartlangchaingo.Resume(conversation(t, opts, "hi", "hello"), opts)
	var reported []error
	lc.OnExternalError = func(err error) { reported = append(reported, err) }

	vars, err := lc.LoadMemoryVariables(context.Background(), map[string]any{"input": "question"})
	require.NoError(t, err)
	assert.Contains(t, vars["history"], "Human: hi")
	// Reported exactly when byheart reports it: the core decides whether it
	// asked the source at all.
	res, err := conversation(t, opts, "hi", "hello").Compose(context.Background(), "question")
	require.NoError(t, err)
	if res.ExternalErr != nil {
		assert.Len(t, reported, 1)
	} else {
		assert.Empty(t, reported)
	}
}

func TestSaveContext(t *testing.T) {
	tests := []struct {
		name    string
		options []memory.ConversationBufferOption
		inputs  map[string]any
		outputs map[string]any
		want    []llms.ChatMessage // history afterwards
		wantErr error
	}{
		{
			name:    "the input becomes a user turn and the output an assistant turn",
			inputs:  map[string]any{"input": "hi"},
			outputs: map[string]any{"text": "hello"},
			want:    []llms.ChatMessage{llms.HumanChatMessage{Content: "hi"}, llms.AIChatMessage{Content: "hello"}},
		},
		{
			name:    "the input and output keys pick the values",
			options: []memory.ConversationBufferOption{memory.WithInputKey("q"), memory.WithOutputKey("answer")},
			inputs:  map[string]any{"q": "hi", "lang": "en"},
			outputs: map[string]any{"answer": "hello", "sources": "none"},
			want:    []llms.ChatMessage{llms.HumanChatMessage{Content: "hi"}, llms.AIChatMessage{Content: "hello"}},
		},
		{
			name:    "an empty output is not a turn",
			inputs:  map[string]any{"input": "hi"},
			outputs: map[string]any{"text": ""},
			want:    []llms.ChatMessage{llms.HumanChatMessage{Content: "hi"}},
		},
		{
			name:    "an empty input writes nothing",
			inputs:  map[string]any{"input": ""},
			outputs: map[string]any{"text": "hello"},
			want:    []llms.ChatMessage{},
			wantErr: byheart.ErrEmpty,
		},
		{
			name:    "an output that is not UTF-8 writes nothing",
			inputs:  map[string]any{"input": "hi"},
			outputs: map[string]any{"text": "\xff"},
			want:    []llms.ChatMessage{},
			wantErr: byheart.ErrUTF8,
		},
		{
			name:    "an output that is not a string writes nothing",
			inputs:  map[string]any{"input": "hi"},
			outputs: map[string]any{"text": 42},
			want:    []llms.ChatMessage{},
			wantErr: memory.ErrInvalidInputValues,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := append([]memory.ConversationBufferOption{memory.WithReturnMessages(true)}, tt.options...)
			lc := byheartlangchaingo.New(byheart.Options{}, opts...)
			err := lc.SaveContext(context.Background(), tt.inputs, tt.outputs)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, composed(t, lc.Conversation(), "next"))
		})
	}
}

func TestClearStartsANewConversationAndLeavesTheOldOneAlone(t *testing.T) {
	ctx := context.Background()
	lc := byheartlangchaingo.New(byheart.Options{}, memory.WithReturnMessages(true))
	require.NoError(t, lc.SaveContext(ctx, map[string]any{"input": "hi"}, map[string]any{"text": "hello"}))
	old := lc.Conversation()

	require.NoError(t, lc.Clear(ctx))
	vars, err := lc.LoadMemoryVariables(ctx, map[string]any{"input": "anything?"})
	require.NoError(t, err)
	assert.Empty(t, vars["history"])
	assert.NotSame(t, old, lc.Conversation())
	assert.Len(t, composed(t, old, "anything?"), 2, "the previous byheart.Memory keeps its turns")
}

func TestSaveContextIsSafeForConcurrentUse(t *testing.T) {
	lc := byheartlangchaingo.New(byheart.Options{}, memory.WithReturnMessages(true))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			assert.NoError(t, lc.SaveContext(ctx, map[string]any{"input": fmt.Sprint("q", i)}, map[string]any{"text": fmt.Sprint("a", i)}))
			_, err := lc.LoadMemoryVariables(ctx, map[string]any{"input": "x"})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	history := composed(t, lc.Conversation(), "next")
	require.Len(t, history, 16)
	for i := 0; i < 16; i += 2 {
		q, a := history[i].GetContent(), history[i+1].GetContent()
		assert.True(t, strings.HasPrefix(q, "q"), "a question comes first: %q", q)
		assert.Equal(t, "a"+q[1:], a, "each answer follows its own question")
	}
}

// recorder is a stand-in for the Chat Completions API that keeps every
// request body and answers with the next canned reply.
type recorder struct {
	mu      sync.Mutex
	bodies  [][]byte
	replies []string
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.bodies = append(rec.bodies, body)
	reply := rec.replies[(len(rec.bodies)-1)%len(rec.replies)]
	rec.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	out, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": reply}}},
		"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
	w.Write(out)
}

func newLLM(t *testing.T, replies ...string) (*openai.LLM, *recorder) {
	t.Helper()
	rec := &recorder{replies: replies}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	llm, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithToken("test-key"), openai.WithModel("gpt-test"))
	require.NoError(t, err)
	return llm, rec
}

// sentPrompt is the text of the single user message langchaingo sent.
func sentPrompt(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	require.Len(t, req.Messages, 1)
	assert.Equal(t, "user", req.Messages[0].Role)
	var text string
	if json.Unmarshal(req.Messages[0].Content, &text) == nil {
		return text
	}
	var parts []struct{ Text string }
	require.NoError(t, json.Unmarshal(req.Messages[0].Content, &parts))
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// stableHistory renders the parts of res up to StableUpto as the chain's
// history renders them: the test's texts break lines with LF only.
func stableHistory(t *testing.T, res byheart.Result, human, ai string) string {
	t.Helper()
	var msgs []llms.ChatMessage
	for _, m := range res.Messages {
		for _, p := range m.Parts {
			if len(msgs) > res.StableUpto {
				break
			}
			text := strings.ReplaceAll(p.Text, "\n", "\n  ")
			if m.Role == byheart.User {
				msgs = append(msgs, llms.HumanChatMessage{Content: text})
			} else {
				msgs = append(msgs, llms.AIChatMessage{Content: text})
			}
		}
	}
	s, err := llms.GetBufferString(msgs, human, ai)
	require.NoError(t, err)
	return s
}

func TestConversationChainThroughARealClient(t *testing.T) {
	tests := []struct {
		name string
		opts byheart.Options
	}{
		{"with the default budget", byheart.Options{}},
		{"with a budget the history overflows", byheart.Options{Budget: 600, Chunk: 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			var turns []string
			for i := range 12 {
				turns = append(turns, fmt.Sprintf("Question %d about the pricing of plan %d.", i, i),
					fmt.Sprintf("Answer %d: plan %d costs %d euro a month.", i, i, 40+i))
			}
			conv := conversation(t, tt.opts, turns...)
			llm, rec := newLLM(t, "Plan 3 costs 43 euro a month.", "Plan 4 costs 44 euro a month.")
			chain := chains.NewConversation(llm, byheartlangchaingo.Resume(conv, tt.opts))

			// What the memory will compose for each call, taken the moment before.
			first, err := conv.Compose(ctx, "What does plan 3 cost?")
			require.NoError(t, err)
			out, err := chains.Run(ctx, chain, "What does plan 3 cost?")
			require.NoError(t, err)
			assert.Equal(t, "Plan 3 costs 43 euro a month.", out)
			second, err := conv.Compose(ctx, "And plan 4?")
			require.NoError(t, err)
			_, err = chains.Run(ctx, chain, "And plan 4?")
			require.NoError(t, err)

			require.Len(t, rec.bodies, 2)
			p1, p2 := sentPrompt(t, rec.bodies[0]), sentPrompt(t, rec.bodies[1])
			assert.True(t, strings.HasSuffix(p1, "Human: What does plan 3 cost?\nAI:"), "the query comes last")
			assert.True(t, strings.HasSuffix(p2, "Human: And plan 4?\nAI:"), "the query comes last")
			assert.Contains(t, p2, "Human: What does plan 3 cost?\nAI: Plan 3 costs 43 euro a month.",
				"SaveContext recorded the first exchange and the next call composes it")

			if second.Reselected() || first.StableUpto < 0 {
				t.Log("the selection was rebuilt: no shared prefix is promised")
				return
			}
			stable := stableHistory(t, first, "Human", "AI")
			end := strings.Index(p1, stable)
			require.GreaterOrEqual(t, end, 0)
			end += len(stable)
			assert.Equal(t, p1[:end], p2[:end], "the prompt repeats byte for byte through StableUpto")
		})
	}
}

func TestChatPromptWithReturnMessagesThroughARealClient(t *testing.T) {
	ctx := context.Background()
	llm, rec := newLLM(t, "55 euro a month.")
	prompt := prompts.NewChatPromptTemplate([]prompts.MessageFormatter{
		prompts.NewSystemMessagePromptTemplate("You are a concise assistant.", nil),
		prompts.MessagesPlaceholder{VariableName: "history"},
		prompts.NewHumanMessagePromptTemplate("{{.input}}", []string{"input"}),
	})
	chain := chains.NewLLMChain(llm, prompt)
	conv := conversation(t, byheart.Options{}, "We decided on 55 euro a month.", "Noted.")
	chain.Memory = byheartlangchaingo.Resume(conv, byheart.Options{}, memory.WithReturnMessages(true))

	out, err := chains.Run(ctx, chain, "What did we decide?")
	require.NoError(t, err)
	assert.Equal(t, "55 euro a month.", out)
	require.Len(t, rec.bodies, 1)
	p := sentPrompt(t, rec.bodies[0])
	assert.True(t, strings.HasPrefix(p, "system: You are a concise assistant.\nHuman: We decided on 55 euro a month.\nAI: Noted.\n"), p)
	assert.True(t, strings.HasSuffix(p, "Human: What did we decide?"), p)
	assert.Len(t, composed(t, conv, "next"), 4, "the exchange was saved")
}

func TestChatHistoryIsTheRecord(t *testing.T) {
	ctx := context.Background()
	h := memory.NewChatMessageHistory(memory.WithPreviousMessages([]llms.ChatMessage{
		llms.HumanChatMessage{Content: "We decided on 55 euro a month."}, llms.AIChatMessage{Content: ""},
		llms.AIChatMessage{Content: "Noted."},
	}))
	lc := byheartlangchaingo.New(byheart.Options{}, memory.WithChatHistory(h), memory.WithReturnMessages(true))

	vars, err := lc.LoadMemoryVariables(ctx, map[string]any{"input": "What did we decide?"})
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{llms.HumanChatMessage{Content: "We decided on 55 euro a month."}, llms.AIChatMessage{Content: "Noted."}},
		vars["history"], "the history's messages are the conversation, the empty one skipped")

	require.NoError(t, lc.SaveContext(ctx, map[string]any{"input": "What did we decide?"}, map[string]any{"text": "55 euro a month."}))
	stored, err := h.Messages(ctx)
	require.NoError(t, err)
	assert.Len(t, stored, 5, "the exchange is written to the history")

	// Another process on the same history adds an exchange; this memory takes it in.
	require.NoError(t, h.AddUserMessage(ctx, "And the annual plan?"))
	require.NoError(t, h.AddAIMessage(ctx, "550 euro a year."))
	vars, err = lc.LoadMemoryVariables(ctx, map[string]any{"input": "next"})
	require.NoError(t, err)
	require.Len(t, vars["history"], 6)
	assert.Equal(t, 6, lc.Conversation().Len(), "each message is taken in once")

	require.NoError(t, lc.Clear(ctx))
	stored, err = h.Messages(ctx)
	require.NoError(t, err)
	assert.Empty(t, stored, "Clear clears the history")
	assert.Equal(t, 0, lc.Conversation().Len())
}

func TestChatHistoryResumedConversation(t *testing.T) {
	ctx := context.Background()
	msgs := []llms.ChatMessage{
		llms.HumanChatMessage{Content: "one"}, llms.AIChatMessage{Content: "two"},
		llms.HumanChatMessage{Content: "three"}, llms.AIChatMessage{Content: "four"},
	}
	tests := []struct {
		name    string
		holds   int // turns the resumed conversation holds
		history []llms.ChatMessage
		want    []string
	}{
		{"the messages after those the conversation holds are added", 2, msgs, []string{"one", "two", "three", "four"}},
		{"a conversation that holds them all gets nothing twice", 4, msgs, []string{"one", "two", "three", "four"}},
		{"a history that holds fewer is the record: the conversation starts over from it", 4, msgs[:1], []string{"one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			texts := make([]string, tt.holds)
			for i := range texts {
				texts[i] = msgs[i].GetContent()
			}
			opts := byheart.Options{}
			h := memory.NewChatMessageHistory(memory.WithPreviousMessages(tt.history))
			lc := byheartlangchaingo.Resume(conversation(t, opts, texts...), opts, memory.WithChatHistory(h), memory.WithReturnMessages(true))
			_, err := lc.LoadMemoryVariables(ctx, map[string]any{"input": "next"})
			require.NoError(t, err)
			var got []string
			for _, m := range composed(t, lc.Conversation(), "next") {
				got = append(got, m.GetContent())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestChatHistoryWithOtherMessagesIsRefused(t *testing.T) {
	ctx := context.Background()
	h := memory.NewChatMessageHistory(memory.WithPreviousMessages([]llms.ChatMessage{
		llms.SystemChatMessage{Content: "You are terse."}, llms.HumanChatMessage{Content: "hi"},
	}))
	lc := byheartlangchaingo.New(byheart.Options{}, memory.WithChatHistory(h))
	_, err := lc.LoadMemoryVariables(ctx, map[string]any{"input": "next"})
	assert.ErrorIs(t, err, byheartlangchaingo.ErrHistory)
	err = lc.SaveContext(ctx, map[string]any{"input": "hi"}, map[string]any{"text": "hello"})
	assert.ErrorIs(t, err, byheartlangchaingo.ErrHistory)
	stored, err := h.Messages(ctx)
	require.NoError(t, err)
	assert.Len(t, stored, 2, "nothing is written after a refusal")
}

// sqliteHistory opens langchaingo's SQL chat history on the SQLite file at
// path through the pure Go driver.
func sqliteHistory(t *testing.T, path, session string) *sqlite3.SqliteChatMessageHistory {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return sqlite3.NewSqliteChatMessageHistory(sqlite3.WithDB(db), sqlite3.WithSession(session), sqlite3.WithOverwrite())
}

func TestConversationChainWithASQLiteChatHistory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "chat.db")
	opts := byheart.Options{Budget: 900, Chunk: 200}
	llm, rec := newLLM(t, "Noted.", "Plan 3 costs 43 euro a month.")

	chain := chains.NewConversation(llm, byheartlangchaingo.New(opts, memory.WithChatHistory(sqliteHistory(t, path, "conv-1"))))
	for i := range 8 {
		_, err := chains.Run(ctx, chain, fmt.Sprintf("Note %d: plan %d costs %d euro a month.", i, i, 40+i))
		require.NoError(t, err)
	}

	// A restart: a new process opens the same database and a new memory.
	restarted := chains.NewConversation(llm, byheartlangchaingo.New(opts, memory.WithChatHistory(sqliteHistory(t, path, "conv-1"))))
	_, err := chains.Run(ctx, restarted, "What does plan 3 cost?")
	require.NoError(t, err)

	prompt := sentPrompt(t, rec.bodies[len(rec.bodies)-1])
	assert.Contains(t, prompt, "Note 3: plan 3 costs 43 euro a month.", "the restarted chain composes from the persisted history")
	assert.Contains(t, prompt, "Human: Note 7: plan 7 costs 47 euro a month.\nAI: Plan 3 costs 43 euro a month.", "the last exchange is there")
	assert.True(t, strings.HasSuffix(prompt, "Human: What does plan 3 cost?\nAI:"))

	stored, err := sqliteHistory(t, path, "conv-1").Messages(ctx)
	require.NoError(t, err)
	require.Len(t, stored, 18, "every exchange is in the database, in order")
	assert.Equal(t, "What does plan 3 cost?", stored[16].GetContent())
	other, err := sqliteHistory(t, path, "conv-2").Messages(ctx)
	require.NoError(t, err)
	assert.Empty(t, other, "sessions stay apart")
}
