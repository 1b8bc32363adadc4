package byhearteino

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agenthistory"
	"github.com/cloudwego/eino/schema"
)

// FuzzMessageMapping plays a byte string as an agent's messages (user text
// that names a date and images, assistant replies whose tool calls draw
// ids and tool names that repeat, are empty or byheart refuses, and tool
// messages answering them in or out of order, some naming no call)
// through the mapping the middleware appends them with, each step a minute
// after the last, and composes a request at the step's time after each:
// nothing is ever refused, and every request answers each call with its
// own tool message under an id no other call of the request has, and
// carries the user's current image.
func FuzzMessageMapping(f *testing.F) {
	for _, seed := range agenthistory.FuzzSeeds {
		f.Add(seed)
	}
	ids, tools := agenthistory.FuzzIDs, agenthistory.FuzzTools
	url := "https://example.com/fence.png"
	start := time.Date(2025, 3, 4, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &binding{mem: byheart.New(byheart.Options{Budget: 600}), given: map[int]*schema.Message{}}
		var user *schema.Message
		var calls []schema.ToolCall // the newest reply's
		for step := 0; len(data) >= 2 && step < 64; step++ {
			op, arg := data[0], data[1]
			data = data[2:]
			var msgs []*schema.Message
			switch op % 5 {
			case 0, 1: // the user: text, an image, or both
				m := &schema.Message{Role: schema.User}
				if op%5 == 0 || arg&1 != 0 {
					m.UserInputMultiContent = append(m.UserInputMultiContent, schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: fmt.Sprintf("message %d: the fence is due tomorrow \xfe", step)})
				}
				if op%5 == 1 {
					m.UserInputMultiContent = append(m.UserInputMultiContent, schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
						Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}})
				}
				msgs, user, calls = []*schema.Message{m}, m, nil
			case 2: // a reply with up to four calls
				calls = nil
				for i := range int(arg % 5) {
					calls = append(calls, schema.ToolCall{ID: ids[(int(arg)+i)%len(ids)], Type: "function",
						Function: schema.FunctionCall{Name: tools[(int(arg>>3)+i)%len(tools)], Arguments: fmt.Sprintf(`{"i":%d}`, i)}})
				}
				msgs = []*schema.Message{schema.AssistantMessage("looking", calls)}
			case 3: // the tool messages, in order or reversed, one perhaps to no call
				for i := range calls {
					call := calls[i]
					if arg&1 != 0 {
						call = calls[len(calls)-1-i]
					}
					id := call.ID
					if arg&2 != 0 && i == 0 {
						id = "nobody"
					}
					msgs = append(msgs, schema.ToolMessage(fmt.Sprintf("out %d", i), id, schema.WithToolName(call.Function.Name)))
				}
				calls = nil
			default:
				msgs = []*schema.Message{schema.AssistantMessage(strings.Repeat("a reply ", int(arg)), nil)}
			}
			now := start.Add(time.Duration(step) * time.Minute)
			if err := appendMessages(b.mem, msgs, nil, now, b.given); err != nil {
				t.Fatalf("step %d: refused: %v", step, err)
			}
			if b.mem.Len() == 0 {
				continue
			}
			res, err := b.mem.ContinueAt(context.Background(), now)
			if err != nil {
				t.Fatal(err)
			}
			sent, stable := messages(res, b.current(res))
			checkRequest(t, sent, stable, user, op%5 <= 1)
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
	seen := map[string]bool{}
	for i := 0; i < len(sent); i++ {
		m := sent[i]
		if m.Role == schema.Tool {
			t.Fatalf("message %d: a tool message %q without its call", i, m.ToolCallID)
		}
		var want, got []string
		for _, tc := range m.ToolCalls {
			if seen[tc.ID] {
				t.Fatalf("message %d: id %q twice in the request", i, tc.ID)
			}
			seen[tc.ID] = true
			want = append(want, tc.ID+" "+tc.Function.Name)
		}
		for i+1 < len(sent) && sent[i+1].Role == schema.Tool {
			i++
			got = append(got, sent[i].ToolCallID+" "+sent[i].ToolName)
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
	if user != nil && media(user) && last && !slices.Contains(sent, user) {
		t.Fatalf("the user's image is not in the request")
	}
	for _, m := range sent {
		if m != user && media(m) {
			t.Fatalf("an earlier image is sent")
		}
	}
}
