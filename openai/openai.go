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
//   - The query is the last message, after any outside material, both of
//     which change on every call.
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
// only "24h" exists, and prompt_cache_options.ttl sets a minimum lifetime.)
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
package byheartopenai

import (
	"errors"
	"fmt"

	"github.com/byheart/byheart"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// ErrResult reports a Result that cannot be turned into a request: no final
// user query, a role other than byheart.User and byheart.Assistant, or a
// StableUpto outside the parts before the query.
var ErrResult = errors.New("byheartopenai: malformed result")

// Option changes how messages are written.
type Option func(*config)

type config struct {
	breakpoints bool
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
// (gpt-5.6 and later), never on outside material or the query:
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
// With this option every message's text is sent as a one-element array of
// content parts, breakpoint or not, so each message encodes the same from
// call to call. In Chat Completions any role's text part takes a breakpoint.
// In the Responses API assistant messages take plain text only (input text
// parts are refused in them), so a breakpoint due on an assistant part goes
// on the last user part before it.
//
// Leave it off for older models and for OpenAI-compatible servers, which may
// not accept the field.
func WithBreakpoints() Option {
	return func(c *config) { c.breakpoints = true }
}

// System returns a system message for the top of a chat completion request.
// With WithBreakpoints its text carries a breakpoint, so the system prompt
// is cached with the conversation.
func System(text string, opts ...Option) openai.ChatCompletionMessageParamUnion {
	if !newConfig(opts).breakpoints {
		return openai.SystemMessage(text)
	}
	return openai.SystemMessage([]openai.ChatCompletionContentPartTextParam{chatText(text, true)})
}

// Messages converts r into chat completion messages, one per part, in order,
// the query last. It returns ErrResult (wrapped) when r is not a well-formed
// composition.
func Messages(r byheart.Result, opts ...Option) ([]openai.ChatCompletionMessageParamUnion, error) {
	parts, marks, err := plan(r, opts, false)
	if err != nil {
		return nil, err
	}
	out := make([]openai.ChatCompletionMessageParamUnion, len(parts))
	for i, p := range parts {
		switch {
		case marks == nil && p.role == byheart.Assistant:
			out[i] = openai.AssistantMessage(p.text)
		case marks == nil:
			out[i] = openai.UserMessage(p.text)
		case p.role == byheart.Assistant:
			text := chatText(p.text, marks[i])
			out[i] = openai.AssistantMessage([]openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{{OfText: &text}})
		default:
			text := chatText(p.text, marks[i])
			out[i] = openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{{OfText: &text}})
		}
	}
	return out, nil
}

func chatText(text string, mark bool) openai.ChatCompletionContentPartTextParam {
	p := openai.ChatCompletionContentPartTextParam{Text: text}
	if mark {
		p.PromptCacheBreakpoint = openai.NewChatCompletionContentPartTextPromptCacheBreakpointParam()
	}
	return p
}

// InputSystem returns a system message item for the top of a Responses API
// input. With WithBreakpoints its text carries a breakpoint. The request's
// Instructions field serves as well, without a breakpoint.
func InputSystem(text string, opts ...Option) responses.ResponseInputItemUnionParam {
	if !newConfig(opts).breakpoints {
		return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleSystem)
	}
	return responses.ResponseInputItemParamOfMessage(inputText(text, true), responses.EasyInputMessageRoleSystem)
}

// Input converts r into Responses API input items, one message per part, in
// order, the query last, for ResponseNewParams.Input
// (responses.ResponseNewParamsInputUnion{OfInputItemList: items}). It returns
// ErrResult (wrapped) when r is not a well-formed composition.
func Input(r byheart.Result, opts ...Option) (responses.ResponseInputParam, error) {
	parts, marks, err := plan(r, opts, true)
	if err != nil {
		return nil, err
	}
	out := make(responses.ResponseInputParam, len(parts))
	for i, p := range parts {
		switch {
		case p.role == byheart.Assistant:
			out[i] = responses.ResponseInputItemParamOfMessage(p.text, responses.EasyInputMessageRoleAssistant)
		case marks == nil:
			out[i] = responses.ResponseInputItemParamOfMessage(p.text, responses.EasyInputMessageRoleUser)
		default:
			out[i] = responses.ResponseInputItemParamOfMessage(inputText(p.text, marks[i]), responses.EasyInputMessageRoleUser)
		}
	}
	return out, nil
}

func inputText(text string, mark bool) responses.ResponseInputMessageContentListParam {
	p := responses.ResponseInputTextParam{Text: text}
	if mark {
		p.PromptCacheBreakpoint = responses.NewResponseInputTextPromptCacheBreakpointParam()
	}
	return responses.ResponseInputMessageContentListParam{{OfInputText: &p}}
}

// plan flattens r and, with WithBreakpoints, reports which parts carry a
// breakpoint; marks is nil without it.
func plan(r byheart.Result, opts []Option, userOnly bool) (parts []part, marks []bool, err error) {
	if parts, err = flatten(r); err != nil {
		return nil, nil, err
	}
	if newConfig(opts).breakpoints {
		marks = breakpoints(parts, r.StableUpto, userOnly)
	}
	return parts, marks, nil
}

// part is one Result part in flattened order.
type part struct {
	role byheart.Role
	text string
}

// flatten lists r's parts in order and checks that r ends with a user query
// and that StableUpto points before it.
func flatten(r byheart.Result) ([]part, error) {
	var parts []part
	for i, m := range r.Messages {
		if m.Role != byheart.User && m.Role != byheart.Assistant {
			return nil, fmt.Errorf("%w: message %d has role %q", ErrResult, i, m.Role)
		}
		for _, p := range m.Parts {
			parts = append(parts, part{m.Role, p.Text})
		}
	}
	if len(parts) == 0 || parts[len(parts)-1].role != byheart.User {
		return nil, fmt.Errorf("%w: the last part must be the user's query", ErrResult)
	}
	if r.StableUpto < -1 || r.StableUpto >= len(parts)-1 {
		return nil, fmt.Errorf("%w: stable_upto %d outside the %d parts before the query", ErrResult, r.StableUpto, len(parts)-1)
	}
	return parts, nil
}

// breakpoints reports which parts carry an explicit breakpoint: the end of
// the log (the part at stable, or the last assistant part after it) and the
// part at stable. With userOnly, a breakpoint due on an assistant part goes
// on the last user part before it instead.
func breakpoints(parts []part, stable int, userOnly bool) []bool {
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
		for userOnly && i >= 0 && parts[i].role != byheart.User {
			i--
		}
		if i >= 0 {
			marks[i] = true
		}
	}
	return marks
}
