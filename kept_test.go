package byheart

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAStretchLongerThanTheRoomIsQuotedInPart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"default", Options{Budget: 600}},
		{"fresh", Options{Budget: 600, Stability: -1}},
		{"keep or rebuild", Options{Budget: 600, Stability: 0.45, Recall: -1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := New(c.opts)
			day := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC)
			// An old sitting of fourteen turns, about 1,400 characters: one
			// stretch, more than twice the room, with the answer in its middle.
			for i := range 14 {
				text := fmt.Sprintf("Filler line %d about the weather, the neighbours and what is on the radio this week.", i)
				if i == 7 {
					text = "The canary rollback of the kubernetes cluster failed twice, so we pinned version 1.27."
				}
				role := User
				if i%2 == 1 {
					role = Assistant
				}
				mustAppendAt(t, m, role, text, day.Add(time.Duration(i)*time.Minute))
			}
			// Newer sittings, days later, about something else.
			for d := 1; d <= 4; d++ {
				at := day.AddDate(0, 0, 3*d)
				for i := range 4 {
					mustAppendAt(t, m, []Role{User, Assistant}[i%2], fmt.Sprintf("Sitting %d, line %d: the garden, the tomatoes and the compost heap.", d, i), at.Add(time.Duration(i)*time.Minute))
				}
			}
			require.Greater(t, m.sizeOf(0, 14), 600, "the old sitting is longer than the budget")
			r := compose(t, m, "what happened with the kubernetes canary rollback?")
			text := strings.Join(flat(r), "\n")
			assert.Contains(t, text, "canary rollback of the kubernetes cluster", "the turn of the old sitting that matches")
			assert.Contains(t, text, partMark, "marked as part of a longer stretch")
			assert.LessOrEqual(t, contextRunes(r), 600)
			assert.Contains(t, r.Included, 0, "the old sitting's stretch is listed as shown")
		})
	}
}

func TestAPartOfAStretchNeverPartsACallFromItsResult(t *testing.T) {
	t.Parallel()
	m := New(Options{Budget: 700})
	day := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC)
	mustAppendAt(t, m, User, "Please look up the canary rollback runbook for the kubernetes cluster.", day)
	for i := range 6 {
		_, err := m.AppendTurn(Turn{Role: ToolCall, Tool: "search", CallID: fmt.Sprint("c", i), Text: fmt.Sprintf(`{"q":"runbook page %d"}`, i), Time: day})
		require.NoError(t, err)
		body := fmt.Sprintf("Runbook page %d: general notes on paging, on-call rotations and escalation paths for the team.", i)
		if i == 3 {
			body = "Runbook page 3: a canary rollback on the kubernetes cluster is undone with the pinned version."
		}
		_, err = m.AppendTurn(Turn{Role: ToolResult, CallID: fmt.Sprint("c", i), Text: body, Source: Source{Name: "wiki", Authenticated: true}, Time: day})
		require.NoError(t, err)
	}
	mustAppendAt(t, m, Assistant, "Done: the runbook says to pin the version.", day)
	for d := 1; d <= 3; d++ {
		at := day.AddDate(0, 0, d)
		mustAppendAt(t, m, User, fmt.Sprintf("Day %d: the garden and the compost heap again.", d), at)
		mustAppendAt(t, m, Assistant, fmt.Sprintf("Day %d: yes, the tomatoes are doing well.", d), at)
	}
	r := compose(t, m, "how is a kubernetes canary rollback undone?")
	text := strings.Join(flat(r), "\n")
	require.Contains(t, text, "is undone with the pinned version")
	assert.Contains(t, text, `{"q":"runbook page 3"}`, "the result's call is quoted with it")
	assert.LessOrEqual(t, contextRunes(r), 700)
}

