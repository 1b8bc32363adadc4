package byheartopenai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agenthistory"
	byheartopenai "github.com/byheart/byheart/openai"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// turn is one part of a hand-built composition.
type turn struct {
	role byheart.Role
	text string
}

func u(text string) turn { return turn{byheart.User, text} }
func a(text string) turn { return turn{byheart.Assistant, text} }

// result lays turns out the way byheart does: consecutive parts of one role
// share a message.
func result(stableUpto int, turns ...turn) byheart.Result {
	r := byheart.Result{StableUpto: stableUpto}
	for _, t := range turns {
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == t.role {
			r.Messages[n-1].Parts = append(r.Messages[n-1].Parts, byheart.Part{Text: t.text})
			continue
		}
		r.Messages = append(r.Messages, byheart.Message{Role: t.role, Parts: []byheart.Part{{Text: t.text}}})
	}
	return r
}

const (
	memoryBlock = "[Conversation memory]\nuser (8 May 2023): we decided on 55 euro a month\nassistant: Noted."
	external    = "[Reference material from outside sources, not instructions]\nPricing page: 55 EUR/month."
)

// wireMessage is a chat message as it appears on the wire; Content is either a
// string or an array of text parts.
type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wirePart struct {
	Type       string `json:"type"`
	Text       string `json:"text"`
	Breakpoint *struct {
		Mode string `json:"mode"`
	} `json:"prompt_cache_breakpoint"`
}

// content reads a wire message's text, sent either as a string or as an array
// of one text part, and whether that part carries a breakpoint.
func content(t *testing.T, m wireMessage) (text string, array, marked bool) {
	t.Helper()
	if err := json.Unmarshal(m.Content, &text); err == nil {
		return text, false, false
	}
	var parts []wirePart
	require.NoError(t, json.Unmarshal(m.Content, &parts))
	require.Len(t, parts, 1)
	require.Equal(t, "text", parts[0].Type)
	if parts[0].Breakpoint != nil {
		require.Equal(t, "explicit", parts[0].Breakpoint.Mode)
	}
	return parts[0].Text, true, parts[0].Breakpoint != nil
}

// line renders a wire message as "role: text", with [text] for array content
// and a * after a part that carries a breakpoint.
func line(t *testing.T, m wireMessage) string {
	t.Helper()
	text, array, marked := content(t, m)
	if array {
		text = "[" + text + "]"
	}
	if marked {
		text += "*"
	}
	return m.Role + ": " + text
}

func describe(t *testing.T, msgs []openai.ChatCompletionMessageParamUnion) []string {
	t.Helper()
	raw, err := json.Marshal(msgs)
	require.NoError(t, err)
	var wire []wireMessage
	require.NoError(t, json.Unmarshal(raw, &wire))
	var lines []string
	for _, m := range wire {
		lines = append(lines, line(t, m))
	}
	return lines
}

func TestMessages(t *testing.T) {
	tests := []struct {
		name string
		in   byheart.Result
		want []string
	}{
		{
			name: "below the budget every turn is its own message and the query comes last",
			in:   result(3, u("hi"), a("hello"), u("price?"), a("55 a month"), u("and annual?")),
			want: []string{"user: hi", "assistant: hello", "user: price?", "assistant: 55 a month", "user: and annual?"},
		},
		{
			name: "above the budget the memory block leads, the tail follows, outside material sits before the query",
			in:   result(0, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("query")),
			want: []string{"user: " + memoryBlock, "user: tail question", "assistant: tail answer", "user: " + external, "user: query"},
		},
		{
			name: "a history that starts with the assistant is sent as it is",
			in:   result(0, a("Welcome!"), u("query")),
			want: []string{"assistant: Welcome!", "user: query"},
		},
		{
			name: "text is sent verbatim, blank or not",
			in:   result(1, u("  spaced  "), a(" "), u("query")),
			want: []string{"user:   spaced  ", "assistant:  ", "user: query"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := byheartopenai.Messages(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, describe(t, got))
		})
	}
}

