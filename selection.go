package byheart

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// ranking is one query's score for every stretch: computed on demand for
// the built-in BM25, all at once for a Retriever.
type ranking struct {
	m      *state
	q      *query    // built-in BM25
	open   float64   // built-in BM25: the open stretch
	custom []float64 // Retriever: by stretch
	hits   []hit     // Retriever: stretches with a positive score
}

// score is stretch s's score for the ranking: its own, plus what it borrows
// from its neighbours.
func (rk *ranking) score(s int) float64 {
	m := rk.m
	nb := 0.0
	if s > 0 && m.sameSitting(s-1) {
		nb = max(nb, rk.own(s-1))
	}
	if s+1 < len(m.str) && m.sameSitting(s) {
		nb = max(nb, rk.own(s+1))
	}
	return rk.own(s) + m.tune.neighbour*nb
}

// sameSitting reports whether stretch s+1 follows stretch s without a pause.
func (m *state) sameSitting(s int) bool {
	b := m.str[s+1].start
	p, q := m.turns[b-1].Time, m.turns[b].Time
	return p.IsZero() || q.IsZero() || q.Sub(p) < m.tune.sessionGap
}

// spread adds to the hits the neighbours that borrow a score from them, and
// sets every hit's value to its full score.
func (rk *ranking) spread() {
	m := rk.m
	if len(m.mark) < len(m.str) {
		m.mark = make([]bool, len(m.str))
	}
	n := len(rk.hits)
	for _, h := range rk.hits {
		m.mark[h.s] = true
	}
	for i := range n {
		s := rk.hits[i].s
		if s > 0 && !m.mark[s-1] && m.sameSitting(s-1) {
			m.mark[s-1] = true
			rk.hits = append(rk.hits, hit{s: s - 1})
		}
		if s+1 < len(m.str) && !m.mark[s+1] && m.sameSitting(s) {
			m.mark[s+1] = true
			rk.hits = append(rk.hits, hit{s: s + 1})
		}
	}
	for i := range rk.hits {
		m.mark[rk.hits[i].s] = false
		rk.hits[i].v = rk.score(rk.hits[i].s)
	}
}

// own is stretch s's score for the ranking, by its own words alone.
func (rk *ranking) own(s int) float64 {
	m := rk.m
	switch {
	case rk.custom != nil:
		return rk.custom[s]
	case m.str[s].slot < 0:
		return rk.open
	default:
		return rk.q.score(m.str[s].slot)
	}
}

// weighing is how outside items compare with the conversation for a
// query: each item's score, and the best stretch's on the same scale.
type weighing struct {
	scores []float64
	best   float64
	err    error // why the items could not be weighed; wraps ErrExternal
}

// ranker scores the stretches for a query and weighs outside items
// against them, on one scale: the built-in BM25, or a Retriever. It is
// chosen once, when the Memory is made, and called once per composition.
// The ranking it returns is nil when over is false: the whole history fits
// and nothing needs ranking.
type ranker interface {
	rank(ctx context.Context, m *state, query string, items []Item, over bool) (*ranking, weighing, error)
}

func newRanker(r Retriever) ranker {
	if r != nil {
		return retrieverRanker{r}
	}
	return bm25Ranker{}
}

// bm25Ranker is the built-in ranking. It scores a stretch only when asked
// (see choose): a composition needs the few best stretches and the scores
// of the ones it shows, not a score for every stretch of the conversation.
type bm25Ranker struct{}

func (b bm25Ranker) rank(_ context.Context, m *state, query string, items []Item, over bool) (*ranking, weighing, error) {
	var rk *ranking
	if over {
		rk = b.ranking(m, query)
	}
	var w weighing
	if len(items) > 0 {
		// Outside items join the corpus statistics: one idf table for all.
		extra := make([][]string, len(items))
		for i, it := range items {
			extra[i] = Terms(it.Text)
		}
		w.scores, w.best = m.ix.weigh(query, extra, len(m.str) > 0)
	}
	return rk, w, nil
}

// ranking prepares the built-in ranking of the stretches for the query.
func (bm25Ranker) ranking(m *state, query string) *ranking {
	q := m.ix.prepare(query)
	m.rk = ranking{m: m, q: q, open: q.open}
	return &m.rk
}

// retrieverRanker ranks with the caller's Retriever. The outside items are
// passed after the stretches in the same call. If that call fails while
// there are items, they are given up: below the budget nothing else needed
// ranking, and above it the stretches are asked for again alone, so
// material the Retriever cannot handle never costs the conversation its
// context.
type retrieverRanker struct{ r Retriever }

func (rr retrieverRanker) rank(ctx context.Context, m *state, query string, items []Item, over bool) (*ranking, weighing, error) {
	if !over && len(items) == 0 {
		return nil, weighing{}, nil
	}
	docs := rr.documents(m)
	n := len(docs)
	for i, it := range items {
		docs = append(docs, Document{ID: uint64(i), Text: it.Text})
	}
	scores, err := rr.score(ctx, query, docs)
	var w weighing
	switch {
	case err != nil && len(items) > 0:
		w.err = fmt.Errorf("%w: outside material could not be weighed: %w", ErrExternal, err)
		if over {
			scores, err = rr.score(ctx, query, docs[:n])
		}
	case len(items) > 0:
		w.scores = scores[n:]
		for _, v := range scores[:n] {
			w.best = max(w.best, v)
		}
	}
	if !over {
		return nil, w, nil
	}
	if err != nil {
		return nil, weighing{}, err
	}
	rk := &ranking{m: m, custom: scores[:n]}
	for s, v := range rk.custom {
		if v > 0 {
			rk.hits = append(rk.hits, hit{s, v})
		}
	}
	rk.spread()
	return rk, w, nil
}

