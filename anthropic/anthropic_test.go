package byheartanthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/byheart/byheart"
	byheartanthropic "github.com/byheart/byheart/anthropic"
	"github.com/byheart/byheart/internal/agenthistory"
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

// describe renders messages as "role: text | text*" lines, * marking a block
// with cache_control, from their JSON encoding.
func describe(t *testing.T, msgs []anthropic.MessageParam) []string {
	t.Helper()
	raw, err := json.Marshal(msgs)
	require.NoError(t, err)
	var wire []wireMessage
	require.NoError(t, json.Unmarshal(raw, &wire))
	return describeWire(wire)
}

type wireBlock struct {
	Type         string `json:"type"`
	Text         string `json:"text"`
	CacheControl *struct {
		Type string `json:"type"`
		TTL  string `json:"ttl"`
	} `json:"cache_control"`
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

type wireRequest struct {
	System   []wireBlock   `json:"system"`
	Messages []wireMessage `json:"messages"`
}

func describeWire(msgs []wireMessage) []string {
	var lines []string
	for _, m := range msgs {
		var texts []string
		for _, b := range m.Content {
			text := b.Text
			if b.CacheControl != nil {
				text += "*"
			}
			texts = append(texts, text)
		}
		lines = append(lines, m.Role+": "+strings.Join(texts, " | "))
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
			name: "below the budget every turn is native and the last one before the query is the breakpoint",
			in:   result(3, u("hi"), a("hello"), u("price?"), a("55 a month"), u("and annual?")),
			want: []string{"user: hi", "assistant: hello", "user: price?", "assistant: 55 a month*", "user: and annual?"},
		},
		{
			name: "above the budget the memory block and the end of the growing tail are the breakpoints",
			in:   result(0, u(memoryBlock), a("tail answer"), u("tail question"), a("tail answer 2"), u("query")),
			want: []string{"user: " + memoryBlock + "*", "assistant: tail answer", "user: tail question", "assistant: tail answer 2*", "user: query"},
		},
		{
			name: "the external block and the query share the last user message and neither is marked",
			in:   result(0, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("query")),
			want: []string{"user: " + memoryBlock + "* | tail question", "assistant: tail answer*", "user: " + external + " | query"},
		},
		{
			name: "user turns after the last answer stay unmarked so the external block can never be",
			in:   result(0, u(memoryBlock), a("tail answer"), u("unanswered"), u(external), u("query")),
			want: []string{"user: " + memoryBlock + "*", "assistant: tail answer*", "user: unanswered | " + external + " | query"},
		},
		{
			name: "a memory block with no tail gets a single breakpoint",
			in:   result(0, u(memoryBlock), u(external), u("query")),
			want: []string{"user: " + memoryBlock + "* | " + external + " | query"},
		},
		{
			name: "a StableUpto at the end of the tail gives a single breakpoint",
			in:   result(2, u(memoryBlock), u("tail question"), a("tail answer"), u("query")),
			want: []string{"user: " + memoryBlock + " | tail question", "assistant: tail answer*", "user: query"},
		},
		{
			name: "nothing stable means no breakpoint at all",
			in:   result(-1, u(memoryBlock), a("tail answer"), u("query")),
			want: []string{"user: " + memoryBlock, "assistant: tail answer", "user: query"},
		},
		{
			name: "a first-time query is sent alone",
			in:   result(-1, u("query")),
			want: []string{"user: query"},
		},
		{
			name: "a history that starts with the assistant is opened by a user message",
			in:   result(1, a("Welcome! How can I help?"), u("hi"), u("query")),
			want: []string{"user: " + byheartanthropic.Opening, "assistant: Welcome! How can I help?", "user: hi* | query"},
		},
		{
			name: "consecutive messages of one role are merged into one message",
			in: byheart.Result{StableUpto: 1, Messages: []byheart.Message{
				{Role: byheart.User, Parts: []byheart.Part{{Text: "one"}}},
				{Role: byheart.User, Parts: []byheart.Part{{Text: "two"}}},
				{Role: byheart.User, Parts: []byheart.Part{{Text: "query"}}},
			}},
			want: []string{"user: one | two* | query"},
		},
		{
			name: "blank parts are left out and a breakpoint on one moves back to the part before",
			in:   result(2, u("hi"), a("hello"), u("  \n"), u("query")),
			want: []string{"user: hi", "assistant: hello*", "user: query"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := byheartanthropic.Messages(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, describe(t, got))
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
		{"a blank query", result(0, u("hi"), a("hello"), u(" "))},
		{"an unknown role", byheart.Result{StableUpto: -1, Messages: []byheart.Message{{Role: "system", Parts: []byheart.Part{{Text: "x"}}}, {Role: byheart.User, Parts: []byheart.Part{{Text: "q"}}}}}},
		{"a StableUpto past the last part", result(3, u("hi"), a("hello"), u("query"))},
		{"a StableUpto below -1", result(-2, u("hi"), a("hello"), u("query"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := byheartanthropic.Messages(tt.in)
			assert.ErrorIs(t, err, byheartanthropic.ErrResult)
		})
	}
}

func TestSystem(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		opts    []byheartanthropic.Option
		want    string
		wantNil bool
	}{
		{name: "no system prompt gives no system field", text: "", wantNil: true},
		{name: "a system prompt is one cacheable block", text: "Be brief.", want: `[{"text":"Be brief.","cache_control":{"type":"ephemeral"},"type":"text"}]`},
		{name: "WithTTL sets the lifetime of the system breakpoint", text: "Be brief.", opts: []byheartanthropic.Option{byheartanthropic.WithTTL(anthropic.CacheControlEphemeralTTLTTL1h)},
			want: `[{"text":"Be brief.","cache_control":{"ttl":"1h","type":"ephemeral"},"type":"text"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := byheartanthropic.System(tt.text, tt.opts...)
			if tt.wantNil {
				assert.Nil(t, got)
				return
			}
			raw, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(raw))
		})
	}
}

func TestWithTTLAppliesToEveryMessageBreakpoint(t *testing.T) {
	msgs, err := byheartanthropic.Messages(result(0, u(memoryBlock), a("tail answer"), u("query")),
		byheartanthropic.WithTTL(anthropic.CacheControlEphemeralTTLTTL1h))
	require.NoError(t, err)
	raw, err := json.Marshal(msgs)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(raw), `"cache_control":{"ttl":"1h","type":"ephemeral"}`))
}

// recorder is a stand-in for the Messages API that keeps every request body.
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
	fmt.Fprint(w, `{"id":"msg_test","type":"message","role":"assistant","model":"claude-test",
		"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,
		"usage":{"input_tokens":1,"output_tokens":1}}`)
}

// send runs one request through the real SDK client against rec.
func send(t *testing.T, client anthropic.Client, system string, r byheart.Result) {
	t.Helper()
	msgs, err := byheartanthropic.Messages(r)
	require.NoError(t, err)
	resp, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 256,
		System:    byheartanthropic.System(system),
		Messages:  msgs,
	})
	require.NoError(t, err)
	require.Equal(t, "ok", resp.Content[0].Text)
}

func newClient(t *testing.T) (anthropic.Client, *recorder) {
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return anthropic.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(srv.URL),
		option.WithAPIKey("test-key"),
		option.WithMaxRetries(0),
	), rec
}

func decode(t *testing.T, body []byte) wireRequest {
	t.Helper()
	var w wireRequest
	require.NoError(t, json.Unmarshal(body, &w))
	return w
}

// flatParts lists a Result's parts in order, as StableUpto counts them.
func flatParts(r byheart.Result) []turn {
	var out []turn
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			out = append(out, turn{m.Role, p.Text})
		}
	}
	return out
}

// checkWire asserts the request the API received for r: system first and
// cached, roles alternating from the user, the query last, and cache_control on
// exactly the blocks of StableUpto and of the last assistant part after it.
func checkWire(t *testing.T, w wireRequest, system string, r byheart.Result) {
	t.Helper()
	breakpoints := 0
	if system != "" {
		require.Len(t, w.System, 1)
		assert.Equal(t, system, w.System[0].Text)
		assert.NotNil(t, w.System[0].CacheControl, "the system prompt is cacheable")
		breakpoints++
	}

	require.NotEmpty(t, w.Messages)
	assert.Equal(t, "user", w.Messages[0].Role, "the first message is the user's")
	for i := 1; i < len(w.Messages); i++ {
		assert.NotEqual(t, w.Messages[i-1].Role, w.Messages[i].Role, "roles alternate at message %d", i)
	}
	parts := flatParts(r)
	last := w.Messages[len(w.Messages)-1]
	assert.Equal(t, "user", last.Role)
	assert.Equal(t, parts[len(parts)-1].text, last.Content[len(last.Content)-1].Text, "the query is the last block")

	var sent []turn
	var marked []int
	for _, m := range w.Messages {
		for _, b := range m.Content {
			require.Equal(t, "text", b.Type)
			if b.CacheControl != nil {
				assert.Equal(t, "ephemeral", b.CacheControl.Type)
				marked = append(marked, len(sent))
			}
			sent = append(sent, turn{byheart.Role(m.Role), b.Text})
		}
	}
	if parts[0].role == byheart.Assistant {
		require.Equal(t, byheartanthropic.Opening, sent[0].text)
		sent = sent[1:]
		for i := range marked {
			marked[i]--
		}
	}
	assert.Equal(t, parts, sent, "every part is sent verbatim, in order")

	if r.StableUpto < 0 {
		assert.Empty(t, marked, "nothing repeats, so nothing is marked")
		return
	}
	end := r.StableUpto
	for i := len(parts) - 2; i > r.StableUpto; i-- {
		if parts[i].role == byheart.Assistant {
			end = i
			break
		}
	}
	require.NotEmpty(t, marked)
	assert.LessOrEqual(t, len(marked), 2, "at most two breakpoints in the messages")
	assert.Equal(t, end, marked[len(marked)-1], "the last breakpoint is on the end of the log")
	if end != r.StableUpto {
		assert.Contains(t, marked, r.StableUpto, "StableUpto is marked when the log goes on past it")
	}
	assert.LessOrEqual(t, breakpoints+len(marked), 4, "the API accepts at most four breakpoints")
}

// breakpointMarker is how the SDK encodes a default breakpoint after a block's
// text.
var breakpointMarker = []byte(`,"cache_control":{"type":"ephemeral"}`)

// firstMessageBreakpoint is the offset of the first breakpoint marker in the
// messages of a request body.
func firstMessageBreakpoint(t *testing.T, body []byte) int {
	t.Helper()
	start := bytes.Index(body, []byte(`"messages":`))
	require.GreaterOrEqual(t, start, 0)
	i := bytes.Index(body[start:], breakpointMarker)
	require.GreaterOrEqual(t, i, 0, "the messages carry a breakpoint")
	return start + i
}

// prefixBeforeFirstBreakpoint is the request body up to the text of the block
// that carries the first breakpoint in the messages, the marker left out: the
// bytes that must repeat for the cache entry to be read, wherever the next
// call puts its own marker.
func prefixBeforeFirstBreakpoint(t *testing.T, body []byte) []byte {
	return body[:firstMessageBreakpoint(t, body)]
}

// prefixThroughFirstBreakpoint is the request body up to and including the
// first breakpoint marker in the messages.
func prefixThroughFirstBreakpoint(t *testing.T, body []byte) []byte {
	return body[:firstMessageBreakpoint(t, body)+len(breakpointMarker)]
}

func TestClientSendsBreakpointsWhereStableUptoSays(t *testing.T) {
	tests := []struct {
		name   string
		system string
		in     byheart.Result
	}{
		{"above the budget with an external block", "You are a helpful assistant.",
			result(0, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("query"))},
		{"above the budget without a system prompt", "",
			result(0, u(memoryBlock), a("tail answer"), u("query"))},
		{"below the budget", "Be brief.",
			result(3, u("hi"), a("hello"), u("price?"), a("55 a month"), u("and annual?"))},
		{"below the budget starting with the assistant", "Be brief.",
			result(0, a("Welcome!"), u("query"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, rec := newClient(t)
			send(t, client, tt.system, tt.in)
			require.Len(t, rec.bodies, 1)
			assert.Equal(t, "/v1/messages", rec.paths[0])
			checkWire(t, decode(t, rec.bodies[0]), tt.system, tt.in)
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

	client, rec := newClient(t)
	send(t, client, "Be brief.", first)
	send(t, client, "Be brief.", second)
	require.Len(t, rec.bodies, 2)

	p1 := prefixThroughFirstBreakpoint(t, rec.bodies[0])
	p2 := prefixThroughFirstBreakpoint(t, rec.bodies[1])
	assert.Equal(t, string(p1), string(p2), "the request prefix through the StableUpto breakpoint is byte-identical")

	// The second call extends what the first cached at its tail breakpoint:
	// every block up to it comes back with the same role and text.
	w1, w2 := decode(t, rec.bodies[0]), decode(t, rec.bodies[1])
	checkWire(t, w1, "Be brief.", first)
	checkWire(t, w2, "Be brief.", second)
	assert.Equal(t, blocksThroughLastBreakpoint(w1), blocksSent(w2)[:len(blocksThroughLastBreakpoint(w1))])
}

func blocksSent(w wireRequest) []turn {
	var out []turn
	for _, m := range w.Messages {
		for _, b := range m.Content {
			out = append(out, turn{byheart.Role(m.Role), b.Text})
		}
	}
	return out
}

func blocksThroughLastBreakpoint(w wireRequest) []turn {
	var out []turn
	end := 0
	for _, m := range w.Messages {
		for _, b := range m.Content {
			out = append(out, turn{byheart.Role(m.Role), b.Text})
			if b.CacheControl != nil {
				end = len(out)
			}
		}
	}
	return out[:end]
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
			send(t, client, "Be brief.", first)
			_, err = mem.Append(byheart.User, "What does plan 3 cost?")
			require.NoError(t, err)
			_, err = mem.Append(byheart.Assistant, "Plan 3 costs 43 euro a month.")
			require.NoError(t, err)
			second, err := mem.Compose(ctx, "And plan 4?")
			require.NoError(t, err)
			send(t, client, "Be brief.", second)

			require.Len(t, rec.bodies, 2)
			checkWire(t, decode(t, rec.bodies[0]), "Be brief.", first)
			checkWire(t, decode(t, rec.bodies[1]), "Be brief.", second)
			if second.Reselected() || first.StableUpto < 0 {
				t.Log("the selection was rebuilt: no shared prefix is promised")
				return
			}
			assert.True(t, bytes.HasPrefix(rec.bodies[1], prefixBeforeFirstBreakpoint(t, rec.bodies[0])),
				"the second request repeats the first byte for byte up to its StableUpto breakpoint")
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
