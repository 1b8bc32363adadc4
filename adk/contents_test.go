package byheartadk_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/session"
	"google.golang.org/genai"

	"github.com/byheart/byheart"
	byheartadk "github.com/byheart/byheart/adk"
)

func compose(t *testing.T, turns ...byheart.Turn) byheart.Result {
	t.Helper()
	mem := byheart.New(byheart.Options{})
	for _, turn := range turns {
		_, err := mem.AppendTurn(turn)
		require.NoError(t, err)
	}
	res, err := mem.Continue(context.Background())
	require.NoError(t, err)
	return res
}

func TestContentsMapsEachKindOfTurn(t *testing.T) {
	res := compose(t,
		byheart.Turn{Role: byheart.User, Text: "weather?"},
		byheart.Turn{Role: byheart.Assistant, Text: "Looking."},
		byheart.Turn{Role: byheart.ToolCall, Tool: "get_weather", CallID: "c1", Text: `{"city":"Paris"}`},
		byheart.Turn{Role: byheart.ToolCall, Tool: "fetch", CallID: "adk-123", Text: `not json`},
		byheart.Turn{Role: byheart.ToolResult, CallID: "c1", Text: `{"t":18}`, Source: byheart.Source{Name: "tool:weather", Authenticated: true}},
		byheart.Turn{Role: byheart.ToolResult, CallID: "adk-123", Text: `page`},
	)
	contents, bp := byheartadk.Contents(res, map[string][]byte{"c1": []byte("sig")})
	require.Len(t, contents, 3)
	assert.Equal(t, genai.RoleUser, contents[0].Role)
	assert.Equal(t, "weather?", contents[0].Parts[0].Text)

	reply := contents[1]
	assert.Equal(t, genai.RoleModel, reply.Role)
	require.Len(t, reply.Parts, 3)
	assert.Equal(t, "Looking.", reply.Parts[0].Text)
	assert.Equal(t, &genai.FunctionCall{ID: "c1", Name: "get_weather", Args: map[string]any{"city": "Paris"}}, reply.Parts[1].FunctionCall)
	assert.Equal(t, []byte("sig"), reply.Parts[1].ThoughtSignature)
	assert.Equal(t, &genai.FunctionCall{Name: "fetch", Args: map[string]any{"arguments": "not json"}}, reply.Parts[2].FunctionCall,
		"ADK's own id is cleared; arguments that are no object are wrapped")

	responses := contents[2]
	require.Len(t, responses.Parts, 2)
	assert.Equal(t, "c1", responses.Parts[0].FunctionResponse.ID)
	assert.Contains(t, responses.Parts[0].FunctionResponse.Response["output"], `{"t":18}`)
	assert.Empty(t, responses.Parts[1].FunctionResponse.ID)
	assert.Contains(t, responses.Parts[1].FunctionResponse.Response["output"], "UNVERIFIED")
	assert.Equal(t, byheartadk.Breakpoint{Content: 2, Part: 1}, bp, "StableUpto is the newest turn's part")
}

func TestACallWithoutItsResultIsSentAsText(t *testing.T) {
	res := compose(t,
		byheart.Turn{Role: byheart.User, Text: "weather?"},
		byheart.Turn{Role: byheart.ToolCall, Tool: "get_weather", CallID: "c1", Text: `{}`},
		byheart.Turn{Role: byheart.User, Text: "never mind"},
	)
	contents, _ := byheartadk.Contents(res, nil)
	for _, c := range contents {
		for _, p := range c.Parts {
			assert.Nil(t, p.FunctionCall, "an unanswered call is no FunctionCall")
		}
	}
	assert.Contains(t, contents[1].Parts[0].Text, "get_weather")
}