// score asks the Retriever to score docs, so that a panic or a call that
// outlives ctx comes back as an error, and checks that it answered with one
// finite score each.
func (rr retrieverRanker) score(ctx context.Context, query string, docs []Document) ([]float64, error) {
	scores, err := guarded(ctx, func() ([]float64, error) { return rr.r.Score(ctx, query, docs) })
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRetriever, err)
	}
	if len(scores) != len(docs) {
		return nil, fmt.Errorf("%w: %d scores for %d documents", ErrRetriever, len(scores), len(docs))
	}
	for i, v := range scores {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: score %v for document %d", ErrRetriever, v, i)
		}
	}
	return scores, nil
}

// documents returns the stretch texts as a Retriever sees them, building
// each closed stretch's text once. The open stretch's text is built afresh
// and never cached: it grows, and may be split, before it closes.
func (retrieverRanker) documents(m *state) []Document {
	if len(m.texts) > len(m.str) {
		m.texts = nil
	}
	for len(m.texts) < len(m.str) {
		m.texts = append(m.texts, "")
	}
	docs := make([]Document, len(m.str))
	for s := range m.str {
		text := m.texts[s]
		if text == "" || m.str[s].slot < 0 {
			text = m.joined(m.str[s].start, m.stretchEnd(s))
			if m.str[s].slot >= 0 {
				m.texts[s] = text // the open stretch still grows: never cached
			}
		}
		docs[s] = Document{ID: m.ix.key(func(y func(string)) { y(text) }).hash, Text: text}
	}
	return docs
}

// joined is the indexed text of the stretch [a, b).
func (c *conversation) joined(a, b int) string {
	var buf []byte
	c.pieces(a, b, a)(func(p string) {
		if len(buf) > 0 {
			buf = append(buf, '\n')
		}
		buf = append(buf, p...)
	})
	return string(buf)
}

// order returns the stretches in the order a greedy fill considers them:
// positive scores best first (newer first on ties), then the rest newest
// first, so a budget the query cannot fill goes to recent talk. It serves a
// Retriever's ranking; the built-in one is walked by chooseBM25. The hits are
// drawn from a heap, so a fill that stops after a few dozen stretches pays
// for those, not for sorting every stretch the query touched.
func (rk *ranking) order() func(yield func(int) bool) {
	m := rk.m
	return func(yield func(int) bool) {
		h := append(m.heap[:0], rk.hits...)
		for i := len(h)/2 - 1; i >= 0; i-- {
			siftDown(h, i)
		}
		defer func() { m.heap = h[:0] }()
		for len(h) > 0 {
			top := h[0]
			last := len(h) - 1
			h[0] = h[last]
			h = h[:last]
			siftDown(h, 0)
			if !yield(top.s) {
				return
			}
		}
		for s := len(m.str) - 1; s >= 0; s-- {
			if rk.score(s) <= 0 && !yield(s) {
				return
			}
		}
	}
}

// choose fills capacity characters greedily with stretches that start before
// upto, each cut at upto. It returns their first turns ascending, and the
// stretches with a positive score in the order they were picked, best first.
// A positive limit stops it once that many have been picked.
func (rk *ranking) choose(upto, capacity, limit int) (keys, picked []int) {
	m := rk.m
	if rk.q != nil {
		return rk.chooseBM25(upto, capacity, limit)
	}
	for s := range rk.order() {
		if limit > 0 && len(picked) == limit {
			break
		}
		if capacity < m.meter.minStretch {
			break
		}
		a := m.str[s].start
		if a >= upto {
			continue
		}
		size := m.sizeBefore(s, upto)
		if size > capacity {
			continue
		}
		capacity -= size
		keys = append(keys, a)
		if rk.score(s) > 0 {
			picked = append(picked, s)
		}
	}
	sort.Ints(keys)
	return keys, picked
}

// chooseBM25 is choose for the built-in ranking, with the same result.
// choose walks every stretch in order and takes each one that fits; this
// asks the index only for the next stretch in that order that fits, so a
// fill pays for the few dozen stretches near the top and for the small ones
// that close the last gap, not for scoring and ordering the conversation.
func (rk *ranking) chooseBM25(upto, capacity, limit int) (keys, picked []int) {
	m := rk.m
	f := rk.newFill(upto, limit > 0)
	for {
		if limit > 0 && len(picked) == limit {
			break
		}
		if capacity < m.meter.minStretch {
			break
		}
		h, size, ok := f.next(capacity)
		if !ok {
			break
		}
		capacity -= size
		keys = append(keys, m.str[h.s].start)
		if h.v > 0 {
			picked = append(picked, h.s)
		}
	}
	sort.Ints(keys)
	return keys, picked
}