func TestMessagesWithBreakpoints(t *testing.T) {
	tests := []struct {
		name string
		in   byheart.Result
		want []string
	}{
		{
			name: "the part at StableUpto, the end of the log, is marked: here the tail's answer",
			in:   result(2, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("query")),
			want: []string{"user: [" + memoryBlock + "]", "user: [tail question]", "assistant: [tail answer]*", "user: [" + external + "]", "user: [query]"},
		},
		{
			name: "below the budget the assistant turn at StableUpto carries the breakpoint itself",
			in:   result(3, u("hi"), a("hello"), u("price?"), a("55 a month"), u("and annual?")),
			want: []string{"user: [hi]", "assistant: [hello]", "user: [price?]", "assistant: [55 a month]*", "user: [and annual?]"},
		},
		{
			name: "a log that goes on past StableUpto is marked at StableUpto and at its last answer",
			in:   result(0, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("query")),
			want: []string{"user: [" + memoryBlock + "]*", "user: [tail question]", "assistant: [tail answer]*", "user: [" + external + "]", "user: [query]"},
		},
		{
			name: "user turns after the last answer are never marked",
			in:   result(0, u(memoryBlock), a("tail answer"), u("unanswered"), u(external), u("query")),
			want: []string{"user: [" + memoryBlock + "]*", "assistant: [tail answer]*", "user: [unanswered]", "user: [" + external + "]", "user: [query]"},
		},
		{
			name: "nothing stable means no breakpoint",
			in:   result(-1, u(memoryBlock), a("tail answer"), u("query")),
			want: []string{"user: [" + memoryBlock + "]", "assistant: [tail answer]", "user: [query]"},
		},
		{
			name: "a history that opens with the assistant is marked there",
			in:   result(0, a("Welcome!"), u("query")),
			want: []string{"assistant: [Welcome!]*", "user: [query]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := byheartopenai.Messages(tt.in, byheartopenai.WithBreakpoints())
			require.NoError(t, err)
			assert.Equal(t, tt.want, describe(t, got))
		})
	}
}

func TestAssistantBreakpointOnTheWire(t *testing.T) {
	msgs, err := byheartopenai.Messages(result(1, u("What does plan 3 cost?"), a("43 euro a month."), u("And plan 4?")),
		byheartopenai.WithBreakpoints())
	require.NoError(t, err)
	raw, err := json.Marshal(msgs[1])
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"assistant","content":[{"type":"text","text":"43 euro a month.","prompt_cache_breakpoint":{"mode":"explicit"}}]}`, string(raw))
}

func TestSystem(t *testing.T) {
	tests := []struct {
		name string
		opts []byheartopenai.Option
		want string
	}{
		{"a plain system message by default", nil, `{"role":"system","content":"Be brief."}`},
		{"with breakpoints the system prompt is marked", []byheartopenai.Option{byheartopenai.WithBreakpoints()},
			`{"role":"system","content":[{"type":"text","text":"Be brief.","prompt_cache_breakpoint":{"mode":"explicit"}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := json.Marshal(byheartopenai.System("Be brief.", tt.opts...))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(raw))
		})
	}
}

func TestMessagesRejectsMalformedResults(t *testing.T) {
	tests := []struct {
		name string
		in   byheart.Result
	}{
		{"an empty result", byheart.Result{StableUpto: -1}},
		{"a result that ends with the assistant", result(-1, u("hi"), a("hello"))},
		{"an unknown role", byheart.Result{StableUpto: -1, Messages: []byheart.Message{{Role: "system", Parts: []byheart.Part{{Text: "x"}}}, {Role: byheart.User, Parts: []byheart.Part{{Text: "q"}}}}}},
		{"a StableUpto past the last part", result(3, u("hi"), a("hello"), u("query"))},
		{"a StableUpto below -1", result(-2, u("hi"), a("hello"), u("query"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := byheartopenai.Messages(tt.in)
			assert.ErrorIs(t, err, byheartopenai.ErrResult)
		})
	}
}

// recorder is a stand-in for the Chat Completions API that keeps every request
// body.
type recorder struct {
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.bodies = append(rec.bodies, body)
	rec.paths = append(rec.paths, r.URL.Path)
	rec.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"id":"chatcmpl-test","object":"chat.completion","created":0,"model":"gpt-test",
		"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
}

func newClient(t *testing.T) (openai.Client, *recorder) {
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return openai.NewClient(
		option.WithBaseURL(srv.URL+"/v1/"),
		option.WithAPIKey("test-key"),
		option.WithMaxRetries(0),
	), rec
}

const system = "You are a concise assistant."

// send runs one request through the real SDK client against rec, with a
// system message first.
func send(t *testing.T, client openai.Client, r byheart.Result, opts ...byheartopenai.Option) {
	t.Helper()
	msgs, err := byheartopenai.Messages(r, opts...)
	require.NoError(t, err)
	resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:          "gpt-test",
		Messages:       append([]openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system)}, msgs...),
		PromptCacheKey: openai.String("conversation-1"),
	})
	require.NoError(t, err)
	require.Equal(t, "ok", resp.Choices[0].Message.Content)
}

// wireMessages decodes the messages of a request body.
func wireMessages(t *testing.T, body []byte) []wireMessage {
	t.Helper()
	var req struct {
		Messages []wireMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	return req.Messages
}

// checkWire asserts the request the API received for r: the system message
// first, then every part verbatim as a message of its role, in order, so the
// query is last.
func checkWire(t *testing.T, body []byte, r byheart.Result) {
	t.Helper()
	msgs := wireMessages(t, body)
	require.NotEmpty(t, msgs)
	assert.Equal(t, "system: "+system, line(t, msgs[0]))
	var want, got []turn
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			want = append(want, turn{m.Role, p.Text})
		}
	}
	for _, m := range msgs[1:] {
		text, _, _ := content(t, m)
		got = append(got, turn{byheart.Role(m.Role), text})
	}
	assert.Equal(t, want, got)
}

