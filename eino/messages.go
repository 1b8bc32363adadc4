package byhearteino

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/byheart/byheart"
	"github.com/cloudwego/eino/schema"
)

// Messages turns a composition into Eino messages: each user turn, memory
// part, outside material and note a user message; each assistant turn an
// assistant message, which also carries the tool calls of its reply (see
// byheart.Result.Pairs) as schema.ToolCall with their arguments verbatim;
// each result that answers one a tool message with its call's id and tool,
// whose content is the result framed with its source, marked UNVERIFIED
// when that is not authenticated. A call or result without its partner is
// sent as its framed text. A composition that starts with the assistant is
// opened by Opening. stable is the index of the message holding part
// Result.StableUpto, where a cache breakpoint goes, or -1.
func Messages(res byheart.Result) (msgs []*schema.Message, stable int) {
	pairs := res.Pairs()
	stable = -1
	k := 0
	// reply is the assistant message the current reply's calls join.
	var reply *schema.Message
	for _, m := range res.Messages {
		for _, p := range m.Parts {
			paired := pairs[k] >= 0 && p.Call != nil
			switch {
			case m.Role == byheart.ToolCall && paired:
				if reply == nil {
					reply = &schema.Message{Role: schema.Assistant}
					msgs = append(msgs, reply)
				}
				reply.ToolCalls = append(reply.ToolCalls, schema.ToolCall{ID: p.Call.ID, Type: "function",
					Function: schema.FunctionCall{Name: p.Call.Name, Arguments: p.Call.Arguments}})
			case m.Role == byheart.ToolResult && paired:
				reply = nil
				msgs = append(msgs, &schema.Message{Role: schema.Tool, Content: p.Text, ToolCallID: p.Call.ID, ToolName: p.Call.Name})
			case m.Role == byheart.Assistant || m.Role == byheart.ToolCall:
				reply = &schema.Message{Role: schema.Assistant, Content: p.Text}
				msgs = append(msgs, reply)
			default:
				reply = nil
				msgs = append(msgs, &schema.Message{Role: schema.User, Content: p.Text})
			}
			if k == res.StableUpto {
				stable = len(msgs) - 1
			}
			k++
		}
	}
	if len(msgs) > 0 && msgs[0].Role == schema.Assistant {
		msgs = append([]*schema.Message{{Role: schema.User, Content: Opening}}, msgs...)
		if stable >= 0 {
			stable++
		}
	}
	return msgs, stable
}

// Opening is the user message placed first when a composition starts with
// the assistant (its stretches did not reach back to the user's first
// words): Claude's API, and Eino's Claude model, want the first message to
// be the user's.
const Opening = "(The conversation so far begins with the assistant.)"

// appendMessages appends an agent's messages, which came at when, as
// byheart turns: user and assistant text, an assistant's tool calls, tool
// messages as results naming their call. System messages and empty text
// are left out. A tool message that answers no waiting call is kept as a
// note from its tool. Each turn carries when, since Eino's messages carry
// no time: the memory's clock, which judges expiry and a pause, then moves
// with the run.
func appendMessages(mem *byheart.Memory, msgs []*schema.Message, sources func(*schema.Message) byheart.Source, when time.Time) error {
	for _, msg := range msgs {
		if msg == nil {
			continue
		}
		switch msg.Role {
		case schema.User:
			if err := appendText(mem, byheart.User, text(msg), when); err != nil {
				return err
			}
		case schema.Assistant:
			if err := appendText(mem, byheart.Assistant, text(msg), when); err != nil {
				return err
			}
			for _, tc := range msg.ToolCalls {
				args := tc.Function.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				if _, err := mem.AppendTurn(byheart.Turn{Role: byheart.ToolCall, Tool: tc.Function.Name, CallID: tc.ID, Text: args, Time: when}); err != nil {
					return err
				}
			}
		case schema.Tool:
			var src byheart.Source
			if sources != nil {
				src = sources(msg)
			}
			text := text(msg)
			if text == "" {
				text = "(no output)"
			}
			_, err := mem.AppendTurn(byheart.Turn{Role: byheart.ToolResult, Tool: msg.ToolName, CallID: msg.ToolCallID, Text: text, Source: src, Time: when})
			if errors.Is(err, byheart.ErrNoCall) {
				if src.Name == "" {
					src.Name = "tool:" + msg.ToolName
				}
				_, err = mem.AppendTurn(byheart.Turn{Role: byheart.Note, Text: text, Source: src, Time: when})
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// text is a message's text: its content, then the text parts of its
// multi-part content, one paragraph each. Images and files are left out.
func text(msg *schema.Message) string {
	parts := []string{msg.Content}
	for _, p := range msg.UserInputMultiContent {
		parts = append(parts, p.Text)
	}
	for _, p := range msg.MultiContent {
		parts = append(parts, p.Text)
	}
	for _, p := range msg.AssistantGenMultiContent {
		parts = append(parts, p.Text)
	}
	parts = slices.DeleteFunc(parts, func(s string) bool { return strings.TrimSpace(s) == "" })
	return strings.Join(parts, "\n\n")
}

func appendText(mem *byheart.Memory, role byheart.Role, text string, when time.Time) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	_, err := mem.AppendAt(role, text, when)
	return err
}
