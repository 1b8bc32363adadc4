package main

import (
	"strings"
	"testing"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
)

// tok returns a part of the given size in tokens, made of one letter.
func tok(letter string, tokens int) part {
	return part{byheart.User, strings.Repeat(letter, tokens*charsPerToken)}
}

// priced builds a call from history parts with the breakpoint after the
// first `stable` of them, then a 10-token query.
func priced(stable int, history ...part) call {
	return call{parts: append(append([]part(nil), history...), tok("q", 10)), breakpoint: stable - 1}
}

func TestCachePricesASessionLikeAProvider(t *testing.T) {
	a, b, c := tok("a", 1000), tok("b", 1000), tok("c", 500)
	var k cache
	steps := []struct {
		name string
		call call
		cold bool
		want bill
	}{
		{"first call writes the whole prefix", priced(2, a, b), true, bill{written: 2000, plain: 10}},
		{"an extension reads the old prefix and writes the new tail", priced(3, a, b, c), false, bill{read: 2000, written: 500, plain: 10}},
		{"the same prefix again is read whole", priced(3, a, b, c), false, bill{read: 2500, plain: 10}},
		{"a changed first part rewrites everything", priced(3, tok("x", 1000), b, c), false, bill{written: 2500, plain: 10}},
		{"a new session starts cold even when nothing changed", priced(3, tok("x", 1000), b, c), true, bill{written: 2500, plain: 10}},
		{"a shorter prefix of the cached one is not an entry", priced(1, tok("x", 1000), b, c), false, bill{plain: 2510}},
		{"parts after the breakpoint cost 1x", priced(2, a, b, c), false, bill{written: 2000, plain: 510}},
		{"no breakpoint, no cache", priced(0, a, b), false, bill{plain: 2010}},
		{"and the next call finds nothing cached", priced(2, a, b), false, bill{written: 2000, plain: 10}},
	}
	for _, s := range steps {
		got := k.charge(s.call, s.cold)
		assert.Equal(t, s.want, got, s.name)
	}
}

func TestCacheIgnoresPrefixesBelowTheMinimum(t *testing.T) {
	var k cache
	small := tok("a", 800)
	assert.Equal(t, bill{plain: 810}, k.charge(priced(1, small), true), "under 1,024 tokens nothing is cached")
	grown := priced(2, small, tok("b", 400))
	assert.Equal(t, bill{written: 1200, plain: 10}, k.charge(grown, false), "so the next call has nothing to read")
	assert.Equal(t, bill{read: 1200, plain: 10}, k.charge(grown, false))
}

func TestCacheMatchesWholePartsAndRoles(t *testing.T) {
	var k cache
	block := tok("a", 2000)
	k.charge(priced(1, block), true)

	grown := part{byheart.User, block.text + "more"}
	assert.Equal(t, bill{written: 2001, plain: 10}, k.charge(priced(1, grown), false),
		"a block that grew at its end is a new block to the provider")

	k.charge(priced(1, block), false)
	spoken := part{byheart.Assistant, block.text}
	assert.False(t, k.charge(priced(1, spoken), false).hit(), "the same text in another role is another prompt")
}

func TestBillEffectiveWeighsEachRate(t *testing.T) {
	b := bill{read: 1000, written: 100, plain: 10}
	assert.InDelta(t, 100+125+10, b.effective(), 1e-9)
	assert.InDelta(t, 1110, b.prompt(), 1e-9)
	assert.True(t, b.hit())
	assert.False(t, bill{written: 5}.hit())
}

func TestTokensCountCharactersNotBytes(t *testing.T) {
	assert.InDelta(t, 1, tokens([]part{{byheart.User, "éééé"}}), 1e-9)
}
