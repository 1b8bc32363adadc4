package byheart

// Rule 4's comparisons and what Result.Outside says about each offered
// item.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lighthouseMemory is a conversation whose stretches each mention the
// lighthouse and the ferry six times, in different turns: a whole stretch
// matches a query on both, no turn-sized window does.
func lighthouseMemory(t *testing.T, opts Options) *Memory {
	t.Helper()
	m := New(opts)
	for i := 0; i < 40; i++ {
		text := fmt.Sprintf("turn %d: we talked about the weather and the long walk home", i)
		switch i % 8 {
		case 1, 2, 3:
			text += " past the lighthouse, the old lighthouse"
		case 5, 6, 7:
			text += " after the ferry, the slow ferry"
		}
		mustAppend(t, m, roleOf(i), text)
	}
	setBounds(m, []int{0, 8, 16, 24, 32})
	return m
}

func TestOutsideComparesLikeWithLike(t *testing.T) {
	const query = "When does the lighthouse ferry leave?"
	const item = "The lighthouse ferry: hourly from May."
	for _, tc := range []struct {
		name     string
		compare  Comparison
		admitted bool
		why      string
	}{
		{"best stretch", CompareStretch, false,
			"a stretch of eight turns holds both words six times, so it outscores the one sentence that holds both once"},
		{"best window", CompareWindow, true,
			"no turn-sized run of the conversation holds both words, so the item adds what it lacks"},
		{"coverage", CompareCoverage, true,
			"the item holds all of the query's weight, no window of its size as much"},
		{"window on the item's terms", CompareItemTerms, true,
			"the item holds both words and no window of its size does"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := lighthouseMemory(t, Options{Budget: 2000, Stability: -1, External: pool(item), ExternalCompare: tc.compare})
			r, err := m.Compose(context.Background(), query)
			require.NoError(t, err)
			require.Len(t, r.Outside, 1)
			a := r.Outside[0]
			assert.Equal(t, tc.admitted, a.Admitted, "%s (score %.3f against %.3f)", tc.why, a.Score, a.Against)
			assert.Equal(t, tc.admitted, a.Sent)
			_, text := outside(r)
			assert.Equal(t, tc.admitted, strings.Contains(text, item))
			assert.Positive(t, a.Against, "the conversation matches the query, so there is something to compare with")
			require.GreaterOrEqual(t, a.Turn, 0)
			if tc.compare != CompareStretch {
				turn, err := m.Turn(a.Turn)
				require.NoError(t, err)
				assert.Regexp(t, "lighthouse|ferry", turn.Text, "Turn starts the window compared against")
			} else {
				assert.Zero(t, a.Turn%8, "Turn starts the stretch compared against")
			}
			if tc.compare == CompareCoverage {
				assert.Less(t, a.Against, a.Score)
				assert.LessOrEqual(t, a.Score, 1.0, "a share of the query's weight")
			}
		})
	}
}

func TestOutsideSaysWhatEachItemMet(t *testing.T) {
	offered := []Item{
		{Text: "The lighthouse ferry: hourly from May.", Source: "timetable"},
		{Text: "   ", Source: "blank"},
		{Text: "Nothing here shares a word with the question.", Source: "unrelated"},
		{Text: "Ferry tickets are sold at the lighthouse kiosk near the harbour.", Source: "kiosk"},
	}
	src := ExternalFunc(func(context.Context, string) ([]Item, error) { return offered, nil })
	m := lighthouseMemory(t, Options{Budget: 2000, Stability: -1, External: src, ExternalCompare: CompareWindow})
	r, err := m.Compose(context.Background(), "When does the lighthouse ferry leave?")
	require.NoError(t, err)
	require.Len(t, r.Outside, 3, "the blank item is never weighed")
	var items []int
	for _, a := range r.Outside {
		items = append(items, a.Item)
		assert.Equal(t, offered[a.Item].Source, a.Source)
		assert.Equal(t, a.Score > 0 && a.Score+m.opt.ExternalMargin > a.Against, a.Admitted, "%+v", a)
		assert.False(t, a.Sent && !a.Admitted, "only an admitted item is sent: %+v", a)
	}
	assert.Equal(t, []int{0, 2, 3}, items, "Item indexes what Fetch returned")
	unrelated := r.Outside[1]
	assert.Zero(t, unrelated.Score)
	assert.False(t, unrelated.Admitted, "an item sharing no term with the query is never admitted")
	assert.True(t, r.Outside[0].Sent)
}