// A picker hands out the stretches a greedy fill takes: next(room) is the
// first stretch, in the order choose considers them (score descending,
// newer first, zero scores newest first), that comes after every stretch
// handed out or passed over so far and whose size is at most room. The room
// only shrinks, so a stretch passed over for its size never fits later, and
// everything ahead of the last stretch handed out is settled.
//
// Candidates come in streams, each complete up to its last entry: first the
// k best by a pruned search of the index (best); when those run out, either
// the stretches of at most the room are few and are scored one by one, or a
// deeper search runs, and past a point every posting is scored. When the
// best search found every stretch with a positive score, the stretches with
// none follow newest first.
type picker struct {
	rk       *ranking
	q        *query
	lim      int // closed stretches [0, lim) end by upto and are the index's candidates
	special  hit // the one stretch outside the index that may be taken: the open one, or the one upto cuts
	spSize   int // its size, cut at upto
	hasSp    bool
	stream   []hit
	pos      int
	heaped   bool // stream is a heap: take its top
	last     hit  // the last candidate handed out or passed over
	started  bool // last is set
	k        int  // size of the next pruned search
	state    int
	zs       int  // zero-score walk: the next stretch to look at is zs-1
	positive bool // stop at the first zero score (a keep check needs only the picks that score)
}

// Fill states: what to do when the stream runs out.
const (
	fillStart = iota // nothing searched yet
	fillMore         // the stream was complete only up to its last entry
	fillZero         // every positive score was in the streams; walk the zero scores
	fillDone         // the stream held everything there was
)

func (rk *ranking) newFill(upto int, positive bool) *picker {
	m := rk.m
	f := &picker{rk: rk, q: rk.q, k: rk.m.tune.firstK, positive: positive}
	if positive {
		f.k = rk.m.tune.judged
	}
	n := len(m.str)
	if n == 0 {
		f.state = fillDone
		return f
	}
	hold := n // the stretch holding turn upto, if any
	if upto < len(m.turns) {
		hold = m.stretchOf(upto)
	}
	f.lim = min(hold, n-1)
	switch {
	case hold < n && m.str[hold].start < upto:
		f.special, f.hasSp = hit{hold, rk.score(hold)}, true
		f.spSize = m.sizeOf(m.str[hold].start, upto)
	case hold == n:
		f.special, f.hasSp = hit{n - 1, rk.score(n - 1)}, true
		f.spSize = m.str[n-1].size
	}
	f.zs = f.lim
	return f
}

// after reports whether h comes after everything handed out or passed over.
func (f *picker) after(h hit) bool { return !f.started || f.last.before(h) }

func (f *picker) size(s int) int {
	if f.hasSp && s == f.special.s {
		return f.spSize
	}
	return f.rk.m.str[s].size
}

func (f *picker) next(room int) (hit, int, bool) {
	for {
		for f.pos < len(f.stream) {
			h := f.stream[f.pos]
			if f.heaped {
				// A complete stream is a heap, so a fill that stops early
				// does not pay for ordering all of it.
				last := len(f.stream) - 1
				f.stream[0] = f.stream[last]
				f.stream = f.stream[:last]
				siftDown(f.stream, 0)
			} else {
				f.pos++
			}
			if f.positive && h.v <= 0 {
				return hit{}, 0, false
			}
			f.last, f.started = h, true
			if size := f.size(h.s); size <= room {
				return h, size, true
			}
		}
		switch f.state {
		case fillDone:
			return hit{}, 0, false
		case fillZero:
			if f.positive {
				return hit{}, 0, false
			}
			return f.nextZero(room)
		case fillStart:
			f.search(room)
		case fillMore:
			if !f.few(room) {
				f.k *= 4
				if f.k > f.rk.m.tune.maxK {
					f.all(room)
				} else {
					f.search(room)
				}
			}
		}
	}
}

// search makes the stream the k best positive stretches that fit room and
// come after the last, with the special one where it ranks among them.
func (f *picker) search(room int) {
	if f.state == fillStart && f.q.postings() <= f.rk.m.tune.smallQuery {
		f.all(room)
		return
	}
	found, complete := f.rk.bestSpread(f.lim, room, f.k, f.stream[:0])
	st := found[:0]
	for _, h := range found {
		if f.after(h) {
			st = append(st, h)
		}
	}
	if f.hasSp && f.special.v > 0 && f.spSize <= room && f.after(f.special) &&
		(complete || len(found) > 0 && f.special.before(found[len(found)-1])) {
		st = append(st, f.special)
		sortHits(st)
	}
	f.stream, f.pos = st, 0
	if complete {
		f.state = fillZero
	} else {
		f.state = fillMore
	}
}

// few makes the stream every stretch still to come that fits room, if
// there are few enough of them to score one by one for less than a pass
// over the query's postings; it reports whether it did.
func (f *picker) few(room int) bool {
	m := f.rk.m
	budget := f.q.postings() / (8 * max(1, len(f.q.terms)))
	mins, _ := m.sizes.update(m.str)
	var cand []int32
	var who []int
	for b, lo := range mins {
		if int(lo) > room {
			continue
		}
		for s := b * sizeBlock; s < min((b+1)*sizeBlock, f.lim); s++ {
			if m.str[s].size <= room {
				if len(who) == budget {
					return false
				}
				who = append(who, s)
			}
		}
	}
	for _, s := range who {
		for _, x := range []int{s - 1, s, s + 1} {
			if x >= 0 && x < len(m.str) && m.str[x].slot >= 0 {
				cand = append(cand, m.str[x].slot)
			}
		}
	}
	f.q.scoreMany(m.ix.ascending(cand))
	st := f.stream[:0]
	for _, s := range who {
		if h := (hit{s, f.rk.score(s)}); f.after(h) {
			st = append(st, h)
		}
	}
	f.finish(st, room)
	return true
}

