package main

import "github.com/byheart/byheart/internal/pricing"

// Every call is priced as internal/pricing says a provider with prompt
// caching bills it. The cacheable prefix ends at the call's breakpoint:
// byheart's StableUpto; for the baselines, the last history part or the end
// of the retrieved block. Each new session starts cold, since a provider's
// cache lives minutes and LoCoMo's sessions are days apart.

// cache is the provider's cache for one method in one conversation.
type cache struct{ pricing.Cache }

// charge prices c. cold says the provider's cache expired before it (the
// first call of a session).
func (k *cache) charge(c call, cold bool) pricing.Bill {
	return k.Charge(blocks(c.parts), c.breakpoint, cold)
}

func blocks(parts []part) []pricing.Block {
	out := make([]pricing.Block, len(parts))
	for i, p := range parts {
		out[i] = pricing.Block{Role: string(p.role), Text: p.text}
	}
	return out
}

func tokens(parts []part) float64 { return pricing.Tokens(blocks(parts)) }
