// Package byheartanthropic turns a byheart.Result into the message parameters
// of the Anthropic Go SDK (github.com/anthropics/anthropic-sdk-go/v2), with the
// prompt-cache breakpoints where byheart's layout makes them pay.
//
// It lives in its own module so that importing the core byheart package never
// pulls the Anthropic SDK into a build.
//
// # Cache breakpoints
//
// Anthropic caches a request's prefix only up to a block that carries
// cache_control, and accepts at most four such blocks per request (tools,
// system and messages together). Messages places at most two:
//
//  1. On the block at Result.StableUpto: everything up to it repeats byte for
//     byte until byheart rebuilds its selection, so every call after the first
//     reads it from the cache.
//  2. On the last assistant turn after StableUpto, when there is one: the end of
//     the native tail that follows the memory block. The tail only grows, so the
//     next call finds this entry a few blocks behind its own breakpoint (the API
//     looks back about 20 blocks from each breakpoint) and reads the whole
//     previous history from the cache, paying full price only for the newest
//     exchange. It goes on the last answer rather than on the last part before
//     the query because outside material and the query are user parts that
//     follow it: both change on every call, so an entry written through them
//     would never be read.
//
// System adds one more breakpoint, on the system prompt, so a request built by
// this package carries at most three and leaves one for your tools.
//
// A prefix shorter than the model's minimum cacheable length (1,024 to 4,096
// tokens depending on the model) is accepted by the API and simply not cached,
// so the breakpoints are harmless on a short conversation.
//
// Leave MessageNewParams.CacheControl (automatic caching) unset: it places its
// own breakpoint on the last block, the query, where it cannot pay.
//
// # Message shape
//
// Consecutive parts of one role are sent as separate text blocks of one message,
// so roles alternate. Blank parts are left out, since the API refuses
// whitespace-only text blocks. When the history starts with the assistant,
// Opening is sent first as a user message, since Anthropic (and the clouds
// that serve its models) expect the first message to be the user's. The query
// is always the last block of the last message, a user message.
package byheartanthropic

import (
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/byheart/byheart"
)

// Opening is the text of the user message placed first when the composed
// history starts with an assistant turn.
const Opening = "(The conversation so far begins with the assistant.)"

// ErrResult reports a Result that cannot be turned into a request: no final
// user query, a role other than byheart.User and byheart.Assistant, or a
// StableUpto outside the parts before the query.
var ErrResult = errors.New("byheartanthropic: malformed result")

// Option changes how breakpoints are written.
type Option func(*config)

type config struct {
	cache anthropic.CacheControlEphemeralParam
}

// WithTTL sets the lifetime of the cache entries the breakpoints write:
// anthropic.CacheControlEphemeralTTLTTL5m (the API's default) or
// anthropic.CacheControlEphemeralTTLTTL1h, which costs more to write but
// outlives a user who pauses for longer than five minutes. The API requires
// breakpoints with a longer lifetime to come before shorter ones, so give
// System the same TTL as Messages, or a longer one.
func WithTTL(ttl anthropic.CacheControlEphemeralTTL) Option {
	return func(c *config) { c.cache.TTL = ttl }
}

func newConfig(opts []Option) config {
	c := config{cache: anthropic.NewCacheControlEphemeralParam()}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// System returns the system prompt as a cacheable block for
// MessageNewParams.System, or nil when text is empty. Keep the text the same
// from call to call: it precedes every message in the cached prefix.
func System(text string, opts ...Option) []anthropic.TextBlockParam {
	if text == "" {
		return nil
	}
	return []anthropic.TextBlockParam{{Text: text, CacheControl: newConfig(opts).cache}}
}

// Messages converts r into the messages of an Anthropic request, with cache
// breakpoints as described in the package documentation. It returns ErrResult
// (wrapped) when r is not a well-formed composition.
func Messages(r byheart.Result, opts ...Option) ([]anthropic.MessageParam, error) {
	parts, err := flatten(r)
	if err != nil {
		return nil, err
	}
	marks := breakpoints(parts, r.StableUpto)
	cache := newConfig(opts).cache

	var out []anthropic.MessageParam
	var blocks []anthropic.ContentBlockParamUnion
	role := byheart.User
	flush := func() {
		if len(blocks) == 0 {
			return
		}
		if role == byheart.User {
			out = append(out, anthropic.NewUserMessage(blocks...))
		} else {
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		}
		blocks = nil
	}
	if firstRole(parts) == byheart.Assistant {
		blocks = append(blocks, anthropic.NewTextBlock(Opening))
	}
	for i, p := range parts {
		if p.blank {
			continue
		}
		if p.role != role {
			flush()
			role = p.role
		}
		b := anthropic.NewTextBlock(p.text)
		if marks[i] {
			b.OfText.CacheControl = cache
		}
		blocks = append(blocks, b)
	}
	flush()
	return out, nil
}

// part is one Result part in flattened order.
type part struct {
	role  byheart.Role
	text  string
	blank bool // left out of the request
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
			parts = append(parts, part{role: m.Role, text: p.Text, blank: strings.TrimSpace(p.Text) == ""})
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no messages", ErrResult)
	}
	query := parts[len(parts)-1]
	if query.role != byheart.User || query.blank {
		return nil, fmt.Errorf("%w: the last part must be a non-blank user query", ErrResult)
	}
	if r.StableUpto < -1 || r.StableUpto >= len(parts)-1 {
		return nil, fmt.Errorf("%w: stable_upto %d outside the %d parts before the query", ErrResult, r.StableUpto, len(parts)-1)
	}
	return parts, nil
}

// firstRole is the role of the first part that is sent.
func firstRole(parts []part) byheart.Role {
	for _, p := range parts {
		if !p.blank {
			return p.role
		}
	}
	return byheart.User
}

// breakpoints reports which parts carry cache_control: the last non-blank part
// at or before stable, and the last assistant part after it.
func breakpoints(parts []part, stable int) []bool {
	marks := make([]bool, len(parts))
	first := -1
	for i := stable; i >= 0; i-- {
		if !parts[i].blank {
			first = i
			break
		}
	}
	if first < 0 {
		return marks
	}
	marks[first] = true
	for i := len(parts) - 2; i > stable; i-- {
		if parts[i].role == byheart.Assistant && !parts[i].blank {
			marks[i] = true
			break
		}
	}
	return marks
}
