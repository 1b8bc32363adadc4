package byheartopenai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agenthistory"
	byheartopenai "github.com/byheart/byheart/openai"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// describeInput renders input items as "role: text" lines, [text] for a
// list of content parts and * after a part that carries a breakpoint.
func describeInput(t *testing.T, items responses.ResponseInputParam) []string {
	t.Helper()
	raw, err := json.Marshal(items)
	require.NoError(t, err)
	return describeInputJSON(t, raw)
}

// describeInputJSON is describeInput for the items as sent.
func describeInputJSON(t *testing.T, raw []byte) []string {
	t.Helper()
	var wire []wireMessage
	require.NoError(t, json.Unmarshal(raw, &wire))
	var lines []string
	for _, m := range wire {
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			lines = append(lines, m.Role+": "+text)
			continue
		}
		var parts []wirePart
		require.NoError(t, json.Unmarshal(m.Content, &parts))
		require.Len(t, parts, 1)
		require.Equal(t, "input_text", parts[0].Type)
		line := m.Role + ": [" + parts[0].Text + "]"
		if parts[0].Breakpoint != nil {
			require.Equal(t, "explicit", parts[0].Breakpoint.Mode)
			line += "*"
		}
		lines = append(lines, line)
	}
	return lines
}

func TestInput(t *testing.T) {
	tests := []struct {
		name string
		in   byheart.Result
		opts []byheartopenai.Option
		want []string
	}{
		{
			name: "each part is a message item of its role, in order, the query last",
			in:   result(2, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("query")),
			want: []string{"user: " + memoryBlock, "user: tail question", "assistant: tail answer", "user: " + external, "user: query"},
		},
		{
			name: "with breakpoints a breakpoint due on an answer goes on the user part before it",
			in:   result(3, u("hi"), a("hello"), u("price?"), a("55 a month"), u("and annual?")),
			opts: []byheartopenai.Option{byheartopenai.WithBreakpoints()},
			want: []string{"user: [hi]", "assistant: hello", "user: [price?]*", "assistant: 55 a month", "user: [and annual?]"},
		},
		{
			name: "with breakpoints a log past StableUpto is marked at StableUpto and before its last answer",
			in:   result(0, u(memoryBlock), u("tail question"), a("tail answer"), u(external), u("query")),
			opts: []byheartopenai.Option{byheartopenai.WithBreakpoints()},
			want: []string{"user: [" + memoryBlock + "]*", "user: [tail question]*", "assistant: tail answer", "user: [" + external + "]", "user: [query]"},
		},
		{
			name: "an answer with no user part before it has no breakpoint to move",
			in:   result(0, a("Welcome!"), u("query")),
			opts: []byheartopenai.Option{byheartopenai.WithBreakpoints()},
			want: []string{"assistant: Welcome!", "user: [query]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := byheartopenai.Input(tt.in, tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, describeInput(t, got))
		})
	}
}

func TestInputRejectsMalformedResults(t *testing.T) {
	_, err := byheartopenai.Input(result(3, u("hi"), a("hello"), u("query")))
	assert.ErrorIs(t, err, byheartopenai.ErrResult)
	_, err = byheartopenai.Input(byheart.Result{StableUpto: -1})
	assert.ErrorIs(t, err, byheartopenai.ErrResult)
}

func TestInputSystem(t *testing.T) {
	assert.Equal(t, []string{"system: Be brief."}, describeInput(t, responses.ResponseInputParam{byheartopenai.InputSystem("Be brief.")}))
	assert.Equal(t, []string{"system: [Be brief.]*"},
		describeInput(t, responses.ResponseInputParam{byheartopenai.InputSystem("Be brief.", byheartopenai.WithBreakpoints())}))
}

// responsesServer stands in for the Responses API, keeping every request
// body.
func responsesServer(t *testing.T) (openai.Client, *[][]byte) {
	t.Helper()
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		bodies = append(bodies, body)
		assert.Equal(t, "/v1/responses", r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"resp_test","object":"response","created_at":0,"model":"gpt-test","status":"completed",
			"output":[{"type":"message","id":"msg_test","role":"assistant","status":"completed",
			"content":[{"type":"output_text","text":"ok","annotations":[]}]}]}`)
	}))
	t.Cleanup(srv.Close)
	return openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("test-key"), option.WithMaxRetries(0)), &bodies
}

func TestResponsesThroughTheClientRepeatTheirPrefix(t *testing.T) {
	ctx := context.Background()
	opts := byheart.Options{Budget: 1500, Chunk: 200}
	mem := byheart.New(opts)
	require.NoError(t, agenthistory.Plans(mem, 20))
	client, bodies := responsesServer(t)
	ask := func(q string) byheart.Result {
		res, err := mem.Compose(ctx, q)
		require.NoError(t, err)
		items, err := byheartopenai.Input(res, byheartopenai.WithBreakpoints())
		require.NoError(t, err)
		resp, err := client.Responses.New(ctx, responses.ResponseNewParams{
			Model:          "gpt-test",
			Input:          responses.ResponseNewParamsInputUnion{OfInputItemList: append(responses.ResponseInputParam{byheartopenai.InputSystem(system)}, items...)},
			PromptCacheKey: openai.String("conversation-1"),
		})
		require.NoError(t, err)
		require.Equal(t, "ok", resp.OutputText())
		_, err = mem.Append(byheart.User, q)
		require.NoError(t, err)
		_, err = mem.Append(byheart.Assistant, resp.OutputText())
		require.NoError(t, err)
		return res
	}
	first := ask("What does plan 3 cost?")
	second := ask("And plan 4?")

	require.Len(t, *bodies, 2)
	var req struct {
		Input json.RawMessage `json:"input"`
	}
	require.NoError(t, json.Unmarshal((*bodies)[0], &req))
	sent := describeInputJSON(t, req.Input)
	require.Len(t, sent, 1+len(flatParts(first)), "the system item, then one item per part")
	assert.Equal(t, "system: "+system, sent[0])
	assert.True(t, strings.HasSuffix(sent[len(sent)-1], "What does plan 3 cost?]"), "the query is last")
	if second.Reselected() || first.StableUpto < 0 {
		t.Log("the selection was rebuilt: no shared prefix is promised")
		return
	}
	cut := strings.Index(string((*bodies)[0]), `"prompt_cache_breakpoint"`)
	require.Greater(t, cut, 0, "the first request carries a breakpoint")
	assert.Equal(t, string((*bodies)[0][:cut]), string((*bodies)[1][:cut]), "the second request repeats the first up to its breakpoint")
}

// flatParts lists a Result's parts in order.
func flatParts(r byheart.Result) []string {
	var out []string
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			out = append(out, p.Text)
		}
	}
	return out
}
