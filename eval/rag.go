package main

import (
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// BM25 parameters: the textbook values, which is what a plain RAG setup uses.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rag is plain retrieval-augmented generation over single turns: BM25 with
// byheart's own tokenizer (byheart.Terms), so the comparison is about what is
// retrieved as a unit and how it is laid out, not about tokenization. The
// best turns are taken in score order and greedily packed, as "speaker: text"
// lines, into one block that fills the budget; turns that do not fit are
// skipped. Only turns that share a term with the query are candidates.
//
// The block is one part followed by the query, with the cache breakpoint at
// the end of the block: the block changes with every query, which is exactly
// why per-query retrieval cannot ride a provider's cache.
type rag struct {
	history
	budget   int
	terms    func(string) []string // byheart.Terms; tests put a simpler one in
	postings map[string][]posting
	lengths  []int // terms per turn
	total    int   // terms in all turns
}

type posting struct {
	turn int
	tf   int
}

func newRAG(budget int) *rag {
	return &rag{budget: budget, terms: byheart.Terms, postings: map[string][]posting{}}
}

func (r *rag) add(t *turn) error {
	r.turns = append(r.turns, t)
	r.index(t.Text)
	return nil
}

// index adds text to the BM25 index as the next document; stretchRAG
// indexes its stretches with it.
func (r *rag) index(text string) {
	id := len(r.lengths)
	terms := r.terms(text)
	counts := map[string]int{}
	for _, term := range terms {
		counts[term]++
	}
	for term, tf := range counts {
		r.postings[term] = append(r.postings[term], posting{id, tf})
	}
	r.lengths = append(r.lengths, len(terms))
	r.total += len(terms)
}

// scores returns the BM25 score of every document (a turn) that shares a
// term with query. A term repeated in the query counts once.
func (r *rag) scores(query string) map[int]float64 {
	scores := map[int]float64{}
	n := float64(len(r.lengths))
	if n == 0 {
		return scores
	}
	avg := float64(r.total) / n
	seen := map[string]bool{}
	for _, term := range r.terms(query) {
		if seen[term] {
			continue
		}
		seen[term] = true
		list := r.postings[term]
		if len(list) == 0 {
			continue
		}
		df := float64(len(list))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range list {
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(r.lengths[p.turn])/avg)
			scores[p.turn] += idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	return scores
}

// rank returns the indexes of the turns that share a term with query, best
// first; ties go to the newer turn.
func (r *rag) rank(query string) []int {
	scores := r.scores(query)
	ranked := make([]int, 0, len(scores))
	for i := range scores {
		ranked = append(ranked, i)
	}
	sort.Slice(ranked, func(a, b int) bool {
		sa, sb := scores[ranked[a]], scores[ranked[b]]
		if sa != sb {
			return sa > sb
		}
		return ranked[a] > ranked[b]
	})
	return ranked
}

func (r *rag) compose(query string) (call, error) {
	var lines []string
	used := 0
	for _, i := range r.rank(query) {
		t := r.turns[i]
		line := t.Speaker + ": " + t.Text
		size := utf8.RuneCountInString(line)
		if len(lines) > 0 {
			size++ // the newline that joins it to the block
		}
		if used+size > r.budget {
			continue
		}
		used += size
		lines = append(lines, line)
	}
	return blockCall(lines, query), nil
}

// blockCall is a baseline's call: its lines in one block, the cache
// breakpoint at its end, then the query; the query alone when there are no
// lines.
func blockCall(lines []string, query string) call {
	if len(lines) == 0 {
		return call{parts: []part{{byheart.User, query}}, breakpoint: -1}
	}
	block := part{byheart.User, strings.Join(lines, "\n")}
	return call{parts: []part{block, {byheart.User, query}}, breakpoint: 0}
}
