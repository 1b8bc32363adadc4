package byheart

// Rule 3 (the sticky selection and when it is rebuilt), selection identity
// across boundary rewrites, the built-in ranking held to an exhaustive
// reference, and a custom Retriever.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ── the sticky selection ──────────────────────────────────────────────

func TestNegativeStabilityReselectsEveryQuery(t *testing.T) {
	t.Parallel()
	m := topicMemory(t, Options{Budget: 1500, Stability: -0.5}, 6, "deploy", "garden", "travel", "music")
	// The same query again, and queries that match nothing, where a kept
	// selection is exactly as good as a fresh one.
	for i, q := range []string{"the greenhouse tomatoes", "the greenhouse tomatoes", "zzz", "zzz", ""} {
		r := compose(t, m, q)
		assert.True(t, r.Reselected(), "call %d (%q) kept a selection", i, q)
	}
}

func TestStickySelectionSurvivesRepeatedAndSimilarQueries(t *testing.T) {
	t.Parallel()
	m := topicMemory(t, Options{Budget: 1500, Stability: 0.5}, 6, "deploy", "garden", "travel", "music")
	first := compose(t, m, "the greenhouse tomatoes and compost")
	require.True(t, first.Reselected(), "the first selection is a build")
	require.Contains(t, first.Included, 6)

	for _, q := range []string{
		"the greenhouse tomatoes and compost",
		"tomatoes in the greenhouse?",
		"and the compost, remind me",
	} {
		r := compose(t, m, q)
		assert.False(t, r.Reselected(), "query %q rebuilt the selection", q)
		prefixHeld(t, first, r, q)
		assert.Equal(t, first.Included, r.Included)
	}
}

func TestChangeOfSubjectRecallsPastTheLogOrRebuildsWhenRecallIsOff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		opts      Options
		rebuild   bool
		recall    bool
		newStarts bool // the new subject's stretch reaches the context
	}{
		{"recalled past the log", Options{Stability: 0.5}, false, true, true},
		{"kept as it is at stability 0.9: the stretch matches too little of the query", Options{Stability: 0.9}, false, false, false},
		{"kept as it is at stability 1", Options{Stability: 1}, false, false, false},
		{"rebuilt when recall is off", Options{Stability: 0.5, Recall: -1}, true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Budget = 1500
			m := topicMemory(t, c.opts, 6, "deploy", "garden", "travel", "music")
			first := compose(t, m, "the greenhouse tomatoes and compost")
			require.NotContains(t, first.Included, 0)

			r := compose(t, m, "the kubernetes canary rollback")
			assert.Equal(t, c.rebuild, r.Reselected())
			assert.Equal(t, c.newStarts, slices.Contains(r.Included, 0), "the new subject's stretch")
			if c.recall {
				assert.Equal(t, []int{0}, r.Recalled)
				parts := flat(r)
				assert.True(t, strings.HasPrefix(parts[r.StableUpto+1], recallHeader), "the recall follows the stable prefix")
			} else {
				assert.Empty(t, r.Recalled)
			}
			if !c.rebuild {
				prefixHeld(t, first, r, "a kept log only grows")
			}
		})
	}
}

func TestSmallTalkThatEveryStretchMatchesRecallsNothing(t *testing.T) {
	t.Parallel()
	// Each sitting opens with the same greeting: a stretch matches it no
	// better than one drawn at random, so it is not worth a recall, while
	// a query that also names a subject recalls that subject's stretch.
	topics := []string{"deploy", "garden", "travel", "music", "cooking", "pricing"}
	m := New(Options{Budget: 1500, Stability: 0.15})
	day := time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC)
	var bounds []int
	for k, topic := range topics {
		bounds = append(bounds, m.Len())
		for i := range 6 {
			text := topicTurn(topic, i)
			if i == 0 {
				text = "thanks sam, good to hear from you"
			}
			mustAppendAt(t, m, roleOf(m.Len()), text, day.AddDate(0, 0, k).Add(time.Duration(i)*time.Minute))
		}
	}
	setBounds(m, bounds)
	first := compose(t, m, "the greenhouse tomatoes and compost")
	require.NotContains(t, first.Included, bounds[4], "the cooking stretch is not in the block")

	r := compose(t, m, "thanks sam, good to hear from you")
	assert.False(t, r.Reselected())
	assert.Empty(t, r.Recalled, "the greeting every stretch says recalls nothing")
	prefixHeld(t, first, r, "the log is kept")

	r = compose(t, m, "thanks sam, how is the sourdough starter?")
	assert.Equal(t, []int{bounds[4]}, r.Recalled, "the subject it names is recalled")
}

