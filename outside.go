package byheart

import (
	"slices"
	"sort"
)

// Comparison is what rule 4 sets an offered item against when it decides
// whether the item adds what the composed context lacks
// (Options.ExternalCompare). Each form compares the item with something on
// one scale, never with a threshold.
type Comparison int

const (
	// CompareEither, the default, admits an item that wins either of two
	// comparisons: CompareStretch's, or CompareContextTerm's. The first
	// admits what matches the query better than all the conversation says
	// about it; the second what says more of the question than the
	// heaviest (rarest) of its words that the composed context holds, the
	// like-with-like test for a turn-sized item that the conversation's
	// long stretch outscores on length. Score is the better of the item's
	// two ratios, its BM25 score to the best stretch's and its weight of
	// the query to that term's, and Against is 1, so the margin is a
	// share of what the item meets; Against is 0 when the composed context
	// holds none of the query's terms, and Score then the item's share of
	// the query's weight. Items are then taken best first by BM25, and
	// those admitted before an item are part of the context it meets: it
	// must hold a query term they lack (else it is Covered) and, since it
	// cannot outscore them, more of the query's weight than the heaviest
	// query term they and the context hold (Score that ratio, Against 1).
	// Of the forms measured (eval/README.md, the external section) it
	// admits the most of what the conversation lacks while keeping out 95%
	// of junk.
	CompareEither Comparison = iota
	// CompareStretch sets an item's BM25 score against the conversation's
	// best stretch, whatever their lengths: a turn-sized item meets a
	// stretch ten times its length, which matches more of the query's
	// words for being longer.
	CompareStretch
	// CompareWindow sets an item's BM25 score against the conversation's
	// best window of the item's length: a run of whole turns, as many as
	// fit in the item's number of terms, scored as a document of at least
	// that length on the same idf table. Length alone cannot win the
	// comparison for either side, but the best of a conversation's many
	// windows often matches the query's words as well as the item does.
	CompareWindow
	// CompareCoverage sets the share of the query's weight (the idf of its
	// distinct terms) that the item holds against the share the
	// conversation's best window of the item's length holds: how many of
	// the question's words, weighted by rarity, each side holds, however
	// often it repeats them.
	CompareCoverage
	// CompareItemTerms is CompareWindow on the query terms the item holds
	// alone: the conversation's window must say as much about what the
	// item is about, and cannot win on a query term, such as the name of
	// the person asked about, that the item never mentions.
	CompareItemTerms
	// CompareGain sets the conversation's best stretch with the item
	// against that stretch alone, on the share of the query's weight each
	// holds: the item is admitted when it holds query terms, weighted by
	// rarity, that the stretch lacks. Score is the share the item adds and
	// Against is 0. A conversation rarely lacks a word of a question about
	// it, and other texts often hold one it lacks.
	CompareGain
	// CompareHeaviestTerm sets the share of the query's weight the item
	// holds against the share of the query's heaviest (rarest) term
	// alone: the item must say more of the question than its one rarest
	// word does, which a text sharing a single word with the question
	// never does. It reads the conversation only for the terms' weights.
	CompareHeaviestTerm
	// CompareContextTerm sets the share of the query's weight the item
	// holds against the share of the heaviest query term that the composed
	// context holds: the context the conversation alone is sent, the
	// question itself left out. A query term the context lacks (a date the
	// talk never names, a word the evidence alone said) cannot be what an
	// item must beat; an item holding one holds its weight, which the
	// context's heaviest term does not reach unless a term as rare is
	// there. Against is 0 when the context holds none of the query's terms.
	CompareContextTerm
	// CompareEitherQuery is CompareEither with CompareHeaviestTerm's test
	// for its second: the heaviest term of the whole query, held by the
	// context or not. It was the default before CompareEither read the
	// composed context.
	CompareEitherQuery
)

// lastComparison is the last valid Comparison.
const lastComparison = CompareEitherQuery