// all makes the stream every stretch still to come that fits room, scoring
// every posting of the query.
func (f *picker) all(room int) {
	m := f.rk.m
	m.ix.scoreAll(f.q)
	st := f.stream[:0]
	for s := 0; s < f.lim; s++ {
		if m.str[s].size > room {
			continue
		}
		if h := (hit{s, f.rk.score(s)}); f.after(h) {
			st = append(st, h)
		}
	}
	f.finish(st, room)
}

// finish adds the special stretch to a complete stream and makes it a heap.
func (f *picker) finish(st []hit, room int) {
	if f.hasSp && f.spSize <= room && f.after(f.special) {
		st = append(st, f.special)
	}
	for i := len(st)/2 - 1; i >= 0; i-- {
		siftDown(st, i)
	}
	f.stream, f.pos, f.state, f.heaped = st, 0, fillDone, true
}

// nextZero hands out the next stretch with no score, newest first, once
// every stretch with one has been handed out or passed over.
func (f *picker) nextZero(room int) (hit, int, bool) {
	m := f.rk.m
	// The special stretch is newer than any stretch of the index.
	if f.hasSp && f.special.v <= 0 && f.spSize <= room && f.after(f.special) {
		f.last, f.started = f.special, true
		return f.special, f.spSize, true
	}
	mins, _ := m.sizes.update(m.str)
	for s := f.zs - 1; s >= 0; s-- {
		if b := s / sizeBlock; int(mins[b]) > room {
			s = b * sizeBlock // skip the block
			continue
		}
		if m.str[s].size > room {
			continue
		}
		if v := f.rk.score(s); v <= 0 {
			f.zs = s
			h := hit{s, v}
			f.last, f.started = h, true
			return h, m.str[s].size, true
		}
	}
	f.zs = 0
	f.state = fillDone
	return hit{}, 0, false
}

// sizeBlock is how many closed stretches share one entry of the size
// minima, which let a fill skip past stretches too large for its room.
const sizeBlock = 64

// sizeRanges keeps the smallest and the largest size of each block of
// sizeBlock closed stretches, brought up to date when asked, so a fill can
// skip past stretches too large for its room without looking at each.
type sizeRanges struct {
	mins, maxs []int32
	ok         int // leading blocks that are up to date
}

// changed records that stretch s and later ones changed size or closed.
func (z *sizeRanges) changed(s int) {
	z.ok = min(z.ok, max(0, s)/sizeBlock)
}

// update brings the blocks up to date with the closed stretches of str and
// returns the minima and maxima.
func (z *sizeRanges) update(str []stretch) (mins, maxs []int32) {
	closed := max(0, len(str)-1)
	nb := (closed + sizeBlock - 1) / sizeBlock
	z.ok = min(z.ok, nb)
	z.mins, z.maxs = z.mins[:z.ok], z.maxs[:z.ok]
	for b := z.ok; b < nb; b++ {
		lo, hi := int32(math.MaxInt32), int32(0)
		for s := b * sizeBlock; s < min((b+1)*sizeBlock, closed); s++ {
			size := int32(min(str[s].size, math.MaxInt32))
			lo, hi = min(lo, size), max(hi, size)
		}
		z.mins, z.maxs = append(z.mins, lo), append(z.maxs, hi)
	}
	z.ok = nb
	return z.mins, z.maxs
}

// oversized counts the closed stretches among str[:lim] larger than room.
func (z *sizeRanges) oversized(str []stretch, lim, room int) int {
	_, maxs := z.update(str)
	count := 0
	for b, hi := range maxs {
		if int(hi) <= room {
			continue
		}
		for s := b * sizeBlock; s < min((b+1)*sizeBlock, lim); s++ {
			if str[s].size > room {
				count++
			}
		}
	}
	return count
}

// bestSpread is best for the scores a fill ranks by, which add to a
// stretch's own score a share (neighbour) of its better neighbour's in the
// same sitting, so a stretch scores less than θ when its own score and its
// neighbours' are all below θ/(1+neighbour). Let θ be the (k+e)-th best own
// score among all closed stretches, e the closed stretches a fill may not
// take (at or past lim, or larger than room): at least k of those k+e can
// be taken, and each scores at least its own, so the k-th best full score
// is at least θ. One search (best with reach 1+neighbour) finds every closed
// stretch whose own score is at least θ/(1+neighbour); with the open
// stretch and the neighbours of them all, those are scored in full, and
// no stretch left out can reach the k best of them.
func (rk *ranking) bestSpread(lim, room, k int, out []hit) ([]hit, bool) {
	m := rk.m
	n := len(m.str)
	e := max(0, n-1-lim) + m.sizes.oversized(m.str, lim, room)
	closed := func(u int32) bool { return int(u) < n-1 }
	around, complete := m.ix.best(rk.q, k+e, 1+m.tune.neighbour, closed, out[:0])
	out = rk.spreadAround(around, lim, room)
	if complete || len(out) < k {
		// Every stretch with a positive own score, and so every one with a
		// positive full score, was among them.
		if !complete {
			return rk.bestAll(lim, room, k, out)
		}
		if len(out) > k {
			return out[:k], false
		}
		return out, true
	}
	return out[:k], false
}

