package main

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/byheart/byheart"
)

// The library ranks stretches internally and does not report their scores,
// so the inspector scores the stretches it chose itself, to show why they
// match: BM25 over the same stretches, each turn as the library indexes it
// (relative dates resolved), with the library's tokenizer. The library
// also spreads scores to neighbouring stretches, so its order can differ
// from this one where scores are close.

// BM25 parameters: the textbook values.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// span is one stretch: turns [first, end).
type span struct{ first, end int }

// spans turns the first turn of each stretch (Memory.Bounds) into stretches
// of n turns in all.
func spans(bounds []int, n int) []span {
	out := make([]span, len(bounds))
	for i, b := range bounds {
		end := n
		if i+1 < len(bounds) {
			end = bounds[i+1]
		}
		out[i] = span{b, end}
	}
	return out
}

// scorer is BM25 over stretch texts.
type scorer struct {
	terms [][]string // by stretch
	df    map[string]int
	avg   float64
}

func newScorer(turns []byheart.Turn, stretches []span) *scorer {
	s := &scorer{terms: make([][]string, len(stretches)), df: map[string]int{}}
	total := 0
	for i, st := range stretches {
		var b strings.Builder
		for _, t := range turns[st.first:st.end] {
			b.WriteString(byheart.Annotate(t.Text, t.Time))
			b.WriteByte('\n')
		}
		s.terms[i] = byheart.Terms(b.String())
		total += len(s.terms[i])
		seen := map[string]bool{}
		for _, w := range s.terms[i] {
			if !seen[w] {
				seen[w] = true
				s.df[w]++
			}
		}
	}
	if len(stretches) > 0 {
		s.avg = float64(total) / float64(len(stretches))
	}
	return s
}

// score returns the BM25 score of stretch i for query, and the words of
// the query the stretch holds (by their terms), in the query's order.
func (s *scorer) score(query string, i int) (float64, []string) {
	tf := map[string]int{}
	for _, w := range s.terms[i] {
		tf[w]++
	}
	n := float64(len(s.terms))
	norm := bm25K1 * (1 - bm25B + bm25B*float64(len(s.terms[i]))/max(s.avg, 1))
	var total float64
	var counted []string
	for _, w := range byheart.Terms(query) {
		if tf[w] == 0 || slices.Contains(counted, w) {
			continue
		}
		counted = append(counted, w)
		df := float64(s.df[w])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		f := float64(tf[w])
		total += idf * f * (bm25K1 + 1) / (f + norm)
	}
	var words []string
	for _, word := range strings.FieldsFunc(query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, w := range byheart.Terms(word) {
			if slices.Contains(counted, w) && !slices.Contains(words, word) {
				words = append(words, word)
			}
		}
	}
	return total, words
}
