package byheart

import (
	"cmp"
	"hash/maphash"
	"math"
	mbits "math/bits"
	"slices"
)

// BM25 parameters: term-frequency saturation and length normalisation.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// docKey identifies a document by its content: a seeded 64-bit hash of the
// text and its length. The seed is random per index, so no input can be
// crafted to collide with another.
type docKey struct {
	hash uint64
	n    int
}

// slot is one distinct closed-stretch text in the index: its length in
// terms is in index.lens, the stretches holding it in index.owner, or
// index.shared when there are several.
type slot struct {
	key  docKey
	refs int32 // stretches with this exact text; 0 means the slot is free
}

// index is a BM25 index over stretch texts. Closed stretches never change
// once written, so they live in posting lists, each sorted by slot so a
// query can look a text up in it and walk it alongside others; the open
// stretch, which grows
// on every append, is kept apart as a small term-frequency map and scored
// directly. The slot map keyed by content is the encoding cache: a stretch
// whose position shifts finds its text already encoded, and a text no
// stretch holds any more is dropped from the postings, the document
// frequencies and the vocabulary.
type index struct {
	seed maphash.Seed

	// The vocabulary and the postings, laid out flat (see postings.go).
	arena        arena           // the terms' bytes
	terms        paged[termInfo] // by term id
	table        termTable       // term ids by hash
	nterms       int             // terms in the table
	deadBytes    int             // arena bytes of forgotten terms
	slotsOf      []int32         // postings' slots, in runs by term
	tfOf         []uint8         // postings' term frequencies, beside them
	deadPostings int             // places in runs no term owns
	bigTF        map[uint64]int32
	bulk         bool          // see startBulk
	pending      paged[uint64] // a bulk build's postings, term id << 32 | count, text by text after a textMark
	pendingSlot  int32         // the slot of the text pending's last mark starts

	slots []slot
	free  []int32
	// byKey finds a text's slot by its content key: slot ids plus one, by
	// the key's hash, 0 free, linear probing as for the vocabulary. The
	// keys are in the slots, so it costs four bytes a text at most half
	// full, where a map would keep each key again beside its value.
	byKey  []int32
	keyed  int   // slots in byKey
	live   int   // slots in use
	length int64 // terms across live slots

	// The ids of the terms the open stretch has, in the order of their
	// first use (how many times it has each is in the term's record): a
	// list rather than a map, which would cost a load of new words an
	// entry per word.
	openIDs paged[uint32]
	openLen int

	// Per slot, what a scoring pass reads for every posting, kept apart
	// from the slots so it stays in cache: the text's length in terms, and
	// the one stretch holding it (-1 when none or several do).
	lens  []int32
	owner []int32
	// shared holds, by slot, the stretches holding a text that several
	// stretches hold.
	shared map[int32][]int32

	encoded int // turns and texts tokenized so far, for tests that pin incremental work

	indexScratch
}

// indexScratch is the index's working space for one call: nothing in it
// outlives the call but buffers kept for their capacity, the scores cached
// for the query whose epoch is current, and the tokenizer's ordering of the
// vocabulary for a question's compounds (compoundIndex), which it keeps up
// to date as terms come and go.
type indexScratch struct {
	// Per slot: partial sums of a top-k pass or of a pass over every
	// posting (zero outside one), and exact scores cached for the query
	// whose epoch is in mark.
	acc     []float64
	mark    []uint32
	cached  []float64
	epoch   uint32
	touched []int32
	cands   []int32
	todo    []int32
	walks   []walk
	bits    []uint64

	q query // the query being ranked

	tk       tokenizer
	scratch  []uint32
	keying   keying
	keyPiece func(string) // keying.piece
	// encodePiece appends a piece's term ids to scratch, bound once: a
	// closure passed to an arbitrary iterator escapes on every call.
	encodePiece func(string)

	// seen marks, by term id, the terms of the query being prepared: those
	// whose mark is seenEpoch.
	seen      []uint32
	seenEpoch uint32

	// stop is the caller's ctx.Done() while a composition ranks; stopped
	// is set once it was found closed (see halted).
	stop    <-chan struct{}
	stopped bool
}

func newIndex() *index {
	ix := &index{seed: maphash.MakeSeed()}
	ix.keyPiece = ix.keying.piece
	ix.encodePiece = func(p string) { ix.scratch = ix.encode(ix.scratch, p) }
	return ix
}

// doubled returns s with room for one more, doubling its capacity when it is
// full: append grows a large slice by a quarter, which over the life of a
// vocabulary allocates five times its final size, where doubling allocates
// twice.
func doubled[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 16))
}

