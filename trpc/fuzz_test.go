package byhearttrpc

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agenthistory"
	"github.com/byheart/byheart/internal/agentturn"
	"trpc.group/trpc-go/trpc-agent-go/event"
	"trpc.group/trpc-go/trpc-agent-go/model"
)

// FuzzEventMapping plays a byte string as a session's events (see
// agenthistory.FuzzScript: user text that names a date and images, either
// first, replies whose tool calls draw ids and tool names that repeat, are
// empty or byheart refuses, and tool responses to them in or out of order,
// some naming no call, some empty) through the mapping the plugin takes
// them in with, and composes a request at its time after each: nothing is
// ever refused, every request answers each call with its own tool message
// under an id no other call of the request has, and carries the user's
// current image.
func FuzzEventMapping(f *testing.F) {
	for _, seed := range agenthistory.FuzzSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := byheart.New(byheart.Options{Budget: 600})
		var user model.Message
		for step, s := range agenthistory.FuzzScript(data, agenthistory.FuzzIDs) {
			var msgs []model.Message
			switch s.Kind {
			case agenthistory.FuzzUser:
				user = model.Message{Role: model.RoleUser}
				if s.Text != "" {
					user.ContentParts = []model.ContentPart{{Type: model.ContentTypeText, Text: &s.Text}}
				}
				if s.Image {
					user.AddImageURL("https://example.com/fence.png", "")
				}
				if s.ImageFirst {
					slices.Reverse(user.ContentParts)
				}
				msgs = []model.Message{user}
			case agenthistory.FuzzReply:
				m := model.Message{Role: model.RoleAssistant, Content: "looking"}
				for _, c := range s.Calls {
					m.ToolCalls = append(m.ToolCalls, model.ToolCall{Type: "function", ID: c.ID,
						Function: model.FunctionDefinitionParam{Name: c.Tool, Arguments: []byte(fmt.Sprintf(`{"i":%d}`, c.N))}})
				}
				msgs = []model.Message{m}
			case agenthistory.FuzzResponses:
				for _, c := range s.Calls {
					msgs = append(msgs, model.NewToolMessage(c.ID, c.Tool, c.Output))
				}
			case agenthistory.FuzzText:
				msgs = []model.Message{model.NewAssistantMessage(s.Text)}
			}
			ev := event.Event{Response: &model.Response{Done: true}, Timestamp: s.At}
			for _, m := range msgs {
				ev.Response.Choices = append(ev.Response.Choices, model.Choice{Message: m})
			}
			if err := appendTurns(mem, turns(&ev, nil)); err != nil {
				t.Fatalf("step %d: refused: %v", step, err)
			}
			if mem.Len() == 0 {
				continue
			}
			res, err := mem.ContinueAt(context.Background(), s.At)
			if err != nil {
				t.Fatal(err)
			}
			_, said := agentturn.NewestUser(mem)
			sent, stable := messages(res, current(user, res, said.Time))
			checkRequest(t, sent, stable, user, s.Kind == agenthistory.FuzzUser)
		}
	})
}

// checkRequest fails t unless each assistant message's calls in sent are
// answered by the tool messages right after it, under ids no other call
// has, no tool message comes without its call, stable is a message of
// sent, and the user's current message, when it holds an image, is there
// as it came: always when the user spoke last.
func checkRequest(t *testing.T, sent []model.Message, stable int, user model.Message, last bool) {
	t.Helper()
	var msgs []agenthistory.Sent
	for _, m := range sent {
		var s agenthistory.Sent
		for _, tc := range m.ToolCalls {
			s.Calls = append(s.Calls, agenthistory.FuzzCall{ID: tc.ID, Tool: tc.Function.Name})
		}
		if m.Role == model.RoleTool {
			s.Answer = &agenthistory.FuzzCall{ID: m.ToolID, Tool: m.ToolName}
		}
		msgs = append(msgs, s)
	}
	if err := agenthistory.CheckAnswered(msgs); err != nil {
		t.Fatal(err)
	}
	if stable >= len(sent) {
		t.Fatalf("stable %d past the %d messages", stable, len(sent))
	}
	mine := func(m model.Message) bool { return slices.Equal(m.ContentParts, user.ContentParts) }
	if media(user) && last && !slices.ContainsFunc(sent, mine) {
		t.Fatalf("the user's image is not in the request")
	}
	for _, m := range sent {
		if media(m) && !mine(m) {
			t.Fatalf("an earlier image is sent")
		}
	}
}