func TestBudgetOverflowReselectsAsTurnsAccumulate(t *testing.T) {
	t.Parallel()
	// Stability 1: nothing but the budget may force a rebuild.
	const budget = 2000
	m := topicMemory(t, Options{Budget: budget, Stability: 1}, 8, "deploy", "garden", "travel", "music")
	prev := compose(t, m, "the greenhouse tomatoes")
	require.True(t, prev.Reselected())
	rebuilds := 0
	for i := 0; i < 40; i++ {
		q := topicTurn("garden", i)
		mustAppend(t, m, User, q)
		mustAppend(t, m, Assistant, topicTurn("garden", i+1))
		m.mu.Lock()
		overflow := m.logSize(m.sel) > budget
		m.mu.Unlock()

		r := compose(t, m, q)
		assert.LessOrEqual(t, contextRunes(r), budget)
		assert.Equal(t, overflow, r.Reselected(), "call %d: a rebuild exactly when block and tail overflow", i)
		if r.Reselected() {
			rebuilds++
		} else {
			prefixHeld(t, prev, r, fmt.Sprintf("call %d", i))
		}
		prev = r
	}
	assert.Greater(t, rebuilds, 0, "forty exchanges must overflow a 2,000-character budget")
	assert.Less(t, rebuilds, 20, "a rebuild on most calls means nothing was kept")
}

// chatAcrossTopics appends an exchange every pause and composes a query on
// each topic in turn, on a log of stretches one topic each that recalls
// change of subject, and reports every call's Result.
func chatAcrossTopics(t *testing.T, pause time.Duration, calls int) (*Memory, []Result) {
	t.Helper()
	topics := []string{"deploy", "garden", "travel", "music", "cooking", "pricing"}
	m := topicMemory(t, Options{Budget: 3200, Stability: 0.5}, 6, topics...)
	when := m.when(m.Len() - 1)
	var out []Result
	for i := range calls {
		when = when.Add(pause)
		mustAppendAt(t, m, User, fmt.Sprintf("so, point %d", i)+strings.Repeat(", and so on", 8), when)
		mustAppendAt(t, m, Assistant, "yes", when)
		w := topicWords[topics[(i/4)%len(topics)]]
		q := "the " + w[i%len(w)] + " and the " + w[(i+3)%len(w)]
		r := compose(t, m, q)
		checkResult(t, m, q, r)
		out = append(out, r)
	}
	return m, out
}

func TestARecallGoesPastTheBreakpointAndLeavesTheLogAsItWas(t *testing.T) {
	t.Parallel()
	_, rs := chatAcrossTopics(t, 20*time.Second, 60)
	kept, recalls := 0, 0
	for i := 1; i < len(rs); i++ {
		r := rs[i]
		if len(r.Recalled) > 0 {
			recalls++
			parts := flat(r)
			assert.True(t, strings.HasPrefix(parts[r.StableUpto+1], recallHeader), "call %d: the recall follows the stable prefix", i)
			for _, k := range r.Recalled {
				assert.Contains(t, r.Included, k, "call %d: a recalled stretch is included", i)
			}
		}
		for _, p := range flat(r)[:r.StableUpto+1] {
			assert.False(t, strings.HasPrefix(p, recallHeader), "call %d: the log keeps no recall", i)
		}
		if r.Rebuild == "" {
			kept++
			prefixHeld(t, rs[i-1], r, fmt.Sprintf("call %d", i))
		} else {
			// The history outgrew the budget, the turns since the block
			// outgrew it, or a query's recall did not fit beside the log.
			assert.Contains(t, []Rebuild{RebuildFirst, RebuildNoRoom, RebuildOverBudget}, r.Rebuild, "call %d", i)
		}
	}
	assert.Greater(t, kept, len(rs)/2, "most calls keep the log")
	assert.Greater(t, recalls, len(rs)/4, "a chat across topics recalls")
}

func TestALogRoundTripsThroughJSONAfterRecalls(t *testing.T) {
	t.Parallel()
	m, _ := chatAcrossTopics(t, 20*time.Second, 60)
	checkRoundTrip(t, m, Options{Budget: 3200, Stability: 0.5}, "the basil and the mulch")
}

func TestQueriesWithoutNewTurnsRecallOrRebuildWithinTheBudget(t *testing.T) {
	t.Parallel()
	// Questions asked in a row with no turn between them: each recalls
	// past the same log, or rebuilds it.
	topics := []string{"deploy", "garden", "travel", "music", "cooking", "pricing"}
	m := topicMemory(t, Options{Budget: 3200, Stability: 0.5}, 6, topics...)
	for i := range 40 {
		w := topicWords[topics[(i*5)%len(topics)]]
		q := w[i%len(w)] + " " + w[(i+1)%len(w)]
		r := compose(t, m, q)
		checkResult(t, m, q, r)
	}
}

func TestLiveReplayKeepsThePrefixByteIdenticalBetweenRebuilds(t *testing.T) {
	t.Parallel()
	g := newChatGen(7)
	m := New(Options{Budget: 6000})
	for i := 0; i < 200; i++ {
		tu := g.next()
		mustAppendAt(t, m, tu.Role, tu.Text, tu.Time)
	}
	var prev Result
	kept := 0
	for i := 0; i < 200; i++ {
		q := g.next()
		mustAppendAt(t, m, User, q.Text, q.Time)
		r := compose(t, m, q.Text)
		checkResult(t, m, q.Text, r)
		for _, k := range r.Recalled {
			assert.Contains(t, r.Included, k, "call %d: a recalled stretch is included", i)
		}
		if i > 0 && !r.Reselected() {
			kept++
			prefixHeld(t, prev, r, fmt.Sprintf("call %d", i))
		}
		a := g.next()
		mustAppendAt(t, m, Assistant, a.Text, a.Time)
		prev = r
	}
	assert.Greater(t, kept, 100, "a sticky selection must be kept on most live calls")
}