// spreadAround scores in full the given stretches, the open one and the
// neighbours of them all in the same sitting, and returns those among
// [0, lim) of size at most room with a positive score, best first.
func (rk *ranking) spreadAround(around []hit, lim, room int) []hit {
	m := rk.m
	n := len(m.str)
	if len(m.mark) < n {
		m.mark = make([]bool, n)
	}
	cand := m.spread[:0]
	add := func(s int) {
		if s >= 0 && s < n && !m.mark[s] {
			m.mark[s] = true
			cand = append(cand, s)
		}
	}
	near := func(s int) {
		add(s)
		if s > 0 && m.sameSitting(s-1) {
			add(s - 1)
		}
		if s+1 < n && m.sameSitting(s) {
			add(s + 1)
		}
	}
	for _, h := range around {
		near(h.s)
	}
	near(n - 1)
	slots := m.ix.cands[:0]
	for _, s := range cand {
		m.mark[s] = false
		if sl := m.str[s].slot; sl >= 0 {
			slots = append(slots, sl)
		}
	}
	rk.q.scoreMany(m.ix.ascending(slots))
	m.ix.cands = slots[:0]
	out := around[:0]
	for _, s := range cand {
		if s < lim && m.str[s].size <= room {
			if v := rk.score(s); v > 0 {
				out = append(out, hit{s, v})
			}
		}
	}
	m.spread = cand[:0]
	sortHits(out)
	return out
}

// bestAll is bestSpread by scoring every posting.
func (rk *ranking) bestAll(lim, room, k int, out []hit) ([]hit, bool) {
	m := rk.m
	m.ix.scoreAll(rk.q)
	out = out[:0]
	for s := 0; s < lim; s++ {
		if m.str[s].size <= room {
			if v := rk.score(s); v > 0 {
				out = append(out, hit{s, v})
			}
		}
	}
	sortHits(out)
	if len(out) > k {
		return out[:k], false
	}
	return out, true
}

// Rule 3 keeps the context still by treating it as an append-only log. A
// provider's prompt cache needs only the prefix of a call to repeat, so the
// context a rebuild makes is kept and only ever grows at its end: the turns
// appended since follow it as native messages, and when a query needs
// stretches the context lacks, they are quoted in a new memory part after
// everything already sent, so every earlier part stays byte for byte what
// the cache holds. When it would overrun the budget, it drops its newest
// recalled parts if a provider still holds what it keeps (see compact), and
// is otherwise rebuilt, to a fill that leaves it room to grow again.

// kept is the log: the memory block of the last rebuild, then the turns
// from upto on as native messages, with recalled stretches quoted between
// them where queries needed them. Stretches are named by their first turn,
// so a rewrite of the boundaries finds the same stretches or, if they are
// gone, forces a rebuild.
type kept struct {
	block   quote
	upto    int      // turns before upto appear only where quoted; turns from upto on follow natively
	made    int      // how many turns there were when the block was made; 0 when unknown (restored)
	recalls []recall // in the order they were made
}

// quote is one memory part: stretches quoted in time order.
type quote struct {
	keys []int  // first turn of each stretch, ascending
	ends []int  // where each one's quote ends: the stretch's end when quoted, or upto
	text string // the rendered part; "" when it quotes nothing
	size int    // characters of text
}

// recall is a quote appended to the log after the turns before at.
type recall struct {
	at int
	quote
}

// covers reports whether turn t is quoted.
func (q *quote) covers(t int) bool {
	i := sort.SearchInts(q.keys, t+1) - 1
	return i >= 0 && t < q.ends[i]
}

// covers reports whether turn t is in the log, quoted or native.
func (sel *kept) covers(t int) bool {
	if t >= sel.upto || sel.block.covers(t) {
		return true
	}
	for i := range sel.recalls {
		if sel.recalls[i].covers(t) {
			return true
		}
	}
	return false
}

// quotes yields the log's quotes in order, the block first.
func (sel *kept) quotes(yield func(*quote) bool) {
	if !yield(&sel.block) {
		return
	}
	for i := range sel.recalls {
		if !yield(&sel.recalls[i].quote) {
			return
		}
	}
}

// quote renders turns [keys[i], ends[i]) for each i as one memory part.
func (m *state) quote(keys, ends []int, header string) quote {
	text, size := m.renderBlock(keys, ends, header)
	return quote{keys: keys, ends: ends, text: text, size: size}
}

