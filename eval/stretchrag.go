package main

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// stretchChars is where stretch BM25 closes a stretch: once its turns
// reach this many characters.
const stretchChars = 1000

// stretchRAG is plain BM25 over stretches rather than turns: consecutive
// turns are grouped into stretches that close once they reach
// stretchChars characters (a query also closes the open one), ranked with
// the same BM25 as plain RAG, and the best that fit whole are packed
// greedily, then shown in time order as "speaker: text" lines in one
// block. It is what a stretch-based selection does with no more than a
// textbook ranking, so it sets byheart's unit of relevance apart from the
// rest of what byheart does.
type stretchRAG struct {
	idx       *rag // BM25 over the stretches, one document each
	turns     []*turn
	stretches []stretchSpan
	open      int // characters of the open stretch, the turns past the last span
	budget    int
}

// stretchSpan is a closed stretch: turns from to to-1, and its size as
// rendered lines.
type stretchSpan struct{ from, to, size int }

var stretchBM25 = method{name: "stretch BM25", make: func(budget int, _ *latencies) composer {
	return newStretchRAG(budget)
}}

func newStretchRAG(budget int) *stretchRAG { return &stretchRAG{idx: newRAG(0), budget: budget} }

func (s *stretchRAG) add(t *turn) error {
	s.turns = append(s.turns, t)
	s.open += utf8.RuneCountInString(t.Text)
	if s.open >= stretchChars {
		s.close()
	}
	return nil
}

// close ends the open stretch, if it holds a turn, and indexes it.
func (s *stretchRAG) close() {
	from := 0
	if n := len(s.stretches); n > 0 {
		from = s.stretches[n-1].to
	}
	if from == len(s.turns) {
		return
	}
	var texts []string
	size := 0
	for i, t := range s.turns[from:] {
		texts = append(texts, t.Text)
		size += utf8.RuneCountInString(t.Speaker) + len(": ") + utf8.RuneCountInString(t.Text)
		if i > 0 {
			size++ // the newline between lines
		}
	}
	s.idx.index(strings.Join(texts, "\n"))
	s.stretches = append(s.stretches, stretchSpan{from, len(s.turns), size})
	s.open = 0
}

func (s *stretchRAG) compose(query string) (call, error) {
	s.close()
	var chosen []int
	used := 0
	for _, i := range s.idx.rank(query) {
		size := s.stretches[i].size
		if len(chosen) > 0 {
			size++ // the newline that joins it to the block
		}
		if used+size > s.budget {
			continue
		}
		used += size
		chosen = append(chosen, i)
	}
	slices.Sort(chosen)
	var lines []string
	for _, i := range chosen {
		for _, t := range s.turns[s.stretches[i].from:s.stretches[i].to] {
			lines = append(lines, t.Speaker+": "+t.Text)
		}
	}
	return blockCall(lines, query), nil
}
