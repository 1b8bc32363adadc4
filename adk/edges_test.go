package byheartadk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"

	"github.com/byheart/byheart"
	byheartadk "github.com/byheart/byheart/adk"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/sqlite"
)

// scripted is an in-process model.LLM that records every request and
// answers a user message that asks for them with the function calls calls
// makes, and anything else with a short reply.
type scripted struct {
	calls func(n int) []*genai.Part

	mu       sync.Mutex
	requests []*model.LLMRequest
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := json.Marshal(req.Contents)
	var copied model.LLMRequest
	if err == nil {
		err = json.Unmarshal(data, &copied.Contents)
	}
	s.requests = append(s.requests, &copied)
	reply := genai.NewContentFromText(fmt.Sprintf("Reply %d.", len(s.requests)), genai.RoleModel)
	last := req.Contents[len(req.Contents)-1]
	if s.calls != nil && last.Role == genai.RoleUser && last.Parts[0].FunctionResponse == nil && strings.Contains(text(last), "tools") {
		reply = &genai.Content{Role: genai.RoleModel, Parts: s.calls(len(s.requests))}
	}
	return func(yield func(*model.LLMResponse, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		yield(&model.LLMResponse{Content: reply, TurnComplete: true}, nil)
	}
}

func text(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// serve runs one message of user in session through an agent with the
// plugin of cfg and the tools given, and returns the run's first error.
func serve(t *testing.T, cfg byheartadk.Config, llm model.LLM, tools []tool.Tool, user, sessionID string, msg *genai.Content) error {
	t.Helper()
	a, err := llmagent.New(llmagent.Config{Name: "helper", Model: llm, Tools: tools})
	require.NoError(t, err)
	r, err := runner.New(runner.Config{AppName: "app", Agent: a, SessionService: session.InMemoryService(), AutoCreateSession: true,
		PluginConfig: runner.PluginConfig{Plugins: []*plugin.Plugin{byheartadk.Plugin(cfg)}}})
	require.NoError(t, err)
	for _, err := range r.Run(context.Background(), user, sessionID, msg, agent.RunConfig{}) {
		if err != nil {
			return err
		}
	}
	return nil
}

// png is a few bytes that stand for an image: the adapter never reads them.
var png = &genai.Part{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n a photo of the fence")}}

// inline lists the inline data of a request's parts, each with its
// content's role and its place among that content's parts.
func inline(req *model.LLMRequest) []string {
	var out []string
	for i, c := range req.Contents {
		for j, p := range c.Parts {
			if p.InlineData != nil {
				out = append(out, fmt.Sprintf("%s %d/%d %s %q", c.Role, i, j, p.InlineData.MIMEType, p.InlineData.Data))
			}
		}
	}
	return out
}

func TestAnImageTheUserSendsStaysInTheRequest(t *testing.T) {
	sessions := session.InMemoryService()
	weather := func(int) []*genai.Part {
		return []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "get_weather", Args: map[string]any{"city": "Paris"}}}}
	}
	llm := &scripted{calls: weather}
	memories := byheartadk.New(byheartadk.Config{})
	a, err := llmagent.New(llmagent.Config{Name: "helper", Model: llm, Tools: tools(t)})
	require.NoError(t, err)
	r, err := runner.New(runner.Config{AppName: "app", Agent: a, SessionService: sessions, AutoCreateSession: true,
		PluginConfig: runner.PluginConfig{Plugins: []*plugin.Plugin{memories.Plugin()}}})
	require.NoError(t, err)
	send := func(parts ...*genai.Part) *model.LLMRequest {
		t.Helper()
		before := len(llm.requests)
		for _, err := range r.Run(context.Background(), "u1", "s1", &genai.Content{Role: genai.RoleUser, Parts: parts}, agent.RunConfig{}) {
			require.NoError(t, err)
		}
		require.Greater(t, len(llm.requests), before)
		return llm.requests[len(llm.requests)-1]
	}
	want := fmt.Sprintf("%q", png.InlineData.Data)

	send(genai.NewPartFromText("We are repainting the fence this weekend."))
	req := send(png) // an image alone
	last := req.Contents[len(req.Contents)-1]
	assert.Equal(t, genai.RoleUser, last.Role, "the request ends with the user's message")
	require.Len(t, inline(req), 1)
	assert.Equal(t, []*genai.Part{png}, last.Parts[len(last.Parts)-1:], "the image, as ADK gave it, is the last part")

	// With text, and through a tool step: every model call of the
	// invocation carries the image where the user put it.
	before := len(llm.requests)
	send(genai.NewPartFromText("Which colour, given this photo? Use the tools."), png)
	require.Equal(t, before+2, len(llm.requests), "a call for the tools, one for their response")
	for _, req := range llm.requests[before:] {
		got := inline(req)
		require.Len(t, got, 1, "the current image only: the earlier one is described")
		assert.Contains(t, got[0], want)
		first := req.Contents[len(req.Contents)-1]
		if first.Parts[0].FunctionResponse != nil {
			first = req.Contents[len(req.Contents)-3]
		}
		require.Len(t, first.Parts, 2)
		assert.Equal(t, "Which colour, given this photo? Use the tools.", first.Parts[0].Text)
		assert.Equal(t, png, first.Parts[1])
	}

	req = send(genai.NewPartFromText("Thanks."))
	assert.Empty(t, inline(req), "an earlier image is described, not sent again")
	var all []string
	for _, c := range req.Contents {
		all = append(all, text(c))
	}
	described := fmt.Sprintf("[image/png attachment, %d bytes, not kept]", len(png.InlineData.Data))
	assert.Contains(t, strings.Join(all, "\n"), described, "described where it was")
	require.NoError(t, memories.Do(context.Background(), "app", "u1", "s1", func(mem *byheart.Memory) error {
		turn, err := mem.Turn(2)
		require.NoError(t, err)
		assert.Equal(t, byheart.Turn{Role: byheart.User, Text: described, Time: turn.Time}, turn)
		return nil
	}))
}