// reselect applies rule 3 to a composition over the budget. The log is
// kept as it is while it serves the query: while the best stretches it
// shows score at least (1 − Stability) of what a rebuild would bring, or one
// of the best a rebuild would bring is among the turns since the last
// rebuild, so that the query carries on the talk of the moment. Otherwise
// the best stretches it lacks are recalled into it (see missing). When the
// log would overrun the budget, with the recall or by the turns added since
// the last call, it is compacted (see compact) and rebuilt only when that
// is not enough, when it no longer matches the conversation, when the
// newest step is cut to fit, or when a pause has outlived a provider's
// cache of it (see cold). reserve is what a rebuild leaves free for
// outside material. It reports why the previous call's prefix is not
// repeated in full ("" when it is) and the first turn of each stretch it
// recalled.
func (m *state) reselect(rk *ranking, reserve int) (why Rebuild, recalled []int) {
	if why := m.unkept(); why != "" {
		m.rebuild(rk, reserve)
		return why, nil
	}
	sel := m.sel
	over := m.logSize(sel) > m.opt.Budget
	cut := m.cut()
	_, picked := rk.choose(cut, m.capacity(m.room(cut, 0)), max(m.tune.judged, m.opt.Recall))
	if !over && m.serves(rk, sel, picked) {
		return "", nil
	}
	why = RebuildNoRoom
	if over {
		why = RebuildOverBudget
	}
	if m.opt.Recall < 0 {
		if !over {
			why = RebuildWeaker
		}
		m.rebuild(rk, reserve)
		return why, nil
	}
	// A recall goes after the newest turn, where a result may still have
	// to follow its call: then it waits for the next call.
	recall := m.turns[len(m.turns)-1].waiting == 0
	var q quote
	if recall {
		q = m.recall(rk, sel, picked)
	}
	if !over && m.logSize(sel)+q.size <= m.opt.Budget {
		if q.size == 0 {
			return "", nil
		}
		sel.recalls = append(sel.recalls, recallAt(len(m.turns), q))
		return "", q.keys
	}
	if !m.stillServes(sel, picked) || !m.compact(rk, sel, picked, recall) {
		m.rebuild(rk, reserve)
		return why, nil
	}
	if n := len(sel.recalls); n > 0 && sel.recalls[n-1].at == len(m.turns) {
		return RebuildCompacted, sel.recalls[n-1].keys
	}
	return RebuildCompacted, nil
}

// unkept says why the kept log cannot be kept whatever the query, or ""
// when it may be.
func (m *state) unkept() Rebuild {
	sel := m.sel
	why := m.dropped
	m.dropped = ""
	switch {
	case m.opt.Stability < 0:
		return RebuildFresh
	case sel == nil && why != "":
		return why
	case sel == nil:
		return RebuildFirst
	case !m.current(sel):
		return RebuildStale
	case m.cap.on:
		// While the newest step is cut to fit, how much each turn keeps
		// changes as the step grows, so the log is made afresh.
		return RebuildStep
	case m.cold(sel):
		return RebuildExpired
	}
	return ""
}

// cold reports whether a provider has surely dropped every cache entry of
// the log, so that keeping it buys nothing: the provider would write it
// whole again, while a rebuild picks for the query at hand, writes less,
// and leaves the new sitting room to grow. Two pauses tell: the query came
// (ComposeAt) at least cacheLifetime after both the newest turn and the
// previous query, if that one said when it came; or the newest turn came
// that long after the one before it, no call coming between (in a chat or
// an agent loop a call follows a turn), while the block was made before
// the newest turn was appended (else a call since has rebuilt already). A
// conversation without times never makes a log cold: a turn without one
// takes the previous turn's.
func (m *state) cold(sel *kept) bool {
	n := len(m.turns)
	if n == 0 {
		return false
	}
	newest := m.turns[n-1].Time
	if last := newest; !m.asked.IsZero() {
		if m.called.After(last) {
			last = m.called
		}
		if lapsed(last, m.asked) && (sel.made < n || !m.called.IsZero()) {
			return true
		}
	}
	return sel.made < n && n >= 2 && lapsed(m.turns[n-2].Time, newest)
}

// stillServes reports whether a log that must be compacted is worth
// keeping for a query for which a rebuild would pick picked, best first: it
// shows one of the judged best. A log that shows none is about another
// subject, and a rebuild chooses a block for this one.
func (m *state) stillServes(sel *kept, picked []int) bool {
	for i := 0; i < m.tune.judged && i < len(picked); i++ {
		if sel.covers(m.str[picked[i]].start) {
			return true
		}
	}
	return false
}

// recallAt makes q a recall placed before turn at.
func recallAt(at int, q quote) recall { return recall{at: at, quote: q} }

// recall quotes the stretches the log lacks among those a rebuild would
// pick (see missing); the zero quote when it lacks none.
func (m *state) recall(rk *ranking, sel *kept, picked []int) quote {
	keys := m.missing(rk, sel, picked)
	if len(keys) == 0 {
		return quote{}
	}
	ends := make([]int, len(keys))
	for i, k := range keys {
		ends[i] = min(m.stretchEnd(m.stretchOf(k)), sel.upto)
	}
	return m.quote(keys, ends, recallHeader)
}

