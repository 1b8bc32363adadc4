package main

import "unicode/utf8"

// The pricing model mimics a provider's prompt cache with an explicit
// breakpoint (Anthropic's prompt caching):
//
//   - tokens are characters / 4;
//   - the cacheable prefix of a call is every part up to and including its
//     breakpoint (byheart's StableUpto; for the baselines, the last history
//     part or the end of the retrieved block);
//   - if the previous call of the same session cached a prefix, and this
//     call's prompt begins with exactly those parts (same roles, same bytes),
//     those tokens are read from the cache at 0.1×; the rest of this call's
//     cacheable prefix is written to the cache at 1.25×;
//   - otherwise the whole cacheable prefix is written at 1.25×, or charged
//     at 1× when it is shorter than 1,024 tokens, the minimum a provider
//     caches;
//   - everything after the breakpoint (the query, byheart's external block)
//     costs 1×;
//   - each new session starts cold: a provider's cache lives minutes, and
//     LoCoMo's sessions are days apart.
//
// Matching whole parts rather than raw bytes follows the provider, which
// hashes content blocks: a block that grew at its end is a new block. The
// cache remembers only the newest prefix, so a call cannot read an entry two
// calls old; that undercounts hits only for a method whose prefix flips back
// and forth. Output tokens are left out: every method answers the same turns.
const (
	charsPerToken  = 4
	minCacheTokens = 1024
	readRate       = 0.1
	writeRate      = 1.25
)

// bill is what one call costs, in tokens by rate.
type bill struct {
	read    float64 // read from the cache, at readRate
	written float64 // written to the cache, at writeRate
	plain   float64 // charged at the base rate
}

// effective is the call's cost in base-rate tokens.
func (b bill) effective() float64 { return readRate*b.read + writeRate*b.written + b.plain }

// prompt is the call's size in tokens, whatever the cache did.
func (b bill) prompt() float64 { return b.read + b.written + b.plain }

// hit reports a call that read from the cache.
func (b bill) hit() bool { return b.read > 0 }

// cache is the provider's cache for one method in one conversation.
type cache struct {
	prefix []part  // the prefix cached by the previous call; nil when none
	tokens float64 // its size
}

// charge prices c. cold says the provider's cache expired before it (the
// first call of a session).
func (k *cache) charge(c call, cold bool) bill {
	if cold {
		k.prefix, k.tokens = nil, 0
	}
	stable := c.parts[:c.breakpoint+1]
	size := tokens(stable)
	b := bill{plain: tokens(c.parts[c.breakpoint+1:])}
	switch {
	case k.prefix != nil && extends(stable, k.prefix):
		b.read, b.written = k.tokens, size-k.tokens
	case size >= minCacheTokens:
		b.written = size
	default:
		b.plain += size
	}
	k.prefix, k.tokens = nil, 0
	if size >= minCacheTokens {
		k.prefix, k.tokens = stable, size
	}
	return b
}

// extends reports whether parts begins with exactly the parts of prefix.
func extends(parts, prefix []part) bool {
	if len(parts) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		if parts[i] != p {
			return false
		}
	}
	return true
}

func tokens(parts []part) float64 {
	n := 0
	for _, p := range parts {
		n += utf8.RuneCountInString(p.text)
	}
	return float64(n) / charsPerToken
}
