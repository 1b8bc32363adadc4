package byheart

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

// ranking is one query's score for every stretch: computed on demand for
// the built-in BM25, all at once for a Retriever.
type ranking struct {
	m      *state
	text   string    // the query: what a part of a long stretch is chosen for
	q      *query    // built-in BM25
	open   float64   // built-in BM25: the open stretch
	custom []float64 // Retriever: by stretch
	hits   []hit     // Retriever: stretches with a positive score
	last   searched  // built-in BM25: bestSpread's last answer
	// built-in BM25, once every posting is scored: m.top holds the best
	// texts (see bestScored), all of those that score when topAll is set
	topped, topAll bool
	// theirs is set when the query asks what the assistant said (see
	// asksAboutAnswers): its answers are then weighed by score alone.
	theirs bool
}

// score is stretch s's score for the ranking: its own, plus what it borrows
// from its neighbours.
func (rk *ranking) score(s int) float64 {
	m := rk.m
	nb := 0.0
	if s > 0 && m.sameSitting(s-1) {
		nb = max(nb, m.share(s-1)*rk.own(s-1))
	}
	if s+1 < len(m.str) && m.sameSitting(s) {
		nb = max(nb, m.share(s)*rk.own(s+1))
	}
	return rk.own(s) + nb
}

// share is what stretches s and s+1 borrow of each other's score: the
// neighbour share across a boundary a stretch's size made, the exchange
// share across one a long turn made, which parts a question from its
// answer or an answer from the reply it got.
func (m *state) share(s int) float64 {
	if m.longTurn(s) || m.longTurn(s+1) {
		return m.tune.exchange
	}
	return m.tune.neighbour
}

// reach is the most of a neighbour's score any stretch borrows.
func (m *state) reach() float64 { return max(m.tune.neighbour, m.tune.exchange) }

// longTurn reports whether stretch s is one turn too long to share a
// stretch (see AppendTurn).
func (m *state) longTurn(s int) bool {
	a := m.str[s].start
	return m.stretchEnd(s) == a+1 && m.turns[a].runeCount() >= m.opt.Chunk
}

// scored is score, but once every posting of the query is scored
// (scoreAll), a stretch that holds none of the query's words beside
// neighbours that hold none scores zero, which is known without reading
// the times of the turns that say whether they share a sitting: most
// stretches of a long conversation are such.
func (rk *ranking) scored(s int) float64 {
	n := len(rk.m.str)
	if rk.q != nil && rk.q.all && rk.own(s) == 0 && (s == 0 || rk.own(s-1) == 0) && (s+1 == n || rk.own(s+1) == 0) {
		return 0
	}
	return rk.score(s)
}

// sameSitting reports whether stretch s+1 follows stretch s without a pause.
func (m *state) sameSitting(s int) bool {
	b := m.str[s+1].start
	d, ok := m.elapsed(b-1, b)
	return !ok || d < m.tune.sessionGap
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
// query: each item's score, and what rule 4 sets it against on the same
// scale (see Comparison), with the first turn of that part of the
// conversation (-1 when none).
type weighing struct {
	scores  []float64
	against []float64
	turns   []int
	held    [][]int32 // under the either forms, the query terms each item holds
	rank    []float64 // under the either forms, the BM25 scores that order the items
	err     error     // why the items could not be weighed; wraps ErrExternal
	// byContext is set when the comparison reads the composed context,
	// which is made after the items are weighed: settle then sets scores
	// and against from the query terms the context holds.
	byContext *contextWeighing
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
		var best float64
		q := m.ix.queryTerms(query, true)
		w.scores, best = m.ix.weigh(q, extra, len(m.str) > 0)
		c := queryCorpus(m.ix, q, extra)
		switch m.opt.ExternalCompare {
		case CompareStretch:
			first, _ := m.bestStretch(c, q)
			w.against, w.turns = uniform(best, first, len(items))
		case CompareGain:
			w.scores, w.turns = m.gain(c, q, extra)
			w.against = make([]float64, len(items))
		case CompareEither, CompareContextTerm:
			first, _ := m.bestStretch(c, q)
			w.rank = slices.Clone(w.scores)
			held := heldTerms(q, extra)
			w.byContext = newContextWeighing(m.ix, c, q, held, w.scores, best, m.opt.ExternalCompare == CompareEither)
			_, w.turns = uniform(0, first, len(items))
			if m.opt.ExternalCompare == CompareEither {
				w.held = held
			}
		case CompareEitherQuery:
			first, _ := m.bestStretch(c, q)
			w.rank = slices.Clone(w.scores)
			w.scores, w.against = eitherRatio(w.scores, coverage(m.ix, c, q, extra), best, heaviest(m.ix, c, q))
			_, w.turns = uniform(0, first, len(items))
			w.held = heldTerms(q, extra)
		case CompareHeaviestTerm:
			w.scores = coverage(m.ix, c, q, extra)
			first, _ := m.bestStretch(c, q)
			w.against, w.turns = uniform(heaviest(m.ix, c, q), first, len(items))
		case CompareCoverage:
			w.scores = coverage(m.ix, c, q, extra)
			w.against, w.turns = m.windows(c, q, extra, w.scores, CompareCoverage)
		default:
			w.scores = itemScores(m.ix, c, q, extra)
			w.against, w.turns = m.windows(c, q, extra, w.scores, m.opt.ExternalCompare)
		}
	}
	return rk, w, nil
}

