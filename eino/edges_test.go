package byhearteino_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/byheart/byheart"
	byhearteino "github.com/byheart/byheart/eino"
)

// scripted is an in-process Eino chat model that records every request and
// answers a user message asking for tools with the calls calls makes, and
// anything else with a short reply.
type scripted struct {
	calls []schema.ToolCall

	mu       sync.Mutex
	requests [][]*schema.Message
}

func (s *scripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return s, nil }

func (s *scripted) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, input)
	last := input[len(input)-1]
	if last.Role == schema.User && strings.Contains(last.Content+partText(last), "tools") {
		return schema.AssistantMessage("", s.calls), nil
	}
	return schema.AssistantMessage(fmt.Sprintf("Reply %d.", len(s.requests)), nil), nil
}

func (s *scripted) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := s.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func partText(m *schema.Message) string {
	var b strings.Builder
	for _, p := range m.UserInputMultiContent {
		b.WriteString(p.Text)
	}
	return b.String()
}

// agentWith is a ChatModelAgent on llm with the weather and page tools and
// the middleware of cfg.
func agentWith(t *testing.T, llm model.ToolCallingChatModel, cfg byhearteino.Config) *adk.Runner {
	t.Helper()
	ctx := context.Background()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "helper", Description: "helps", Instruction: "You are a helpful assistant.", Model: llm,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{
			fixedTool{"get_weather", "mild, 18 degrees"}, fixedTool{"fetch_page", "Paris travel notes."},
		}}},
		Handlers: []adk.ChatModelAgentMiddleware{byhearteino.New(cfg)},
	})
	require.NoError(t, err)
	return adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
}

// send runs msg through r on mem and fails t on any error of the run.
func send(t *testing.T, r *adk.Runner, mem *byheart.Memory, msg *schema.Message) {
	t.Helper()
	events := r.Run(byhearteino.WithMemory(context.Background(), mem), []*schema.Message{msg})
	for {
		ev, ok := events.Next()
		if !ok {
			return
		}
		require.NoError(t, ev.Err)
	}
}

func image() schema.MessageInputPart {
	url := "https://example.com/fence.png"
	return schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
		Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url, MIMEType: "image/png"}}}
}

// images counts the image parts of a request.
func images(req []*schema.Message) int {
	n := 0
	for _, m := range req {
		for _, p := range m.UserInputMultiContent {
			if p.Image != nil {
				n++
			}
		}
	}
	return n
}

func TestAnImageTheUserSendsStaysInTheRequest(t *testing.T) {
	llm := &scripted{calls: []schema.ToolCall{{ID: "w1", Type: "function", Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}}
	r := agentWith(t, llm, byhearteino.Config{})
	mem := byheart.New(byheart.Options{})

	send(t, r, mem, schema.UserMessage("We are repainting the fence this weekend."))
	alone := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{image()}}
	send(t, r, mem, alone)
	req := llm.requests[len(llm.requests)-1]
	assert.Same(t, alone, req[len(req)-1], "the request ends with the user's message, as Eino gave it")

	both := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "Which colour, given this photo? Use the tools."}, image()}}
	before := len(llm.requests)
	send(t, r, mem, both)
	require.Equal(t, before+2, len(llm.requests), "a call for the tools, one for their result")
	for _, req := range llm.requests[before:] {
		assert.Equal(t, 1, images(req), "the current image only: the earlier one is described")
		assert.Contains(t, req, both, "the user's message is there as Eino gave it")
	}

	send(t, r, mem, schema.UserMessage("Thanks."))
	req = llm.requests[len(llm.requests)-1]
	assert.Zero(t, images(req), "earlier images are described, not sent again")
	assert.Contains(t, strings.Join(flat(req), "\n"), "[image/png attachment, https://example.com/fence.png, not kept]")
	turn, err := mem.Turn(2)
	require.NoError(t, err)
	assert.Equal(t, "[image/png attachment, https://example.com/fence.png, not kept]", turn.Text)
	assert.Equal(t, byheart.User, turn.Role)
}

func TestAnImageStaysBesideTextThatNamesADate(t *testing.T) {
	llm := &scripted{}
	r := agentWith(t, llm, byhearteino.Config{})
	mem := byheart.New(byheart.Options{})
	msg := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "Can we paint it this weekend?"}, image()}}
	send(t, r, mem, msg)
	req := llm.requests[len(llm.requests)-1]
	assert.Same(t, msg, req[len(req)-1], "sent as Eino gave it, though byheart resolves the date in its text")
}

func TestCallsSharingAnIdAreEachAnswered(t *testing.T) {
	llm := &scripted{calls: []schema.ToolCall{
		{ID: "call_1", Type: "function", Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		{ID: "call_1", Type: "function", Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Rome"}`}},
		{ID: "call\t2", Type: "function", Function: schema.FunctionCall{Name: "fetch_page", Arguments: `{"url":"https://example.com"}`}},
	}}
	r := agentWith(t, llm, byhearteino.Config{})
	mem := byheart.New(byheart.Options{})
	send(t, r, mem, schema.UserMessage("Weather in two cities? Use the tools."))
	require.Len(t, llm.requests, 2)
	req := llm.requests[1]
	n := len(req)
	require.GreaterOrEqual(t, n, 4)
	reply := req[n-4]
	require.Len(t, reply.ToolCalls, 3)
	ids := map[string]bool{}
	for i, tc := range reply.ToolCalls {
		answer := req[n-3+i]
		assert.Equal(t, schema.Tool, answer.Role)
		assert.Equal(t, tc.ID, answer.ToolCallID, "result %d answers call %d", i, i)
		assert.Equal(t, tc.Function.Name, answer.ToolName)
		assert.Contains(t, answer.Content, strings.TrimPrefix(tc.Function.Arguments, "{"), "with its own output")
		ids[tc.ID] = true
	}
	assert.Len(t, ids, 3, "ids are unique in the request")
}
