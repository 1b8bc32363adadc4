package main

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// words is a tokenizer simple enough to compute BM25 by hand with; the real
// one, byheart.Terms, belongs to the core and changes with it.
func words(s string) []string {
	return strings.Fields(strings.ToLower(strings.NewReplacer(".", "", "!", "", "?", "", ",", "").Replace(s)))
}

func ragOf(t *testing.T, budget int, texts ...string) *rag {
	r := newRAG(budget)
	r.terms = words
	for i, text := range texts {
		tu := mkTurn("", "Ana", byheart.User, text, text)
		if i%2 == 1 {
			tu = mkTurn("", "Bo", byheart.Assistant, text, text)
		}
		require.NoError(t, r.add(&tu))
	}
	return r
}

func TestRAGScoresAreBM25(t *testing.T) {
	r := ragOf(t, 1000, "beagle beagle park", "beagle", "cat park")
	// N = 3, average length 2; "beagle" and "park" each occur in two turns.
	idf := math.Log(1 + (3-2+0.5)/(2+0.5))
	termScore := func(tf, length float64) float64 {
		return idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*length/2))
	}
	got := r.scores("beagle park park")
	require.Len(t, got, 3)
	assert.InDelta(t, termScore(2, 3)+termScore(1, 3), got[0], 1e-9)
	assert.InDelta(t, termScore(1, 1), got[1], 1e-9, "a term repeated in the query counts once")
	assert.InDelta(t, termScore(1, 2), got[2], 1e-9)
	assert.Equal(t, []int{0, 1, 2}, r.rank("beagle park"))
	assert.Empty(t, r.rank("zebra"), "only turns sharing a term are candidates")
	assert.Equal(t, []int{1, 0}, ragOf(t, 1000, "same words", "same words").rank("same"), "ties go to the newer turn")
}

func TestRAGFillsTheBudgetBestFirstAndSkipsWhatDoesNotFit(t *testing.T) {
	texts := []string{"beagle beagle beagle", "beagle and a very long story about nothing much at all", "beagle"}
	r := ragOf(t, 0, texts...)
	require.Equal(t, []int{0, 2, 1}, r.rank("beagle"))
	lines := []string{"Ana: " + texts[0], "Bo: " + texts[1], "Ana: " + texts[2]}
	// Room for the best line and the third-ranked, not the long second one.
	r.budget = utf8.RuneCountInString(lines[0]) + 1 + utf8.RuneCountInString(lines[2]) + 5

	c, err := r.compose("beagle")
	require.NoError(t, err)
	require.Len(t, c.parts, 2)
	assert.Equal(t, lines[0]+"\n"+lines[2], c.parts[0].text, "best first; a line that does not fit is skipped")
	assert.Equal(t, part{byheart.User, "beagle"}, c.parts[1])
	assert.Equal(t, 0, c.breakpoint, "the breakpoint is the end of the block")
	assert.LessOrEqual(t, c.contextChars(), r.budget)

	none, err := r.compose("zebra")
	require.NoError(t, err)
	assert.Equal(t, []part{{byheart.User, "zebra"}}, none.parts)
	assert.Equal(t, -1, none.breakpoint)
}

func TestRAGIndexesWithByheartTerms(t *testing.T) {
	r := newRAG(1000)
	tu := mkTurn("D1:1", "Ana", byheart.User, "Running, running and more running", "")
	require.NoError(t, r.add(&tu))
	terms := byheart.Terms(tu.Text)
	assert.Equal(t, len(terms), r.lengths[0])
	for _, term := range terms {
		assert.NotEmpty(t, r.postings[term], term)
	}
}