func TestAPauseThatOutlivesTheProvidersCacheRebuildsTheLogOnce(t *testing.T) {
	t.Parallel()
	const q = "the greenhouse tomatoes and compost"
	for _, c := range []struct {
		name    string
		opts    Options
		pause   time.Duration // between the turn before the newest and the newest
		untimed string        // "newest": that turn has no time; "all": no turn has
		want    Rebuild
	}{
		{"ten minutes: the cache is gone, so the log is rebuilt", Options{Stability: 0.5}, 10 * time.Minute, "", RebuildExpired},
		{"exactly the cache's lifetime: gone", Options{Stability: 0.5}, cacheLifetime, "", RebuildExpired},
		{"a day, at stability 1: gone too", Options{Stability: 1}, 24 * time.Hour, "", RebuildExpired},
		{"ten minutes, recall off: rebuilt", Options{Stability: 0.5, Recall: -1}, 10 * time.Minute, "", RebuildExpired},
		{"a minute: kept", Options{Stability: 0.5}, time.Minute, "", ""},
		{"just under the lifetime: kept", Options{Stability: 0.5}, cacheLifetime - time.Second, "", ""},
		{"a newest turn without a time takes the one before's: kept", Options{Stability: 0.5}, 10 * time.Minute, "newest", ""},
		{"a conversation without times: kept", Options{Stability: 0.5}, 10 * time.Minute, "all", ""},
		{"fresh mode reselects as ever", Options{Stability: -1}, 10 * time.Minute, "", RebuildFresh},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Budget = 1500
			m := topicMemory(t, c.opts, 6, "deploy", "garden", "travel", "music")
			if c.untimed == "all" {
				m = New(c.opts)
				for _, tt := range topicMemory(t, c.opts, 6, "deploy", "garden", "travel", "music").turns {
					mustAppend(t, m, tt.Role(), tt.Text)
				}
			}
			first := compose(t, m, q)
			require.True(t, first.Reselected())
			newest := m.when(m.Len() - 1).Add(c.pause)
			if c.untimed != "" {
				newest = time.Time{}
			}
			mustAppendAt(t, m, Assistant, "noted, go on", newest)

			r := compose(t, m, q)
			checkResult(t, m, q, r)
			assert.Equal(t, c.want, r.Rebuild)
			assert.Equal(t, c.want != "", r.Reselected())
			if c.want == "" {
				prefixHeld(t, first, r, "a log a provider still holds is kept")
			}
			again := compose(t, m, q)
			if c.want != RebuildFresh {
				assert.Empty(t, again.Rebuild, "a second call after the same pause keeps the rebuilt log")
				prefixHeld(t, r, again, "the call after the rebuild")
			}
			checkRoundTrip(t, m, c.opts, q)
		})
	}
}

func TestAQueryAskedAfterAPauseRebuildsTheLogOnce(t *testing.T) {
	t.Parallel()
	const q = "the greenhouse tomatoes and compost"
	for _, c := range []struct {
		name  string
		after time.Duration // from the newest turn to the query; -1 for Compose
		want  Rebuild
	}{
		{"asked ten minutes after the newest turn: rebuilt", 10 * time.Minute, RebuildExpired},
		{"asked exactly the cache's lifetime after: rebuilt", cacheLifetime, RebuildExpired},
		{"asked a minute after: kept", time.Minute, ""},
		{"asked just under the lifetime after: kept", cacheLifetime - time.Second, ""},
		{"asked before the newest turn's time: kept", -time.Hour, ""},
		{"a zero time is Compose: kept", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{Budget: 1500, Stability: 0.5}
			m := topicMemory(t, opts, 6, "deploy", "garden", "travel", "music")
			first := compose(t, m, q)
			require.True(t, first.Reselected())
			mustAppendAt(t, m, Assistant, "noted, go on", m.when(m.Len()-1).Add(time.Second))
			var when time.Time
			if c.after != 0 {
				when = m.when(m.Len() - 1).Add(c.after)
			}
			r, err := m.ComposeAt(t.Context(), q, when)
			require.NoError(t, err)
			checkResult(t, m, q, r)
			assert.Equal(t, c.want, r.Rebuild)
			if c.want == "" {
				prefixHeld(t, first, r, "a log a provider still holds is kept")
			}
			again, err := m.ComposeAt(t.Context(), q, when.Add(time.Second))
			require.NoError(t, err)
			assert.Empty(t, again.Rebuild, "a second query after the same pause keeps the log the first rebuilt")
			prefixHeld(t, r, again, "the query after the rebuild")
		})
	}
}