// sat32 is n as the index's compact per-posting and per-text counts keep
// it, held at the largest int32 rather than wrapping: a term said more than
// two billion times, or a text of more terms, scores as if it had just that
// many, which BM25's saturation makes no difference to in practice.
func sat32(n int) int32 { return int32(min(n, math.MaxInt32)) }

// encode appends the term ids of text to dst.
func (ix *index) encode(dst []uint32, text string) []uint32 {
	ix.encoded++
	ix.tk.each(text, func(term []byte) { dst = append(dst, ix.intern(term)) })
	return dst
}

// addOpen adds one turn's text to the open stretch.
func (ix *index) addOpen(text string) {
	ix.scratch = ix.encode(ix.scratch[:0], text)
	for _, id := range ix.scratch {
		ix.addOpenTerm(id, 1)
	}
	ix.openLen += len(ix.scratch)
}

// addOpenTerm counts n more of term id in the open stretch.
func (ix *index) addOpenTerm(id uint32, n int) {
	t := ix.info(id)
	if t.open == 0 {
		ix.openIDs.push(id)
	}
	t.open = sat32(int(t.open) + n)
}

// openTFOf is how many times the open stretch holds term id.
func (ix *index) openTFOf(id uint32) int32 {
	if int(id) < ix.terms.n {
		return ix.info(id).open
	}
	return 0
}

// resetOpen empties the open stretch, forgetting vocabulary only it held.
func (ix *index) resetOpen() {
	for i := range uint32(ix.openIDs.n) {
		id := *ix.openIDs.at(i)
		ix.info(id).open = 0 // first, or forgetIfUnused sees the term as still in use
		ix.forgetIfUnused(id)
	}
	ix.openIDs.reset()
	ix.openLen = 0
}

// key returns the content key of a text given as consecutive pieces joined by
// newlines, without building the joined string.
func (ix *index) key(pieces func(yield func(string))) docKey {
	k := &ix.keying
	k.h.SetSeed(ix.seed)
	k.n, k.first = 0, true
	pieces(ix.keyPiece)
	return docKey{k.h.Sum64(), k.n}
}

// keying is the state of one key computation. It lives in the index, and
// its piece method is bound once, because a closure over a Hash passed to
// an arbitrary iterator escapes to the heap on every call.
type keying struct {
	h     maphash.Hash
	n     int
	first bool
}

func (k *keying) piece(s string) {
	if !k.first {
		k.h.WriteByte('\n')
		k.n++
	}
	k.first = false
	k.h.WriteString(s)
	k.n += len(s)
}

// acquire returns the slot for a closed text, encoding it only when no
// stretch holds the same text already. text yields the text's pieces.
func (ix *index) acquire(k docKey, user int32, text func(yield func(string))) int32 {
	if s, ok := ix.share(k, user); ok {
		return s
	}
	ix.scratch = ix.scratch[:0]
	text(ix.encodePiece)
	s := ix.newSlot(k, len(ix.scratch), user)
	// Sorting the term ids counts each term's frequency as a run, without
	// a map per text.
	slices.Sort(ix.scratch)
	for i := 0; i < len(ix.scratch); {
		j := i + 1
		for j < len(ix.scratch) && ix.scratch[j] == ix.scratch[i] {
			j++
		}
		ix.addPosting(ix.scratch[i], s, sat32(j-i))
		i = j
	}
	return s
}

// unhold drops one stretch's hold on slot s and reports whether it was the
// last: the slot then holds no text, but its postings stay, and it is not
// reused, until sweep removes them; the last one out of a slot thus
// removes its text from the index entirely.
func (ix *index) unhold(s int32, user int32) bool {
	sl := &ix.slots[s]
	ix.dropUser(s, user)
	if sl.refs--; sl.refs > 0 {
		return false
	}
	ix.unkey(s)
	ix.live--
	ix.length -= int64(ix.lens[s])
	ix.lens[s] = 0
	*sl = slot{}
	return true
}

// sweep removes the postings of the slots unhold emptied, gone, and frees
// them for reuse, in one pass over the posting lists however many there
// are. Removal is rare (a redaction, turns expiring, boundaries rewritten),
// so a pass is cheaper overall than keeping each slot's term list in
// memory for the whole life of the conversation; when many stretches
// change at once, one pass for all keeps the work in proportion to the
// index, not to it times their number.
func (ix *index) sweep(gone []int32) {
	switch len(gone) {
	case 0:
		return
	case 1:
		for id := range uint32(ix.terms.n) {
			if ix.removePosting(id, gone[0]) {
				ix.forgetIfUnused(id)
			}
		}
	default:
		dead := make([]bool, len(ix.slots))
		for _, s := range gone {
			dead[s] = true
		}
		for id := range uint32(ix.terms.n) {
			if ix.removePostings(id, dead) {
				ix.forgetIfUnused(id)
			}
		}
	}
	ix.free = append(ix.free, gone...)
}