func TestARebuildShowsWhatAFreshSelectionWould(t *testing.T) {
	t.Parallel()
	// Half of what a rebuild may spend holds two of the four matching
	// stretches; the whole room holds all four.
	const budget = 2200
	query := "how did the sourdough starter hydration change?"
	fresh := compose(t, gardenAndSourdough(t, Options{Budget: budget, Stability: -1}), query)
	r := compose(t, gardenAndSourdough(t, Options{Budget: budget}), query)
	count := func(r Result, kind PartKind) int {
		n := 0
		for _, msg := range r.Messages {
			for _, p := range msg.Parts {
				if p.Kind == kind {
					n += strings.Count(p.Text, "sourdough starter hydration was raised") // once a turn
				}
			}
		}
		return n
	}
	t.Logf("fresh %d, default block %d, recalled %d matching turns", count(fresh, PartMemory), count(r, PartMemory), count(r, PartRecalled))
	assert.True(t, r.Reselected(), "the first call rebuilds")
	assert.NotEmpty(t, r.Recalled, "what the block's share leaves out is recalled at once")
	assert.GreaterOrEqual(t, count(r, PartMemory), 3*4, "the block holds the query's three best stretches, though half the room holds fewer")
	assert.Equal(t, count(fresh, PartMemory), count(r, PartMemory)+count(r, PartRecalled), "the default shows the matching turns a fresh selection does")
	assert.LessOrEqual(t, contextRunes(r), budget)
}

func TestALogThatShowsTheQuerysBestStretchIsKeptWhenTheRestDoesNotFit(t *testing.T) {
	t.Parallel()
	// gardenTurns lists the garden turns a composition shows: every one
	// matches the garden query as well as the next.
	gardenTurns := func(r Result) map[string]bool {
		seen := map[string]bool{}
		for _, msg := range r.Messages {
			for _, p := range msg.Parts {
				for _, l := range gardenLine.FindAllString(p.Text, -1) {
					seen[l] = true
				}
			}
		}
		return seen
	}
	const garden = "what does the garden need, the tomatoes or the compost heap?"
	const sourdough = "how did the sourdough starter hydration change?"
	for _, tc := range []struct {
		name    string
		budget  int
		first   string // the query whose rebuild makes the log
		kept    bool   // whether the garden query keeps that log
		because string
	}{
		{"the log shows the best", 3000, garden, true, "a log made for the garden shows the garden query's best stretch: what fits beside it is recalled, and it is kept"},
		{"the log lacks the best, what decides the answer does not fit", 3000, sourdough, false, "a log of sourdough stretches lacks the garden query's best, and the garden stretches, each as good as the best, do not fit beside it: it is rebuilt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh := gardenTurns(compose(t, gardenAndSourdough(t, Options{Budget: tc.budget, Stability: -1}), garden))
			m := gardenAndSourdough(t, Options{Budget: tc.budget})
			require.True(t, compose(t, m, tc.first).Reselected(), "the first call rebuilds")
			r := compose(t, m, garden)
			assert.LessOrEqual(t, contextRunes(r), tc.budget)
			if !tc.kept {
				assert.Equal(t, RebuildNoRoom, r.Rebuild, tc.because)
				return
			}
			assert.False(t, r.Reselected(), tc.because)
			assert.GreaterOrEqual(t, len(r.Recalled), 3, tc.because)
			if tc.first != garden {
				return
			}
			shown, lacks := gardenTurns(r), 0
			for l := range fresh {
				if !shown[l] {
					lacks++
				}
			}
			assert.NotZero(t, lacks, "the garden turns a fresh selection shows are more than fit beside the log")
		})
	}
}

// TestWhatDecidesAQuerysAnswerIsItsJudgedBestAndAnyWorthAThirdOfTheBest
// pins holdsBest: a log that lacks the query's best stretch is kept while
// a recall can quote the query's judged best and every stretch it needs
// worth a third of the best one's value, whatever else does not fit.
func TestWhatDecidesAQuerysAnswerIsItsJudgedBestAndAnyWorthAThirdOfTheBest(t *testing.T) {
	t.Parallel()
	m := gardenAndSourdough(t, Options{Budget: 3000})
	require.True(t, compose(t, m, "how did the sourdough starter hydration change?").Reselected())
	rk := bm25Ranker{}.ranking(&m.state, "what does the garden need, the tomatoes or the compost heap?")
	var garden, sourdough []int // first turns, each kind as good as the next
	for s := range m.str {
		if rk.score(s) > 0 {
			garden = append(garden, m.str[s].start)
		} else {
			sourdough = append(sourdough, m.str[s].start)
		}
	}
	require.Greater(t, len(garden), m.tune.judged+1)
	quoting := func(keys []int) quote {
		ends := make([]int, len(keys))
		for i, k := range keys {
			ends[i] = m.stretchEnd(m.stretchOf(k))
		}
		return quote{keys: keys, ends: ends}
	}
	want := append(slices.Clone(garden), sourdough...)
	assert.False(t, m.holdsBest(rk, quoting(garden[:m.tune.judged]), want), "the judged best alone, when the rest are as good")
	assert.True(t, m.holdsBest(rk, quoting(garden), want), "every garden stretch, the sourdough ones worth nothing to the query left out")
	assert.False(t, m.holdsBest(rk, quoting(garden[1:]), want), "all but the best")
	assert.True(t, m.holdsBest(rk, quote{}, nil), "a query that needs nothing more")
}