func TestContinueRebuildsWhenTheCacheHasExpiredAndKeepsTheLogBetweenSteps(t *testing.T) {
	t.Parallel()
	opts := Options{Budget: 1500, Stability: 0.5}
	m := topicMemory(t, opts, 6, "deploy", "garden", "travel", "music")
	when := m.when(m.Len() - 1)
	step := func(role Role, text string, after time.Duration) {
		when = when.Add(after)
		mustTurn(t, m, Turn{Role: role, Text: text, Time: when})
	}
	tool := func(id string, after time.Duration) {
		when = when.Add(after)
		mustTurn(t, m, Turn{Role: ToolCall, Tool: "search", CallID: id, Text: `{"q":"compost"}`, Time: when})
	}
	result := func(id string, after time.Duration) {
		when = when.Add(after)
		mustTurn(t, m, Turn{Role: ToolResult, CallID: id, Text: "compost wants turning weekly", Time: when})
	}
	var prev Result
	for i, c := range []struct {
		name string
		add  func()
		want Rebuild
	}{
		{"the first call over the budget builds", func() { step(User, "the greenhouse tomatoes and compost?", time.Minute) }, RebuildFirst},
		{"a quick tool step keeps the log", func() { tool("c1", 5*time.Second); result("c1", 2*time.Second) }, ""},
		{"the user back after an hour: rebuilt", func() {
			step(Assistant, "turn it weekly", 3*time.Second)
			step(User, "and the tomatoes in the greenhouse?", time.Hour)
		}, RebuildExpired},
		{"a tool that ran ten minutes: the call's entry is gone, rebuilt", func() { tool("c2", 5*time.Second); result("c2", 10*time.Minute) }, RebuildExpired},
		{"the step goes on at once: kept", func() { tool("c3", 5*time.Second); result("c3", time.Second) }, ""},
	} {
		c.add()
		r, err := m.Continue(context.Background())
		require.NoError(t, err)
		assert.Equal(t, c.want, r.Rebuild, "call %d: %s", i, c.name)
		checkPairs(t, r)
		assert.LessOrEqual(t, contextRunes(r), opts.Budget)
		if c.want == "" {
			prefixHeld(t, prev, r, c.name)
		}
		prev = r
	}
}

// ── selection identity ────────────────────────────────────────────────

func TestSelectionIsKeyedByFirstTurnAcrossABoundaryRewrite(t *testing.T) {
	t.Parallel()
	// A budget that every stretch fits, so that no part of one is quoted.
	m := New(Options{Budget: 1500, Chunk: 400, Stability: 0.9})
	fill(t, m, 80, "discussing the deploy and migration rollback, filler")
	r1 := compose(t, m, "deploy rollback migrations")
	keys := append([]int(nil), m.sel.block.keys...)
	require.NotEmpty(t, keys)

	// Split every stretch in two: every position changes, every first turn
	// survives.
	old := m.Bounds()
	var split []int
	for _, b := range old {
		split = append(split, b)
		if b+2 < m.Len() {
			split = append(split, b+2)
		}
	}
	setBounds(m, split)
	require.NotEqual(t, old, m.Bounds())

	r2 := compose(t, m, "deploy rollback migrations")
	require.False(t, r2.Reselected(), "every kept stretch still starts where it did: %s", r2.Rebuild)
	assert.Equal(t, blockOf(r1), blockOf(r2))
	prefixHeld(t, r1, r2, "the rewrite must not move the cached prefix")
	for _, k := range keys {
		assert.Contains(t, r2.Included, k, "the kept selection now names other parts of the conversation")
	}
}

func TestSelectionWhoseStretchVanishedIsRebuilt(t *testing.T) {
	t.Parallel()
	m := New(Options{Budget: 1500, Stability: 1})
	fill(t, m, 80, "discussing the deploy and migration rollback, filler")
	compose(t, m, "deploy rollback migrations")
	keys := append([]int(nil), m.sel.block.keys...)
	require.NotEmpty(t, keys)
	var merged []int
	for _, b := range m.Bounds() {
		if b != keys[0] {
			merged = append(merged, b)
		}
	}
	if merged[0] != 0 {
		merged = append([]int{0}, merged...)
	}
	setBounds(m, merged)
	r := compose(t, m, "deploy rollback migrations")
	assert.True(t, r.Reselected(), "a kept stretch no longer exists: the selection must be rebuilt, even at stability 1")
}

func TestAKeptQuoteKeepsItsTurnsWhenTheHookSplitsItsStretch(t *testing.T) {
	t.Parallel()
	split := func(tail []Turn) []int {
		if len(tail) > 1 {
			return []int{1}
		}
		return nil
	}
	m := New(Options{Budget: 3000, Chunk: 600, Stability: 1, Boundaries: split})
	for i := 0; i < 60; i++ {
		mustAppend(t, m, roleOf(i), fmt.Sprintf("turn %d: the tomatoes in the garden need more water", i))
	}
	for i := 60; i < 70; i++ {
		mustAppend(t, m, roleOf(i), fmt.Sprintf("turn %d: we keep talking about the lighthouse keeper", i))
	}
	r1 := compose(t, m, "lighthouse keeper")
	open := m.str[len(m.str)-1].start
	require.Contains(t, m.sel.block.keys, open, "the open stretch, cut at the tail, is quoted")
	block := r1.Messages[0].Parts[0].Text

	// Close the open stretch: the hook splits it before the cut.
	for i := 70; m.str[len(m.str)-1].start == open; i++ {
		mustAppend(t, m, roleOf(i), strings.Repeat("and then nothing much happened, ", 5))
	}
	var pieces []int
	for _, s := range m.str {
		if s.start >= open && s.start < m.sel.upto {
			pieces = append(pieces, s.start)
		}
	}
	require.Greater(t, len(pieces), 1, "the hook split the quoted stretch before the cut")

	r2 := compose(t, m, "lighthouse keeper")
	require.False(t, r2.Reselected())
	assert.Equal(t, block, r2.Messages[0].Parts[0].Text, "the kept block must not change when its stretch is split")
	assert.Subset(t, r2.Included, pieces, "every piece the block quotes is included")

	data, err := m.ToJSON()
	require.NoError(t, err)
	restored, err := FromJSON(data, m.opt)
	require.NoError(t, err)
	r3 := compose(t, restored, "lighthouse keeper")
	assert.False(t, r3.Reselected())
	assert.Equal(t, block, r3.Messages[0].Parts[0].Text, "a restored memory quotes the same turns")
}