func TestOutsideMarginIsInTheComparisonsUnit(t *testing.T) {
	const query = "When does the lighthouse ferry leave?"
	const item = "The lighthouse ferry: hourly from May."
	m := lighthouseMemory(t, Options{Budget: 2000, Stability: -1, External: pool(item)})
	r, err := m.Compose(context.Background(), query)
	require.NoError(t, err)
	a := r.Outside[0]
	require.False(t, a.Admitted)
	gap := a.Against - a.Score
	for _, tc := range []struct {
		margin   float64
		admitted bool
	}{
		{gap / 2, false},
		{gap * 2, true},
		{math.Inf(1), true},
		{-1, false},
	} {
		m := lighthouseMemory(t, Options{Budget: 2000, Stability: -1, External: pool(item), ExternalMargin: tc.margin})
		r, err := m.Compose(context.Background(), query)
		require.NoError(t, err)
		assert.Equal(t, tc.admitted, r.Outside[0].Admitted, "a margin of %g against a gap of %g in score units", tc.margin, gap)
	}
}

func TestOutsideWithARetrieverMeetsTheBestStretch(t *testing.T) {
	ret := RetrieverFunc(func(_ context.Context, _ string, docs []Document) ([]float64, error) {
		out := make([]float64, len(docs))
		for i, d := range docs {
			out[i] = float64(strings.Count(d.Text, "lighthouse"))
		}
		return out, nil
	})
	m := lighthouseMemory(t, Options{Budget: 2000, Stability: -1, Retriever: ret, ExternalCompare: CompareWindow,
		External: pool(strings.Repeat("the lighthouse ", 7), strings.Repeat("the lighthouse ", 6))})
	r, err := m.Compose(context.Background(), "lighthouse")
	require.NoError(t, err)
	require.Len(t, r.Outside, 2)
	for _, a := range r.Outside {
		assert.Equal(t, 6.0, a.Against, "every stretch mentions the lighthouse six times, on the Retriever's scale")
		assert.Zero(t, a.Turn, "the first of the best stretches")
	}
	assert.True(t, r.Outside[0].Admitted)
	assert.False(t, r.Outside[1].Admitted, "a tie adds nothing")
}

func TestOutsideIsNilWithoutItems(t *testing.T) {
	for name, src := range map[string]External{
		"no source": nil,
		"no items":  pool(),
		"failing":   ExternalFunc(func(context.Context, string) ([]Item, error) { return nil, assert.AnError }),
	} {
		m := lighthouseMemory(t, Options{Budget: 2000, Stability: -1, External: src})
		r, err := m.Compose(context.Background(), "lighthouse ferry")
		require.NoError(t, err, name)
		assert.Nil(t, r.Outside, name)
	}
}

func TestQueryCorpusReadsAsTheWholeCorpus(t *testing.T) {
	m := lighthouseMemory(t, Options{Budget: 2000})
	extra := [][]string{Terms("The lighthouse ferry: hourly from May, the ferry to the island."), Terms("Nothing in common."), {}}
	q := m.ix.queryTerms("When does the lighthouse ferry leave for the island?", true)
	whole, lean := m.ix.corpus(extra), queryCorpus(m.ix, q, extra)
	assert.Equal(t, whole.n, lean.n)
	assert.InDelta(t, whole.avgdl, lean.avgdl, 1e-9)
	for _, term := range q {
		assert.InDelta(t, m.ix.idf(whole, term), m.ix.idf(lean, term), 1e-12, term.text)
	}
}

func TestOutsideTiesWithATurnItRepeats(t *testing.T) {
	m := lighthouseMemory(t, Options{Budget: 2000, Stability: -1})
	turn, err := m.Turn(2)
	require.NoError(t, err)
	for _, compare := range []Comparison{CompareWindow, CompareCoverage, CompareItemTerms} {
		m := lighthouseMemory(t, Options{Budget: 2000, Stability: -1, External: pool(turn.Text), ExternalCompare: compare})
		r, err := m.Compose(context.Background(), "the old lighthouse")
		require.NoError(t, err)
		a := r.Outside[0]
		assert.Positive(t, a.Score)
		assert.Equal(t, a.Against, a.Score, "comparison %d: a turn the conversation holds meets itself", compare)
		assert.False(t, a.Admitted, "comparison %d: it adds nothing the conversation lacks", compare)
	}
}