func TestAnImageStaysBesideTextThatNamesADate(t *testing.T) {
	llm := &scripted{}
	msg := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{png, genai.NewPartFromText("Can we paint it this weekend?")}}
	require.NoError(t, serve(t, byheartadk.Config{}, llm, nil, "u1", "s1", msg))
	req := llm.requests[len(llm.requests)-1]
	last := req.Contents[len(req.Contents)-1]
	require.Len(t, last.Parts, 2)
	assert.Equal(t, png, last.Parts[0], "the image, as ADK gave it, though byheart resolves the date in the text after it")
	assert.Contains(t, last.Parts[1].Text, "this weekend")
}

func TestCallsSharingAnIdAreEachAnswered(t *testing.T) {
	twins := func(int) []*genai.Part {
		return []*genai.Part{
			{FunctionCall: &genai.FunctionCall{ID: "call_1", Name: "get_weather", Args: map[string]any{"city": "Paris", "day": 1}}},
			{FunctionCall: &genai.FunctionCall{ID: "call_1", Name: "get_weather", Args: map[string]any{"city": "Rome", "day": 1}}},
			{FunctionCall: &genai.FunctionCall{ID: "call_1", Name: "fetch_page", Args: map[string]any{"url": "https://example.com"}}},
			{FunctionCall: &genai.FunctionCall{ID: "call\t1", Name: "get_weather", Args: map[string]any{"city": "Oslo", "day": 1}}},
		}
	}
	llm := &scripted{calls: twins}
	cfg := byheartadk.Config{}
	require.NoError(t, serve(t, cfg, llm, tools(t), "u1", "s1", genai.NewContentFromText("Weather in two cities? Use the tools.", genai.RoleUser)))
	require.Len(t, llm.requests, 2)
	req := llm.requests[1]
	n := len(req.Contents)
	require.GreaterOrEqual(t, n, 2)
	calls, responses := req.Contents[n-2], req.Contents[n-1]
	require.Len(t, calls.Parts, 4)
	require.Len(t, responses.Parts, 4)
	ids := map[string]bool{}
	for i := range 4 {
		call, resp := calls.Parts[i].FunctionCall, responses.Parts[i].FunctionResponse
		require.NotNil(t, call)
		require.NotNil(t, resp)
		assert.Equal(t, call.ID, resp.ID, "response %d answers call %d", i, i)
		assert.Equal(t, call.Name, resp.Name)
		ids[call.ID] = true
	}
	assert.Len(t, ids, 4, "ids are unique in the request")
	assert.Contains(t, fmt.Sprint(responses.Parts[0].FunctionResponse.Response), "Paris")
	assert.Contains(t, fmt.Sprint(responses.Parts[1].FunctionResponse.Response), "Rome")
	assert.Contains(t, fmt.Sprint(responses.Parts[3].FunctionResponse.Response), "Oslo")
	assert.Equal(t, `call\t1`, calls.Parts[3].FunctionCall.ID, "an id byheart refuses is escaped")
}

