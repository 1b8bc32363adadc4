package byhearttrpc

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agenthistory"
	"github.com/byheart/byheart/internal/agentturn"
	"trpc.group/trpc-go/trpc-agent-go/event"
	"trpc.group/trpc-go/trpc-agent-go/model"
)

// FuzzEventMapping plays a byte string as a session's events (user text
// that names a date and images, either first, replies whose tool calls
// draw ids and tool names that repeat, are empty or byheart refuses, and
// tool responses to them in or out of order, some naming no call) through
// the mapping the plugin takes them in with, each a minute after the last,
// and composes a request at its time after each: nothing is ever refused,
// every request answers each call with its own tool message under an id no
// other call of the request has, and carries the user's current image.
func FuzzEventMapping(f *testing.F) {
	for _, seed := range agenthistory.FuzzSeeds {
		f.Add(seed)
	}
	ids, tools := agenthistory.FuzzIDs, agenthistory.FuzzTools
	start := time.Date(2025, 3, 4, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := byheart.New(byheart.Options{Budget: 600})
		var user model.Message
		var calls []model.ToolCall // the newest reply's
		for step := 0; len(data) >= 2 && step < 64; step++ {
			op, arg := data[0], data[1]
			data = data[2:]
			var msgs []model.Message
			switch op % 5 {
			case 0, 1: // the user: text, an image, or both
				m := model.Message{Role: model.RoleUser}
				if op%5 == 0 || arg&1 != 0 {
					text := fmt.Sprintf("message %d: the fence is due tomorrow \xfe", step)
					m.ContentParts = append(m.ContentParts, model.ContentPart{Type: model.ContentTypeText, Text: &text})
				}
				if op%5 == 1 {
					m.AddImageURL("https://example.com/fence.png", "")
				}
				if arg&2 != 0 {
					slices.Reverse(m.ContentParts) // the image before the text
				}
				msgs, user, calls = []model.Message{m}, m, nil
			case 2: // a reply with up to four calls
				calls = nil
				for i := range int(arg % 5) {
					calls = append(calls, model.ToolCall{Type: "function", ID: ids[(int(arg)+i)%len(ids)],
						Function: model.FunctionDefinitionParam{Name: tools[(int(arg>>3)+i)%len(tools)], Arguments: []byte(fmt.Sprintf(`{"i":%d}`, i))}})
				}
				msgs = []model.Message{{Role: model.RoleAssistant, Content: "looking", ToolCalls: calls}}
			case 3: // the responses, in order or reversed, one perhaps to no call
				for i := range calls {
					call := calls[i]
					if arg&1 != 0 {
						call = calls[len(calls)-1-i]
					}
					id := call.ID
					if arg&2 != 0 && i == 0 {
						id = "nobody"
					}
					msgs = append(msgs, model.NewToolMessage(id, call.Function.Name, fmt.Sprintf("out %d", i)))
				}
				calls = nil
			default:
				msgs = []model.Message{model.NewAssistantMessage(strings.Repeat("a reply ", int(arg)))}
			}
			now := start.Add(time.Duration(step) * time.Minute)
			ev := event.Event{Response: &model.Response{Done: true}, Timestamp: now}
			for _, m := range msgs {
				ev.Response.Choices = append(ev.Response.Choices, model.Choice{Message: m})
			}
			if err := appendTurns(mem, turns(&ev, nil)); err != nil {
				t.Fatalf("step %d: refused: %v", step, err)
			}
			if mem.Len() == 0 {
				continue
			}
			res, err := mem.ContinueAt(context.Background(), now)
			if err != nil {
				t.Fatal(err)
			}
			_, said := agentturn.NewestUser(mem)
			sent, stable := messages(res, current(user, res, said.Time))
			checkRequest(t, sent, stable, user, op%5 <= 1)
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
	seen := map[string]bool{}
	for i := 0; i < len(sent); i++ {
		m := sent[i]
		if m.Role == model.RoleTool {
			t.Fatalf("message %d: a tool message %q without its call", i, m.ToolID)
		}
		var want, got []string
		for _, tc := range m.ToolCalls {
			if seen[tc.ID] {
				t.Fatalf("message %d: id %q twice in the request", i, tc.ID)
			}
			seen[tc.ID] = true
			want = append(want, tc.ID+" "+tc.Function.Name)
		}
		for i+1 < len(sent) && sent[i+1].Role == model.RoleTool {
			i++
			got = append(got, sent[i].ToolID+" "+sent[i].ToolName)
		}
		slices.Sort(want)
		slices.Sort(got)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("message %d: calls %q answered by %q", i, want, got)
		}
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
