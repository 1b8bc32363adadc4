// Package byheartopenai turns a byheart.Result into the input of an OpenAI
// request (github.com/openai/openai-go/v3): chat completion messages
// (Messages) or Responses API input items (Input).
//
// It lives in its own module so that importing the core byheart package never
// pulls the OpenAI SDK into a build.
//
// # Prompt caching
//
// OpenAI caches prompt prefixes: a request whose first 1,024 or more tokens
// match a recent request's is billed at the cached rate for the matching
// part. What matters is that the part of the prompt that repeats comes first
// and repeats byte for byte, so the adapter keeps byheart's order and bytes
// intact:
//
//   - Parts are sent in byheart's order, so everything up to
//     Result.StableUpto leads the request and repeats on the next call, and
//     the log that follows only grows.
//   - Each part becomes one message (or input item) of its role, so a
//     part's bytes never depend on what comes after it. Both APIs accept
//     consecutive messages of one role.
//   - The query is the last message, after what it recalled (Result.Recalled)
//     and any outside material, all of which change on every call.
//
// Put a system (or developer) message first (System, InputSystem, or the
// Responses API's instructions) and keep its text the same from call to
// call.
//
// Set the request's PromptCacheKey to a stable value per conversation (its
// ID, say): OpenAI routes requests by it, so the calls of one conversation
// reach the machine that holds its cache. Leave PromptCacheRetention at the
// model's default or set it to "24h" where the model offers both: a cache
// held in memory expires after minutes of silence, and a user who comes back
// later then pays for the whole context once. (For gpt-5.5 and later models
// only "24h" exists, and prompt_cache_options.ttl sets a minimum lifetime;
// WithBreakpointTTL sets one for byheart's breakpoints alone.)
//
// # Breakpoints
//
// Models from gpt-5.6 on match a cached prefix only where a cache
// breakpoint was written. By default they place one implicit breakpoint,
// at the end of the newest message, which here holds the query, and write up
// to three explicit ones from the request. WithBreakpoints adds explicit
// breakpoints where byheart's layout repeats; see its documentation.
//
// Do not combine byheart with previous_response_id or a stored
// conversation: byheart composes the whole context itself.
//
// # Tool calls and results
//
// An agent's turns go out in OpenAI's own shape. In Chat Completions, the
// byheart.ToolCall parts of an assistant's reply become one assistant
// message with their tool_calls, after the reply's text, and each
// byheart.ToolResult part a tool message answering its call, whose content
// is byheart's framed text: the result under a head that names its source,
// marked unverified when it is not authenticated. In the Responses API they
// are function_call and function_call_output items. Both APIs require every
// call to be answered, and a tool message to answer a call of the assistant
// message before it; byheart keeps calls and results paired, and a call it
// has no result for (the user spoke before the tool returned), or a result
// whose call is not in the reply before it, is sent as the text message of
// its part instead. An empty call id, or one another call of the request
// has already, is replaced by one made from the part's position that no
// call of the request has, for the call and its result alike (see
// byheart.Result.CallIDs). A
// byheart.Note part is a user message. After Memory.Continue there is no
// query: the newest turn is last.
package byheartopenai

