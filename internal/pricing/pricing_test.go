package pricing

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// tok returns a block of the given size in tokens, made of one letter.
func tok(letter string, tokens int) Block {
	return Block{"user", strings.Repeat(letter, tokens*CharsPerToken)}
}

// call is a prompt and its breakpoint.
type call struct {
	blocks     []Block
	breakpoint int
}

// priced builds a call from history blocks with the breakpoint after the
// first `stable` of them, then a 10-token query.
func priced(stable int, history ...Block) call {
	return call{append(append([]Block(nil), history...), tok("q", 10)), stable - 1}
}

func charge(k *Cache, c call, cold bool) Bill { return k.Charge(c.blocks, c.breakpoint, cold) }

func TestCachePricesASessionLikeAProvider(t *testing.T) {
	a, b, c := tok("a", 1000), tok("b", 1000), tok("c", 500)
	var k Cache
	steps := []struct {
		name string
		call call
		cold bool
		want Bill
	}{
		{"first call writes the whole prefix", priced(2, a, b), true, Bill{Written: 2000, Plain: 10}},
		{"an extension reads the old prefix and writes the new tail", priced(3, a, b, c), false, Bill{Read: 2000, Written: 500, Plain: 10}},
		{"the same prefix again is read whole", priced(3, a, b, c), false, Bill{Read: 2500, Plain: 10}},
		{"a changed first part rewrites everything", priced(3, tok("x", 1000), b, c), false, Bill{Written: 2500, Plain: 10}},
		{"a new session starts cold even when nothing changed", priced(3, tok("x", 1000), b, c), true, Bill{Written: 2500, Plain: 10}},
		{"a shorter prefix of the cached one is not an entry", priced(1, tok("x", 1000), b, c), false, Bill{Plain: 2510}},
		{"parts after the breakpoint cost 1x", priced(2, a, b, c), false, Bill{Written: 2000, Plain: 510}},
		{"no breakpoint, no cache", priced(0, a, b), false, Bill{Plain: 2010}},
		{"but the entries of earlier calls are still there", priced(2, a, b), false, Bill{Read: 2000, Plain: 10}},
		{"a cold call clears them all", priced(2, a, b), true, Bill{Written: 2000, Plain: 10}},
	}
	for _, s := range steps {
		got := k.Charge(s.call.blocks, s.call.breakpoint, s.cold)
		assert.Equal(t, s.want, got, s.name)
	}
}

func TestCacheIgnoresPrefixesBelowTheMinimum(t *testing.T) {
	var k Cache
	small := tok("a", 800)
	assert.Equal(t, Bill{Plain: 810}, charge(&k, priced(1, small), true), "under 1,024 tokens nothing is cached")
	grown := priced(2, small, tok("b", 400))
	assert.Equal(t, Bill{Written: 1200, Plain: 10}, charge(&k, grown, false), "so the next call has nothing to read")
	assert.Equal(t, Bill{Read: 1200, Plain: 10}, charge(&k, grown, false))
}

func TestCacheMatchesWholePartsAndRoles(t *testing.T) {
	var k Cache
	block := tok("a", 2000)
	charge(&k, priced(1, block), true)

	grown := Block{"user", block.Text + "more"}
	assert.Equal(t, Bill{Written: 2001, Plain: 10}, charge(&k, priced(1, grown), false),
		"a block that grew at its end is a new block to the provider")

	charge(&k, priced(1, block), false)
	spoken := Block{"assistant", block.Text}
	assert.False(t, charge(&k, priced(1, spoken), false).Hit(), "the same text in another role is another prompt")
}

func TestBillEffectiveWeighsEachRate(t *testing.T) {
	b := Bill{Read: 1000, Written: 100, Plain: 10}
	assert.InDelta(t, 100+125+10, b.Effective(), 1e-9)
	assert.InDelta(t, 1110, b.Prompt(), 1e-9)
	assert.True(t, b.Hit())
	assert.False(t, Bill{Written: 5}.Hit())
}

