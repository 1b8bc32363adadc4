package byhearttrpc_test

import (
	"context"
	"strings"
	"testing"

	byhearttrpc "github.com/byheart/byheart/trpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"trpc.group/trpc-go/trpc-agent-go/agent/llmagent"
	"trpc.group/trpc-go/trpc-agent-go/model"
	"trpc.group/trpc-go/trpc-agent-go/runner"
	"trpc.group/trpc-go/trpc-agent-go/session/inmemory"
	"trpc.group/trpc-go/trpc-agent-go/tool"
	"trpc.group/trpc-go/trpc-agent-go/tool/function"
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

func TestCallsSharingAnIdAreEachAnswered(t *testing.T) {
	call := func(id, name, args string) model.ToolCall {
		return model.ToolCall{Type: "function", ID: id, Function: model.FunctionDefinitionParam{Name: name, Arguments: []byte(args)}}
	}
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