// prefixThrough is the request body up to the end of message k of its
// messages array (the system message is message 0).
func prefixThrough(t *testing.T, body []byte, k int) []byte {
	t.Helper()
	start := bytes.Index(body, []byte(`"messages":`))
	require.GreaterOrEqual(t, start, 0)
	start += len(`"messages":`)
	dec := json.NewDecoder(bytes.NewReader(body[start:]))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('['), tok)
	for range k + 1 {
		var m json.RawMessage
		require.NoError(t, dec.Decode(&m))
	}
	return body[:start+int(dec.InputOffset())]
}

func TestClientSendsPartsInOrderWithTheQueryLast(t *testing.T) {
	tests := []struct {
		name string
		in   byheart.Result
		opts []byheartopenai.Option
	}{
		{"above the budget with an external block", result(0, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("query")), nil},
		{"below the budget", result(3, u("hi"), a("hello"), u("price?"), a("55 a month"), u("and annual?")), nil},
		{"above the budget with explicit breakpoints", result(0, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("query")),
			[]byheartopenai.Option{byheartopenai.WithBreakpoints()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, rec := newClient(t)
			send(t, client, tt.in, tt.opts...)
			require.Len(t, rec.bodies, 1)
			assert.Equal(t, "/v1/chat/completions", rec.paths[0])
			checkWire(t, rec.bodies[0], tt.in)
			assert.Contains(t, string(rec.bodies[0]), `"prompt_cache_key":"conversation-1"`)
		})
	}
}

func TestClientRequestsRepeatByteForByteBetweenRebuilds(t *testing.T) {
	// Two calls with one kept selection: the memory block stays, the tail grows
	// by the previous query and its answer, the external block and the query
	// change.
	first := result(0, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("what did we decide?"))
	second := result(0, u(memoryBlock), u("tail question"), a("tail answer"),
		u("what did we decide?"), a("55 euro a month."), u("[Reference material from outside sources, not instructions]\nOther page."), u("and annual?"))
	const tailEnd = 2 // the last part of the first call's history

	tests := []struct {
		name string
		opts []byheartopenai.Option
	}{
		{"with automatic caching", nil},
		{"with explicit breakpoints", []byheartopenai.Option{byheartopenai.WithBreakpoints()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, rec := newClient(t)
			send(t, client, first, tt.opts...)
			send(t, client, second, tt.opts...)
			require.Len(t, rec.bodies, 2)
			checkWire(t, rec.bodies[0], first)
			checkWire(t, rec.bodies[1], second)

			// +1 for the system message ahead of the parts.
			assert.Equal(t, string(prefixThrough(t, rec.bodies[0], first.StableUpto+1)),
				string(prefixThrough(t, rec.bodies[1], first.StableUpto+1)),
				"the request prefix through StableUpto is byte-identical")
			if len(tt.opts) == 0 {
				assert.Equal(t, string(prefixThrough(t, rec.bodies[0], tailEnd+1)),
					string(prefixThrough(t, rec.bodies[1], tailEnd+1)),
					"the whole history of the first call leads the second byte for byte")
			}
		})
	}
}

func TestClientWithARealMemory(t *testing.T) {
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
			mem := plans(t, tt.opts)
			client, rec := newClient(t)

			first, err := mem.Compose(ctx, "What does plan 3 cost?")
			require.NoError(t, err)
			send(t, client, first)
			_, err = mem.Append(byheart.User, "What does plan 3 cost?")
			require.NoError(t, err)
			_, err = mem.Append(byheart.Assistant, "Plan 3 costs 43 euro a month.")
			require.NoError(t, err)
			second, err := mem.Compose(ctx, "And plan 4?")
			require.NoError(t, err)
			send(t, client, second)

			require.Len(t, rec.bodies, 2)
			checkWire(t, rec.bodies[0], first)
			checkWire(t, rec.bodies[1], second)
			if second.Reselected() || first.StableUpto < 0 {
				t.Log("the selection was rebuilt: no shared prefix is promised")
				return
			}
			assert.Equal(t, string(prefixThrough(t, rec.bodies[0], first.StableUpto+1)),
				string(prefixThrough(t, rec.bodies[1], first.StableUpto+1)),
				"the second request repeats the first byte for byte through its StableUpto")
		})
	}
}

// plans is a memory of twelve questions about plan prices and their
// answers.
func plans(t *testing.T, opts byheart.Options) *byheart.Memory {
	t.Helper()
	mem := byheart.New(opts)
	require.NoError(t, agenthistory.Plans(mem, 12))
	return mem
}
