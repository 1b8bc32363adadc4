package byheartlangchaingo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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
	"github.com/tmc/langchaingo/prompts"
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

func TestLoadMemoryVariablesNeedsOneInput(t *testing.T) {
	lc := byheartlangchaingo.New(byheart.Options{})
	_, err := lc.LoadMemoryVariables(context.Background(), map[string]any{"a": "x", "b": "y"})
	assert.ErrorIs(t, err, memory.ErrInvalidInputValues)
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
// history renders them.
func stableHistory(t *testing.T, res byheart.Result, human, ai string) string {
	t.Helper()
	var msgs []llms.ChatMessage
	for _, m := range res.Messages {
		for _, p := range m.Parts {
			if len(msgs) > res.StableUpto {
				break
			}
			if m.Role == byheart.User {
				msgs = append(msgs, llms.HumanChatMessage{Content: p.Text})
			} else {
				msgs = append(msgs, llms.AIChatMessage{Content: p.Text})
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

			if second.Reselected || first.StableUpto < 0 {
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