func (ix *index) forgetIfUnused(id uint32) {
	if t := ix.info(id); t.n > 0 || t.open > 0 || t.size == 0 {
		return
	}
	ix.forget(id)
}

// corpus is the statistics one scoring pass uses: document count and
// average length, plus the document frequencies of extra documents (outside
// material weighed against the conversation), which join the same table.
type corpus struct {
	n     float64
	avgdl float64
	extra map[string]extraDF
}

// extraDF is a term's document frequency among the extra documents, and
// the last of them (counted from 1) that counted it, so a document counts
// once however often it says the term.
type extraDF struct{ df, last int32 }

// qterm is a distinct query term; id is noTerm when the conversation never
// used it, so only extra documents can match it.
type qterm struct {
	id   uint32
	text string
}

const noTerm = ^uint32(0)

// queryAt maps each term of q to its index.
func queryAt(q []qterm) map[string]int {
	at := make(map[string]int, len(q))
	for j, t := range q {
		at[t.text] = j
	}
	return at
}

func (ix *index) corpus(extra [][]string) corpus {
	n := float64(ix.live)
	length := float64(ix.length)
	if ix.openLen > 0 {
		n++
		length += float64(ix.openLen)
	}
	c := corpus{n: n}
	if len(extra) > 0 {
		c.extra = make(map[string]extraDF)
		for i, d := range extra {
			c.n++
			length += float64(len(d))
			for _, t := range d {
				if e := c.extra[t]; e.last != int32(i+1) {
					c.extra[t] = extraDF{df: e.df + 1, last: int32(i + 1)}
				}
			}
		}
	}
	if c.n > 0 {
		c.avgdl = length / c.n
	}
	if c.avgdl == 0 {
		c.avgdl = 1
	}
	return c
}

func (ix *index) idf(c corpus, q qterm) float64 {
	df := float64(c.extra[q.text].df)
	if q.id != noTerm {
		df += float64(ix.info(q.id).n)
		if ix.openTFOf(q.id) > 0 {
			df++
		}
	}
	return math.Log(1 + (c.n-df+0.5)/(df+0.5))
}

func termScore(idf, tf, dl, avgdl float64) float64 {
	return idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*dl/avgdl))
}

// queryTerms returns the distinct terms of a query. Unless all is set, terms
// the conversation never used are left out: they cannot score.
func (ix *index) queryTerms(query string, all bool) []qterm {
	var qs []qterm
	seen := make(map[string]bool)
	ix.eachQueryTerm(query, func(term []byte) {
		if seen[string(term)] || ix.halted(len(qs)) {
			return
		}
		id, ok := ix.lookup(term)
		if !ok {
			if !all {
				return
			}
			id = noTerm
		}
		s := string(term)
		seen[s] = true
		qs = append(qs, qterm{id, s})
	})
	return qs
}

// score adds each closed slot's BM25 score for the query into scores
// (indexed by slot, len ≥ len(ix.slots)) and returns the open stretch's
// score. touched receives every slot whose score became non-zero.
func (ix *index) score(c corpus, q []qterm, scores []float64, touched []int32) (float64, []int32) {
	open := 0.0
	for _, t := range q {
		if t.id == noTerm {
			continue
		}
		idf := ix.idf(c, t)
		slots, tfs := ix.list(t.id)
		for j, s := range slots {
			if scores[s] == 0 {
				touched = append(touched, s)
			}
			scores[s] += termScore(idf, float64(ix.tfAt(t.id, s, tfs[j])), float64(ix.lens[s]), c.avgdl)
		}
		if tf := ix.openTFOf(t.id); tf > 0 {
			open += termScore(idf, float64(tf), float64(ix.openLen), c.avgdl)
		}
	}
	return open, touched
}

// weigh scores extra documents (outside material, given as their terms)
// for the query, whose terms are q (see queryTerms, with all), under one
// corpus table that counts them among the stretches, and returns their
// scores with the best stretch's, the open one's included when it has
// turns. A document it had no time for scores 0.
func (ix *index) weigh(q []qterm, extra [][]string, withOpen bool) ([]float64, float64) {
	c := ix.corpus(extra)
	scores := make([]float64, len(ix.slots))
	open, touched := ix.score(c, q, scores, nil)
	best := 0.0
	if withOpen {
		best = open
	}
	for _, s := range touched {
		best = max(best, scores[s])
	}
	out := make([]float64, len(extra))
	at := queryAt(q) // each query term's position
	tf := make([]int, len(q))
	var hit []int // positions of the query terms the document holds
	for i, doc := range extra {
		if ix.halted(0) {
			break
		}
		for _, x := range doc {
			if j, ok := at[x]; ok {
				if tf[j] == 0 {
					hit = append(hit, j)
				}
				tf[j]++
			}
		}
		// Summed in query order, as scoring term by term would.
		slices.Sort(hit)
		for _, j := range hit {
			out[i] += termScore(ix.idf(c, q[j]), float64(tf[j]), float64(len(doc)), c.avgdl)
			tf[j] = 0
		}
		hit = hit[:0]
	}
	return out, best
}

