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
// system and messages together). A breakpoint reads an entry written at its
// own block or at one of the (about) 20 blocks before it, and writes one at
// its own block.
//
// byheart's context is an append-only log: the memory block (or, while the
// history fits the budget, its first turns) and the turns since; then what
// the query recalled, outside material and the query, which change on every
// call. Result.StableUpto is the last part that repeats byte for byte on
// the next call. Messages places at most two breakpoints:
//
//  1. On the end of the log: the part at StableUpto or, when assistant
//     parts of the log follow it, the last of them (a recall, outside
//     material and the query are user parts, so an entry written through
//     them would never be read). This breakpoint moves with the log, so the next call finds
//     this call's entry within its 20-block lookback and pays full price
//     only for what was added since.
//  2. On a block further back that later calls mark too, for the call that
//     comes after more than 20 new blocks (a burst of turns appended without
//     a call), whose moving breakpoint cannot look back that far: the part at
//     StableUpto when the end of the log lies past it, since it repeats until
//     the next rebuild; otherwise, once the log is 20 blocks or longer, an
//     anchor at block 20·2ᵏ−1 (the 20th, 40th, 80th, ... block), the last
//     such before the end. An anchor stays where it is until the log
//     doubles, and every call in between marks it, so a call after a burst
//     still reads the prefix through it, unless the burst carried the log
//     past the next anchor.
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
// is always the last block of the last message, a user message; after
// Memory.Continue there is no query, and the newest turn is last.
//
// # Tool calls and results
//
// An agent's turns go out in Anthropic's own shape: a byheart.ToolCall part
// is a tool_use block of the assistant's message (its input the call's
// arguments, when they are a JSON object, else {"arguments": "<text>"}),
// and a byheart.ToolResult part a tool_result block of the user message
// that follows, whose content is byheart's framed text: the result under a
// head that names its source, marked unverified when it is not
// authenticated. The API requires every tool_use to be answered by a
// tool_result at the start of the next user message, and every tool_result
// to answer a tool_use of the message before. byheart keeps calls and
// results paired; a call it has no result for (the user spoke before the
// tool returned) and a result whose call is not in the message before are
// sent as the text blocks of their parts instead, so a request is never
// refused for them. A call id the API would refuse (it allows letters,
// digits, _ and -), an empty one, or one another call of the request
// has already is replaced by one made from the part's position that no call
// of the request has, for the call and its result alike (see
// byheart.Result.CallIDs). A byheart.Note part is
// a text block of a user message. A request that holds a tool_use or
// tool_result block must define tools (MessageNewParams.Tools), as an agent
// does anyway.
package byheartanthropic

import (
	"encoding/json"
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
// user part, a role byheart does not give a message, or a StableUpto outside
// the parts.
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
		b := p.block()
		if marks[i] {
			*b.GetCacheControl() = cache
		}
		blocks = append(blocks, b)
	}
	flush()
	return out, nil
}

// part is one Result part in flattened order.
type part struct {
	role  byheart.Role // the role of the message it goes in: User or Assistant
	text  string
	blank bool         // left out of the request
	kind  byheart.Role // the role byheart gave it
	call  byheart.Call
	id    string // for a call and its result sent as tool blocks, the id they share; else ""
}

// block is the content block p goes out as.
func (p *part) block() anthropic.ContentBlockParamUnion {
	switch {
	case p.id != "" && p.kind == byheart.ToolCall:
		return anthropic.NewToolUseBlock(p.id, input(p.call.Arguments), p.call.Name)
	case p.id != "":
		return anthropic.NewToolResultBlock(p.id, p.text, false)
	}
	return anthropic.NewTextBlock(p.text)
}

// input is a call's arguments as a tool_use input, which must be an object.
func input(args string) any {
	var obj map[string]json.RawMessage
	switch {
	case strings.TrimSpace(args) == "":
		return map[string]any{}
	case json.Unmarshal([]byte(args), &obj) == nil && obj != nil:
		return json.RawMessage(args)
	}
	return map[string]string{"arguments": args}
}

// flatten lists r's parts in order, each in the role of the message it goes
// in, pairs calls with results, and checks that r ends with a user part and
// that StableUpto points at a part.
func flatten(r byheart.Result) ([]part, error) {
	var parts []part
	for i, m := range r.Messages {
		role, ok := map[byheart.Role]byheart.Role{byheart.User: byheart.User, byheart.Assistant: byheart.Assistant,
			byheart.ToolCall: byheart.Assistant, byheart.ToolResult: byheart.User, byheart.Note: byheart.User}[m.Role]
		if !ok {
			return nil, fmt.Errorf("%w: message %d has role %q", ErrResult, i, m.Role)
		}
		for _, p := range m.Parts {
			var call byheart.Call
			if p.Call != nil {
				call = *p.Call
			}
			parts = append(parts, part{role: role, text: p.Text, blank: strings.TrimSpace(p.Text) == "", kind: m.Role, call: call})
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no messages", ErrResult)
	}
	query := parts[len(parts)-1]
	if query.role != byheart.User || query.blank {
		return nil, fmt.Errorf("%w: the last part must be a non-blank user part", ErrResult)
	}
	if _, _, ok := r.Breakpoint(); !ok && r.StableUpto != -1 {
		return nil, fmt.Errorf("%w: stable_upto %d outside the %d parts", ErrResult, r.StableUpto, len(parts))
	}
	pair(parts, r)
	return parts, nil
}

// pair gives each call and result that byheart pairs (see
// byheart.Result.CallIDs) the id their tool blocks share, one the API takes
// and no other call of the request has. Every other call and result stays
// a text block.
func pair(parts []part, r byheart.Result) {
	for i, id := range r.CallIDs(apiID) {
		parts[i].id = id
	}
}

// apiID reports whether the API takes id for a tool_use: letters, digits, _
// and -.
func apiID(id string) bool {
	return strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) < 0
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

// lookback is how many blocks before a breakpoint Anthropic searches for a
// cache entry to read.
const lookback = 20

// breakpoints reports which parts carry cache_control, as the package
// documentation describes: the end of the log, and the part at stable or an
// anchor block before it.
func breakpoints(parts []part, stable int) []bool {
	marks := make([]bool, len(parts))
	block := blockIndexes(parts)
	at := lastSent(parts, stable)
	if at < 0 {
		return marks
	}
	end := at
	for i := len(parts) - 2; i > stable; i-- {
		if parts[i].role == byheart.Assistant && !parts[i].blank {
			end = i
			break
		}
	}
	marks[end] = true
	if at != end {
		marks[at] = true
		return marks
	}
	if block[end] < lookback {
		return marks // the moving breakpoint looks back over the whole log
	}
	anchor := lookback - 1
	for 2*anchor+1 < block[end] {
		anchor = 2*anchor + 1
	}
	for i := end - 1; i >= 0; i-- {
		if block[i] == anchor {
			marks[i] = true
			break
		}
	}
	return marks
}

// blockIndexes maps each part to its block's position in the request's
// messages, counting the Opening block, or -1 for a blank part, which is
// not sent.
func blockIndexes(parts []part) []int {
	idx := make([]int, len(parts))
	n := 0
	if firstRole(parts) == byheart.Assistant {
		n = 1
	}
	for i, p := range parts {
		idx[i] = -1
		if !p.blank {
			idx[i] = n
			n++
		}
	}
	return idx
}

// lastSent is the last part at or before i that is sent, or -1.
func lastSent(parts []part, i int) int {
	for ; i >= 0; i-- {
		if !parts[i].blank {
			return i
		}
	}
	return -1
}
