package byheart

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// headroom is the share of the budget a sticky rebuild leaves free, so the
// turns that follow can join the context as native messages for a while
// before the budget forces the next rebuild.
const headroom = 0.2

// lastTurns is how many of the newest turns follow the memory block as native
// messages after a rebuild: the last exchange, so the dialogue keeps its
// thread.
const lastTurns = 2

// kept is the selection a composition is built from between rebuilds.
// Identity is by each stretch's first turn, so a rewrite of the boundaries
// finds the same stretches or, if they are gone, forces a rebuild.
type kept struct {
	keys  []int  // first turn of each selected stretch, ascending
	upto  int    // turns before upto appear only through the block; turns from upto on follow natively
	block string // the rendered memory block; "" when no stretch fits
	size  int    // characters of block
}

// ranking is one query's score for every stretch.
type ranking struct {
	slots  []float64 // built-in BM25: by index slot
	open   float64   // built-in BM25: the open stretch
	custom []float64 // Retriever: by stretch
	hits   []int     // stretches with a positive score
}

func (m *Memory) score(rk *ranking, s int) float64 {
	switch {
	case rk.custom != nil:
		return rk.custom[s]
	case m.str[s].slot < 0:
		return rk.open
	default:
		return rk.slots[m.str[s].slot]
	}
}

// rank scores every stretch for the query. The caller must call m.unrank
// when done with a built-in ranking so the scratch space is clean.
func (m *Memory) rank(ctx context.Context, query string) (*ranking, error) {
	if m.opt.Retriever != nil {
		return m.rankCustom(ctx, query)
	}
	if cap(m.scores) < len(m.ix.slots) {
		m.scores = make([]float64, len(m.ix.slots), 2*len(m.ix.slots))
	}
	rk := &ranking{slots: m.scores[:len(m.ix.slots)]}
	q := m.ix.queryTerms(query, false)
	var touched []int32
	rk.open, touched = m.ix.score(m.ix.corpus(nil), q, rk.slots, nil)
	for _, s := range touched {
		for _, u := range m.ix.slots[s].users {
			rk.hits = append(rk.hits, int(u))
		}
	}
	if rk.open > 0 {
		rk.hits = append(rk.hits, len(m.str)-1)
	}
	return rk, nil
}

func (m *Memory) unrank(rk *ranking) {
	if rk.custom != nil {
		return
	}
	for _, s := range rk.hits {
		if sl := m.str[s].slot; sl >= 0 {
			rk.slots[sl] = 0
		}
	}
}

// documents returns the stretch texts as a Retriever sees them, building
// each closed stretch's text once.
func (m *Memory) documents() []Document {
	if len(m.texts) > len(m.str) {
		m.texts = nil
	}
	for len(m.texts) < len(m.str) {
		m.texts = append(m.texts, "")
	}
	docs := make([]Document, len(m.str))
	for s := range m.str {
		text := m.texts[s]
		if text == "" || s == len(m.str)-1 {
			text = m.joined(m.str[s].start, m.stretchEnd(s))
			if s < len(m.str)-1 {
				m.texts[s] = text // the open stretch still grows: never cached
			}
		}
		docs[s] = Document{ID: m.ix.key(func(y func(string)) { y(text) }).hash, Text: text}
	}
	return docs
}

func (m *Memory) joined(a, b int) string {
	n := 0
	for t := a; t < b; t++ {
		n += len(m.turns[t].shown) + 1
	}
	buf := make([]byte, 0, n)
	for t := a; t < b; t++ {
		if t > a {
			buf = append(buf, '\n')
		}
		buf = append(buf, m.turns[t].shown...)
	}
	return string(buf)
}

func (m *Memory) rankCustom(ctx context.Context, query string) (*ranking, error) {
	scores, err := callRetriever(ctx, m.opt.Retriever, query, m.documents())
	if err != nil {
		return nil, err
	}
	if len(scores) != len(m.str) {
		return nil, fmt.Errorf("%w: %d scores for %d documents", ErrRetriever, len(scores), len(m.str))
	}
	rk := &ranking{custom: scores}
	for s, v := range scores {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: score %v for document %d", ErrRetriever, v, s)
		}
		if v > 0 {
			rk.hits = append(rk.hits, s)
		}
	}
	return rk, nil
}

// callRetriever runs the Retriever so that a panic or a call that outlives
// ctx comes back as an error.
func callRetriever(ctx context.Context, r Retriever, query string, docs []Document) ([]float64, error) {
	type answer struct {
		scores []float64
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- answer{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		s, err := r.Score(ctx, query, docs)
		done <- answer{s, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRetriever, a.err)
		}
		return a.scores, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrRetriever, context.Cause(ctx))
	}
}

// order returns the stretches in the order a greedy fill considers them:
// positive scores best first (newer first on ties), then the rest newest
// first, so a budget the query cannot fill goes to recent talk.
func (m *Memory) order(rk *ranking) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		hits := rk.hits
		sort.Slice(hits, func(i, j int) bool {
			a, b := m.score(rk, hits[i]), m.score(rk, hits[j])
			if a != b {
				return a > b
			}
			return hits[i] > hits[j]
		})
		for _, s := range hits {
			if !yield(s) {
				return
			}
		}
		for s := len(m.str) - 1; s >= 0; s-- {
			if m.score(rk, s) <= 0 && !yield(s) {
				return
			}
		}
	}
}

// choose fills capacity characters greedily with stretches that start before
// upto, each cut at upto. It returns their first turns ascending, and the
// stretches with a positive score in the order they were picked, best first.
func (m *Memory) choose(rk *ranking, upto, capacity int) (keys, picked []int) {
	for s := range m.order(rk) {
		if capacity < minStretchSize {
			break
		}
		a := m.str[s].start
		if a >= upto {
			continue
		}
		size := m.str[s].size
		if b := m.stretchEnd(s); b > upto {
			size = m.sizeOf(a, upto)
		}
		if size > capacity {
			continue
		}
		capacity -= size
		keys = append(keys, a)
		if m.score(rk, s) > 0 {
			picked = append(picked, s)
		}
	}
	sort.Ints(keys)
	return keys, picked
}

// judged is how many of a selection's best stretches decide whether it
// still serves: a model needs the few stretches that hold the answer, so the
// many weak matches a speaker's name brings must not prop up a stale one.
const judged = 3

// strength is the summed score of the judged best stretches a kept
// selection shows, in its block or in the turns that follow it; ok is false
// when a stretch it names no longer exists.
func (m *Memory) strength(rk *ranking, sel *kept) (float64, bool) {
	var best [judged]float64
	push := func(v float64) {
		for i := range best {
			if v > best[i] {
				copy(best[i+1:], best[i:judged-1])
				best[i] = v
				return
			}
		}
	}
	for _, k := range sel.keys {
		s := m.stretchOf(k)
		if s < 0 || m.str[s].start != k {
			return 0, false
		}
		push(m.score(rk, s))
	}
	if sel.upto < len(m.turns) {
		for s := m.stretchOf(sel.upto); s < len(m.str); s++ {
			push(m.score(rk, s))
		}
	}
	return best[0] + best[1] + best[2], true
}

// freshStrength is the same measure for the stretches a rebuild would pick.
func (m *Memory) freshStrength(rk *ranking, picked []int) float64 {
	total := 0.0
	for i := 0; i < judged && i < len(picked); i++ {
		total += m.score(rk, picked[i])
	}
	return total
}