// compact makes room in a log that would overrun the budget by dropping
// its newest recalled parts, so that the log and, if recall is set, a
// recall of what the shortened log lacks fit the budget. It is worth doing
// only if a provider's cache still holds what the log keeps: a provider
// reads an entry an earlier call wrote at its breakpoint (the end of its
// log) when it lies at most cacheLookback parts before the new
// breakpoint, and otherwise bills the whole prefix anew, as after a
// rebuild, which would at least choose a fresh block. So it keeps the
// fewest recalled parts such that one of them, or for none the block and
// the turns after it, ended an earlier call within that reach; a stretch
// dropped that the query still needs comes back in the new recall. The
// block and the turns after it stay: every turn since the block is in the
// log, in order. It reports whether it made room; if not, the log is left
// as it was.
func (m *state) compact(rk *ranking, sel *kept, picked []int, recall bool) bool {
	all := sel.recalls
	n := len(m.turns)
	for j := range len(all) + 1 {
		// The parts after the earlier call's end that the shortened log
		// keeps: the turns since it and the new recall. The call that made
		// the block ended with the turns it placed natively; a restored
		// block's is not known, so its first such turn stands in, which is
		// never later.
		after, made := n-1-sel.upto, sel.upto
		if sel.made > sel.upto {
			after, made = n-sel.made, sel.made
		}
		if j > 0 {
			after, made = n-all[j-1].at, all[j-1].at
		}
		if m.expired(made) {
			continue // so is every entry before it
		}
		sel.recalls = all[:j]
		var q quote
		if recall {
			q = m.recall(rk, sel, picked)
		}
		if q.size > 0 {
			after++
		}
		if after >= cacheLookback || m.logSize(sel)+q.size > m.opt.Budget {
			continue
		}
		if q.size > 0 {
			sel.recalls = append(sel.recalls[:j:j], recallAt(n, q))
		}
		return true
	}
	sel.recalls = all
	return false
}

// expired reports whether the cache entry a call made just before turn t
// was appended has expired by now: the time ComposeAt's query was asked,
// or else the newest turn's. A provider keeps an entry cacheLifetime after
// it was written, and turns without a time give no reason to think it gone.
func (m *state) expired(t int) bool {
	n := len(m.turns)
	if t >= n {
		return false // made after the newest turn: by the call before this one
	}
	now := m.asked
	if now.IsZero() {
		now = m.turns[n-1].Time
	}
	return lapsed(m.turns[t].Time, now)
}

// lapsed reports whether a cache entry written at then has expired by now;
// a zero time gives no reason to think so.
func lapsed(then, now time.Time) bool {
	return !then.IsZero() && !now.IsZero() && now.Sub(then) >= cacheLifetime
}

// cacheLifetime is how long a provider keeps a cache entry it has not read
// since (Anthropic's default; OpenAI's is at least as long).
const cacheLifetime = 5 * time.Minute

// cacheLookback is how many parts, counting back from a call's cache
// breakpoint, a provider searches for an entry an earlier call left
// (Anthropic's rule, the strictest of the large providers').
const cacheLookback = 20

// serves reports whether the log serves a query for which a rebuild would
// pick picked, best first.
func (m *state) serves(rk *ranking, sel *kept, picked []int) bool {
	if rk.strength(sel) >= (1-m.opt.Stability)*rk.freshStrength(picked) {
		return true
	}
	if m.opt.Recall < 0 {
		return false // keep or rebuild: the rule before logs could grow
	}
	for i := 0; i < m.tune.judged && i < len(picked); i++ {
		if m.str[picked[i]].start >= sel.upto {
			return true
		}
	}
	return false
}

// missing returns, ascending, the first turns of the stretches among the
// best Recall a rebuild would pick that the log lacks, leaving out those
// that match too little of the query to be worth their place (cover).
func (m *state) missing(rk *ranking, sel *kept, picked []int) []int {
	floor := 0.0
	if rk.q != nil {
		floor = m.tune.cover * rk.q.ceiling()
	}
	var keys []int
	for i, s := range picked {
		if i == m.opt.Recall || rk.score(s) < floor {
			break
		}
		if k := m.str[s].start; !sel.covers(k) {
			keys = append(keys, k)
		}
	}
	sort.Ints(keys)
	return keys
}

// current reports whether the log still matches the conversation: the
// turns it places are there and every stretch it quotes still starts where
// it did.
func (m *state) current(sel *kept) bool {
	if sel.upto > len(m.turns) {
		return false
	}
	for q := range sel.quotes {
		for _, k := range q.keys {
			if s := m.stretchOf(k); s < 0 || m.str[s].start != k {
				return false
			}
		}
	}
	for _, r := range sel.recalls {
		if r.at > len(m.turns) {
			return false
		}
	}
	return true
}

// logSize is the characters the log takes: its quotes and its native turns.
func (m *state) logSize(sel *kept) int {
	n := m.tailCost(sel.upto)
	for q := range sel.quotes {
		n += q.size
	}
	return n
}

// strength is the summed score of the judged best stretches the log shows,
// quoted or native.
func (rk *ranking) strength(sel *kept) float64 {
	m := rk.m
	judged := m.tune.judged
	var buf [maxJudged]float64
	best := buf[:judged]
	push := func(v float64) {
		for i := range best {
			if v > best[i] {
				copy(best[i+1:], best[i:judged-1])
				best[i] = v
				return
			}
		}
	}
	for q := range sel.quotes {
		for _, k := range q.keys {
			push(rk.score(m.stretchOf(k)))
		}
	}
	if sel.upto < len(m.turns) {
		for s := m.stretchOf(sel.upto); s < len(m.str); s++ {
			push(rk.score(s))
		}
	}
	total := 0.0
	for _, v := range best {
		total += v
	}
	return total
}

