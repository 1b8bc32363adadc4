package byheartlangchaingo

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/byheart/byheart"
	"github.com/tmc/langchaingo/llms"
)

// ErrResult reports a Result that cannot be turned into messages: one that
// ends with the assistant, a role byheart does not give a message, or a
// StableUpto outside the parts.
var ErrResult = errors.New("byheartlangchaingo: malformed result")

// ContentOption changes how Contents writes messages.
type ContentOption func(*contentConfig)

type contentConfig struct {
	cache *llms.CacheControl
	apart bool
}

// WithCacheControl marks prompt-cache breakpoints with cc (for instance
// anthropic.EphemeralCache() from langchaingo's llms/anthropic): the part is
// wrapped in llms.CachedContent. langchaingo's Anthropic provider honours
// the mark on human messages only, so the breakpoints are on the last human
// part at or before StableUpto and, when the composed log goes on past it
// with assistant parts, on the last human part before the last of those;
// never on outside material or the query. Use it with the Anthropic
// provider only: other providers do not accept llms.CachedContent.
func WithCacheControl(cc *llms.CacheControl) ContentOption {
	return func(c *contentConfig) { c.cache = cc }
}

// WithToolCallsApart sends each tool call of a reply as an AI message of
// its own rather than all of them in one. langchaingo's Anthropic provider
// reads only the first part of an AI message (and the API joins consecutive
// messages of one role), so use it there; its OpenAI provider needs the
// calls of a reply together, as they are by default.
func WithToolCallsApart() ContentOption {
	return func(c *contentConfig) { c.apart = true }
}

// Contents converts r into messages for llms.Model.GenerateContent: one
// message per part, in order, the query last, each with one text part (tool
// calls and results aside, see below).
// Each part is a message of its own because langchaingo's providers read
// only the first part of an AI message; the APIs accept consecutive
// messages of one role. It returns ErrResult (wrapped) when r is not a
// well-formed composition.
//
// An agent's turns go out as tool messages: the byheart.ToolCall parts of a
// reply as llms.ToolCall parts of one AI message (see WithToolCallsApart),
// after the reply's text, and each byheart.ToolResult part as a tool message
// with an llms.ToolCallResponse whose content is byheart's framed text: the
// result under a head that names its source, marked unverified when it is
// not authenticated. A call byheart has no result for, or a result whose
// call is not in the reply before it, goes out as the text of its part
// instead, so providers that require every call answered accept it; an
// empty call id, or one another call of the request has already, is
// replaced by one made from the part's position that no call of the
// request has (see byheart.Result.CallIDs), and arguments that are not a JSON object are wrapped as
// {"arguments": "<text>"}. A byheart.Note part is a human message. After
// byheart's Memory.Continue there is no query: the newest turn is last.
//
// Put a system message, if any, first and keep its text the same from call
// to call.
func Contents(r byheart.Result, opts ...ContentOption) ([]llms.MessageContent, error) {
	var c contentConfig
	for _, o := range opts {
		o(&c)
	}
	parts, err := flatten(r)
	if err != nil {
		return nil, err
	}
	var marks []bool
	if c.cache != nil {
		marks = humanBreakpoints(parts, r.StableUpto)
	}
	var out []llms.MessageContent
	var calls []llms.ContentPart
	flush := func() {
		if len(calls) > 0 {
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: calls})
			calls = nil
		}
	}
	for i, p := range parts {
		switch {
		case p.id != "" && p.kind == byheart.ToolCall:
			calls = append(calls, llms.ToolCall{ID: p.id, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: p.call.Name, Arguments: arguments(p.call.Arguments)}})
			if c.apart {
				flush()
			}
			continue
		case p.speaker != byheart.Assistant:
			flush()
		}
		if p.id != "" {
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool,
				Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: p.id, Name: p.call.Name, Content: p.text}}})
			continue
		}
		var part llms.ContentPart = llms.TextContent{Text: p.text}
		if marks != nil && marks[i] {
			part = llms.WithCacheControl(part, c.cache)
		}
		typ := llms.ChatMessageTypeHuman
		if p.speaker == byheart.Assistant {
			typ = llms.ChatMessageTypeAI
		}
		out = append(out, llms.MessageContent{Role: typ, Parts: []llms.ContentPart{part}})
	}
	flush()
	return out, nil
}

// arguments are a call's arguments as a JSON object, which langchaingo's
// Anthropic provider requires.
func arguments(args string) string {
	var obj map[string]json.RawMessage
	switch {
	case strings.TrimSpace(args) == "":
		return "{}"
	case json.Unmarshal([]byte(args), &obj) == nil && obj != nil:
		return args
	}
	wrapped, _ := json.Marshal(map[string]string{"arguments": args})
	return string(wrapped)
}

// part is one Result part in flattened order.
type part struct {
	speaker byheart.Role // User, Assistant, or ToolResult for a result sent as a tool message
	text    string
	kind    byheart.Role // the role byheart gave it
	call    byheart.Call
	id      string // for a call and its result sent as such, the id they share; else ""
}

// flatten lists r's parts in order, pairs calls with results, and checks
// that r does not end with the assistant and that StableUpto points at a
// part.
func flatten(r byheart.Result) ([]part, error) {
	var parts []part
	for i, m := range r.Messages {
		speaker, ok := map[byheart.Role]byheart.Role{byheart.User: byheart.User, byheart.Assistant: byheart.Assistant,
			byheart.ToolCall: byheart.Assistant, byheart.ToolResult: byheart.User, byheart.Note: byheart.User}[m.Role]
		if !ok {
			return nil, fmt.Errorf("%w: message %d has role %q", ErrResult, i, m.Role)
		}
		for _, p := range m.Parts {
			var call byheart.Call
			if p.Call != nil {
				call = *p.Call
			}
			parts = append(parts, part{speaker: speaker, text: p.Text, kind: m.Role, call: call})
		}
	}
	if len(parts) == 0 || parts[len(parts)-1].speaker == byheart.Assistant {
		return nil, fmt.Errorf("%w: the last part must be the user's query or a turn that is not the assistant's", ErrResult)
	}
	if _, _, ok := r.Breakpoint(); !ok && r.StableUpto != -1 {
		return nil, fmt.Errorf("%w: stable_upto %d outside the %d parts", ErrResult, r.StableUpto, len(parts))
	}
	pair(parts, r)
	return parts, nil
}

// pair gives each call and result that byheart pairs (see
// byheart.Result.CallIDs) the id they share, one no other call of the
// request has, and sends the result as a tool message. Every other call and
// result goes out as text.
func pair(parts []part, r byheart.Result) {
	for i, id := range r.CallIDs(nil) {
		parts[i].id = id
		if id != "" && parts[i].kind == byheart.ToolResult {
			parts[i].speaker = byheart.ToolResult
		}
	}
}

// humanBreakpoints reports which parts carry a breakpoint when only human
// text parts can: the last such part at or before stable, and the last
// such part before the last assistant part after stable.
func humanBreakpoints(parts []part, stable int) []bool {
	marks := make([]bool, len(parts))
	first := lastHuman(parts, stable)
	if first < 0 {
		return marks
	}
	marks[first] = true
	for i := len(parts) - 2; i > stable; i-- {
		if parts[i].speaker == byheart.Assistant {
			if end := lastHuman(parts, i); end > first {
				marks[end] = true
			}
			break
		}
	}
	return marks
}

// lastHuman is the index of the last human text part at or before i, or -1.
func lastHuman(parts []part, i int) int {
	for ; i >= 0; i-- {
		if parts[i].speaker == byheart.User {
			return i
		}
	}
	return -1
}