// Admission is rule 4's decision on one item an External source offered,
// with what it was compared against, so a caller can log why the item was
// or was not sent.
type Admission struct {
	// Item is the item's index in what Fetch returned. Items with no usable
	// text (blank, or not valid UTF-8) and items that quote an expired
	// turn's text whole (see Turn.Expires) are never weighed and have no
	// Admission.
	Item int `json:"item"`
	// Source is the item's Source.
	Source string `json:"source"`
	// Score is the item's score for the query: a BM25 score, or under
	// CompareCoverage, CompareHeaviestTerm and CompareContextTerm the share
	// of the query's weight it holds (0 to 1), under CompareGain the share
	// it holds that the best stretch lacks, under CompareEither and
	// CompareEitherQuery a ratio (see there).
	// With a Retriever it is the Retriever's score.
	Score float64 `json:"score"`
	// Against is what the item was compared with, in Score's unit: the
	// score of the conversation's best stretch, or of its best window of
	// the item's length under the window forms, the share of the query's
	// heaviest term under CompareHeaviestTerm, of the heaviest query term
	// the composed context holds under CompareContextTerm, 0 under
	// CompareGain and 1 under CompareEither and CompareEitherQuery (see
	// Comparison); 0 when the conversation, or under CompareEither and
	// CompareContextTerm the composed context, holds none of the query's
	// terms. Under CompareEither the items admitted before an item count
	// as context for it (see there).
	Against float64 `json:"against"`
	// Turn is the first turn of that window or stretch, -1 when there is
	// none.
	Turn int `json:"turn"`
	// Admitted reports that the item matched the query (Score > 0),
	// Score + Options.ExternalMargin > Against, and it is not Covered.
	Admitted bool `json:"admitted"`
	// Covered reports, under CompareEither and CompareEitherQuery, that
	// the item won its comparison but holds no query term that the items
	// admitted before it, those scoring higher, do not hold already: it
	// adds nothing the composed context lacks, so it is not admitted.
	Covered bool `json:"covered,omitempty"`
	// Sent reports that the item reached the context: it was admitted and
	// fitted the room left in the budget.
	Sent bool `json:"sent"`
}

// admit decides on every weighed item and returns the admissions, in the
// items' order, with the indices of the admitted ones, best first.
func (m *state) admit(items []Item, from []int, w weighing) ([]Admission, []int) {
	if len(items) == 0 {
		return nil, nil
	}
	out := make([]Admission, len(items))
	var order []int
	for i := range items {
		a := Admission{Item: from[i], Source: items[i].Source, Turn: -1}
		if w.scores != nil && w.err == nil {
			a.Score, a.Against, a.Turn = w.scores[i], w.against[i], w.turns[i]
			a.Admitted = a.Score > 0 && a.Score+m.opt.ExternalMargin > a.Against
		}
		if a.Admitted {
			order = append(order, i)
		}
		out[i] = a
	}
	by := w.scores
	if w.rank != nil {
		by = w.rank
	}
	sort.SliceStable(order, func(a, b int) bool { return by[order[a]] > by[order[b]] })
	if w.held == nil {
		return out, order
	}
	// Best first, an item must bring a query term the ones before it lack.
	// Under CompareEither the items admitted before it are part of the
	// context it is weighed against: it must hold more of the query's
	// weight than the heaviest query term they and the context hold, and
	// it cannot outscore them on BM25, which ranks them before it.
	var have []bool
	heavy := 0.0
	cw := w.byContext
	if cw != nil {
		heavy = cw.heavy
	}
	kept := order[:0]
	for _, i := range order {
		adds := false
		for _, j := range w.held[i] {
			adds = adds || int(j) >= len(have) || !have[j]
		}
		if !adds {
			out[i].Admitted, out[i].Covered = false, true
			continue
		}
		if cw != nil && cw.either && len(kept) > 0 {
			out[i].Score, out[i].Against = cw.held[i]/heavy, 1
			if !(out[i].Score+m.opt.ExternalMargin > out[i].Against) {
				out[i].Admitted = false
				continue
			}
		}
		for _, j := range w.held[i] {
			for int(j) >= len(have) {
				have = append(have, false)
			}
			have[j] = true
			if cw != nil {
				heavy = max(heavy, cw.weight[j])
			}
		}
		kept = append(kept, i)
	}
	return out, kept
}

