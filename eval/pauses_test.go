package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/pricing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneSession is a conversation of n turns in one session, user first,
// turn i saying text(i).
func oneSession(n int, text func(i int) string) *conversation {
	when := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC)
	c := &conversation{ID: "one session"}
	for i := range n {
		role, speaker := byheart.User, "Ana"
		if i%2 == 1 {
			role, speaker = byheart.Assistant, "Bo"
		}
		tu := mkTurn(fmt.Sprintf("D1:%d", i+1), speaker, role, text(i), text(i))
		tu.Session, tu.When = 1, when
		c.Turns = append(c.Turns, tu)
	}
	return c
}

// sizedConversation is one session of turns of size tokens, each in its
// own letter.
func sizedConversation(turns, size int) *conversation {
	return oneSession(turns, func(i int) string {
		return strings.Repeat(string(rune('a'+i)), size*pricing.CharsPerToken)
	})
}

// wordyConversation is one session whose turns hold words byheart can
// index and select among: turn i says 50 words of its own.
func wordyConversation(turns int) *conversation {
	return oneSession(turns, func(i int) string {
		var words []string
		for w := range 50 {
			words = append(words, fmt.Sprintf("w%dx%d", i, w%7))
		}
		return strings.Join(words, " ")
	})
}

// pricedCall is one call of a play as the cache billed it.
type pricedCall struct {
	bill    pricing.Bill
	prefix  float64 // the call's cacheable prefix, in tokens
	cold    bool
	rebuilt bool
}

// pricedPlay plays conv for m with the calls paused says paused and
// returns every call's bill.
func pricedPlay(t *testing.T, conv *conversation, m method, budget int, paused func(int) bool) []pricedCall {
	t.Helper()
	var k cache
	var out []pricedCall
	require.NoError(t, play(conv, m.make(budget, &latencies{}), nil, paused, func(lc liveCall) {
		out = append(out, pricedCall{k.charge(lc.c, lc.cold), tokens(lc.c.parts[:lc.c.breakpoint+1]), lc.cold, lc.c.reselected})
	}))
	return out
}

func TestAPauseMakesTheCallACacheWriteForEveryMethod(t *testing.T) {
	conv := wordyConversation(80)
	const budget, pausedCall = 16000, 32
	pause := func(k int) bool { return k == pausedCall }
	for _, m := range billMethods {
		t.Run(m.name, func(t *testing.T) {
			warm := pricedPlay(t, conv, m, budget, nil)
			cold := pricedPlay(t, conv, m, budget, pause)
			require.Len(t, cold, len(warm))
			assert.False(t, warm[pausedCall].cold)
			got := cold[pausedCall]
			assert.True(t, got.cold, "the paused call is cold")
			assert.Zero(t, got.bill.Read, "nothing is read after a pause")
			if got.prefix >= pricing.MinCacheTokens {
				assert.InDelta(t, got.prefix, got.bill.Written, 1e-9, "the whole cacheable prefix is written again")
			}
			for i := range warm {
				if i != pausedCall {
					assert.Equal(t, warm[i].cold, cold[i].cold, "call %d: only the paused call is made cold", i)
				}
			}
			if m.name == byheartDefault.name || m.name == fullHistory.name {
				assert.Positive(t, warm[pausedCall].bill.Read, "without the pause the call reads its prefix")
				assert.Positive(t, cold[pausedCall+1].bill.Read, "the call after the pause reads what the paused one wrote")
			}
			if m.name == byheartDefault.name {
				assert.True(t, got.rebuilt, "byheart, told the call's time, rebuilds after the pause")
				assert.False(t, cold[pausedCall+1].rebuilt, "and keeps what it rebuilt on the next call")
			}
		})
	}
}