// halted reports whether the caller's context has ended, checking it only
// every 1024 terms read (n counts them; 0 checks now). Once it has, the
// index reads no more of a long query or outside material and ranks with
// what it has read.
func (ix *index) halted(n int) bool {
	if ix.stopped || n%1024 != 0 {
		return ix.stopped
	}
	select {
	case <-ix.stop:
		ix.stopped = true
	default:
	}
	return ix.stopped
}

// closeOpen moves the open stretch into the postings as a closed text with
// the given content key, without encoding it again, and returns its slot.
func (ix *index) closeOpen(k docKey, user int32) int32 {
	if s, ok := ix.share(k, user); ok {
		ix.resetOpen()
		return s
	}
	s := ix.newSlot(k, ix.openLen, user)
	for i := range uint32(ix.openIDs.n) {
		id := *ix.openIDs.at(i)
		t := ix.info(id)
		ix.addPosting(id, s, t.open)
		t.open = 0
	}
	ix.openIDs.reset()
	ix.openLen = 0
	return s
}

// share adds a stretch to the slot already holding its text, if any.
func (ix *index) share(k docKey, user int32) (int32, bool) {
	s, ok := ix.slotOf(k)
	if ok {
		ix.slots[s].refs++
		ix.addUser(s, user)
	}
	return s, ok
}

// users returns the stretches holding slot s. Almost every text is one
// stretch's, kept in owner, so a slot needs no list of its own; the lists
// of texts several stretches hold are in shared.
func (ix *index) users(s int32) []int32 {
	if u := ix.owner[s]; u >= 0 {
		return ix.owner[s : s+1 : s+1]
	}
	return ix.shared[s]
}

// addUser adds stretch user to those holding slot s.
func (ix *index) addUser(s int32, user int32) {
	switch u := ix.users(s); len(u) {
	case 0:
		ix.owner[s] = user
	case 1:
		if ix.shared == nil {
			ix.shared = make(map[int32][]int32)
		}
		ix.shared[s] = []int32{u[0], user}
		ix.owner[s] = -1
	default:
		ix.shared[s] = append(u, user)
	}
}

// dropUser takes stretch user from those holding slot s, if it is one.
func (ix *index) dropUser(s int32, user int32) {
	if ix.owner[s] == user {
		ix.owner[s] = -1
		return
	}
	u := ix.shared[s]
	i := slices.Index(u, user)
	if i < 0 {
		return
	}
	u = slices.Delete(u, i, i+1)
	switch len(u) {
	case 0, 1:
		delete(ix.shared, s)
		ix.owner[s] = -1
		if len(u) == 1 {
			ix.owner[s] = u[0]
		}
	default:
		ix.shared[s] = u
	}
}

// clearUsers forgets every stretch holding slot s, keeping the text; the
// stretches are about to be laid out again.
func (ix *index) clearUsers(s int32) {
	delete(ix.shared, s)
	ix.owner[s] = -1
}

// newSlot takes a free slot for a new text of the given length in terms.
func (ix *index) newSlot(k docKey, length int, user int32) int32 {
	var s int32
	if n := len(ix.free); n > 0 {
		s = ix.free[n-1]
		ix.free = ix.free[:n-1]
	} else {
		s = int32(len(ix.slots))
		ix.slots = append(doubled(ix.slots), slot{})
		ix.lens = append(doubled(ix.lens), 0)
		ix.owner = append(doubled(ix.owner), -1)
	}
	ix.slots[s] = slot{key: k, refs: 1}
	ix.lens[s] = sat32(length)
	ix.owner[s] = user
	ix.addKey(s)
	ix.live++
	ix.length += int64(ix.lens[s])
	return s
}

// slotOf returns the slot holding the text whose content key is k, if one
// does.
func (ix *index) slotOf(k docKey) (int32, bool) {
	if ix.keyed == 0 {
		return 0, false
	}
	mask := len(ix.byKey) - 1
	for i := int(k.hash) & mask; ix.byKey[i] != 0; i = (i + 1) & mask {
		if s := ix.byKey[i] - 1; ix.slots[s].key == k {
			return s, true
		}
	}
	return 0, false
}