// ── the ranking against the exhaustive reference ──────────────────────

// exhaustive is the reference: every stretch's score from one pass over
// every posting of the query, plus the share (state.share) of its better
// neighbour's in the same sitting.
func exhaustive(m *Memory, query string) []float64 {
	own := exhaustiveOwn(m, query)
	out := make([]float64, len(own))
	for s := range own {
		nb := 0.0
		if s > 0 && m.sameSitting(s-1) {
			nb = max(nb, m.share(s-1)*own[s-1])
		}
		if s+1 < len(own) && m.sameSitting(s) {
			nb = max(nb, m.share(s)*own[s+1])
		}
		out[s] = own[s] + nb
	}
	return out
}

// exhaustiveOwn is every stretch's own score, from one pass over every
// posting of the query.
func exhaustiveOwn(m *Memory, query string) []float64 {
	q := m.ix.queryTerms(query, false)
	slots := make([]float64, len(m.ix.slots))
	open, _ := m.ix.score(m.ix.corpus(nil), q, slots, nil)
	out := make([]float64, len(m.str))
	for s, st := range m.str {
		if st.slot < 0 {
			out[s] = open
		} else {
			out[s] = slots[st.slot]
		}
	}
	return out
}

// referenceOrder is the order a fill takes the stretches starting before
// upto in: those that score by value (state.value, on their size cut at
// upto) best first, newer first on ties, then the rest newest first.
func referenceOrder(m *Memory, scores []float64, upto int) []int {
	var hits []hit
	var rest []int
	for s, v := range scores {
		switch {
		case m.str[s].start >= upto:
		case v > 0:
			hits = append(hits, hit{s, m.rk.value(s, v, upto)})
		default:
			rest = append(rest, s)
		}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].before(hits[j]) })
	order := make([]int, 0, len(scores))
	for _, h := range hits {
		order = append(order, h.s)
	}
	for i := len(rest) - 1; i >= 0; i-- {
		order = append(order, rest[i])
	}
	return order
}

// referenceSize is stretch s's size in the block, cut at upto.
func referenceSize(m *Memory, s, upto int) int {
	if a, b := m.str[s].start, m.stretchEnd(s); b > upto {
		return m.sizeOf(a, upto)
	}
	return m.str[s].size
}

// chooseReference is choose as a walk over every stretch in
// referenceOrder; with short, it is picks: once the judged best are
// picked, a stretch scoring below its floor (floorOf) is passed over,
// taking no room.
func chooseReference(m *Memory, scores []float64, upto, capacity, limit int, short bool) (keys, picked []int) {
	floor, cut := 0.0, false
	rk := bm25Ranker{}.ranking(&m.state, m.rk.text)
	for _, s := range referenceOrder(m, scores, upto) {
		if limit > 0 && len(picked) == limit {
			break
		}
		if capacity < minStretchSize {
			break
		}
		if limit > 0 && scores[s] <= 0 {
			break // a fill that counts its picks stops where the scores do
		}
		if cut && scores[s] < m.floorOf(rk, floor, s) {
			continue
		}
		size := referenceSize(m, s, upto)
		if size > capacity {
			continue
		}
		capacity -= size
		keys = append(keys, m.str[s].start)
		if scores[s] > 0 {
			picked = append(picked, s)
			if short && !cut && len(picked) >= m.tune.judged {
				floor, cut = m.floor(rk, picked), true
			}
		}
	}
	sort.Ints(keys)
	return keys, picked
}