import (
	"errors"
	"fmt"

	"github.com/byheart/byheart"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// ErrResult reports a Result that cannot be turned into a request: one that
// ends with the assistant, a role byheart does not give a message, or a
// StableUpto outside the parts.
var ErrResult = errors.New("byheartopenai: malformed result")

// Option changes how messages are written.
type Option func(*config)

type config struct {
	breakpoints bool
	ttl         string // each breakpoint's minimum lifetime; "" for the request's
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithBreakpoints marks explicit prompt-cache breakpoints
// (prompt_cache_breakpoint, mode "explicit") for models that support them
// (gpt-5.6 and later), never on a recall, outside material or the query:
//
//   - on the end of byheart's log: the part at StableUpto, or the last
//     assistant part after it when the log goes on past it;
//   - on the part at StableUpto too, when that is not the end of the log;
//   - on the system prompt, in System and InputSystem.
//
// OpenAI considers the latest 80 breakpoints of a conversation with no
// lookback limit, so the breakpoint on the end of the log, which moves with
// it, always finds the previous call's. Three explicit breakpoints plus the
// implicit one stay within the four a request may write.
//
// With this option (or WithBreakpointTTL) every message's text is sent as
// a one-element array of content parts, breakpoint or not, so each message
// encodes the same from call to call. In Chat Completions any role's text
// part takes a breakpoint. In the Responses API assistant messages take
// plain text only (input text parts are refused in them), so a breakpoint
// due on an assistant part goes on the last user part before it.
//
// Leave it off for older models and for OpenAI-compatible servers, which may
// not accept the field.
func WithBreakpoints() Option {
	return func(c *config) { c.breakpoints = true }
}

// WithBreakpointTTL is WithBreakpoints with each breakpoint's minimum
// lifetime (its ttl) set: "30m" or "12h" as the API offers them today.
// Without it a breakpoint lives as long as the request's
// prompt_cache_options.ttl says. A longer lifetime keeps byheart's log
// cached across a pause its user takes, since the log's prefix is the same
// when they come back; the recall and the query after it never carry one.
// The adapter passes ttl through as given, so a value the API does not
// offer is refused by the API.
func WithBreakpointTTL(ttl string) Option {
	return func(c *config) { c.breakpoints, c.ttl = true, ttl }
}

// System returns a system message for the top of a chat completion request.
// With WithBreakpoints or WithBreakpointTTL its text carries a breakpoint,
// so the system prompt is cached with the conversation.
func System(text string, opts ...Option) openai.ChatCompletionMessageParamUnion {
	c := newConfig(opts)
	if !c.breakpoints {
		return openai.SystemMessage(text)
	}
	return openai.SystemMessage([]openai.ChatCompletionContentPartTextParam{c.chatText(text, true)})
}

// Messages converts r into chat completion messages, one per part, in order,
// the query last, except that the tool calls of one reply share a message
// (see the package documentation). It returns ErrResult (wrapped) when r is
// not a well-formed composition.
func Messages(r byheart.Result, opts ...Option) ([]openai.ChatCompletionMessageParamUnion, error) {
	c := newConfig(opts)
	parts, marks, err := c.plan(r, chatMarkable)
	if err != nil {
		return nil, err
	}
	var out []openai.ChatCompletionMessageParamUnion
	emit(parts, func(i int) {
		out = append(out, c.chatMessage(parts[i], marks != nil, marks != nil && marks[i]))
	}, func(calls []int) {
		msg := openai.ChatCompletionAssistantMessageParam{}
		for _, c := range calls {
			msg.ToolCalls = append(msg.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: parts[c].id,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: parts[c].call.Name, Arguments: parts[c].call.Arguments}},
			})
		}
		out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &msg})
	})
	return out, nil
}

// chatMessage is part p as a chat message: its text as a one-element array
// of content parts when asArray, a breakpoint on it when mark.
func (c config) chatMessage(p part, asArray, mark bool) openai.ChatCompletionMessageParamUnion {
	text := c.chatText(p.text, mark)
	switch {
	case p.id != "" && !asArray:
		return openai.ToolMessage(p.text, p.id)
	case p.id != "":
		return openai.ToolMessage([]openai.ChatCompletionContentPartTextParam{text}, p.id)
	case !asArray && p.role == byheart.Assistant:
		return openai.AssistantMessage(p.text)
	case !asArray:
		return openai.UserMessage(p.text)
	case p.role == byheart.Assistant:
		return openai.AssistantMessage([]openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{{OfText: &text}})
	}
	return openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{{OfText: &text}})
}

// emit walks the parts in the order they are sent: the paired calls of a
// reply go out together, through calls, after its other parts and before
// the results that answer them; every other part through one.
func emit(parts []part, one func(i int), calls func(idx []int)) {
	var held []int
	for i, p := range parts {
		switch {
		case p.id != "" && p.kind == byheart.ToolCall:
			held = append(held, i)
			continue
		case len(held) > 0 && p.role != byheart.Assistant:
			calls(held)
			held = nil
		}
		one(i)
	}
	if len(held) > 0 {
		calls(held)
	}
}

func (c config) chatText(text string, mark bool) openai.ChatCompletionContentPartTextParam {
	p := openai.ChatCompletionContentPartTextParam{Text: text}
	if mark {
		p.PromptCacheBreakpoint = openai.NewChatCompletionContentPartTextPromptCacheBreakpointParam()
		p.PromptCacheBreakpoint.Ttl = c.ttl
	}
	return p
}

// InputSystem returns a system message item for the top of a Responses API
// input. With WithBreakpoints or WithBreakpointTTL its text carries a
// breakpoint. The request's Instructions field serves as well, without a
// breakpoint.
func InputSystem(text string, opts ...Option) responses.ResponseInputItemUnionParam {
	c := newConfig(opts)
	if !c.breakpoints {
		return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleSystem)
	}
	return responses.ResponseInputItemParamOfMessage(c.inputText(text, true), responses.EasyInputMessageRoleSystem)
}