// addKey enters slot s, whose key no other slot has, in byKey.
func (ix *index) addKey(s int32) {
	if 2*(ix.keyed+1) > len(ix.byKey) {
		ix.rekey(max(16, 2*len(ix.byKey)))
	}
	ix.placeKey(s)
	ix.keyed++
}

// rekey lays byKey out again at size n, a power of two.
func (ix *index) rekey(n int) {
	old := ix.byKey
	ix.byKey = make([]int32, n)
	for _, e := range old {
		if e != 0 {
			ix.placeKey(e - 1)
		}
	}
}

// placeKey puts slot s in the first free place from its key's home.
func (ix *index) placeKey(s int32) {
	mask := len(ix.byKey) - 1
	i := int(ix.slots[s].key.hash) & mask
	for ix.byKey[i] != 0 {
		i = (i + 1) & mask
	}
	ix.byKey[i] = s + 1
}

// unkey takes slot s out of byKey, moving back the entries after it that
// would otherwise be cut off from their homes (see unplace).
func (ix *index) unkey(s int32) {
	mask := len(ix.byKey) - 1
	i := int(ix.slots[s].key.hash) & mask
	for ix.byKey[i] != s+1 {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; ix.byKey[j] != 0; j = (j + 1) & mask {
		if h := int(ix.slots[ix.byKey[j]-1].key.hash) & mask; (j-h)&mask >= (j-i)&mask {
			ix.byKey[i] = ix.byKey[j]
			i = j
		}
	}
	ix.byKey[i] = 0
	ix.keyed--
}

// boundSlack widens every upper bound by a relative margin, so that sums
// taken in another order, which may round differently in the last bits, can
// never prune a text that would have ranked.
const boundSlack = 1e-9

// query is one built-in BM25 query, ready to score closed texts one at a
// time or to find the best of them without scoring them all.
type query struct {
	ix    *index
	c     corpus
	terms []qterm   // distinct terms the conversation used, in query order
	idf   []float64 // by position in terms
	ub    []float64 // by position in terms: the most it adds to any closed text
	byUB  []int     // positions in terms, highest bound first
	rest  []float64 // rest[j]: the sum of ub over byUB[j:]; rest[len] is 0
	open  float64   // the open stretch's score
	epoch uint32    // marks the closed texts whose exact score is cached
	// all is set once every posting is scored (scoreAll): a closed text
	// whose score is not cached then scores zero. touched lists those
	// whose score is.
	all     bool
	touched []int32
}

// prepare makes a query from its text under the index's own statistics.
// The query lives in the index's scratch space until the next prepare.
func (ix *index) prepare(text string) *query {
	q := &ix.q
	q.ix, q.c, q.open, q.all = ix, ix.corpus(nil), 0, false
	q.terms = q.terms[:0]
	if len(ix.seen) < ix.terms.n {
		ix.seen = append(ix.seen, make([]uint32, max(ix.terms.n, 2*len(ix.seen))-len(ix.seen))...)
	}
	if ix.seenEpoch++; ix.seenEpoch == 0 {
		clear(ix.seen)
		ix.seenEpoch = 1
	}
	ix.eachQueryTerm(text, func(term []byte) {
		if ix.halted(len(q.terms)) {
			return
		}
		id, ok := ix.lookup(term)
		if !ok || ix.seen[id] == ix.seenEpoch {
			return
		}
		ix.seen[id] = ix.seenEpoch
		q.terms = append(q.terms, qterm{id: id})
	})
	n := len(q.terms)
	q.idf = grown(q.idf, n)
	q.ub = grown(q.ub, n)
	q.byUB = grown(q.byUB, n)
	q.rest = grown(q.rest, n+1)
	q.rest[n] = 0
	for i, t := range q.terms {
		q.idf[i] = ix.idf(q.c, t)
		if ti := ix.info(t.id); ti.n > 0 {
			tf, dl := ti.bounds()
			q.ub[i] = termScore(q.idf[i], tf, dl, q.c.avgdl) * (1 + boundSlack)
		}
		if tf := ix.openTFOf(t.id); tf > 0 {
			q.open += termScore(q.idf[i], float64(tf), float64(ix.openLen), q.c.avgdl)
		}
		q.byUB[i] = i
	}
	slices.SortStableFunc(q.byUB, func(a, b int) int { return cmp.Compare(q.ub[b], q.ub[a]) })
	for j := n - 1; j >= 0; j-- {
		q.rest[j] = q.rest[j+1] + q.ub[q.byUB[j]]
	}
	ix.grow()
	if ix.epoch++; ix.epoch == 0 {
		clear(ix.mark)
		ix.epoch = 1
	}
	q.epoch = ix.epoch
	return q
}

// grow sizes the per-slot scratch to the slots.
func (ix *index) grow() {
	if n := len(ix.slots); len(ix.acc) < n {
		n = max(n, 2*len(ix.acc))
		ix.acc = append(ix.acc, make([]float64, n-len(ix.acc))...)
		ix.mark = append(ix.mark, make([]uint32, n-len(ix.mark))...)
		ix.cached = append(ix.cached, make([]float64, n-len(ix.cached))...)
	}
}

// score returns closed slot s's exact BM25 score: the same terms added in
// the same order as a pass over every posting list adds them, so the two
// agree to the last bit.
func (q *query) score(s int32) float64 {
	ix := q.ix
	if ix.mark[s] == q.epoch {
		return ix.cached[s]
	}
	if q.all {
		return 0
	}
	v := 0.0
	dl := float64(ix.lens[s])
	for i, t := range q.terms {
		if tf := ix.tf(t.id, s); tf > 0 {
			v += termScore(q.idf[i], float64(tf), dl, q.c.avgdl)
		}
	}
	ix.mark[s] = q.epoch
	ix.cached[s] = v
	return v
}

// scoreMany caches the exact scores of closed slots given in ascending
// order, walking each term's postings once for all of them rather than
// looking each slot up on its own. Each sum is taken in query order, as
// score takes it.
func (q *query) scoreMany(slots []int32) {
	ix := q.ix
	todo := ix.todo[:0]
	if q.all {
		return // every score there is is cached
	}
	for _, s := range slots {
		if ix.mark[s] != q.epoch {
			ix.mark[s] = q.epoch
			ix.cached[s] = 0
			todo = append(todo, s)
		}
	}
	for i, t := range q.terms {
		list, tfs := ix.list(t.id)
		at := 0
		for _, s := range todo {
			if at = seek(list, at, s); at == len(list) {
				break
			}
			if list[at] == s {
				ix.cached[s] += termScore(q.idf[i], float64(ix.tfAt(t.id, s, tfs[at])), float64(ix.lens[s]), q.c.avgdl)
			}
		}
	}
	ix.todo = todo[:0]
}

// ceiling is the most any text could score for the query: every term the
// conversation used, saturated, in a text of no length. A stretch's score
// over it says how much of the query the stretch matches, whatever the
// query's length.
func (q *query) ceiling() float64 {
	total := 0.0
	for _, idf := range q.idf[:len(q.terms)] {
		total += idf * (bm25K1 + 1)
	}
	return total
}

// chance is about what a text drawn at random scores for the query: each
// term's weight at one use in a text of average length, its idf, times the
// share of the texts that hold it. It is at most the ceiling.
func (q *query) chance() float64 {
	if q.c.n <= 0 {
		return 0
	}
	total := 0.0
	for i, t := range q.terms {
		df := float64(q.ix.info(t.id).n)
		if q.ix.openTFOf(t.id) > 0 {
			df++
		}
		total += q.idf[i] * min(df, q.c.n) / q.c.n
	}
	return total
}

// postings is how many postings the query's terms have.
func (q *query) postings() int {
	n := 0
	for _, t := range q.terms {
		n += int(q.ix.info(t.id).n)
	}
	return n
}

// ascending sorts slots in place through a bitmap, dropping repeats, which
// costs a pass over the bitmap rather than a comparison sort.
func (ix *index) ascending(slots []int32) []int32 {
	words := (len(ix.slots) + 63) / 64
	if len(ix.bits) < words {
		ix.bits = make([]uint64, words, 2*words)
	}
	bits := ix.bits[:words]
	lo, hi := words, 0
	for _, s := range slots {
		w := int(s) / 64
		bits[w] |= 1 << (uint(s) % 64)
		lo, hi = min(lo, w), max(hi, w)
	}
	out := slots[:0]
	for w := lo; w <= hi && w < words; w++ {
		for b := bits[w]; b != 0; b &= b - 1 {
			out = append(out, int32(w*64+mbits.TrailingZeros64(b)))
		}
		bits[w] = 0
	}
	return out
}

// grown returns s with length n, reusing its storage when it can.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, 2*n)
	}
	return s[:n]
}