func TestAStoreTakesEveryIdADKAccepts(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "conversations.db"), sqlite.Options{})
	require.NoError(t, err)
	defer st.Close()
	long := strings.Repeat("u", 300)
	for _, tc := range []struct{ name, user, session string }{
		{"a user of 300 bytes", long, "s1"},
		{"a user that differs from it after byte 256", long[:299] + "v", "s1"},
		{"a session id with a newline", "u1", "s\n1"},
		{"a session id with a tab", "u1", "s\t1"},
		{"a session id with invalid UTF-8", "u1", "s\xff1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			llm := &scripted{}
			cfg := byheartadk.Config{Store: st}
			say := "The code word for " + tc.name + " is walnut."
			require.NoError(t, serve(t, cfg, llm, nil, tc.user, tc.session, genai.NewContentFromText(say, genai.RoleUser)))
			require.NoError(t, serve(t, cfg, llm, nil, tc.user, tc.session, genai.NewContentFromText("And the code word?", genai.RoleUser)))
			all := strings.Join(flat(llm.requests[1].Contents), "\n")
			assert.Contains(t, all, say, "the earlier run, from the store")
			assert.Equal(t, 1, strings.Count(all, "is walnut"), "no other scope's words")
		})
	}
}

func TestAResponseOverWhatTheStoreTakesIsClipped(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "conversations.db"), sqlite.Options{})
	require.NoError(t, err)
	defer st.Close()
	huge, err := functiontool.New(functiontool.Config{Name: "dump", Description: "a large document"},
		func(_ agent.Context, _ struct{}) (map[string]any, error) {
			return map[string]any{"body": "start " + strings.Repeat("é", store.MaxTurn)}, nil
		})
	require.NoError(t, err)
	llm := &scripted{calls: func(int) []*genai.Part {
		return []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "dump", Args: map[string]any{}}}}
	}}
	memories := byheartadk.New(byheartadk.Config{Store: st})
	a, err := llmagent.New(llmagent.Config{Name: "helper", Model: llm, Tools: []tool.Tool{huge}})
	require.NoError(t, err)
	r, err := runner.New(runner.Config{AppName: "app", Agent: a, SessionService: session.InMemoryService(), AutoCreateSession: true,
		PluginConfig: runner.PluginConfig{Plugins: []*plugin.Plugin{memories.Plugin()}}})
	require.NoError(t, err)
	for _, err := range r.Run(ctx, "u1", "s1", genai.NewContentFromText("Fetch the document with the tools.", genai.RoleUser), agent.RunConfig{}) {
		require.NoError(t, err)
	}
	require.NoError(t, memories.Do(ctx, "app", "u1", "s1", func(mem *byheart.Memory) error {
		var found bool
		for i := range mem.Len() {
			turn, err := mem.Turn(i)
			require.NoError(t, err)
			if turn.Role == byheart.ToolResult {
				found = true
				assert.LessOrEqual(t, len(turn.Text)+len(turn.Tool)+len(turn.CallID)+len(turn.Source.Name), store.MaxTurn)
				assert.True(t, strings.HasPrefix(turn.Text, `{"body":"start éé`), "its start is kept")
				assert.True(t, strings.HasSuffix(turn.Text, "é […]"), "ending with the mark the core clips with, on a character")
			}
		}
		assert.True(t, found)
		return nil
	}))
	assert.True(t, bytes.Contains([]byte(strings.Join(flat(llm.requests[len(llm.requests)-1].Contents), "")), []byte("start")))
}
