// Package pricing bills a prompt as a provider with prompt caching would,
// for the benchmark (eval) and the inspector (cmd/byheart) alike. It mimics
// a provider's prompt cache with an explicit breakpoint (Anthropic's prompt
// caching):
//
//   - tokens are characters / 4;
//   - the cacheable prefix of a call is every block up to and including its
//     breakpoint;
//   - if the previous call cached a prefix, and this call's prompt begins
//     with exactly those blocks (same roles, same bytes), those tokens are
//     read from the cache at 0.1×; the rest of this call's cacheable prefix
//     is written to the cache at 1.25×;
//   - otherwise the whole cacheable prefix is written at 1.25×, or charged
//     at 1× when it is shorter than 1,024 tokens, the minimum a provider
//     caches;
//   - everything after the breakpoint costs 1×;
//   - a call the caller says is cold finds nothing cached, since a
//     provider's cache lives minutes.
//
// Matching whole blocks rather than raw bytes follows the provider, which
// hashes content blocks: a block that grew at its end is a new block. The
// cache remembers only the newest prefix, so a call cannot read an entry two
// calls old; that undercounts hits only for a prompt whose prefix flips back
// and forth. Output tokens are left out.
package pricing

import "unicode/utf8"

// The provider's terms.
const (
	CharsPerToken  = 4
	MinCacheTokens = 1024
	ReadRate       = 0.1
	WriteRate      = 1.25
)

// Block is one content block of a prompt, the unit a provider caches.
type Block struct {
	Role, Text string
}

// Bill is what one call costs, in tokens by rate.
type Bill struct {
	Read    float64 // read from the cache, at ReadRate
	Written float64 // written to the cache, at WriteRate
	Plain   float64 // charged at the base rate
}

// Effective is the call's cost in base-rate tokens.
func (b Bill) Effective() float64 { return ReadRate*b.Read + WriteRate*b.Written + b.Plain }

// Prompt is the call's size in tokens, whatever the cache did.
func (b Bill) Prompt() float64 { return b.Read + b.Written + b.Plain }

// Hit reports a call that read from the cache.
func (b Bill) Hit() bool { return b.Read > 0 }

// Cache is the provider's cache for one conversation. The zero value is an
// empty cache.
type Cache struct {
	prefix []Block // the prefix the previous call cached; nil when none
	tokens float64 // its size
}

// Charge prices a call: blocks up to and including breakpoint are its
// cacheable prefix (-1 for none), the rest are charged in full. cold says
// the cache expired before the call.
func (k *Cache) Charge(blocks []Block, breakpoint int, cold bool) Bill {
	if cold {
		k.prefix, k.tokens = nil, 0
	}
	stable := blocks[:breakpoint+1]
	size := Tokens(stable)
	b := Bill{Plain: Tokens(blocks[breakpoint+1:])}
	switch {
	case k.prefix != nil && extends(stable, k.prefix):
		b.Read, b.Written = k.tokens, size-k.tokens
	case size >= MinCacheTokens:
		b.Written = size
	default:
		b.Plain += size
	}
	k.prefix, k.tokens = nil, 0
	if size >= MinCacheTokens {
		k.prefix, k.tokens = stable, size
	}
	return b
}

// extends reports whether blocks begins with exactly the blocks of prefix.
func extends(blocks, prefix []Block) bool {
	if len(blocks) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		if blocks[i] != p {
			return false
		}
	}
	return true
}

// Tokens is the size of blocks in tokens: their characters (not bytes) over
// CharsPerToken.
func Tokens(blocks []Block) float64 {
	n := 0
	for _, b := range blocks {
		n += utf8.RuneCountInString(b.Text)
	}
	return float64(n) / CharsPerToken
}