func TestOneHourEntriesCostTwiceTheInputToWriteAndLastAnHour(t *testing.T) {
	a, b := tok("a", 1000), tok("b", 1000)
	k := Cache{TTL: OneHour}
	first := charge(&k, priced(2, a, b), true)
	assert.Equal(t, Bill{Written: 2000, Plain: 10, TTL: OneHour}, first)
	assert.InDelta(t, 2*2000+10, first.Effective(), 1e-9, "written at 2x")
	second := charge(&k, priced(2, a, b, tok("c", 500)), false)
	assert.Equal(t, Bill{Read: 2000, Plain: 510, TTL: OneHour}, second, "read back as any entry is")
	assert.InDelta(t, 200+510, second.Effective(), 1e-9)

	assert.Equal(t, 5*time.Minute, FiveMinutes.Life())
	assert.Equal(t, time.Hour, OneHour.Life())
	assert.Equal(t, FiveMinutes, Cache{}.TTL, "the zero Cache's entries live five minutes")
}

func TestAPauseShorterThanTheTTLKeepsTheCacheWarm(t *testing.T) {
	// Four calls on one 2,000-token prefix, each pause minutes after the
	// last; a call is cold when the pause reaches the entries' lifetime.
	cases := []struct {
		name      string
		ttl       TTL
		pause     time.Duration
		effective float64 // the four calls, in base-rate tokens
	}{
		{"five-minute entries, calls a minute apart: one write, three reads", FiveMinutes, time.Minute, 1.25*2000 + 3*0.1*2000 + 4*10},
		{"five-minute entries, calls half an hour apart: four writes", FiveMinutes, 30 * time.Minute, 4*1.25*2000 + 4*10},
		{"one-hour entries, calls half an hour apart: one write at 2x, three reads", OneHour, 30 * time.Minute, 2*2000 + 3*0.1*2000 + 4*10},
		{"one-hour entries, calls an hour apart: four writes at 2x", OneHour, time.Hour, 4*2*2000 + 4*10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := Cache{TTL: c.ttl}
			total := 0.0
			for i := range 4 {
				cold := i == 0 || c.pause >= k.TTL.Life()
				total += charge(&k, priced(2, tok("a", 1000), tok("b", 1000)), cold).Effective()
			}
			assert.InDelta(t, c.effective, total, 1e-9)
		})
	}
}

func TestTokensCountCharactersNotBytes(t *testing.T) {
	assert.InDelta(t, 1, Tokens([]Block{{"user", "éééé"}}), 1e-9)
}

// blocks returns n distinct blocks of the given size in tokens.
func blocks(n, tokens int) []Block {
	out := make([]Block, n)
	for i := range out {
		out[i] = Block{"user", fmt.Sprintf("%04d", i) + strings.Repeat("t", tokens*CharsPerToken-4)}
	}
	return out
}

func TestCacheReadsTheLongestEarlierEntryWithinTheLookback(t *testing.T) {
	log := blocks(40, 100) // 100 tokens a block: 11 blocks make an entry
	at := func(n int) call { return priced(n, log[:n]...) }
	cases := []struct {
		name    string
		written []int // the breakpoints of earlier calls, by how many blocks they cache
		now     int
		read    float64
	}{
		{"the previous call's entry", []int{12}, 14, 1200},
		{"an entry two calls old, when the previous call's is not a prefix", []int{12, 16}, 14, 1200},
		{"the longest of several entries", []int{11, 12, 13}, 15, 1300},
		{"an entry ending 19 blocks before the breakpoint", []int{12}, 31, 1200},
		{"not one ending 20 blocks before it", []int{12}, 32, 0},
		{"nor an entry below the minimum, which was never written", []int{10}, 12, 0},
		{"the same prefix again", []int{12}, 12, 1200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var k Cache
			for i, n := range c.written {
				charge(&k, at(n), i == 0)
			}
			got := charge(&k, at(c.now), false)
			assert.Equal(t, c.read, got.Read)
			assert.InDelta(t, float64(100*c.now)-c.read, got.Written, 1e-9, "the rest of the prefix is written")
		})
	}
}

func TestCacheForgetsItsOldestEntriesBeyondTheLimit(t *testing.T) {
	var k Cache
	first := priced(1, tok("a", 2000))
	charge(&k, first, true)
	for i := range MaxEntries - 1 {
		charge(&k, priced(1, tok(fmt.Sprint(i%10), 1100+i)), false)
	}
	assert.True(t, charge(&k, first, false).Hit(), "the oldest of MaxEntries entries is still there, and a read makes it new")
	for i := range MaxEntries {
		charge(&k, priced(1, tok(fmt.Sprint(i%10), 1100+i)), false)
	}
	assert.False(t, charge(&k, first, false).Hit(), "MaxEntries newer entries push it out")
}