func TestPausesAreSeededNestedAndDrawnAtTheirShare(t *testing.T) {
	assert.Nil(t, pausedAt(0), "no share, no pauses")
	low, high := pausedAt(0.1), pausedAt(0.3)
	const calls = 20_000
	var nLow, nHigh int
	for k := range calls {
		assert.Equal(t, low(k), pausedAt(0.1)(k), "call %d: the same draw every time", k)
		if low(k) {
			nLow++
			assert.True(t, high(k), "call %d: paused at 10%% but not at 30%%", k)
		}
		if high(k) {
			nHigh++
		}
	}
	assert.InDelta(t, 0.1, float64(nLow)/calls, 0.01)
	assert.InDelta(t, 0.3, float64(nHigh)/calls, 0.01)
}

// TestCompactionBillsTheSummarisingPassAndTheShorterPrefixAfter prices a
// compaction by hand. Turns are 300 tokens, the trigger 2,100 tokens, the
// summary 1,100. Calls 0–2 send the growing history (600 tokens of prefix
// are too few to cache; 1,200 are written). Call 3's input (six turns and
// the query) reaches the trigger: the pass reads call 2's 1,200 tokens,
// writes the 600 since and pays the query, and its 1,100-token summary is
// output; then the summary and the query are sent, the summary written.
// Call 4 reads the summary and writes the two turns since.
func TestCompactionBillsTheSummarisingPassAndTheShorterPrefixAfter(t *testing.T) {
	conv := sizedConversation(9, 300)
	h := &longHistory{name: "sized", conv: conv, starts: []int{0}}
	m := compactor{name: "test compaction", trigger: 2100, summary: 1100}.method()

	got, err := billHistory(h, m, 0, 20_000, &latencies{})
	require.NoError(t, err)
	assert.Equal(t, 1, got.compactions)
	assert.True(t, got.summarizes)
	s := got.parts[0]
	assert.Equal(t, 5, s.Calls)
	assert.Equal(t, 1, s.Cold)
	assert.InDelta(t, 1200+1100, s.Read, 1e-9)
	assert.InDelta(t, 1200+600+1100+600, s.Written, 1e-9)
	assert.InDelta(t, 300+900+300+300+300+300, s.Plain, 1e-9)
	assert.InDelta(t, 1100, s.Output, 1e-9)
	fiveMinutes := 300 + 900 + (1.25*1200 + 300) + (0.1*1200 + 1.25*600 + 300 + 5*1100 + 1.25*1100 + 300) + (0.1*1100 + 1.25*600 + 300)
	oneHour := 300 + 900 + (2*1200 + 300) + (0.1*1200 + 2*600 + 300 + 5*1100 + 2*1100 + 300) + (0.1*1100 + 2*600 + 300)
	assert.InDelta(t, fiveMinutes/5, s.perCall(ttls[0]), 1e-9)
	assert.InDelta(t, oneHour/5, s.perCall(ttls[1]), 1e-9)

	row := got.row(m, 0)
	assert.Nil(t, row.Recall14, "a summary's recall is not measured")
	assert.InDelta(t, fiveMinutes/5, row.TTLs[0].Mean, 1e-9)
}

func TestCompactionAfterAPauseWritesWhatItKeeps(t *testing.T) {
	conv := sizedConversation(9, 300)
	m := compactor{name: "test compaction", trigger: 2100, summary: 1100}.method()
	calls := pricedPlay(t, conv, m, 20_000, func(k int) bool { return k == 4 })
	last := calls[4]
	assert.True(t, last.cold)
	assert.Equal(t, pricing.Bill{Written: 1700, Plain: 300}, last.bill, "the summary and the turns since are written again")
}