// heldTerms returns, for each document (given as its terms), the indices
// in q of the query terms it holds.
func heldTerms(q []qterm, docs [][]string) [][]int32 {
	at := make(map[string]int32, len(q))
	for j, t := range q {
		at[t.text] = int32(j)
	}
	out := make([][]int32, len(docs))
	seen := make(map[int32]bool, len(q))
	for i, doc := range docs {
		clear(seen)
		for _, x := range doc {
			if j, ok := at[x]; ok && !seen[j] {
				seen[j] = true
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// window is one stretch of the conversation as the window comparisons read
// it: where each of its turns starts and where the query's terms occur,
// counted in terms.
type window struct {
	starts []int32 // the first term of each turn, and the stretch's length last
	pos    []int32 // the position of each occurrence of a query term, ascending
	term   []int32 // which query term occurs there
	first  int     // the stretch's first turn
}

// windows finds, for each outside item (given as its terms), what the
// chosen comparison sets it against: the score of the conversation's best
// window of the item's length and that window's first turn, for the query
// q on corpus c. Stretches are read in the order of what any window of
// theirs could score at most, and only until that bound cannot beat the
// best window found, so a long conversation is read only where the query's
// terms gather. If the caller's context ends first, the items it had no
// time for score 0 in scores, as the index leaves them, so none is
// admitted against a window half sought.
func (m *state) windows(c corpus, q []qterm, extra [][]string, scores []float64, cmp Comparison) ([]float64, []int) {
	coverage := cmp == CompareCoverage
	ix := m.ix
	all := make([]float64, len(q))
	total := 0.0
	for j, t := range q {
		all[j] = ix.idf(c, t)
		total += all[j]
	}
	weight := all
	// Which stretches hold a query term, one per distinct text.
	_, touched := ix.score(c, q, make([]float64, len(ix.slots)), nil)
	held := make(map[int32]int, len(touched))
	for _, s := range touched {
		held[s] = -1
	}
	var cands []int // stretches, the open one included
	for s := range m.str {
		slot := m.str[s].slot
		if slot < 0 {
			cands = append(cands, s)
			continue
		}
		if first, ok := held[slot]; ok && first < 0 {
			held[slot] = s
			cands = append(cands, s)
		}
	}
	read := make(map[int]*window, len(cands))
	bounds := make([]float64, len(cands))
	order := make([]int, len(cands))
	against := make([]float64, len(extra))
	turns := make([]int, len(extra))
	own := make([]float64, len(q))
	for i, doc := range extra {
		turns[i] = -1
		n := max(len(doc), 1)
		weight := weight
		if cmp == CompareItemTerms {
			// Only the query terms the item holds count, on both sides.
			clear(own)
			for _, x := range doc {
				if j := slices.IndexFunc(q, func(t qterm) bool { return t.text == x }); j >= 0 {
					own[j] = all[j]
				}
			}
			weight = own
		}
		for k, s := range cands {
			order[k] = k
			bounds[k] = m.windowBound(c, q, weight, s, n, coverage, read)
		}
		sort.SliceStable(order, func(a, b int) bool { return bounds[order[a]] > bounds[order[b]] })
		best := 0.0
		for _, k := range order {
			if ix.halted(0) {
				clear(scores[i:])
				break
			}
			if bounds[k] <= best {
				break
			}
			w := read[cands[k]]
			if w == nil {
				w = m.readWindow(q, cands[k])
				read[cands[k]] = w
			}
			if v, t := w.best(c, weight, n, coverage); v > best {
				best, turns[i] = v, t
			}
		}
		against[i] = best
		if coverage && total > 0 {
			against[i] = best / total
		}
	}
	return against, turns
}

// windowBound is the most any window of stretch s can score: each query
// term it holds at any frequency in any length of text under BM25, or its
// weight under coverage. The open stretch, not in the postings, is read
// whole: its best window is the bound.
func (m *state) windowBound(c corpus, q []qterm, weight []float64, s, n int, coverage bool, read map[int]*window) float64 {
	slot := m.str[s].slot
	if slot < 0 {
		w := read[s]
		if w == nil {
			w = m.readWindow(q, s)
			read[s] = w
		}
		v, _ := w.best(c, weight, n, coverage)
		return v
	}
	bound := 0.0
	for j, t := range q {
		switch {
		case t.id == noTerm || m.ix.tf(t.id, slot) == 0:
		case coverage:
			bound += weight[j]
		default:
			bound += weight[j] * (bm25K1 + 1)
		}
	}
	return bound
}

// readWindow tokenizes stretch s as the index did and notes where its turns
// start and the query's terms occur.
func (m *state) readWindow(q []qterm, s int) *window {
	at := make(map[string]int32, len(q))
	for j, t := range q {
		at[t.text] = int32(j)
	}
	a, b := m.str[s].start, m.stretchEnd(s)
	w := &window{first: a}
	var tk tokenizer
	n := int32(0)
	m.pieces(a, b, a)(func(p string) {
		w.starts = append(w.starts, n)
		tk.each(p, func(term []byte) {
			if j, ok := at[string(term)]; ok {
				w.pos = append(w.pos, n)
				w.term = append(w.term, j)
			}
			n++
		})
	})
	w.starts = append(w.starts, n)
	return w
}

// best returns the best score of a window of w for an item of n terms, and
// the turn the window starts with. A window is a run of whole turns, as
// many from its first as fit in n terms, and at least that one: the
// conversation said as much as the item in as many words, neither side
// borrowing a name from one turn and a topic from the next.
func (w *window) best(c corpus, weight []float64, n int, coverage bool) (float64, int) {
	tf := make([]int, len(weight))
	best, turn := 0.0, -1
	lo, hi := 0, 0 // the occurrences in the window
	end := 0       // the window's last turn, exclusive
	for t := 0; t+1 < len(w.starts); t++ {
		end = max(end, t+1)
		for end+1 < len(w.starts) && w.starts[end+1]-w.starts[t] <= int32(n) {
			end++
		}
		for ; lo < len(w.pos) && w.pos[lo] < w.starts[t]; lo++ {
			if lo < hi {
				tf[w.term[lo]]--
			}
		}
		hi = max(hi, lo)
		for ; hi < len(w.pos) && w.pos[hi] < w.starts[end]; hi++ {
			tf[w.term[hi]]++
		}
		if lo == hi {
			continue
		}
		// Turns shorter than the item are scored at its length, so a
		// short reply does not win on brevity alone.
		dl := float64(max(w.starts[end]-w.starts[t], int32(n)))
		v := 0.0
		for j, f := range tf {
			switch {
			case f == 0:
			case coverage:
				v += weight[j]
			default:
				v += termScore(weight[j], float64(f), dl, c.avgdl)
			}
		}
		if v > best {
			best, turn = v, w.first+t
		}
	}
	return best, turn
}

// itemScores are the BM25 scores of the outside documents (given as their
// terms) for the query q on corpus c, summed in query order: on the same
// table as the windows they are compared with, so an item that repeats a
// turn of the conversation ties with it exactly. A document there was no
// time for scores 0.
func itemScores(ix *index, c corpus, q []qterm, docs [][]string) []float64 {
	at := make(map[string]int, len(q))
	for j, t := range q {
		at[t.text] = j
	}
	out := make([]float64, len(docs))
	tf := make([]int, len(q))
	for i, doc := range docs {
		if ix.halted(0) {
			break
		}
		clear(tf)
		for _, x := range doc {
			if j, ok := at[x]; ok {
				tf[j]++
			}
		}
		for j, f := range tf {
			if f > 0 {
				out[i] += termScore(ix.idf(c, q[j]), float64(f), float64(len(doc)), c.avgdl)
			}
		}
	}
	return out
}

// queryCorpus is ix.corpus(extra) as scoring the query q reads it: the
// outside documents' other terms change no idf of q's, only the mean
// length, so they are counted rather than tabled.
func queryCorpus(ix *index, q []qterm, extra [][]string) corpus {
	in := make(map[string]bool, len(q))
	for _, t := range q {
		in[t.text] = true
	}
	lean := make([][]string, len(extra))
	cut := 0
	for i, d := range extra {
		for _, x := range d {
			if in[x] {
				lean[i] = append(lean[i], x)
			}
		}
		cut += len(d) - len(lean[i])
	}
	c := ix.corpus(lean)
	if c.n > 0 {
		c.avgdl += float64(cut) / c.n
	}
	return c
}

// uniform is one thing to compare against for each of n items: v, starting at
// turn.
func uniform(v float64, turn, n int) ([]float64, []int) {
	against, turns := make([]float64, n), make([]int, n)
	for i := range against {
		against[i], turns[i] = v, turn
	}
	return against, turns
}

// bestStretch returns the first turn of the stretch that scores best for
// the query q on corpus c, the open one included, and the stretch; -1 and
// -1 when none matches.
func (m *state) bestStretch(c corpus, q []qterm) (int, int) {
	scores := make([]float64, len(m.ix.slots))
	open, _ := m.ix.score(c, q, scores, nil)
	best, first, at := 0.0, -1, -1
	for s := range m.str {
		v := open
		if slot := m.str[s].slot; slot >= 0 {
			v = scores[slot]
		}
		if v > best {
			best, first, at = v, m.str[s].start, s
		}
	}
	return first, at
}

// coverage returns the share of the query's weight, the idf of its
// distinct terms on corpus c, that each document (given as its terms) holds.
func coverage(ix *index, c corpus, q []qterm, docs [][]string) []float64 {
	weight := make(map[string]float64, len(q))
	total := 0.0
	for _, t := range q {
		weight[t.text] = ix.idf(c, t)
		total += weight[t.text]
	}
	out := make([]float64, len(docs))
	if total == 0 {
		return out
	}
	seen := make(map[string]bool)
	for i, doc := range docs {
		clear(seen)
		for _, x := range doc {
			if w, ok := weight[x]; ok && !seen[x] {
				seen[x] = true
				out[i] += w / total
			}
		}
	}
	return out
}

// gain returns, for each document (given as its terms), the share of the
// query's weight it holds that the conversation's best stretch lacks, with
// that stretch's first turn (-1 when no stretch matches).
func (m *state) gain(c corpus, q []qterm, docs [][]string) ([]float64, []int) {
	first, s := m.bestStretch(c, q)
	have := make(map[string]bool, len(q))
	if s >= 0 {
		w := m.readWindow(q, s)
		for _, j := range w.term {
			have[q[j].text] = true
		}
	}
	lacked := make([]qterm, 0, len(q))
	for _, t := range q {
		if !have[t.text] {
			lacked = append(lacked, t)
		}
	}
	out := make([]float64, len(docs))
	if len(lacked) > 0 {
		total := 0.0
		for _, t := range q {
			total += m.ix.idf(c, t)
		}
		share := coverage(m.ix, c, lacked, docs)
		lackedTotal := 0.0
		for _, t := range lacked {
			lackedTotal += m.ix.idf(c, t)
		}
		for i := range out {
			if total > 0 {
				out[i] = share[i] * lackedTotal / total
			}
		}
	}
	_, turns := uniform(0, first, len(docs))
	return out, turns
}

// heaviest returns the share of the query's weight its heaviest term holds
// on corpus c: what a one-word document matching the query at best holds.
func heaviest(ix *index, c corpus, q []qterm) float64 {
	best, total := 0.0, 0.0
	for _, t := range q {
		w := ix.idf(c, t)
		best = max(best, w)
		total += w
	}
	if total == 0 {
		return 0
	}
	return best / total
}

// eitherRatio is CompareEither's weighing of items whose BM25 scores are scores
// and shares of the query's weight cover, against a best stretch scoring
// best: the better of the two ratios against 1, or against 0 when the
// conversation holds none of the query's terms.
func eitherRatio(scores, cover []float64, best, heaviest float64) ([]float64, []float64) {
	out, against := make([]float64, len(scores)), make([]float64, len(scores))
	for i := range scores {
		if heaviest > 0 {
			out[i] = cover[i] / heaviest
		}
		if best > 0 {
			out[i] = max(out[i], scores[i]/best)
			against[i] = 1
		}
	}
	return out, against
}

// contextWeighing is what the comparisons that read the composed context
// (CompareEither, CompareContextTerm) keep of the weighing until the
// context is made: each query term's weight and each item's.
type contextWeighing struct {
	q      []qterm
	weight []float64 // each query term's weight, its idf on the one table
	total  float64   // the query's weight, all its distinct terms'
	held   []float64 // each item's weight of the query: its query terms'
	bm25   []float64 // each item's BM25 score, 0 for one not weighed in time
	best   float64   // the best stretch's BM25 score
	either bool      // CompareEither: the better of this and CompareStretch's ratio
	heavy  float64   // the heaviest query term's weight the context holds (settle)
}

// ratio is CompareEither's score of item i against a context whose
// heaviest query term weighs heavy: the better of its weight of the query
// to that and its BM25 score to the best stretch's. Both are taken
// directly, so an item holding that term alone scores exactly 1: a tie.
func (cw *contextWeighing) ratio(i int, heavy float64) float64 {
	v := cw.held[i] / heavy
	if cw.best > 0 {
		v = max(v, cw.bm25[i]/cw.best)
	}
	return v
}

// newContextWeighing weighs the items for a comparison that reads the
// composed context: held is the query terms each item holds (see
// heldTerms), scores their BM25 scores and best the best stretch's.
func newContextWeighing(ix *index, c corpus, q []qterm, held [][]int32, scores []float64, best float64, either bool) *contextWeighing {
	cw := &contextWeighing{q: q, weight: make([]float64, len(q)), held: make([]float64, len(held)), bm25: scores, best: best, either: either}
	for j, t := range q {
		cw.weight[j] = ix.idf(c, t)
		cw.total += cw.weight[j]
	}
	for i, js := range held {
		for _, j := range js {
			cw.held[i] += cw.weight[j]
		}
	}
	return cw
}

// settle sets w's scores and against for a composed context that holds
// the query terms holds marks. The heaviest of them is what an item must
// say more than; when the context holds none, an item holding any query
// term adds what it lacks (Against 0, Score its share of the query's
// weight). An item not weighed in time, or holding no query term, scores 0.
func (cw *contextWeighing) settle(w *weighing, holds []bool) {
	heavy := 0.0
	for j, h := range holds {
		if h {
			heavy = max(heavy, cw.weight[j])
		}
	}
	cw.heavy = heavy
	n := len(cw.held)
	w.scores, w.against = make([]float64, n), make([]float64, n)
	for i, v := range cw.held {
		switch {
		case cw.bm25[i] <= 0 || cw.total <= 0:
		case heavy == 0:
			w.scores[i] = v / cw.total
		case cw.either:
			w.scores[i], w.against[i] = cw.ratio(i, heavy), 1
		default:
			w.scores[i], w.against[i] = v/cw.total, heavy/cw.total
		}
	}
}

// contextHolds reports, for each term of q, whether the context composed
// for the conversation alone holds it: every turn when the whole history
// fits (no kept log), else the kept log's quotes and native turns. Turn
// skip, the question itself under Continue, is left out (-1 for none).
// Whether a stretch holds a term is read from the index, the open
// stretch's included; only a part of a stretch that holds a term the rest
// of the context lacks is tokenized, as the index tokenizes it, so a long
// turn is not read again on every call.
func (m *state) contextHolds(q []qterm, skip int, recall *quote) []bool {
	holds := make([]bool, len(q))
	at := queryAt(q)
	var tk tokenizer
	m.contextRanges(recall, func(s, lo, hi int) {
		slot := m.str[s].slot
		whole := lo == m.str[s].start && hi == m.stretchEnd(s) && (skip < lo || skip >= hi)
		read := false
		for j, t := range q {
			switch {
			case holds[j] || t.id == noTerm:
			case slot < 0 && m.ix.openTFOf(t.id) == 0, slot >= 0 && m.ix.tf(t.id, slot) == 0:
			case whole:
				holds[j] = true
			default:
				read = true
			}
		}
		for t := lo; read && t < hi; t++ {
			if t != skip {
				m.turnTerms(&tk, at, s, t, func(j int) { holds[j] = true })
			}
		}
	})
	return holds
}

// turnTerms calls found with the index in q (at) of each query term turn t
// of stretch s holds, as the index reads it, once per occurrence.
func (m *state) turnTerms(tk *tokenizer, at map[string]int, s, t int, found func(j int)) {
	m.pieces(t, t+1, m.str[s].start)(func(p string) {
		tk.each(p, func(term []byte) {
			if j, ok := at[string(term)]; ok {
				found(j)
			}
		})
	})
}

// contextRanges calls each with the turns of the context composed for the
// conversation alone, stretch by stretch: s, and the turns [lo, hi) of it
// the context holds. Every turn when the whole history fits (no kept
// log), else the kept log's block and native turns and what the query
// recalls past the breakpoint (recall, which may be nil).
func (m *state) contextRanges(recall *quote, each func(s, lo, hi int)) {
	span := func(a, b int) {
		for s := max(m.stretchOf(a), 0); s < len(m.str) && m.str[s].start < b; s++ {
			if lo, hi := max(a, m.str[s].start), min(b, m.stretchEnd(s)); lo < hi {
				each(s, lo, hi)
			}
		}
	}
	if m.sel == nil {
		span(0, len(m.turns))
		return
	}
	for _, qt := range []*quote{&m.sel.block, recall} {
		if qt == nil {
			continue
		}
		for i, k := range qt.keys {
			span(k, qt.ends[i])
		}
	}
	span(m.sel.upto, len(m.turns))
}
