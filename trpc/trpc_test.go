package byhearttrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/byheart/byheart"
	byhearttrpc "github.com/byheart/byheart/trpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"trpc.group/trpc-go/trpc-agent-go/model"
	"trpc.group/trpc-go/trpc-agent-go/runner"
	"trpc.group/trpc-go/trpc-agent-go/tool"
	"trpc.group/trpc-go/trpc-agent-go/tool/function"
)

// recorder is an in-process model that keeps every request as the model
// gets it. A user message that asks about the weather gets a call of the
// weather tool (two cities: two calls at once), one that asks for tools
// the calls calls holds, when it holds any; anything else a text reply.
type recorder struct {
	calls []model.ToolCall

	mu       sync.Mutex
	requests [][]model.Message
}

func (r *recorder) Info() model.Info { return model.Info{Name: "recorder"} }

func (r *recorder) GenerateContent(_ context.Context, req *model.Request) (<-chan *model.Response, error) {
	r.mu.Lock()
	n := len(r.requests)
	r.requests = append(r.requests, clone(req.Messages))
	r.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	reply := model.NewAssistantMessage(fmt.Sprintf("Reply %d: noted, and the plan stays as agreed.", n))
	switch {
	case last.Role != model.RoleUser:
	case r.calls != nil && strings.Contains(flat([]model.Message{last}), "tools"):
		reply = model.Message{Role: model.RoleAssistant, ToolCalls: r.calls}
	case strings.Contains(last.Content, "weather"):
		reply = model.Message{Role: model.RoleAssistant}
		for i, city := range []string{"Paris", "Lyon"} {
			reply.ToolCalls = append(reply.ToolCalls, model.ToolCall{Type: "function", ID: fmt.Sprintf("call_%d_%d", n, i),
				Function: model.FunctionDefinitionParam{Name: "weather", Arguments: []byte(fmt.Sprintf(`{"city":%q}`, city))}})
		}
	}
	ch := make(chan *model.Response, 1)
	ch <- &model.Response{Object: model.ObjectTypeChatCompletion, Done: true, Choices: []model.Choice{{Message: reply}}}
	close(ch)
	return ch, nil
}

func (r *recorder) all() [][]model.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

func clone(msgs []model.Message) []model.Message {
	raw, _ := json.Marshal(msgs)
	var out []model.Message
	_ = json.Unmarshal(raw, &out)
	return out
}

type weatherIn struct {
	City string `json:"city"`
}

func weatherTool() tool.Tool {
	return function.NewFunctionTool(func(_ context.Context, in weatherIn) (string, error) {
		return "Sunny in " + in.City + ", 21 degrees.", nil
	}, function.WithName("weather"), function.WithDescription("the weather in a city"))
}

// composition is what the plugin told Composed of one request.
type composition struct {
	res    byheart.Result
	sent   []model.Message
	stable int
}

// harness is a runner with the plugin, an LLM agent with the weather tool
// and the recording model, and what the plugin composed.
type harness struct {
	runner   runner.Runner
	plugin   *byhearttrpc.Plugin
	model    *recorder
	mu       sync.Mutex
	composed []composition
}

const instruction = "You are a concise assistant."

func newHarness(t *testing.T, opts byheart.Options) *harness {
	t.Helper()
	h := &harness{model: &recorder{}}
	h.plugin = byhearttrpc.New(byhearttrpc.Config{Options: opts, Composed: func(_ context.Context, res byheart.Result, req *model.Request, stable int) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.composed = append(h.composed, composition{res, clone(req.Messages), stable})
	}})
	h.runner = runnerWith(t, h.model, h.plugin)
	return h
}

// say runs one user message to the end of the run.
func (h *harness) say(t *testing.T, user, sessionID, text string) {
	t.Helper()
	send(t, h.runner, user, sessionID, model.NewUserMessage(text))
}

// send runs msg through r to the end of the run and fails t on any error
// of it.
func send(t *testing.T, r runner.Runner, user, sessionID string, msg model.Message) {
	t.Helper()
	events, err := r.Run(context.Background(), user, sessionID, msg)
	require.NoError(t, err)
	for ev := range events {
		if ev.Response != nil && ev.Response.Error != nil {
			t.Fatalf("run failed: %s", ev.Response.Error.Message)
		}
	}
}