func TestOpenAICompactionKeepsTheUsersTurnsBesideTheSummary(t *testing.T) {
	conv := sizedConversation(9, 300)
	c := &compacting{compactor: compactor{trigger: 2100, summary: 100, keepUser: true}}
	var sent call
	require.NoError(t, play(conv, c, nil, nil, func(lc liveCall) { sent = lc.c }))
	assert.Equal(t, 1, c.n, "one compaction: the user's turns and the summary leave room below the trigger")
	var got []string
	for _, p := range sent.parts {
		got = append(got, p.text[:1])
	}
	assert.Equal(t, []string{"a", "c", "e", "[", "g", "h", "i"}, got,
		"the user's turns before the compaction (a, c, e), the summary, the turns since (g, h) and the query (i)")
	assert.Equal(t, len(got)-2, sent.breakpoint, "the cache breakpoint is on the last turn")
}

func TestWindowAndBillRunOnASmallFileOfEachShape(t *testing.T) {
	path := tinyPath(t)
	other := filepath.Join(t.TempDir(), "other.json")
	require.NoError(t, os.WriteFile(other, []byte(tinyFile), 0o644))
	args := []string{"-locomo", path, "-assistant", other, "-only", "window,bill", "-budget", "50"}

	var out bytes.Buffer
	require.NoError(t, run(args, &out, &bytes.Buffer{}))
	for _, want := range []string{
		"## Where the window ends", "### tiny.json, its conversations chained", "### other.json, its conversations chained",
		"## The bill with pauses, at 50 characters", "TTL 5 minutes", "TTL 1 hour", "| compaction (Anthropic) |",
	} {
		assert.Contains(t, out.String(), want)
	}

	out.Reset()
	require.NoError(t, run(append(args, "-json"), &out, &bytes.Buffer{}))
	var got results
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.Len(t, got.Window.Histories, 2)
	for _, h := range got.Window.Histories {
		assert.Equal(t, 2, h.Conversations)
		assert.Equal(t, 5, h.Turns)
		assert.Len(t, h.Rows, len(windowMethods)*len(windowBudgets))
		assert.InDelta(t, 1.0, h.Full.Recall14, 1e-9)
	}
	require.Len(t, got.Bill.Histories, 2)
	for _, h := range got.Bill.Histories {
		require.Len(t, h.Rows, len(billMethods)*len(pauseShares))
		for _, row := range h.Rows {
			require.Len(t, row.TTLs, len(ttls))
			assert.Len(t, row.TTLs[0].ByLength, 2, "one figure for each conversation chained")
			assert.GreaterOrEqual(t, row.TTLs[1].Mean, row.TTLs[0].Mean, "%s: the longer TTL's writes cost more", row.Method)
		}
	}

	assert.Error(t, run([]string{"-locomo", path, "-assistant", other + ".missing", "-only", "bill"}, &bytes.Buffer{}, &bytes.Buffer{}))
}

func TestOneAssistantSetServesTheShapesWindowAndBillSections(t *testing.T) {
	path := tinyPath(t)
	other := filepath.Join(t.TempDir(), "other.json")
	require.NoError(t, os.WriteFile(other, []byte(tinyFile), 0o644))
	for _, tc := range []struct {
		name      string
		assistant string
		chains    []string
	}{
		{"another file is measured and chained beside the run's", other,
			[]string{"tiny.json, its conversations chained", "other.json, its conversations chained"}},
		{"the run's own file is chained once", path, []string{"tiny.json, its conversations chained"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			args := []string{"-locomo", path, "-assistant", tc.assistant, "-only", "shapes,window,bill", "-budget", "50", "-json"}
			require.NoError(t, run(args, &out, &bytes.Buffer{}))
			var got results
			require.NoError(t, json.Unmarshal(out.Bytes(), &got))
			require.Len(t, got.Shapes.Sets, 2)
			assert.Equal(t, tc.assistant, got.Shapes.Sets[1].Source, "the shapes section measures -assistant's set beside the run's")
			var window, bill []string
			for _, h := range got.Window.Histories {
				window = append(window, h.Name)
			}
			for _, h := range got.Bill.Histories {
				bill = append(bill, h.Name)
			}
			assert.Equal(t, tc.chains, window)
			assert.Equal(t, tc.chains, bill)
		})
	}
}