// freshStrength is the same measure for the stretches a rebuild would pick.
func (rk *ranking) freshStrength(picked []int) float64 {
	total := 0.0
	for i := 0; i < rk.m.tune.judged && i < len(picked); i++ {
		total += rk.score(picked[i])
	}
	return total
}

// cut is where a rebuild's native tail starts: the newest turns that fit
// the budget, at most lastTurns of them (and back to m.from, for
// Continue), and at least the newest one. It starts where a stretch may,
// so no tool result goes out natively without its call: back to the start
// of the step when that fits, else forward past it; when the newest step
// alone is over the budget, stepCap has cut its turns to share it.
func (m *state) cut() int {
	n := len(m.turns)
	cut, size := n, 0
	for cut > 0 && (n-cut < m.tune.lastTurns || cut > m.from) {
		next := size + m.nativeCost(cut-1)
		if next > m.opt.Budget && cut < n {
			break
		}
		cut--
		size = next
	}
	back := cut
	for ; !m.splittable(back); back-- {
		size += m.nativeCost(back - 1)
	}
	if size <= m.opt.Budget {
		return back
	}
	for cut < n && !m.splittable(cut) {
		cut++
	}
	if cut < n {
		return cut
	}
	return back
}

// stepCap is how the newest step's turns share the budget when, as native
// parts, they would overrun it together: each is cut to at most size
// characters. The zero value cuts nothing.
type stepCap struct {
	on         bool
	from, size int
}

// capStep sets m.cap for the conversation as it stands: a step's calls and
// results must go out together, so when the newest step is over the
// budget, the largest of its turns are cut to the one size at which all of
// them fit.
func (m *state) capStep() {
	m.cap = stepCap{}
	n := len(m.turns)
	if n == 0 {
		return
	}
	s := n - 1
	for !m.splittable(s) {
		s--
	}
	total := 0
	for t := s; t < n; t++ {
		total += m.nativeCost(t)
	}
	if total <= m.opt.Budget {
		return
	}
	costs := make([]int, 0, n-s)
	for t := s; t < n; t++ {
		costs = append(costs, m.nativeCost(t))
	}
	sort.Ints(costs)
	room := m.opt.Budget
	size := 0
	for i, c := range costs {
		if share := room / (len(costs) - i); c > share {
			size = share
			break
		}
		room -= c
	}
	m.cap = stepCap{on: true, from: s, size: size}
}

// room is what a rebuild may spend on stretches, given the tail from cut
// and reserve set aside.
func (m *state) room(cut, reserve int) int {
	return m.opt.Budget - m.tailCost(cut) - reserve - m.meter.memory
}

// capacity is the share of room a rebuild spends: a sticky one only
// 1 − headroom of it, leaving the log room to grow into.
func (m *state) capacity(room int) int {
	if m.opt.Stability >= 0 {
		return int(float64(room) * (1 - m.tune.headroom))
	}
	return room
}

// sizeBefore is the size of stretch s quoted up to turn upto.
func (m *state) sizeBefore(s, upto int) int {
	if m.stretchEnd(s) > upto {
		return m.sizeOf(m.str[s].start, upto)
	}
	return m.str[s].size
}

// tailCost is the characters of turns from t on as native parts.
func (m *state) tailCost(t int) int {
	n := 0
	for ; t < len(m.turns); t++ {
		n += m.nativeCost(t)
	}
	return n
}

// rebuild starts a new log: a fresh selection for the ranking, quoted in
// the memory block, and the newest turns.
func (m *state) rebuild(rk *ranking, reserve int) {
	cut := m.cut()
	full := m.room(cut, reserve)
	capacity := m.capacity(full)
	if capacity < full {
		// The headroom must not cost the query its best stretch: when that
		// does not fit the share a rebuild spends, the share grows to it.
		if _, best := rk.choose(cut, full, 1); len(best) > 0 {
			capacity = max(capacity, m.sizeBefore(best[0], cut))
		}
	}
	keys, _ := rk.choose(cut, capacity, 0)
	if len(keys) == 0 && m.opt.Stability >= 0 {
		// Nothing scored and nothing fitted the share: the newest stretch
		// that fits at all.
		keys, _ = rk.choose(cut, full, 1)
	}
	ends := make([]int, len(keys))
	for i, k := range keys {
		ends[i] = min(m.stretchEnd(m.stretchOf(k)), cut)
	}
	m.sel = &kept{block: m.quote(keys, ends, memoryHeader), upto: cut, made: len(m.turns)}
}

// included lists, ascending, the first turn of each stretch the log shows,
// quoted or native.
func (m *state) included() []int {
	sel := m.sel
	var inc []int
	for q := range sel.quotes {
		for i, k := range q.keys {
			for s := m.stretchOf(k); s < len(m.str) && m.str[s].start < q.ends[i]; s++ {
				inc = append(inc, m.str[s].start)
			}
		}
	}
	if sel.upto < len(m.turns) {
		for s := m.stretchOf(sel.upto); s < len(m.str); s++ {
			inc = append(inc, m.str[s].start)
		}
	}
	sort.Ints(inc)
	return slices.Compact(inc)
}