// rankShapes are memories of different make, each built by its own
// function so that tests can build them in parallel.
var rankShapes = []struct {
	name  string
	build func(t testing.TB) *Memory
}{
	{"chat-3000", func(testing.TB) *Memory {
		m := New(Options{})
		fillTurns(m, chat(21, 3000))
		return m
	}},
	{"small-chunks", func(testing.TB) *Memory {
		m := New(Options{Chunk: 150})
		fillTurns(m, chat(22, 800))
		return m
	}},
	// Untimed turns that repeat, so many stretches share one text (a slot
	// with several users).
	{"shared-texts", func(t testing.TB) *Memory {
		m := New(Options{Chunk: 120})
		g := newChatGen(23)
		var pool []string
		for range 12 {
			pool = append(pool, g.sentence(50))
		}
		r := rand.New(rand.NewPCG(5, 6))
		for i := range 900 {
			mustAppend(t, m, roleOf(i), pool[r.IntN(3)*(i%4)])
		}
		return m
	}},
	// A Boundaries hook that cuts stretches to single turns and pairs, then
	// redactions, then a trip through JSON (restored boundaries).
	{"boundaries-redacted-restored", func(t testing.TB) *Memory {
		m := New(Options{Chunk: 600, Boundaries: func(tail []Turn) []int {
			var cuts []int
			for i := 1; i < len(tail); i += 1 + i%2 {
				cuts = append(cuts, i)
			}
			return cuts
		}})
		fillTurns(m, chat(24, 1200))
		for _, i := range []int{3, 40, 41, 700, 1100} {
			require.NoError(t, m.Redact(i))
		}
		m, err := FromJSON([]byte(mustJSON(t, m)), Options{Chunk: 600})
		require.NoError(t, err)
		fillTurns(m, chat(25, 50))
		return m
	}},
	// Long turns: stretches far larger than the chunk.
	{"long-turns", func(t testing.TB) *Memory {
		m := New(Options{})
		g := newChatGen(26)
		for i := range 300 {
			tt := g.next()
			text := tt.Text
			if i%17 == 0 {
				text = g.sentence(4000)
			}
			mustAppendAt(t, m, tt.Role, text, tt.Time)
		}
		return m
	}},
}

// eachRankShape runs check on each of rankShapes, in parallel subtests.
func eachRankShape(t *testing.T, check func(t *testing.T, m *Memory)) {
	for _, shape := range rankShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			check(t, shape.build(t))
		})
	}
}

// rankQueries are queries of every kind for m: empty, matching nothing, the
// commonest words, turns of another chat and turns of m itself.
func rankQueries(m *Memory, seed uint64) []string {
	g := newChatGen(seed)
	qs := []string{"", "nothing here qqqz", g.vocab[0], g.vocab[0] + " " + g.vocab[1] + " " + g.vocab[2]}
	for range 12 {
		qs = append(qs, g.next().Text)
	}
	// Turns of the memory itself, as a live chat's query is.
	for i := 0; i < len(m.turns); i += max(1, len(m.turns)/6) {
		qs = append(qs, m.turns[i].Text)
	}
	return qs
}

func testRanking(t *testing.T, m *Memory) {
	n := len(m.turns)
	r := rand.New(rand.NewPCG(7, uint64(n)))
	for qi, query := range rankQueries(m, uint64(len(m.str))) {
		want := exhaustive(m, query)
		rk := bm25Ranker{}.ranking(&m.state, query)
		for s := range m.str {
			require.Equal(t, want[s], rk.score(s), "score of stretch %d, query %d", s, qi)
		}
		uptos := []int{n, n - 1, n - 2, r.IntN(n + 1), r.IntN(n + 1)}
		rooms := []int{20000, 16000, 5000, 1200, 600, 100, r.IntN(30000), r.IntN(2000)}
		for _, upto := range uptos {
			for _, room := range rooms {
				for _, limit := range []int{0, m.tune.judged} {
					rk := bm25Ranker{}.ranking(&m.state, query)
					keys, picked := rk.choose(upto, room, limit)
					wk, wp := chooseReference(m, want, upto, room, limit, false)
					require.Equal(t, wp, picked, "picked: query %d upto %d room %d limit %d", qi, upto, room, limit)
					if limit == 0 {
						require.Equal(t, wk, keys, "keys: query %d upto %d room %d", qi, upto, room)
					}
				}
				// A keep check's picks: the judged best, then the picks
				// that reach the floor, taken by value as a fill takes them.
				for _, limit := range []int{m.tune.judged, math.MaxInt} {
					rk := bm25Ranker{}.ranking(&m.state, query)
					got := rk.picks(upto, room, limit)
					_, wp := chooseReference(m, want, upto, room, limit, true)
					require.Equal(t, wp, got, "picks: query %d upto %d room %d limit %d", qi, upto, room, limit)
				}
			}
		}
	}
}

// testBest checks best, the k best stretches below lim that fit room, at
// several depths and rooms against want, every stretch's score.
func testBest(t *testing.T, m *Memory, query string, want []float64, best func(lim, room, k int) ([]hit, bool)) {
	lim := len(m.str) - 1
	for _, room := range []int{1 << 30, 1100, 400} {
		var all []hit
		for s := 0; s < lim; s++ {
			if want[s] > 0 && m.str[s].size <= room {
				all = append(all, hit{s, want[s]})
			}
		}
		sortHits(all)
		for _, k := range []int{1, 2, 3, 8, 48, 500, len(all) + 1} {
			got, complete := best(lim, room, k)
			wantK := all[:min(k, len(all))]
			require.Equal(t, fmt.Sprint(wantK), fmt.Sprint(got), "query %q k %d room %d", query, k, room)
			if len(all) < k {
				require.True(t, complete, "fewer than k %d found, so all were", k)
			} else if len(all) > k {
				require.False(t, complete, "more than k %d exist", k)
			}
			require.True(t, slices.IndexFunc(m.ix.acc, func(a float64) bool { return a != 0 }) < 0, "scratch left dirty")
		}
	}
}

// ── a custom Retriever ────────────────────────────────────────────────

