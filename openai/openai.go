// Package byheartopenai turns a byheart.Result into the messages of an OpenAI
// chat completion request (github.com/openai/openai-go/v3).
//
// It lives in its own module so that importing the core byheart package never
// pulls the OpenAI SDK into a build.
//
// # Prompt caching
//
// OpenAI caches prompt prefixes automatically: a request whose first 1,024 or
// more tokens match a recent request's is billed at the cached rate for the
// matching part. Nothing has to be marked; what matters is that the part of the
// prompt that repeats comes first and repeats byte for byte. So the adapter's
// whole job is to keep byheart's order and bytes intact:
//
//   - Parts are sent in byheart's order, so everything up to Result.StableUpto
//     leads the request and repeats between calls until byheart rebuilds its
//     selection, and the native tail that follows only grows.
//   - Each part becomes one message of its role with plain string content, so
//     a part's bytes never depend on what comes after it (a part that later
//     shares its message with the next turn encodes the same). The Chat
//     Completions API accepts consecutive messages of one role.
//   - The query is the last message, after any outside material, both of which
//     change on every call.
//
// Put a system (or developer) message, if any, before these messages and keep
// its text the same from call to call. Setting ChatCompletionNewParams
// PromptCacheKey to a stable per-conversation value helps OpenAI route the
// calls of one conversation to the same cache.
//
// Models from gpt-5.6 on match a cached prefix only where a cache breakpoint
// was written, and by default place their one implicit breakpoint at the end of
// the newest message, which here holds the query and any outside material. For
// those, WithBreakpoints adds explicit breakpoints where byheart's layout
// repeats; see its documentation.
package byheartopenai

import (
	"errors"
	"fmt"

	"github.com/byheart/byheart"
	"github.com/openai/openai-go/v3"
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

// WithBreakpoints marks explicit prompt-cache breakpoints
// (prompt_cache_breakpoint, mode "explicit") for models that support them
// (gpt-5.6 and later): on the last user part at or before StableUpto, and on the
// last user turn before the final answer of the tail that follows it, never on
// outside material or the query. Only user text can carry a breakpoint, so
// with this option every user message is sent with its text as a one-element
// array of content parts, breakpoint or not, to keep each message's encoding
// the same from call to call. Two breakpoints plus OpenAI's implicit one stay
// within the four a request may write.
//
// Leave it off for older models and for OpenAI-compatible servers, which may
// not accept the field.
func WithBreakpoints() Option {
	return func(c *config) { c.breakpoints = true }
}

// Messages converts r into chat completion messages, one per part, in order,
// the query last. It returns ErrResult (wrapped) when r is not a well-formed
// composition.
func Messages(r byheart.Result, opts ...Option) ([]openai.ChatCompletionMessageParamUnion, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	var roles []byheart.Role
	var texts []string
	for i, m := range r.Messages {
		if m.Role != byheart.User && m.Role != byheart.Assistant {
			return nil, fmt.Errorf("%w: message %d has role %q", ErrResult, i, m.Role)
		}
		for _, p := range m.Parts {
			roles = append(roles, m.Role)
			texts = append(texts, p.Text)
		}
	}
	if len(roles) == 0 || roles[len(roles)-1] != byheart.User {
		return nil, fmt.Errorf("%w: the last part must be the user's query", ErrResult)
	}
	if r.StableUpto < -1 || r.StableUpto >= len(roles)-1 {
		return nil, fmt.Errorf("%w: stable_upto %d outside the %d parts before the query", ErrResult, r.StableUpto, len(roles)-1)
	}

	var marks []bool
	if c.breakpoints {
		marks = breakpoints(roles, r.StableUpto)
	}
	out := make([]openai.ChatCompletionMessageParamUnion, len(roles))
	for i, role := range roles {
		switch {
		case role == byheart.Assistant:
			out[i] = openai.AssistantMessage(texts[i])
		case c.breakpoints:
			text := openai.ChatCompletionContentPartTextParam{Text: texts[i]}
			if marks[i] {
				text.PromptCacheBreakpoint = openai.NewChatCompletionContentPartTextPromptCacheBreakpointParam()
			}
			out[i] = openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{{OfText: &text}})
		default:
			out[i] = openai.UserMessage(texts[i])
		}
	}
	return out, nil
}

// breakpoints reports which parts carry an explicit breakpoint: the last user
// part at or before stable, and the last user part before the last assistant
// part after stable.
func breakpoints(roles []byheart.Role, stable int) []bool {
	marks := make([]bool, len(roles))
	first := lastUser(roles, stable)
	if first < 0 {
		return marks
	}
	marks[first] = true
	for i := len(roles) - 2; i > stable; i-- {
		if roles[i] == byheart.Assistant {
			if end := lastUser(roles, i); end > first {
				marks[end] = true
			}
			break
		}
	}
	return marks
}

// lastUser is the index of the last user part at or before i, or -1.
func lastUser(roles []byheart.Role, i int) int {
	for ; i >= 0; i-- {
		if roles[i] == byheart.User {
			return i
		}
	}
	return -1
}
