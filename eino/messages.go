package byhearteino

import (
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agentturn"
	"github.com/cloudwego/eino/schema"
)

// Messages turns a composition into Eino messages: each user turn, memory
// part, outside material and note a user message; each assistant turn an
// assistant message, which also carries the tool calls of its reply (see
// byheart.Result.Pairs) as schema.ToolCall with their arguments verbatim;
// each result that answers one a tool message with its call's id and tool,
// whose content is the result framed with its source, marked UNVERIFIED
// when that is not authenticated. Text of the reply after its calls joins
// that message's content, so its tool messages follow it. A call and its
// result share the id
// byheart.Result.CallIDs gives them, unique in the request. A call or
// result without its partner is sent as its framed text. A composition
// that starts with the assistant is opened by Opening. stable is the index
// of the message holding the part Result.Breakpoint names (a call's
// message is the assistant message its reply rides on), where a cache
// breakpoint goes, or -1.
func Messages(res byheart.Result) (msgs []*schema.Message, stable int) {
	return messages(res, nil)
}

// messages is Messages with the user messages given holds, by the index of
// their part in the composition, sent as they are in place of byheart's.
func messages(res byheart.Result, given map[int]*schema.Message) (msgs []*schema.Message, stable int) {
	pairs, ids := res.Pairs(), res.CallIDs(nil)
	bmsg, bpart, ok := res.Breakpoint()
	stable = -1
	k := 0
	// reply is the assistant message the current reply's calls join.
	var reply *schema.Message
	for i, m := range res.Messages {
		for j, p := range m.Parts {
			paired := pairs[k] >= 0 && p.Call != nil
			switch {
			case m.Role == byheart.ToolCall && paired:
				if reply == nil {
					reply = &schema.Message{Role: schema.Assistant}
					msgs = append(msgs, reply)
				}
				reply.ToolCalls = append(reply.ToolCalls, schema.ToolCall{ID: ids[k], Type: "function",
					Function: schema.FunctionCall{Name: p.Call.Name, Arguments: p.Call.Arguments}})
			case m.Role == byheart.ToolResult && paired:
				reply = nil
				msgs = append(msgs, &schema.Message{Role: schema.Tool, Content: p.Text, ToolCallID: ids[k], ToolName: p.Call.Name})
			case (m.Role == byheart.Assistant || m.Role == byheart.ToolCall) && reply != nil && len(reply.ToolCalls) > 0:
				// Text after a reply's calls joins the message that carries
				// them, which its tool messages must follow.
				reply.Content = strings.TrimPrefix(reply.Content+"\n\n"+p.Text, "\n\n")
			case m.Role == byheart.Assistant || m.Role == byheart.ToolCall:
				reply = &schema.Message{Role: schema.Assistant, Content: p.Text}
				msgs = append(msgs, reply)
			case given[k] != nil:
				reply = nil
				msgs = append(msgs, given[k])
			default:
				reply = nil
				msgs = append(msgs, &schema.Message{Role: schema.User, Content: p.Text})
			}
			if ok && i == bmsg && j == bpart {
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
// byheart turns (through agentturn.Append, which maps what byheart would
// refuse): user and assistant text, an assistant's tool calls, tool
// messages as results naming their call. System messages and empty
// messages are left out. A tool message that answers no waiting call is
// kept as a note from its tool. Each turn carries when, since Eino's
// messages carry no time: the memory's clock, which judges expiry and a
// pause, then moves with the run. Each user message holding a part that
// is not text goes into given under the index of its turn, so the request
// can carry it as it came.
func appendMessages(mem *byheart.Memory, msgs []*schema.Message, sources func(*schema.Message) byheart.Source, when time.Time, given map[int]*schema.Message) error {
	for _, msg := range msgs {
		if msg == nil {
			continue
		}
		switch msg.Role {
		case schema.User:
			i, err := appendText(mem, byheart.User, text(msg), when)
			if err != nil {
				return err
			}
			if i >= 0 && given != nil && media(msg) {
				given[i] = msg
			}
		case schema.Assistant:
			if _, err := appendText(mem, byheart.Assistant, text(msg), when); err != nil {
				return err
			}
			for _, tc := range msg.ToolCalls {
				args := tc.Function.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				if _, err := agentturn.Append(mem, byheart.Turn{Role: byheart.ToolCall, Tool: tc.Function.Name, CallID: tc.ID, Text: args, Time: when}, 0); err != nil {
					return err
				}
			}
		case schema.Tool:
			var src byheart.Source
			if sources != nil {
				src = sources(msg)
			}
			if _, err := agentturn.Append(mem, byheart.Turn{Role: byheart.ToolResult, Tool: msg.ToolName, CallID: msg.ToolCallID, Text: text(msg), Source: src, Time: when}, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// text is a message's text: its content, then each of its parts, one
// paragraph each, a part that is not text as the line that describes it
// (see describe). Reasoning is left out.
func text(msg *schema.Message) string {
	parts := []string{msg.Content}
	for _, p := range msg.UserInputMultiContent {
		parts = append(parts, inputPart(p))
	}
	for _, p := range msg.MultiContent {
		parts = append(parts, chatPart(p))
	}
	for _, p := range msg.AssistantGenMultiContent {
		parts = append(parts, outputPart(p))
	}
	parts = slices.DeleteFunc(parts, func(s string) bool { return strings.TrimSpace(s) == "" })
	return strings.Join(parts, "\n\n")
}

// media reports whether msg holds a part that is not text.
func media(msg *schema.Message) bool {
	for _, p := range msg.UserInputMultiContent {
		if p.Type != schema.ChatMessagePartTypeText {
			return true
		}
	}
	for _, p := range msg.MultiContent {
		if p.Type != schema.ChatMessagePartTypeText {
			return true
		}
	}
	return false
}

// inputPart is the text of a part of a message to the model, or the line
// that describes it.
func inputPart(p schema.MessageInputPart) string {
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		return p.Text
	case p.Image != nil:
		return describe(p.Type, &p.Image.MessagePartCommon, "")
	case p.Audio != nil:
		return describe(p.Type, &p.Audio.MessagePartCommon, "")
	case p.Video != nil:
		return describe(p.Type, &p.Video.MessagePartCommon, "")
	case p.File != nil:
		return describe(p.Type, &p.File.MessagePartCommon, p.File.Name)
	}
	return describe(p.Type, nil, "")
}

// outputPart is the text of a part of a model's reply; anything else it
// generated (an image, audio) is described by its kind alone.
func outputPart(p schema.MessageOutputPart) string {
	switch p.Type {
	case schema.ChatMessagePartTypeText:
		return p.Text
	case schema.ChatMessagePartTypeReasoning:
		return ""
	}
	return describe(p.Type, nil, "")
}

// chatPart is inputPart for the parts of MultiContent, which messages made
// before MessageInputPart may still hold.
//
//lint:ignore SA1019 such messages are still sent
func chatPart(p schema.ChatMessagePart) string {
	var url, mime, name string
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		return p.Text
	case p.ImageURL != nil:
		url, mime = p.ImageURL.URL, p.ImageURL.MIMEType
	case p.AudioURL != nil:
		url, mime = p.AudioURL.URL, p.AudioURL.MIMEType
	case p.VideoURL != nil:
		url, mime = p.VideoURL.URL, p.VideoURL.MIMEType
	case p.FileURL != nil:
		url, mime, name = p.FileURL.URL, p.FileURL.MIMEType, p.FileURL.Name
	}
	return describe(p.Type, &schema.MessagePartCommon{URL: &url, MIMEType: mime}, name)
}

// describe is agentturn.Describe of a part of kind, c (nil for a part
// that has none) and the file name name.
func describe(kind schema.ChatMessagePartType, c *schema.MessagePartCommon, name string) string {
	a := agentturn.Attachment{Kind: strings.TrimSuffix(string(kind), "_url"), Name: name}
	if c != nil {
		a.MIME = c.MIMEType
		if c.URL != nil {
			a.URL = *c.URL
		}
		if c.Base64Data != nil {
			a.Size = base64.StdEncoding.DecodedLen(len(*c.Base64Data))
		}
	}
	return agentturn.Describe(a)
}

// appendText appends text as a turn of role said at when and returns its
// index, or -1 when text is blank and nothing is appended.
func appendText(mem *byheart.Memory, role byheart.Role, text string, when time.Time) (int, error) {
	if strings.TrimSpace(text) == "" {
		return -1, nil
	}
	if _, err := agentturn.Append(mem, byheart.Turn{Role: role, Text: text, Time: when}, 0); err != nil {
		return -1, err
	}
	return mem.Len() - 1, nil
}