func TestAFailingRetrieverFailsComposeAndChangesNothing(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	type fault func(ctx context.Context, docs []Document) ([]float64, error)
	scores := func(n int, v float64, at int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i)
		}
		s[min(at, n-1)] = v
		return s
	}
	cause := errors.New("index offline")
	faults := map[string]fault{
		"returns an error":    func(context.Context, []Document) ([]float64, error) { return nil, cause },
		"panics":              func(context.Context, []Document) ([]float64, error) { panic("boom") },
		"panics with nil":     func(context.Context, []Document) ([]float64, error) { panic(nil) },
		"exits its goroutine": func(context.Context, []Document) ([]float64, error) { runtime.Goexit(); return nil, nil },
		"no scores":           func(context.Context, []Document) ([]float64, error) { return nil, nil },
		"one score short":     func(_ context.Context, d []Document) ([]float64, error) { return make([]float64, len(d)-1), nil },
		"one score too many":  func(_ context.Context, d []Document) ([]float64, error) { return make([]float64, len(d)+1), nil },
		"NaN first":           func(_ context.Context, d []Document) ([]float64, error) { return scores(len(d), math.NaN(), 0), nil },
		"NaN last": func(_ context.Context, d []Document) ([]float64, error) {
			return scores(len(d), math.NaN(), len(d)), nil
		},
		"+Inf":                   func(_ context.Context, d []Document) ([]float64, error) { return scores(len(d), math.Inf(1), 2), nil },
		"-Inf":                   func(_ context.Context, d []Document) ([]float64, error) { return scores(len(d), math.Inf(-1), 1), nil },
		"blocks until ctx ends":  func(ctx context.Context, _ []Document) ([]float64, error) { <-ctx.Done(); return nil, nil },
		"blocks and ignores ctx": func(context.Context, []Document) ([]float64, error) { <-release; return nil, nil },
		"returns scores and an error": func(_ context.Context, d []Document) ([]float64, error) {
			return make([]float64, len(d)), cause
		},
	}
	for name, f := range faults {
		t.Run(name, func(t *testing.T) {
			var mode atomic.Bool
			ret := RetrieverFunc(func(ctx context.Context, q string, docs []Document) ([]float64, error) {
				if mode.Load() {
					return f(ctx, docs)
				}
				return overlap(ctx, q, docs)
			})
			opts := Options{Budget: 300, Chunk: 50, Retriever: ret}
			m := overBudget(t, opts)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if strings.HasPrefix(name, "blocks") {
				ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
				defer cancel()
			}
			mode.Store(true)
			before := mustJSON(t, m)
			_, err := m.Compose(ctx, "topic 2")
			require.ErrorIs(t, err, ErrRetriever)
			switch {
			case strings.HasPrefix(name, "blocks"):
				require.ErrorIs(t, err, context.DeadlineExceeded)
			case name == "exits its goroutine":
				require.NotErrorIs(t, err, context.DeadlineExceeded, "an exited Retriever is noticed at once")
			case strings.Contains(name, "error"):
				require.ErrorIs(t, err, cause)
			}
			require.Equal(t, before, mustJSON(t, m), "a failed Compose changes nothing")

			// Still usable: appends meanwhile, and composes once the
			// Retriever recovers.
			_, err = m.Append(User, "a new turn about topic 2")
			require.NoError(t, err)
			mode.Store(false)
			r, err := m.Compose(context.Background(), "topic 2")
			require.NoError(t, err)
			checkResult(t, m, "topic 2", r)
			checkRoundTrip(t, m, opts, "topic 1")
		})
	}
}

// TestOddButLegalRetrieverScoresAreUsed: scores that are strange but legal
// are used, not refused.
func TestOddButLegalRetrieverScoresAreUsed(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]float64{
		"all zero": 0, "all negative": -1, "huge": math.MaxFloat64, "huge negative": -math.MaxFloat64,
		"smallest": math.SmallestNonzeroFloat64, "negative zero": math.Copysign(0, -1),
	} {
		t.Run(name, func(t *testing.T) {
			ret := RetrieverFunc(func(_ context.Context, _ string, docs []Document) ([]float64, error) {
				s := make([]float64, len(docs))
				for i := range s {
					s[i] = v
				}
				return s, nil
			})
			m := overBudget(t, Options{Budget: 300, Chunk: 50, Retriever: ret, External: noteSource})
			for _, q := range []string{"topic 1", "topic 2", ""} {
				r, err := m.Compose(context.Background(), q)
				require.NoError(t, err)
				checkResult(t, m, q, r)
			}
		})
	}
}

