package byhearttrpc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/byheart/byheart"
	byhearttrpc "github.com/byheart/byheart/trpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"trpc.group/trpc-go/trpc-agent-go/agent/llmagent"
	"trpc.group/trpc-go/trpc-agent-go/model"
	"trpc.group/trpc-go/trpc-agent-go/runner"
	"trpc.group/trpc-go/trpc-agent-go/session/inmemory"
	"trpc.group/trpc-go/trpc-agent-go/tool"
	"trpc.group/trpc-go/trpc-agent-go/tool/function"
	"trpc.group/trpc-go/trpc-agent-go/tool/resultformat"
)

// flat is the text of msgs: their content and text parts.
func flat(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content + "\n")
		for _, p := range m.ContentParts {
			if p.Text != nil {
				b.WriteString(*p.Text + "\n")
			}
		}
	}
	return b.String()
}

type pageIn struct {
	URL string `json:"url"`
}

func pageTool() tool.Tool {
	return function.NewFunctionTool(func(_ context.Context, in pageIn) (string, error) {
		return "The page at " + in.URL + " is about Paris.", nil
	}, function.WithName("fetch_page"), function.WithDescription("a web page's text"))
}

// runnerWith is a runner with the plugin and an LLM agent on llm with the
// weather and page tools.
func runnerWith(t *testing.T, llm model.Model, p *byhearttrpc.Plugin) runner.Runner {
	t.Helper()
	ag := llmagent.New("helper", llmagent.WithModel(llm), llmagent.WithInstruction(instruction),
		llmagent.WithTools([]tool.Tool{weatherTool(), pageTool()}))
	r := runner.NewRunner("app", ag, runner.WithSessionService(inmemory.NewSessionService()), runner.WithPlugins(p))
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func call(id, name, args string) model.ToolCall {
	return model.ToolCall{Type: "function", ID: id, Function: model.FunctionDefinitionParam{Name: name, Arguments: []byte(args)}}
}

func image() model.ContentPart {
	return model.ContentPart{Type: model.ContentTypeImage, Image: &model.Image{URL: "https://example.com/fence.png", Format: "image/png"}}
}

// images counts the image parts of a request.
func images(req []model.Message) int {
	n := 0
	for _, m := range req {
		for _, p := range m.ContentParts {
			if p.Image != nil {
				n++
			}
		}
	}
	return n
}

func TestAnImageTheUserSendsStaysInTheRequest(t *testing.T) {
	llm := &recorder{calls: []model.ToolCall{call("w1", "weather", `{"city":"Paris"}`)}}
	p := byhearttrpc.New(byhearttrpc.Config{})
	r := runnerWith(t, llm, p)

	send(t, r, "u1", "s1", model.NewUserMessage("We are repainting the fence this weekend."))
	alone := model.Message{Role: model.RoleUser, ContentParts: []model.ContentPart{image()}}
	send(t, r, "u1", "s1", alone)
	requests := llm.all()
	req := requests[len(requests)-1]
	assert.Equal(t, clone([]model.Message{alone}), req[len(req)-1:], "the request ends with the user's message, as trpc-agent-go gave it")

	text := "Which colour for this weekend, given this photo? Use the tools." // byheart resolves the date
	both := model.Message{Role: model.RoleUser, ContentParts: []model.ContentPart{{Type: model.ContentTypeText, Text: &text}, image()}}
	before := len(requests)
	send(t, r, "u1", "s1", both)
	requests = llm.all()
	require.Len(t, requests, before+2, "a call for the tools, one for their response")
	for _, req := range requests[before:] {
		assert.Equal(t, 1, images(req), "the current image only: the earlier one is described")
		assert.Contains(t, req, clone([]model.Message{both})[0], "the user's message is there as trpc-agent-go gave it")
	}

	send(t, r, "u1", "s1", model.NewUserMessage("Thanks."))
	requests = llm.all()
	req = requests[len(requests)-1]
	assert.Zero(t, images(req), "earlier images are described, not sent again")
	description := "[image/png attachment, https://example.com/fence.png, not kept]"
	assert.Contains(t, flat(req), description)
	require.NoError(t, p.Do("app", "u1", "s1", func(mem *byheart.Memory) error {
		turn, err := mem.Turn(2)
		require.NoError(t, err)
		assert.Equal(t, byheart.Turn{Role: byheart.User, Text: description, Time: turn.Time}, turn)
		turn, err = mem.Turn(4)
		require.NoError(t, err)
		assert.Equal(t, text+"\n\n"+description, turn.Text, "text and image, one paragraph each")
		return nil
	}))
}

func TestCallsSharingAnIdAreEachAnswered(t *testing.T) {
	llm := &recorder{calls: []model.ToolCall{
		call("call_1", "weather", `{"city":"Paris"}`),
		call("call_1", "weather", `{"city":"Rome"}`),
		call("call\t2", "fetch_page", `{"url":"https://example.com"}`),
	}}
	p := byhearttrpc.New(byhearttrpc.Config{})
	r := runnerWith(t, llm, p)
	send(t, r, "u1", "s1", model.NewUserMessage("Weather in two cities? Use the tools."))
	requests := llm.all()
	require.Len(t, requests, 2, "a call for the tools, one for their responses")
	req := requests[1]
	n := len(req)
	require.GreaterOrEqual(t, n, 4)
	reply := req[n-4]
	require.Len(t, reply.ToolCalls, 3)
	ids := map[string]bool{}
	for i, tc := range reply.ToolCalls {
		answer := req[n-3+i]
		assert.Equal(t, model.RoleTool, answer.Role)
		assert.Equal(t, tc.ID, answer.ToolID, "response %d answers call %d", i, i)
		assert.Equal(t, tc.Function.Name, answer.ToolName)
		ids[tc.ID] = true
	}
	assert.Len(t, ids, 3, "ids are unique in the request")
	assert.Contains(t, req[n-3].Content, "Sunny in Paris", "each call with its own response")
	assert.Contains(t, req[n-2].Content, "Sunny in Rome")
	assert.Contains(t, req[n-1].Content, "about Paris")
}

func TestAToolThatAnswersNothingDoesNotAbortTheRun(t *testing.T) {
	silent := function.NewFunctionTool(func(context.Context, pageIn) (string, error) { return "", nil },
		function.WithName("fetch_page"), function.WithDescription("a web page's text"),
		function.WithResultFormatter(resultformat.FormatterFunc[string](func(_ context.Context, s string) (string, error) { return s, nil })))
	llm := &recorder{calls: []model.ToolCall{call("p1", "fetch_page", `{"url":"https://example.com"}`)}}
	p := byhearttrpc.New(byhearttrpc.Config{})
	ag := llmagent.New("helper", llmagent.WithModel(llm), llmagent.WithTools([]tool.Tool{silent}))
	r := runner.NewRunner("app", ag, runner.WithSessionService(inmemory.NewSessionService()), runner.WithPlugins(p))
	t.Cleanup(func() { _ = r.Close() })

	send(t, r, "u1", "s1", model.NewUserMessage("Read the page. Use the tools."))
	requests := llm.all()
	require.Len(t, requests, 2, "a call for the tool, one for its empty response")
	req := requests[1]
	require.Equal(t, model.RoleTool, req[len(req)-1].Role)
	assert.Equal(t, "p1", req[len(req)-1].ToolID)
	assert.Contains(t, req[len(req)-1].Content, "(no output)", "an empty response still answers its call")
}
