// Package pricing bills a prompt as a provider with prompt caching would,
// for the benchmark (eval) and the inspector (cmd/byheart) alike. It mimics
// a provider's prompt cache with an explicit breakpoint (Anthropic's prompt
// caching, the stricter of the two large providers' rules):
//
//   - tokens are characters / 4;
//   - the cacheable prefix of a call is every block up to and including its
//     breakpoint;
//   - every call whose cacheable prefix is at least 1,024 tokens (the
//     minimum a provider caches) leaves an entry in the cache: that prefix;
//   - a call reads the longest entry that its prompt begins with exactly
//     (same blocks, same roles, same bytes) and that ends at most
//     Lookback-1 blocks before its breakpoint (the provider looks for an
//     entry at each of the Lookback block boundaries ending at the
//     breakpoint, and nowhere else); those tokens are read at 0.1×, and the
//     rest of the call's cacheable prefix is written at 1.25×;
//   - with no entry to read, the whole cacheable prefix is written at 1.25×,
//     or charged at 1× when it is shorter than 1,024 tokens;
//   - everything after the breakpoint costs 1×;
//   - a call the caller says is cold finds nothing cached and clears every
//     entry, since a provider's cache lives minutes: an entry lasts its
//     TTL after a call last wrote or read it, so a call after a pause of
//     Cache.TTL.Life() or more is cold.
//
// The entries' lifetime is the Cache's TTL: FiveMinutes, the provider's
// default, or OneHour, whose writes cost HourWriteRate (2×) rather than
// WriteRate (Anthropic's cache_control ttl "1h"), and which a pause under an
// hour leaves warm.
//
// Matching whole blocks rather than raw bytes follows the provider, which
// hashes content blocks: a block that grew at its end is a new block. The
// cache holds the newest MaxEntries entries of a session (an entry read is
// new again, as a read refreshes it at the provider); a provider keeps more,
// for minutes, so this can only undercount hits. OpenAI's automatic cache,
// which matches any common prefix of 1,024 tokens or more in 128-token
// steps with no lookback limit, hits at least wherever this one does.
// Output tokens are left out.
//
// It once remembered only the previous call's prefix; every call that hit
// then hits now, and what remembering more adds is a call whose prompt
// begins with an older call's prefix, not the previous one's, as a log
// that dropped its newest parts did under an earlier byheart rule 3.
package pricing

import (
	"slices"
	"time"
	"unicode/utf8"
)

// The provider's terms.
const (
	CharsPerToken  = 4
	MinCacheTokens = 1024
	ReadRate       = 0.1
	WriteRate      = 1.25 // a write of an entry that lives FiveMinutes
	// HourWriteRate is the rate of a write of an entry that lives OneHour.
	HourWriteRate = 2
	// Lookback is how many block boundaries, the breakpoint's own and
	// those before it, the provider checks for an entry.
	Lookback = 20
	// MaxEntries is how many entries the cache keeps in a session.
	MaxEntries = 32
)

// TTL is how long the provider keeps a cache entry after a call last wrote
// or read it, chosen when the entry is written and priced in its write.
type TTL int

const (
	// FiveMinutes is the provider's default lifetime, written at WriteRate.
	FiveMinutes TTL = iota
	// OneHour keeps an entry an hour, written at HourWriteRate.
	OneHour
)

// Life is how long an entry lasts with no call reading it: a call that
// follows the previous one by less finds the cache warm.
func (t TTL) Life() time.Duration {
	if t == OneHour {
		return time.Hour
	}
	return 5 * time.Minute
}

// writeRate is the rate of a cache write of an entry that lives t.
func (t TTL) writeRate() float64 {
	if t == OneHour {
		return HourWriteRate
	}
	return WriteRate
}

// Block is one content block of a prompt, the unit a provider caches.
type Block struct {
	Role, Text string
}

// Bill is what one call costs, in tokens by rate.
type Bill struct {
	Read    float64 // read from the cache, at ReadRate
	Written float64 // written to the cache, at the rate of TTL
	Plain   float64 // charged at the base rate
	TTL     TTL     // the lifetime of what was written
}

// Effective is the call's cost in base-rate tokens.
func (b Bill) Effective() float64 {
	return ReadRate*b.Read + b.TTL.writeRate()*b.Written + b.Plain
}

// Prompt is the call's size in tokens, whatever the cache did.
func (b Bill) Prompt() float64 { return b.Read + b.Written + b.Plain }

// Hit reports a call that read from the cache.
func (b Bill) Hit() bool { return b.Read > 0 }

// Cache is the provider's cache for one conversation. The zero value is an
// empty cache whose entries live FiveMinutes.
type Cache struct {
	TTL     TTL     // the lifetime of the entries calls write
	entries []entry // oldest first
}

// entry is a cached prefix and its size in tokens.
type entry struct {
	prefix []Block
	tokens float64
}

// Charge prices a call: blocks up to and including breakpoint are its
// cacheable prefix (-1 for none), the rest are charged in full. cold says
// the cache expired before the call.
func (k *Cache) Charge(blocks []Block, breakpoint int, cold bool) Bill {
	if cold {
		k.entries = k.entries[:0]
	}
	stable := blocks[:breakpoint+1]
	size := Tokens(stable)
	b := Bill{Plain: Tokens(blocks[breakpoint+1:]), TTL: k.TTL}
	switch i := k.find(stable); {
	case i >= 0:
		e := k.entries[i]
		b.Read, b.Written = e.tokens, size-e.tokens
		k.entries = append(k.entries[:i], k.entries[i+1:]...) // read: new again
		k.keep(e)
	case size >= MinCacheTokens:
		b.Written = size
	default:
		b.Plain += size
	}
	if size >= MinCacheTokens {
		k.keep(entry{slices.Clone(stable), size}) // the caller may reuse blocks
	}
	return b
}

// find returns the index of the longest entry that stable begins with and
// that ends within Lookback blocks of its end, or -1.
func (k *Cache) find(stable []Block) int {
	best := -1
	for i, e := range k.entries {
		n := len(e.prefix)
		if n > len(stable) || len(stable)-n >= Lookback || best >= 0 && n <= len(k.entries[best].prefix) {
			continue
		}
		if extends(stable, e.prefix) {
			best = i
		}
	}
	return best
}

// keep adds e as the newest entry, replacing an equal one, and forgets the
// oldest beyond MaxEntries.
func (k *Cache) keep(e entry) {
	for i, old := range k.entries {
		if len(old.prefix) == len(e.prefix) && extends(e.prefix, old.prefix) {
			k.entries = append(k.entries[:i], k.entries[i+1:]...)
			break
		}
	}
	if len(k.entries) == MaxEntries {
		k.entries = append(k.entries[:0], k.entries[1:]...)
	}
	k.entries = append(k.entries, e)
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