// Input converts r into Responses API input items, one per part, in order,
// the query last, except that the function calls of one reply follow its
// other parts (see the package documentation), for ResponseNewParams.Input
// (responses.ResponseNewParamsInputUnion{OfInputItemList: items}). It returns
// ErrResult (wrapped) when r is not a well-formed composition.
func Input(r byheart.Result, opts ...Option) (responses.ResponseInputParam, error) {
	c := newConfig(opts)
	parts, marks, err := c.plan(r, inputMarkable)
	if err != nil {
		return nil, err
	}
	var out responses.ResponseInputParam
	emit(parts, func(i int) {
		p := parts[i]
		switch {
		case p.id != "":
			item := responses.ResponseInputItemParamOfFunctionCallOutput(p.text)
			item.OfFunctionCallOutput.CallID = openai.String(p.id)
			out = append(out, item)
		case p.role == byheart.Assistant:
			out = append(out, responses.ResponseInputItemParamOfMessage(p.text, responses.EasyInputMessageRoleAssistant))
		case marks == nil:
			out = append(out, responses.ResponseInputItemParamOfMessage(p.text, responses.EasyInputMessageRoleUser))
		default:
			out = append(out, responses.ResponseInputItemParamOfMessage(c.inputText(p.text, marks[i]), responses.EasyInputMessageRoleUser))
		}
	}, func(calls []int) {
		for _, c := range calls {
			out = append(out, responses.ResponseInputItemParamOfFunctionCall(parts[c].call.Arguments, parts[c].id, parts[c].call.Name))
		}
	})
	return out, nil
}

func (c config) inputText(text string, mark bool) responses.ResponseInputMessageContentListParam {
	p := responses.ResponseInputTextParam{Text: text}
	if mark {
		p.PromptCacheBreakpoint = responses.NewResponseInputTextPromptCacheBreakpointParam()
		p.PromptCacheBreakpoint.Ttl = c.ttl
	}
	return responses.ResponseInputMessageContentListParam{{OfInputText: &p}}
}

// plan flattens r and, with WithBreakpoints, reports which parts carry a
// breakpoint; marks is nil without it. markable says which parts can carry
// one.
func (c config) plan(r byheart.Result, markable func(part) bool) (parts []part, marks []bool, err error) {
	if parts, err = flatten(r); err != nil {
		return nil, nil, err
	}
	if c.breakpoints {
		marks = breakpoints(parts, r.StableUpto, markable)
	}
	return parts, marks, nil
}

// chatMarkable: in Chat Completions any text part takes a breakpoint, a
// tool message's included; a tool call has none.
func chatMarkable(p part) bool { return p.id == "" || p.kind != byheart.ToolCall }

// inputMarkable: in the Responses API only user messages take one.
func inputMarkable(p part) bool { return p.role == byheart.User && p.id == "" }

// part is one Result part in flattened order.
type part struct {
	role byheart.Role // User or Assistant: who the part speaks for
	text string
	kind byheart.Role // the role byheart gave it
	call byheart.Call
	id   string // for a call and its result sent as such, the id they share; else ""
}

// roles maps the roles byheart gives messages to whom they speak for.
var roles = map[byheart.Role]byheart.Role{byheart.User: byheart.User, byheart.Assistant: byheart.Assistant,
	byheart.ToolCall: byheart.Assistant, byheart.ToolResult: byheart.User, byheart.Note: byheart.User}

// flatten lists r's parts in order, pairs calls with results, and checks
// that r does not end with the assistant and that StableUpto points at a
// part.
func flatten(r byheart.Result) ([]part, error) {
	var parts []part
	for i, m := range r.Messages {
		role, ok := roles[m.Role]
		if !ok {
			return nil, fmt.Errorf("%w: message %d has role %q", ErrResult, i, m.Role)
		}
		for _, p := range m.Parts {
			var call byheart.Call
			if p.Call != nil {
				call = *p.Call
			}
			parts = append(parts, part{role: role, text: p.Text, kind: m.Role, call: call})
		}
	}
	if len(parts) == 0 || parts[len(parts)-1].role != byheart.User {
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
// request has. Every other call and result goes out as text.
func pair(parts []part, r byheart.Result) {
	for i, id := range r.CallIDs(nil) {
		parts[i].id = id
	}
}

// breakpoints reports which parts carry an explicit breakpoint: the end of
// the log (the part at stable, or the last assistant part after it) and the
// part at stable. A breakpoint due on a part that cannot carry one goes on
// the last part before it that can.
func breakpoints(parts []part, stable int, markable func(part) bool) []bool {
	marks := make([]bool, len(parts))
	if stable < 0 {
		return marks
	}
	end := stable
	for i := len(parts) - 2; i > stable; i-- {
		if parts[i].role == byheart.Assistant {
			end = i
			break
		}
	}
	for _, i := range []int{stable, end} {
		for i >= 0 && !markable(parts[i]) {
			i--
		}
		if i >= 0 {
			marks[i] = true
		}
	}
	return marks
}