// chat is a conversation with a tool step every fourth message.
func chat(h *harness, t *testing.T, user, sessionID string, n int) {
	for i := range n {
		text := fmt.Sprintf("Message %d about the garden, the roses and the new pergola we are building.", i)
		if i%4 == 3 {
			text = fmt.Sprintf("Message %d: what is the weather where we are going?", i)
		}
		h.say(t, user, sessionID, text)
	}
}

func TestEveryModelRequestIsComposedFromByheart(t *testing.T) {
	const budget = 2500
	h := newHarness(t, byheart.Options{Budget: budget, Chunk: 400})
	chat(h, t, "u1", "s1", 24)
	requests := h.model.all()
	require.Len(t, h.composed, len(requests), "every model request went through byheart")
	rebuilt := 0
	for i, req := range requests {
		c := h.composed[i]
		require.Equal(t, model.RoleSystem, req[0].Role, "the agent's system message stays first")
		assert.Contains(t, req[0].Content, instruction)
		want, stable := byhearttrpc.Messages(c.res)
		assert.Equal(t, clone(want), req[1:], "request %d is byheart's composition", i)
		if stable >= 0 {
			assert.Equal(t, stable+1, c.stable, "the breakpoint is counted in the request")
		}
		checkCallsAnswered(t, req)
		last := req[len(req)-1]
		assert.Contains(t, []model.Role{model.RoleUser, model.RoleTool}, last.Role, "the query or the tools' responses come last")
		chars := 0
		for _, m := range c.res.Messages[:len(c.res.Messages)] {
			for _, p := range m.Parts {
				chars += utf8.RuneCountInString(p.Text)
			}
		}
		last2 := c.res.Messages[len(c.res.Messages)-1]
		chars -= utf8.RuneCountInString(last2.Parts[len(last2.Parts)-1].Text)
		assert.LessOrEqual(t, chars, budget, "request %d: every part but the last fits the budget", i)
		if i == 0 {
			continue
		}
		if c.res.Reselected() {
			rebuilt++
			continue
		}
		prev := h.composed[i-1]
		if prev.stable >= 0 {
			require.Greater(t, len(req), prev.stable)
			a, _ := json.Marshal(prev.sent[:prev.stable+1])
			b, _ := json.Marshal(req[:prev.stable+1])
			assert.Equal(t, string(a), string(b), "request %d repeats the previous one's stable prefix byte for byte", i)
		}
	}
	assert.Greater(t, rebuilt, 0, "the budget is small enough that some calls rebuild")
	assert.Less(t, rebuilt, len(requests)/2, "and most do not")
}

// checkCallsAnswered asserts that every tool call of an assistant message
// is answered by the tool messages right after it, in order.
func checkCallsAnswered(t *testing.T, req []model.Message) {
	t.Helper()
	for i, m := range req {
		for j, call := range m.ToolCalls {
			require.Less(t, i+1+j, len(req), "call %s is answered", call.ID)
			answer := req[i+1+j]
			assert.Equal(t, model.RoleTool, answer.Role)
			assert.Equal(t, call.ID, answer.ToolID)
			assert.Equal(t, call.Function.Name, answer.ToolName)
		}
	}
}