// hit is a stretch with its score for the query.
type hit struct {
	s int
	v float64
}

// before orders hits best first, newer first on ties.
func (a hit) before(b hit) bool { return a.v > b.v || a.v == b.v && a.s > b.s }

func siftDown(h []hit, i int) {
	for {
		best, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].before(h[best]) {
			best = l
		}
		if r < len(h) && h[r].before(h[best]) {
			best = r
		}
		if best == i {
			return
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
}

func sortHits(h []hit) {
	slices.SortFunc(h, func(a, b hit) int {
		if a.before(b) {
			return -1
		}
		if b.before(a) {
			return 1
		}
		return 0
	})
}

// scoreAll caches the score of every closed slot the query's terms touch,
// from one pass over every posting of its terms, and lists them in
// q.touched; every other slot scores zero (see score). Once is enough for
// a query.
func (ix *index) scoreAll(q *query) {
	if q.all {
		return
	}
	// The pass adds up in the top-k pass's sums, zero outside one, and
	// leaves them zero: a buffer of its own would hold eight bytes a text
	// for the rest of the memory's life.
	ix.grow()
	scores := ix.acc[:len(ix.slots)]
	var touched []int32
	_, touched = ix.score(q.c, q.terms, scores, ix.touched[:0])
	for _, sl := range touched {
		ix.mark[sl], ix.cached[sl] = q.epoch, scores[sl]
		scores[sl] = 0
	}
	q.touched = append(q.touched[:0], touched...)
	q.all = true
	ix.touched = touched[:0]
}

// best returns the k best stretches that hold a closed text, are eligible
// and score above zero, best first (newer first on ties), and whether they
// are all such stretches there are. With reach r > 1 it
// returns, untruncated, every such stretch whose own score is at least the
// k-th best's divided by r (and maybe some just below).
//
// It is exact but does not score every posting (max-score pruning). Query
// terms are taken in order of the most each can add to a text. While a
// text holding none of the terms seen so far could still reach the k-th
// best sum so far, every posting of the next term is added up. After that
// only the texts already found can make the cut: each looks the remaining
// terms up, best first, and stops as soon as what it has plus what the
// rest could add falls short. The sums of this pass decide only what is
// pruned; the texts that make the cut are scored again term by term in
// query order, so scores and ties are those of a pass over every posting.
func (ix *index) best(q *query, k int, reach float64, eligible func(stretch int32) bool, out []hit) ([]hit, bool) {
	out = out[:0]
	j, theta, touched := ix.addUp(q, k, reach, eligible)
	cand := ix.cands[:0]
	pruned := j < len(q.byUB)
	for _, s := range touched {
		if a := ix.acc[s]; a > 0 && (!pruned || (a+q.rest[j])*(1+boundSlack) >= theta) {
			cand = append(cand, s)
		}
	}
	if pruned {
		cand = ix.ascending(cand)
		cand = ix.finishSums(q, cand, j, k, theta, reach)
	}
	all := !pruned && len(cand) <= k
	if !all {
		theta = kthAcc(ix.acc, cand, k) / reach
		kept := cand[:0]
		for _, s := range cand {
			if ix.acc[s]*(1+boundSlack) >= theta {
				kept = append(kept, s)
			}
		}
		cand = kept
	}
	if !pruned {
		cand = ix.ascending(cand)
	}
	for _, s := range touched {
		ix.acc[s] = 0
	}
	ix.touched = touched[:0]
	q.scoreMany(cand)
	for _, s := range cand {
		v := q.score(s)
		for _, u := range ix.users(s) {
			if eligible(u) {
				out = append(out, hit{int(u), v})
			}
		}
	}
	ix.cands = cand[:0]
	sortHits(out)
	if len(out) > k {
		all = false
		if reach == 1 {
			out = out[:k]
		}
	}
	return out, all
}

// topScored sets dst to the best texts the query touched, best first (a
// slot and its score), at most n of them, once every posting of the query
// is scored (scoreAll), and reports whether they are all the texts that
// score. Every text left out scores at most the last one's score.
func (ix *index) topScored(q *query, n int, dst []hit) ([]hit, bool) {
	dst = dst[:0]
	all := true
	for _, s := range q.touched {
		v := ix.cached[s]
		if v <= 0 {
			continue
		}
		h := hit{int(s), v}
		switch {
		case len(dst) < n:
			dst = append(dst, h)
			siftUpWorst(dst, len(dst)-1)
		case h.before(dst[0]):
			all = false
			dst[0] = h
			siftDownWorst(dst, 0)
		default:
			all = false
		}
	}
	sortHits(dst)
	return dst, all
}

// siftUpWorst and siftDownWorst keep a heap whose top is its worst hit.
func siftUpWorst(h []hit, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[p].before(h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDownWorst(h []hit, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c].before(h[c+1]) {
			c++
		}
		if !h[i].before(h[c]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// addUp is best's first pass: it adds up every posting of the query's
// terms, highest bound first, into partial sums by slot until a text
// holding none of the terms seen so far can no longer reach theta, the
// k-th best sum so far over reach. It returns how many terms it took in
// full, theta, and every slot it touched; slots no eligible stretch holds
// are marked -1.
func (ix *index) addUp(q *query, k int, reach float64, eligible func(stretch int32) bool) (int, float64, []int32) {
	touched := ix.touched[:0]
	found := 0 // eligible slots touched
	theta, top := 0.0, 0.0
	j := 0
	for ; j < len(q.byUB); j++ {
		if found >= k && q.rest[j]*(1+boundSlack) < theta {
			break
		}
		ti := q.byUB[j]
		idf, avgdl := q.idf[ti], q.c.avgdl
		id := q.terms[ti].id
		slots, tfs := ix.list(id)
		for i, s := range slots {
			a := ix.acc[s]
			if a < 0 {
				continue // seen, and no stretch of it can be taken
			}
			if a == 0 {
				touched = append(touched, s)
				if !ix.held(s, eligible) {
					ix.acc[s] = -1
					continue
				}
				found++
			}
			a += termScore(idf, float64(ix.tfAt(id, s, tfs[i])), float64(ix.lens[s]), avgdl)
			ix.acc[s] = a
			top = max(top, a)
		}
		if found >= k && q.rest[j+1]*(1+boundSlack)*reach < top {
			theta = kthAcc(ix.acc, touched, k) / reach
		}
	}
	return j, theta, touched
}

// walk is a walk along one term's postings: the list and how far along
// it a walk with ascending targets has come.
type walk struct {
	slots []int32
	tfs   []uint8
	at    int
}

// finishSums completes the sums of the candidates (ascending slots) over
// the terms from byUB[j] on, each candidate looking the terms up best
// first until its sum plus what the rest could add cannot reach theta,
// which rises to the k-th best complete sum over reach. It returns the
// candidates whose sums are complete; the others are out of the running.
func (ix *index) finishSums(q *query, cand []int32, j, k int, theta, reach float64) []int32 {
	terms := len(q.byUB) - j
	if cap(ix.walks) < terms {
		ix.walks = make([]walk, terms)
	}
	walks := ix.walks[:terms]
	for t := range walks {
		slots, tfs := ix.list(q.terms[q.byUB[j+t]].id)
		walks[t] = walk{slots: slots, tfs: tfs}
	}
	var buf [64]float64
	heap := buf[:0] // the k best complete sums, smallest first
	if k > len(buf) {
		heap = make([]float64, 0, k)
	}
	done := cand[:0]
	for _, s := range cand {
		a := ix.acc[s]
		complete := true
		for t := 0; t < terms; t++ {
			if (a+q.rest[j+t])*(1+boundSlack) < theta {
				complete = false
				break
			}
			ti := q.byUB[j+t]
			w := &walks[t]
			at := seek(w.slots, w.at, s)
			w.at = at
			if at < len(w.slots) && w.slots[at] == s {
				a += termScore(q.idf[ti], float64(ix.tfAt(q.terms[ti].id, s, w.tfs[at])), float64(ix.lens[s]), q.c.avgdl)
			}
		}
		ix.acc[s] = a
		if !complete || a*(1+boundSlack) < theta {
			continue
		}
		done = append(done, s)
		if len(heap) < k {
			heap = append(heap, a)
			siftUpF(heap, len(heap)-1)
		} else if a > heap[0] {
			heap[0] = a
			siftDownF(heap, 0)
		}
		if len(heap) == k {
			theta = max(theta, heap[0]/reach)
		}
	}
	clear(walks) // they alias the postings, which a layout may replace
	return done
}

// pushBest adds v to h, a heap of at most k values smallest first, so
// that it holds the k largest pushed; h[0] is then the k-th largest.
func pushBest(h []float64, k int, v float64) []float64 {
	if len(h) < k {
		h = append(h, v)
		siftUpF(h, len(h)-1)
	} else if v > h[0] {
		h[0] = v
		siftDownF(h, 0)
	}
	return h
}

func siftUpF(h []float64, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDownF(h []float64, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if h[i] <= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// held reports whether closed slot s is held by an eligible stretch.
func (ix *index) held(s int32, eligible func(stretch int32) bool) bool {
	if u := ix.owner[s]; u >= 0 {
		return eligible(u)
	}
	for _, u := range ix.users(s) {
		if eligible(u) {
			return true
		}
	}
	return false
}

// kthAcc returns the k-th largest positive partial sum among the slots, or
// 0 if there are fewer than k.
func kthAcc(acc []float64, slots []int32, k int) float64 {
	var buf [64]float64
	h := buf[:0]
	if k > len(buf) {
		h = make([]float64, 0, k)
	}
	for _, s := range slots {
		if a := acc[s]; a > 0 {
			h = pushBest(h, k, a)
		}
	}
	if len(h) < k {
		return 0
	}
	return h[0]
}