// TestRetrieverSeesEachStretchsCurrentText: the documents a Retriever
// scores are the stretches as they stand at that call, each holding every
// turn of its stretch, however the open stretch grew, closed or was split
// between calls. The texts hold no relative dates, so a stretch's text is
// its turns' own, one a line.
func TestRetrieverSeesEachStretchsCurrentText(t *testing.T) {
	t.Parallel()
	var docs []Document
	ret := RetrieverFunc(func(ctx context.Context, q string, d []Document) ([]float64, error) {
		docs = d
		return overlap(ctx, q, d)
	})
	halves := func(tail []Turn) []int { return []int{len(tail) / 2} }
	firstApart := func(tail []Turn) []int {
		if len(tail) >= 3 {
			return []int{1}
		}
		return nil
	}
	topics := func(i int) string { return topicTurn([]string{"garden", "music"}[i%2], i) }
	numbered := func(i int) string { return fmt.Sprintf("turn number %d says word%d", i, i) }
	cases := []struct {
		name  string
		opts  Options
		text  func(i int) string
		query string
	}{
		{"topics, no hook", Options{Budget: 150, Chunk: 120}, topics, "compost"},
		{"topics, a hook that halves the open stretch", Options{Budget: 150, Chunk: 120, Boundaries: halves}, topics, "compost"},
		{"numbered turns, no hook", Options{Budget: 200, Chunk: 60}, numbered, "word"},
		{"numbered turns, a hook that sets the first turn apart", Options{Budget: 200, Chunk: 60, Boundaries: firstApart}, numbered, "word"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Retriever = ret
			m := New(c.opts)
			checked := 0
			for i := 0; i < 40; i++ {
				mustAppend(t, m, roleOf(i), c.text(i))
				if i%3 != 0 {
					continue // the open stretch grows, and may close, between calls
				}
				docs = nil
				compose(t, m, c.query)
				if docs == nil {
					continue // below the budget: nothing to rank
				}
				checked++
				bounds := m.Bounds()
				require.Len(t, docs, len(bounds))
				for s, a := range bounds {
					b := m.Len()
					if s+1 < len(bounds) {
						b = bounds[s+1]
					}
					var texts []string
					for k := a; k < b; k++ {
						tu, err := m.Turn(k)
						require.NoError(t, err)
						texts = append(texts, tu.Text)
					}
					require.Equal(t, strings.Join(texts, "\n"), docs[s].Text,
						"after turn %d the retriever was shown stretch %d (turns %d-%d) with another text", i, s, a, b-1)
				}
			}
			assert.Greater(t, checked, 10, "too few calls ranked above the budget")
		})
	}
}

func TestAfterAPauseTheRebuiltBlockIsKeptWhileRecallsGoPastIt(t *testing.T) {
	t.Parallel()
	topics := []string{"deploy", "garden", "travel", "music", "cooking", "pricing"}
	m := topicMemory(t, Options{Budget: 2400}, 6, topics...)
	compose(t, m, "the greenhouse tomatoes")
	when := m.when(m.Len() - 1).Add(time.Hour)
	mustAppendAt(t, m, Assistant, "welcome back", when)
	var rs []Result
	for i := range 40 {
		// The block's subject and one more, which must be recalled.
		w := topicWords[topics[1+i%(len(topics)-1)]]
		q := "the greenhouse tomatoes and the " + w[i%len(w)] + " and the " + w[(i+3)%len(w)]
		r := compose(t, m, q)
		checkResult(t, m, q, r)
		rs = append(rs, r)
		when = when.Add(20 * time.Second)
		mustAppendAt(t, m, User, fmt.Sprintf("so, point %d", i)+strings.Repeat(", and so on", 8), when)
		mustAppendAt(t, m, Assistant, "yes", when)
	}
	require.Equal(t, RebuildExpired, rs[0].Rebuild, "the first call after the pause")
	// The block made after the pause holds while the turns since fit:
	// calls recall their other subject past it, unless the block has it.
	next := slices.IndexFunc(rs[1:], func(r Result) bool { return r.Rebuild != "" })
	require.Greater(t, next, 2, "calls keep the block")
	recalled := 0
	for i, r := range rs[1 : 1+next] {
		assert.Equal(t, flat(rs[0])[0], flat(r)[0], "call %d keeps the block", i+1)
		if len(r.Recalled) > 0 {
			recalled++
		}
	}
	assert.Greater(t, recalled, next/2, "calls recall their other subject")
}

func TestARebuildTakesTheBestStretchEvenWhenItOutgrowsTheHeadroom(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{Budget: 2400, Chunk: 300}, {Budget: 2400, Chunk: 300, Recall: -1, Stability: 0.45}} {
		m := New(opts)
		for i := range 20 {
			mustAppend(t, m, User, fmt.Sprintf("filler talk number %d about the weather and things", i))
			mustAppend(t, m, Assistant, "ok")
		}
		mustAppend(t, m, User, "what does the vendor page say?")
		mustTurn(t, m, Turn{Role: ToolCall, Tool: "browse", CallID: "c1", Text: `{"url":"https://vendor.example/terms"}`})
		page := "The invoice 4471 is due on 3 June. " + strings.Repeat("Terms and conditions apply to every order. ", 25)
		mustTurn(t, m, Turn{Role: ToolResult, CallID: "c1", Text: page, Source: Source{Name: "web:https://vendor.example/terms"}})
		mustAppend(t, m, Assistant, "The page lists the terms.")
		for i := 20; i < 40; i++ {
			mustAppend(t, m, User, fmt.Sprintf("filler talk number %d about the weather and things", i))
			mustAppend(t, m, Assistant, "ok")
		}
		q := "when is invoice 4471 due?"
		r := compose(t, m, q)
		checkResult(t, m, q, r)
		require.Equal(t, RebuildFirst, r.Rebuild)
		memory := flat(r)[0]
		require.True(t, strings.HasPrefix(memory, memoryHeader))
		assert.Contains(t, memory, "The invoice 4471 is due", "the best stretch, larger than half the room, is quoted")
	}
}
