package byheartlangchaingo

import (
	"errors"
	"fmt"

	"github.com/byheart/byheart"
	"github.com/tmc/langchaingo/llms"
)

// ErrResult reports a Result that cannot be turned into messages: no final
// user query, a role other than byheart.User and byheart.Assistant, or a
// StableUpto outside the parts before the query.
var ErrResult = errors.New("byheartlangchaingo: malformed result")

// ContentOption changes how Contents writes messages.
type ContentOption func(*contentConfig)

type contentConfig struct {
	cache *llms.CacheControl
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

// Contents converts r into messages for llms.Model.GenerateContent: one
// message per part, in order, the query last, each with one text part.
// Each part is a message of its own because langchaingo's providers read
// only the first part of an AI message; the APIs accept consecutive
// messages of one role. It returns ErrResult (wrapped) when r is not a
// well-formed composition.
//
// Put a system message, if any, first and keep its text the same from call
// to call.
func Contents(r byheart.Result, opts ...ContentOption) ([]llms.MessageContent, error) {
	var c contentConfig
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
	if c.cache != nil {
		marks = humanBreakpoints(roles, r.StableUpto)
	}
	out := make([]llms.MessageContent, len(roles))
	for i, role := range roles {
		var part llms.ContentPart = llms.TextContent{Text: texts[i]}
		if marks != nil && marks[i] {
			part = llms.WithCacheControl(part, c.cache)
		}
		typ := llms.ChatMessageTypeHuman
		if role == byheart.Assistant {
			typ = llms.ChatMessageTypeAI
		}
		out[i] = llms.MessageContent{Role: typ, Parts: []llms.ContentPart{part}}
	}
	return out, nil
}

// humanBreakpoints reports which parts carry a breakpoint when only user
// parts can: the last user part at or before stable, and the last user part
// before the last assistant part after stable.
func humanBreakpoints(roles []byheart.Role, stable int) []bool {
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
