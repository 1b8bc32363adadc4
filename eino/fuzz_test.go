package byhearteino

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agenthistory"
	"github.com/cloudwego/eino/schema"
)

// FuzzMessageMapping plays a byte string as an agent's messages (see
// agenthistory.FuzzScript: user text that names a date and images,
// assistant replies whose tool calls draw ids and tool names that repeat,
// are empty or byheart refuses, and tool messages answering them in or out
// of order, some naming no call, some empty) through the mapping the
// middleware appends them with, and composes a request at the step's time
// after each: nothing is ever refused, and every request answers each call
// with its own tool message under an id no other call of the request has,
// and carries the user's current image.
func FuzzMessageMapping(f *testing.F) {
	for _, seed := range agenthistory.FuzzSeeds {
		f.Add(seed)
	}
	url := "https://example.com/fence.png"
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &binding{mem: byheart.New(byheart.Options{Budget: 600}), given: map[int]*schema.Message{}}
		var user *schema.Message
		for step, s := range agenthistory.FuzzScript(data, agenthistory.FuzzIDs) {
			var msgs []*schema.Message
			switch s.Kind {
			case agenthistory.FuzzUser:
				user = &schema.Message{Role: schema.User}
				if s.Text != "" {
					user.UserInputMultiContent = append(user.UserInputMultiContent, schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: s.Text})
				}
				if s.Image {
					user.UserInputMultiContent = append(user.UserInputMultiContent, schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
						Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}})
				}
				if s.ImageFirst {
					slices.Reverse(user.UserInputMultiContent)
				}
				msgs = []*schema.Message{user}
			case agenthistory.FuzzReply:
				var calls []schema.ToolCall
				for _, c := range s.Calls {
					calls = append(calls, schema.ToolCall{ID: c.ID, Type: "function",
						Function: schema.FunctionCall{Name: c.Tool, Arguments: fmt.Sprintf(`{"i":%d}`, c.N)}})
				}
				msgs = []*schema.Message{schema.AssistantMessage("looking", calls)}
			case agenthistory.FuzzResponses:
				for _, c := range s.Calls {
					msgs = append(msgs, schema.ToolMessage(c.Output, c.ID, schema.WithToolName(c.Tool)))
				}
			case agenthistory.FuzzText:
				msgs = []*schema.Message{schema.AssistantMessage(s.Text, nil)}
			}
			if err := appendMessages(b.mem, msgs, nil, s.At, b.given); err != nil {
				t.Fatalf("step %d: refused: %v", step, err)
			}
			if b.mem.Len() == 0 {
				continue
			}
			res, err := b.mem.ContinueAt(context.Background(), s.At)
			if err != nil {
				t.Fatal(err)
			}
			sent, stable := messages(res, b.current(res))
			checkRequest(t, sent, stable, user, s.Kind == agenthistory.FuzzUser)
		}
	})
}

// checkRequest fails t unless each assistant message's calls in sent are
// answered by the tool messages right after it (in the order they came),
// under ids no other call has, no tool message comes without its call,
// stable is a message of sent, and the user's current message, when it
// holds an image, is there as it came: always when the user spoke last.
func checkRequest(t *testing.T, sent []*schema.Message, stable int, user *schema.Message, last bool) {
	t.Helper()
	var msgs []agenthistory.Sent
	for _, m := range sent {
		var s agenthistory.Sent
		for _, tc := range m.ToolCalls {
			s.Calls = append(s.Calls, agenthistory.FuzzCall{ID: tc.ID, Tool: tc.Function.Name})
		}
		if m.Role == schema.Tool {
			s.Answer = &agenthistory.FuzzCall{ID: m.ToolCallID, Tool: m.ToolName}
		}
		msgs = append(msgs, s)
	}
	if err := agenthistory.CheckAnswered(msgs); err != nil {
		t.Fatal(err)
	}
	if stable >= len(sent) {
		t.Fatalf("stable %d past the %d messages", stable, len(sent))
	}
	if user != nil && media(user) && last && !slices.Contains(sent, user) {
		t.Fatalf("the user's image is not in the request")
	}
	for _, m := range sent {
		if m != user && media(m) {
			t.Fatalf("an earlier image is sent")
		}
	}
}