// ranking prepares the built-in ranking of the stretches for the query.
func (bm25Ranker) ranking(m *state, query string) *ranking {
	q := m.ix.prepare(query)
	m.rk = ranking{m: m, text: query, q: q, open: q.open, theirs: asksAboutAnswers(query)}
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
		// A Retriever's scores need not grow with length, and it cannot be
		// asked for windows: items meet the best stretch.
		w.scores = scores[n:]
		best, first := 0.0, -1
		for s, v := range scores[:n] {
			if v > best {
				best, first = v, m.str[s].start
			}
		}
		w.against, w.turns = uniform(best, first, len(items))
	}
	if !over {
		return nil, w, nil
	}
	if err != nil {
		return nil, weighing{}, err
	}
	rk := &ranking{m: m, text: query, custom: scores[:n], theirs: asksAboutAnswers(query)}
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
		for i := range h {
			h[i].v = rk.value(h[i].s, h[i].v, len(m.turns))
		}
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
	return rk.fill(upto, capacity, limit, false)
}

// picks is choose's picked, cut short where a keep check stops reading
// it: serves reads the judged best, missing the picks down to the first
// that scores below the floor. Picks come best first, so once
// there are the judged best, a fill stops at the first stretch it meets,
// fitting or not, that scores below the floor: nothing after it is read. A
// fill of thousands of characters otherwise goes on, through ever deeper
// searches, for the small stretches that close its last gap, and a keep
// check runs one on every call.
func (rk *ranking) picks(upto, capacity, limit int) []int {
	_, picked := rk.fill(upto, capacity, limit, true)
	return picked
}