// gardenLine finds the garden turns of
// TestALogThatShowsTheQuerysBestStretchIsKeptWhenTheRestDoesNotFit.
var gardenLine = regexp.MustCompile(`Day \d+, line \d+: the garden`)

// gardenAndSourdough is a memory of twelve sittings a day apart, one
// stretch each, all about the garden but every third, about the sourdough
// starter.
func gardenAndSourdough(t *testing.T, opts Options) *Memory {
	m := New(opts)
	day := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC)
	for d := range 12 {
		at := day.AddDate(0, 0, d)
		for i := range 4 {
			text := fmt.Sprintf("Day %d, line %d: the garden, the tomatoes and the compost heap need work.", d, i)
			if d%3 == 0 {
				text = fmt.Sprintf("Day %d, line %d: the sourdough starter hydration was raised again today.", d, i)
			}
			mustAppendAt(t, m, []Role{User, Assistant}[i%2], text, at.Add(time.Duration(i)*time.Minute))
		}
	}
	return m
}

// A stretch short only because a long turn beside it, in its sitting, is a
// stretch of its own must match the query in proportion to its size; any
// other stretch meets the whole floor, and so does every stretch when a
// Retriever ranks.
func TestAShortTurnBesideALongOneMeetsTheFloorInProportionToItsSize(t *testing.T) {
	day := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	m := New(Options{Chunk: 1000})
	statement := "Our staging database is heron-7, on Postgres 16." // said beside an answer of pages
	mustAppendAt(t, m, User, statement, day)
	mustAppendAt(t, m, Assistant, strings.Repeat("A long answer about migrations and indexes. ", 60), day.Add(time.Minute))
	mustAppendAt(t, m, User, "Thanks!", day.Add(2*time.Minute))
	for i := range 30 { // short turns in the pace of chat, stretches of about Chunk
		mustAppendAt(t, m, roleOf(i), topicTurn("garden", i)+" and more words about the beds", day.Add(time.Duration(3+i)*time.Minute))
	}
	mustAppendAt(t, m, User, "Later, alone after a pause.", day.Add(5*time.Hour))
	mustAppendAt(t, m, Assistant, strings.Repeat("Another long answer, after the pause. ", 60), day.Add(6*time.Hour))
	compose(t, m, "which postgres version?")
	rk := bm25Ranker{}.ranking(&m.state, "which postgres version?")
	s := m.stretchOf(0)
	require.True(t, m.longTurn(s+1), "the answer is a stretch of its own")
	size := float64(m.runes(m.str[s].start, m.stretchEnd(s)))
	assert.InDelta(t, 4*size/1000, m.floorOf(rk, 4, s), 1e-9, "the statement beside the answer")
	garden := m.stretchOf(10)
	assert.Equal(t, 4.0, m.floorOf(rk, 4, garden), "a stretch of the chat's pace")
	alone := m.stretchOf(m.Len() - 2)
	require.True(t, m.longTurn(alone+1))
	require.Less(t, m.runes(m.str[alone].start, m.stretchEnd(alone)), 1000)
	assert.Equal(t, 4.0, m.floorOf(rk, 4, alone), "the long turn beside it came after a pause")
	retr := bm25Ranker{}.ranking(&m.state, "which postgres version?")
	retr.q = nil // as a Retriever's ranking, which has no query of words
	assert.Equal(t, 4.0, m.floorOf(retr, 4, s), "a Retriever's scores have no such scale")
	assert.Less(t, m.lowestFloor(4), m.floorOf(rk, 4, s), "a fill stops below every floor")
}