func TestSplitAt(t *testing.T) {
	a := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "a1"}, {Text: "a2"}}}
	b := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "b1"}}}
	contents := []*genai.Content{a, b}
	tests := []struct {
		name         string
		bp           byheartadk.Breakpoint
		cached, rest int // contents in each
		restFirst    string
	}{
		{"nothing stable", byheartadk.Breakpoint{Content: -1, Part: -1}, 0, 2, "a1"},
		{"inside a content, which is split", byheartadk.Breakpoint{Content: 0, Part: 0}, 1, 2, "a2"},
		{"at the end of a content", byheartadk.Breakpoint{Content: 0, Part: 1}, 1, 1, "b1"},
		{"everything", byheartadk.Breakpoint{Content: 1, Part: 0}, 2, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cached, rest := byheartadk.SplitAt(contents, tt.bp)
			assert.Len(t, cached, tt.cached)
			require.Len(t, rest, tt.rest)
			if tt.rest > 0 {
				assert.Equal(t, tt.restFirst, rest[0].Parts[0].Text)
			}
			assert.Len(t, a.Parts, 2, "the contents are not changed")
		})
	}
}

func TestArgumentsThatCannotBeKeptAreAnError(t *testing.T) {
	ctx := context.Background()
	svc := session.InMemoryService()
	s := sessionWith(t, svc, "app", "ann", "s1", time.Date(2023, 5, 25, 10, 0, 0, 0, time.UTC), "hello")
	ev := session.NewEvent(ctx, "inv")
	ev.Author = "helper"
	ev.LLMResponse = model.LLMResponse{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{Name: "f", Args: map[string]any{"x": math.NaN()}}}}}}
	require.NoError(t, svc.AppendEvent(ctx, s, ev))
	got, err := svc.Get(ctx, &session.GetRequest{AppName: "app", UserID: "ann", SessionID: "s1"})
	require.NoError(t, err)
	mem := byheartadk.NewMemoryService(byheart.Options{})
	err = mem.AddSessionToMemory(ctx, got.Session)
	assert.ErrorContains(t, err, "arguments of f")
}

func TestACompositionStartingWithTheModelIsOpenedForTheUser(t *testing.T) {
	res := byheart.Result{Messages: []byheart.Message{
		{Role: byheart.Assistant, Parts: []byheart.Part{{Text: "Reply."}}},
		{Role: byheart.User, Parts: []byheart.Part{{Text: "Question?"}}},
	}, StableUpto: 1}
	contents, bp := byheartadk.Contents(res, nil)
	require.Len(t, contents, 3)
	assert.Equal(t, genai.RoleUser, contents[0].Role)
	assert.Equal(t, byheartadk.Opening, contents[0].Parts[0].Text)
	assert.Equal(t, byheartadk.Breakpoint{Content: 2, Part: 0}, bp, "the breakpoint moves with the contents")
}

func TestContentsGiveEveryCallAnIdOfItsOwnInTheRequest(t *testing.T) {
	// Some models number their calls per reply, so two steps repeat ids.
	step := func(city string) []byheart.Turn {
		return []byheart.Turn{
			{Role: byheart.ToolCall, Tool: "get_weather", CallID: "call_0", Text: `{"city":"` + city + `"}`},
			{Role: byheart.ToolResult, CallID: "call_0", Text: "mild in " + city},
		}
	}
	turns := append([]byheart.Turn{{Role: byheart.User, Text: "weather?"}}, step("Paris")...)
	turns = append(turns, byheart.Turn{Role: byheart.User, Text: "and Rome?"})
	turns = append(turns, step("Rome")...)
	contents, _ := byheartadk.Contents(compose(t, turns...), nil)

	var calls, responses []string
	for _, c := range contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				calls = append(calls, p.FunctionCall.ID)
			}
			if p.FunctionResponse != nil {
				responses = append(responses, p.FunctionResponse.ID)
			}
		}
	}
	require.Len(t, calls, 2)
	assert.NotEqual(t, calls[0], calls[1])
	assert.Equal(t, calls, responses, "each response keeps its call's id")
	assert.Equal(t, "call_0", calls[0], "the first keeps the model's own")
}