// fill is choose, cut short as picks says when short is set (and then
// leaving keys unsorted).
func (rk *ranking) fill(upto, capacity, limit int, short bool) (keys, picked []int) {
	m := rk.m
	if rk.q != nil {
		return rk.chooseBM25(upto, capacity, limit, short)
	}
	floor, cut := 0.0, false
	for s := range rk.order() {
		if limit > 0 && len(picked) == limit {
			break
		}
		if capacity < m.meter.minStretch {
			break
		}
		if cut && rk.score(s) < floor {
			continue // the order is by value, not by score
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
			if short && !cut && len(picked) >= m.tune.judged {
				floor, cut = m.floor(rk, picked), true
			}
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
func (rk *ranking) chooseBM25(upto, capacity, limit int, short bool) (keys, picked []int) {
	m := rk.m
	f := rk.newFill(upto, limit > 0)
	defer func() { m.stream = f.stream[:0] }() // for the next fill
	o := byValue{f: f, pend: m.heap[:0], bound: math.Inf(1)}
	defer func() { m.heap = o.pend[:0] }()
	for {
		if limit > 0 && len(picked) == limit {
			break
		}
		if capacity < m.meter.minStretch {
			break
		}
		h, size, ok := o.next(capacity)
		if !ok {
			break
		}
		if f.cut && h.v < m.floorOf(rk, f.floor, h.s) {
			continue // taken by value, one below the floor may come before one above it
		}
		capacity -= size
		keys = append(keys, m.str[h.s].start)
		if h.v > 0 {
			picked = append(picked, h.s)
			if short && !f.cut && len(picked) >= m.tune.judged {
				f.floor, f.cut = m.floor(rk, picked), true
				f.stop = m.lowestFloor(f.floor)
			}
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
// deeper search runs. A ranking prunes once: a deeper search, or one past
// maxK, scores every posting and reads the best from the scores (see
// bestSpread). When the best search found every stretch with a positive
// score, the stretches with none follow newest first.
type picker struct {
	rk       *ranking
	q        *query
	upto     int // the turn a fill's stretches are cut at
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
	cut      bool // stop at the first score below stop (see picks)
	floor    float64
	stop     float64 // the least floor any stretch has (see lowestFloor)
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
	f := &picker{rk: rk, q: rk.q, upto: upto, k: rk.m.tune.firstK, positive: positive, stream: m.stream[:0]}
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
			if f.positive && h.v <= 0 || f.cut && h.v < f.stop {
				return hit{}, 0, false
			}
			f.last, f.started = h, true
			if size := f.size(h.s); size <= room {
				return h, size, true
			}
		}
		if f.cut && f.started && f.last.v < f.stop {
			return hit{}, 0, false // whatever a further search finds scores less
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
// come after the last, with the special one where it ranks among them. A
// pruned search for them looks for k more for every stretch the fill may
// not take (see bestSpread): past maxK in all, as when a fill's room has
// shrunk below most stretches' size, every posting is scored instead, and
// the best that fit are read from the scores (bestScored), which need no
// such margin. A small query is scored whole at once, into one stream.
func (f *picker) search(room int) {
	if f.state == fillStart && f.q.postings() <= f.rk.m.tune.smallQuery {
		f.all(room)
		return
	}
	if !f.q.all && f.k+f.rk.excluded(f.lim, room) > f.rk.m.tune.maxK {
		f.rk.m.ix.scoreAll(f.q)
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

// all makes the stream every stretch with a score still to come that fits
// room, scoring every posting of the query; those without one follow from
// nextZero.
func (f *picker) all(room int) {
	f.rk.m.ix.scoreAll(f.q)
	found := f.rk.positives(f.lim, room, f.stream[:0])
	st := found[:0]
	for _, h := range found {
		if f.after(h) {
			st = append(st, h)
		}
	}
	if f.hasSp && f.special.v > 0 && f.spSize <= room && f.after(f.special) {
		st = append(st, f.special)
	}
	for i := len(st)/2 - 1; i >= 0; i-- {
		siftDown(st, i)
	}
	f.stream, f.pos, f.state, f.heaped = st, 0, fillZero, true
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
		if v := f.rk.scored(s); v <= 0 {
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
//
// A composition asks one query for the best few stretches several times: a
// keep check for its best stretch and for its fill, a rebuild for the
// judged best, its best stretch and its fills, in rooms most stretches fit
// either way. The last answer is kept (see searched) and given again when
// it settles the question. One it does not settle, deeper or in a room
// fewer stretches fit, comes when a fill's room shrinks past the
// stretches of its first answer and on a rebuild's fills after a keep
// check's: the query's every posting is then scored, once, for it and for
// any later question (see bestScored). Where the query's words are common,
// as at 100,000 turns, that pass costs less than a second pruned search,
// and a third and a fourth read no posting at all.
func (rk *ranking) bestSpread(lim, room, k int, out []hit) ([]hit, bool) {
	e := rk.excluded(lim, room)
	if found, complete, ok := rk.last.answer(rk.m, lim, room, e, k, out); ok {
		return found, complete
	}
	if rk.last.ok {
		rk.m.ix.scoreAll(rk.q) // the ranking has pruned once
	}
	found, complete := rk.searchSpread(lim, room, k, e, out)
	m := rk.m
	m.answer = append(m.answer[:0], found...)
	rk.last = searched{ok: true, n: len(m.str), lim: lim, room: room, e: e, k: k, complete: complete, hits: m.answer}
	return found, complete
}

// searched is bestSpread's last answer for a ranking: the k best
// stretches below lim that fit room (e stretches closed but not fitting
// or past lim), every one there is when complete.
type searched struct {
	ok                 bool
	n, lim, room, e, k int
	complete           bool
	hits               []hit
}

// answer gives bestSpread's answer for lim, room, e and k from the last
// one, in out, if that settles it: ok is false when it does not. The same
// lim and e mean the same stretches may be taken, so the best k of them
// are the best of the last answer's, when k is at most its. In a smaller
// room, those of the last answer that fit it are the best that do, all of
// them when the last answer was complete, and otherwise as many as fit
// among its k, since every stretch it left out scores less.
func (a *searched) answer(m *state, lim, room, e, k int, out []hit) ([]hit, bool, bool) {
	if !a.ok || a.n != len(m.str) || a.lim != lim || k > a.k {
		return nil, false, false
	}
	if e == a.e {
		return append(out[:0], a.hits[:min(k, len(a.hits))]...), a.complete && len(a.hits) <= k, true
	}
	if room > a.room {
		return nil, false, false
	}
	out = out[:0]
	fits := 0
	for _, h := range a.hits {
		if m.str[h.s].size <= room {
			if fits < k {
				out = append(out, h)
			}
			fits++
		}
	}
	switch {
	case a.complete:
		return out, fits <= k, true
	case fits >= k:
		return out, false, true
	}
	return nil, false, false
}

// searchSpread is bestSpread by a search of the index or, once every
// posting of the query is scored, from the scores.
func (rk *ranking) searchSpread(lim, room, k, e int, out []hit) ([]hit, bool) {
	if rk.q.all {
		return rk.bestScored(lim, room, k, out)
	}
	m := rk.m
	n := len(m.str)
	closed := func(u int32) bool { return int(u) < n-1 }
	around, complete := m.ix.best(rk.q, k+e, 1+m.reach(), closed, out[:0])
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

// bestScored is searchSpread once every posting of the query is scored
// (scoreAll). Let θ be the k-th best own score among the stretches a fill
// may take (below lim, of size at most room), or among their texts: at
// least k of those stretches score θ or more in full. A stretch that may be taken reaches θ by its own score,
// or by its own and the share it borrows from a neighbour, which then
// scores more than θ/(1+neighbour) itself. No bar counts in the stretches
// a fill may not take, as a search must (e): in a small room, where most
// may not, that bar falls to the small stretches' scores.
//
// The candidates are read from the best texts, kept in order once for the
// ranking (topTexts of them), when those hold k that may be taken and
// reach below θ/(1+neighbour): the stretches among them that may be
// taken, and the neighbours that may be taken and would reach θ borrowing
// from them. In a room few of the best texts fit, they are read from the
// stretches that fit instead (bestFitting).
func (rk *ranking) bestScored(lim, room, k int, out []hit) ([]hit, bool) {
	m := rk.m
	n := len(m.str)
	fits := func(s int) bool { return s < lim && m.str[s].size <= room }
	if !rk.topped {
		m.top, rk.topAll = m.ix.topScored(rk.q, topTexts, m.top)
		rk.topped = true
	}
	top := m.top
	theta, found, at := 0.0, 0, 0
	for ; at < len(top) && found < k; at++ {
		if m.ix.held(int32(top[at].s), func(u int32) bool { return fits(int(u)) }) {
			found++
			theta = top[at].v
		}
	}
	if found < k {
		theta = 0 // fewer than k of the best texts fit
	}
	bar := theta / ((1 + m.reach()) * (1 + boundSlack))
	if !rk.topAll && (found < k || top[len(top)-1].v >= bar) {
		return rk.bestFitting(lim, room, k, out)
	}
	if len(m.mark) < n {
		m.mark = make([]bool, n)
	}
	cand := m.spread[:0]
	add := func(s int) {
		if !m.mark[s] {
			m.mark[s] = true
			cand = append(cand, s)
		}
	}
	seed := func(u int, v float64) {
		if fits(u) {
			add(u)
		}
		for _, x := range [2]int{u - 1, u + 1} {
			if x >= 0 && x < n && fits(x) && (rk.own(x)+m.share(min(x, u))*v)*(1+boundSlack) >= theta {
				add(x)
			}
		}
	}
	for _, h := range top {
		if h.v < bar {
			break
		}
		for _, u := range m.ix.users(int32(h.s)) {
			if int(u) < n-1 {
				seed(int(u), h.v)
			}
		}
	}
	// The open stretch lends to the newest closed one.
	seed(n-1, rk.open)
	out = out[:0]
	for _, s := range cand {
		m.mark[s] = false
		if v := rk.score(s); v > 0 {
			out = append(out, hit{s, v})
		}
	}
	m.spread = cand[:0]
	sortHits(out)
	if len(out) > k {
		return out[:k], false
	}
	return out, found < k
}

// topTexts is how many of the texts a query touched bestScored keeps in
// order: the depths a composition asks for in rooms most stretches fit
// (3, 12, 48) with the texts within reach of the 48th.
const topTexts = 256

// bestFitting is bestScored read from the stretches that fit: θ is the
// k-th best own score among them, and the candidates are those whose own
// score with the share of their better neighbour's, in a sitting or not,
// reaches it. It reads every stretch's size, and the scores of those that
// fit, which in a small room are few.
func (rk *ranking) bestFitting(lim, room, k int, out []hit) ([]hit, bool) {
	m := rk.m
	n := len(m.str)
	mins, _ := m.sizes.update(m.str)
	// fitting yields the stretches before lim that fit the room. It is
	// walked twice rather than listed: in a large room nearly every
	// stretch fits, and a list kept for the next search would hold a few
	// bytes for every stretch of the conversation.
	fitting := func(yield func(s int)) {
		for b, lo := range mins {
			if int(lo) > room {
				continue
			}
			for s := b * sizeBlock; s < min((b+1)*sizeBlock, lim); s++ {
				if m.str[s].size <= room {
					yield(s)
				}
			}
		}
	}
	var buf [64]float64
	heap := buf[:0] // the k best own scores, smallest first
	if k > len(buf) {
		heap = make([]float64, 0, k)
	}
	fitting(func(s int) {
		if v := rk.own(s); v > 0 {
			heap = pushBest(heap, k, v)
		}
	})
	theta, all := 0.0, len(heap) < k
	if !all {
		theta = heap[0]
	}
	out = out[:0]
	fitting(func(s int) {
		lent := 0.0
		if s > 0 {
			lent = m.share(s-1) * rk.own(s-1)
		}
		if s+1 < n {
			lent = max(lent, m.share(s)*rk.own(s+1))
		}
		if (rk.own(s)+lent)*(1+boundSlack) >= theta {
			if v := rk.score(s); v > 0 {
				out = append(out, hit{s, v})
			}
		}
	})
	sortHits(out)
	if len(out) > k {
		return out[:k], false
	}
	return out, all
}

// excluded counts the closed stretches a fill may not take: at or past
// lim, or larger than room.
func (rk *ranking) excluded(lim, room int) int {
	m := rk.m
	return max(0, len(m.str)-1-lim) + m.sizes.oversized(m.str, lim, room)
}

// spreadAround scores in full the given stretches, the open one and the
// neighbours of them all in the same sitting, and returns those among
// [0, lim) of size at most room with a positive score, best first.
func (rk *ranking) spreadAround(around []hit, lim, room int) []hit {
	m := rk.m
	cand := m.neighbourhood(func(near func(int)) {
		for _, h := range around {
			near(h.s)
		}
	})
	slots := m.ix.cands[:0]
	for _, s := range cand {
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

// neighbourhood returns, once each, the stretches seed passes to near,
// the open stretch, and the neighbours of them all in the same sitting:
// every stretch whose score one of them can lend to or borrow from. The
// list is m.spread's, for the caller to give back.
func (m *state) neighbourhood(seed func(near func(s int))) []int {
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
	seed(near)
	near(n - 1)
	for _, s := range cand {
		m.mark[s] = false
	}
	return cand
}

// positives appends to out, once scoreAll has run, every stretch below lim
// of size at most room that scores above zero: those holding a text the
// query's terms touched, and the neighbours in their sitting of those and
// of the open stretch, since no other holds a query word or borrows a
// score from one that does. When the query touched few texts, they are
// looked at alone; when many, a pass over every stretch reads less, in
// order.
func (rk *ranking) positives(lim, room int, out []hit) []hit {
	m := rk.m
	if 8*len(rk.q.touched) > lim {
		for s := 0; s < lim; s++ {
			if m.str[s].size <= room {
				if v := rk.scored(s); v > 0 {
					out = append(out, hit{s, v})
				}
			}
		}
		return out
	}
	cand := m.neighbourhood(func(near func(int)) {
		for _, sl := range rk.q.touched {
			for _, u := range m.ix.users(sl) {
				near(int(u))
			}
		}
	})
	for _, s := range cand {
		if s < lim && m.str[s].size <= room {
			if v := rk.score(s); v > 0 {
				out = append(out, hit{s, v})
			}
		}
	}
	m.spread = cand[:0]
	return out
}

// bestAll is bestSpread by scoring every posting.
func (rk *ranking) bestAll(lim, room, k int, out []hit) ([]hit, bool) {
	rk.m.ix.scoreAll(rk.q)
	out = rk.positives(lim, room, out[:0])
	sortHits(out)
	if len(out) > k {
		return out[:k], false
	}
	return out, true
}

// value is what a stretch of the given size that scores v is worth per
// character of room it takes, as a fill weighs it: a budget is a knapsack.
// A stretch is counted as at least Options.Chunk characters, so stretches
// of about the size a conversation is cut at go by score, as the index's
// length normalisation already weighs them, and only one that outgrows it,
// a long answer, must match more to take its room.
func (m *state) value(v float64, size int) float64 {
	return v / float64(max(size, m.opt.Chunk))
}

// value is state.value for stretch s of the ranking, cut at turn upto,
// sized by the characters of its turns: what was said, not byheart's
// framing of it, so a stretch of tool results, whose frames name their
// source, is not worth less than the same words said. A question about
// what the assistant said looks for it in the assistant's answers, so one
// of them does not pay for its length.
func (rk *ranking) value(s int, v float64, upto int) float64 {
	m := rk.m
	if rk.theirs && m.longTurn(s) && m.turns[m.str[s].start].Role() == Assistant {
		return m.value(v, m.opt.Chunk)
	}
	return m.value(v, m.runes(m.str[s].start, min(m.stretchEnd(s), upto)))
}

// byValue hands out a picker's stretches by value (see state.value)
// rather than by score. The picker gives them best score first, so once it
// has given one scoring v, none it has yet to give is worth more than
// v over Options.Chunk: a stretch held back is handed out as soon as it is worth
// at least that, and a long one waits until the scores have fallen far
// enough below it.
type byValue struct {
	f     *picker
	pend  []hit   // held back, a heap by value
	bound float64 // the most a stretch the picker has yet to give is worth
	done  bool    // the picker has nothing more
}

func (o *byValue) next(room int) (hit, int, bool) {
	m := o.f.rk.m
	for {
		for len(o.pend) > 0 && (o.done || o.pend[0].v >= o.bound) {
			top := o.pend[0]
			last := len(o.pend) - 1
			o.pend[0] = o.pend[last]
			o.pend = o.pend[:last]
			siftDown(o.pend, 0)
			if size := o.f.size(top.s); size <= room {
				return hit{top.s, o.f.rk.score(top.s)}, size, true
			}
		}
		if o.done {
			return hit{}, 0, false
		}
		h, _, ok := o.f.next(room)
		if !ok {
			o.done = true
			continue
		}
		o.bound = m.value(max(h.v, 0), 0)
		o.pend = append(o.pend, hit{h.s, o.f.rk.value(h.s, h.v, o.f.upto)})
		for i := len(o.pend) - 1; i > 0; {
			p := (i - 1) / 2
			if !o.pend[i].before(o.pend[p]) {
				break
			}
			o.pend[i], o.pend[p] = o.pend[p], o.pend[i]
			i = p
		}
	}
}

// top returns the stretch starting before upto that scores best for the
// ranking, newer first on ties, or -1 when none scores.
func (rk *ranking) top(upto int) int {
	m := rk.m
	if rk.q == nil {
		best := hit{-1, 0}
		for _, h := range rk.hits {
			if m.str[h.s].start < upto && (best.s < 0 || h.before(best)) {
				best = h
			}
		}
		return best.s
	}
	f := rk.newFill(upto, true)
	defer func() { m.stream = f.stream[:0] }()
	h, _, ok := f.next(math.MaxInt)
	if !ok {
		return -1
	}
	return h.s
}