func TestToolCallsGoBothWays(t *testing.T) {
	h := newHarness(t, byheart.Options{})
	h.say(t, "u1", "s1", "What is the weather in the cities we visit?")
	h.say(t, "u1", "s1", "Thanks, and the pergola?")

	var kept []byheart.Turn
	require.NoError(t, h.plugin.Do("app", "u1", "s1", func(mem *byheart.Memory) error {
		for i := range mem.Len() {
			turn, err := mem.Turn(i)
			if err != nil {
				return err
			}
			kept = append(kept, turn)
		}
		return nil
	}))
	var roles []byheart.Role
	for _, k := range kept {
		roles = append(roles, k.Role)
	}
	assert.Equal(t, []byheart.Role{byheart.User, byheart.ToolCall, byheart.ToolCall, byheart.ToolResult, byheart.ToolResult,
		byheart.Assistant, byheart.User, byheart.Assistant}, roles, "the run's events, tool calls and responses included, in order")
	assert.Equal(t, "weather", kept[1].Tool)
	assert.Equal(t, "call_0_0", kept[1].CallID)
	assert.JSONEq(t, `{"city":"Paris"}`, kept[1].Text)
	assert.Equal(t, "call_0_0", kept[3].CallID)
	assert.Contains(t, kept[3].Text, "Sunny in Paris")

	requests := h.model.all()
	require.Len(t, requests, 3)
	after := requests[1] // the model's call once the tools answered
	require.GreaterOrEqual(t, len(after), 4)
	reply := after[len(after)-3]
	require.Len(t, reply.ToolCalls, 2)
	assert.Equal(t, "call_0_0", reply.ToolCalls[0].ID)
	assert.Equal(t, "weather", reply.ToolCalls[0].Function.Name)
	assert.JSONEq(t, `{"city":"Paris"}`, string(reply.ToolCalls[0].Function.Arguments))
	for i, city := range []string{"Paris", "Lyon"} {
		answer := after[len(after)-2+i]
		assert.Equal(t, model.RoleTool, answer.Role)
		assert.Equal(t, reply.ToolCalls[i].ID, answer.ToolID)
		assert.Contains(t, answer.Content, "Sunny in "+city, "the response, framed")
		assert.Contains(t, answer.Content, "UNVERIFIED", "a source no one vouched for is marked")
	}
	checkCallsAnswered(t, requests[2])
}

func TestSessionsNeverSeeEachOther(t *testing.T) {
	h := newHarness(t, byheart.Options{})
	h.say(t, "ann", "a", "Ann's secret is the blue door.")
	h.say(t, "bo", "b", "Bo's secret is the red gate.")
	h.say(t, "ann", "a", "What was my secret?")
	requests := h.model.all()
	require.Len(t, requests, 3)
	sent := func(i int) string { raw, _ := json.Marshal(requests[i]); return string(raw) }
	assert.NotContains(t, sent(1), "blue door")
	assert.Contains(t, sent(2), "blue door")
	assert.NotContains(t, sent(2), "red gate")
}

func TestMessagesOpensWithTheUserAndCountsTheBreakpoint(t *testing.T) {
	res := byheart.Result{StableUpto: 1, Messages: []byheart.Message{
		{Role: byheart.Assistant, Parts: []byheart.Part{{Text: "Welcome back."}, {Text: "How was the trip?"}}},
		{Role: byheart.User, Parts: []byheart.Part{{Text: "Lovely."}}},
	}}
	msgs, stable := byhearttrpc.Messages(res)
	require.Len(t, msgs, 4)
	assert.Equal(t, model.NewUserMessage(byhearttrpc.Opening), msgs[0])
	assert.Equal(t, 2, stable, "the second assistant part, after the opening")
	assert.Equal(t, "How was the trip?", msgs[stable].Content)

	_, stable = byhearttrpc.Messages(byheart.Result{StableUpto: -1, Messages: res.Messages})
	assert.Equal(t, -1, stable)
}

func TestTextAfterAReplysCallsJoinsTheMessageThatCarriesThem(t *testing.T) {
	mem := byheart.New(byheart.Options{})
	for _, turn := range []byheart.Turn{
		{Role: byheart.User, Text: "What is the weather in Paris?"},
		{Role: byheart.Assistant, Text: "Looking it up."},
		{Role: byheart.ToolCall, Tool: "weather", CallID: "c1", Text: `{"city":"Paris"}`},
		{Role: byheart.Assistant, Text: "One moment."},
		{Role: byheart.ToolResult, CallID: "c1", Text: "Sunny in Paris."},
	} {
		_, err := mem.AppendTurn(turn)
		require.NoError(t, err)
	}
	res, err := mem.Continue(context.Background())
	require.NoError(t, err)
	msgs, _ := byhearttrpc.Messages(res)
	require.Len(t, msgs, 3)
	checkCallsAnswered(t, msgs)
	assert.Equal(t, "Looking it up.\n\nOne moment.", msgs[1].Content, "the text after the call joins its message")
	assert.Equal(t, model.RoleTool, msgs[2].Role)
}
