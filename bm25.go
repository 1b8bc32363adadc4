package byheart

import (
	"hash/maphash"
	"math"
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

type posting struct {
	slot int32
	tf   int32
}

// slot is one distinct closed-stretch text in the index.
type slot struct {
	key    docKey
	length int32   // terms in the text
	refs   int32   // stretches with this exact text; 0 means the slot is free
	users  []int32 // those stretches, by position
}

// index is a BM25 index over stretch texts. Closed stretches never change
// once written, so they live in posting lists; the open stretch, which grows
// on every append, is kept apart as a small term-frequency map and scored
// directly. The slot map keyed by content is the encoding cache: a stretch
// whose position shifts finds its text already encoded, and a text no
// stretch holds any more is dropped from the postings, the document
// frequencies and the vocabulary.
type index struct {
	seed   maphash.Seed
	vocab  map[string]uint32
	terms  []string // by term id; "" once a term has no document left
	post   [][]posting
	df     []int32 // closed documents holding each term
	slots  []slot
	free   []int32
	byKey  map[docKey]int32
	live   int   // slots in use
	length int64 // terms across live slots

	open    map[uint32]int32 // the open stretch's term frequencies
	openLen int32

	tk      tokenizer
	scratch []uint32
	encoded int // turns and texts tokenized so far, for tests that pin incremental work
}

func newIndex() *index {
	return &index{
		seed:  maphash.MakeSeed(),
		vocab: make(map[string]uint32),
		byKey: make(map[docKey]int32),
		open:  make(map[uint32]int32),
	}
}

// intern returns the term's id, adding it to the vocabulary if new.
func (ix *index) intern(term []byte) uint32 {
	if id, ok := ix.vocab[string(term)]; ok {
		return id
	}
	id := uint32(len(ix.terms))
	s := string(term)
	ix.vocab[s] = id
	ix.terms = append(ix.terms, s)
	ix.post = append(ix.post, nil)
	ix.df = append(ix.df, 0)
	return id
}

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
		ix.open[id]++
	}
	ix.openLen += int32(len(ix.scratch))
}

// resetOpen empties the open stretch, forgetting vocabulary only it held.
func (ix *index) resetOpen() {
	for id := range ix.open {
		delete(ix.open, id) // first, or forgetIfUnused sees the term as still in use
		ix.forgetIfUnused(id)
	}
	ix.openLen = 0
}

// key returns the content key of a text given as consecutive pieces joined by
// newlines, without building the joined string.
func (ix *index) key(pieces func(yield func(string))) docKey {
	var h maphash.Hash
	h.SetSeed(ix.seed)
	n, first := 0, true
	pieces(func(s string) {
		if !first {
			h.WriteByte('\n')
			n++
		}
		first = false
		h.WriteString(s)
		n += len(s)
	})
	return docKey{h.Sum64(), n}
}

// acquire returns the slot for a closed text, encoding it only when no
// stretch holds the same text already. text yields the text's pieces.
func (ix *index) acquire(k docKey, user int32, text func(yield func(string))) int32 {
	if s, ok := ix.share(k, user); ok {
		return s
	}
	ix.scratch = ix.scratch[:0]
	text(func(p string) { ix.scratch = ix.encode(ix.scratch, p) })
	s := ix.newSlot(k, int32(len(ix.scratch)), user)
	tf := make(map[uint32]int32, len(ix.scratch))
	for _, id := range ix.scratch {
		tf[id]++
	}
	for id, n := range tf {
		ix.post[id] = append(ix.post[id], posting{s, n})
		ix.df[id]++
	}
	return s
}

// release drops one stretch's hold on a slot; the last one out removes the
// text from the index entirely.
func (ix *index) release(s int32, user int32) {
	sl := &ix.slots[s]
	for i, u := range sl.users {
		if u == user {
			sl.users = append(sl.users[:i], sl.users[i+1:]...)
			break
		}
	}
	if sl.refs--; sl.refs > 0 {
		return
	}
	delete(ix.byKey, sl.key)
	ix.live--
	ix.length -= int64(sl.length)
	*sl = slot{}
	ix.free = append(ix.free, s)
	// Removal is rare (a redaction, a rewrite of the boundaries), so a pass
	// over the posting lists is cheaper overall than keeping each slot's
	// term list in memory for the whole life of the conversation.
	for id, list := range ix.post {
		for i, p := range list {
			if p.slot == s {
				ix.post[id] = append(list[:i], list[i+1:]...)
				ix.df[id]--
				ix.forgetIfUnused(uint32(id))
				break
			}
		}
	}
}

func (ix *index) forgetIfUnused(id uint32) {
	if ix.df[id] > 0 || ix.open[id] > 0 || ix.terms[id] == "" {
		return
	}
	delete(ix.vocab, ix.terms[id])
	ix.terms[id] = ""
	ix.post[id] = nil
}

// corpus is the statistics one scoring pass uses: document count and
// average length, plus the document frequencies of extra documents (outside
// material weighed against the conversation), which join the same table.
type corpus struct {
	n     float64
	avgdl float64
	extra map[string]int32
}

// qterm is a distinct query term; id is noTerm when the conversation never
// used it, so only extra documents can match it.
type qterm struct {
	id   uint32
	text string
}

const noTerm = ^uint32(0)

func (ix *index) corpus(extra [][]string) corpus {
	n := float64(ix.live)
	length := float64(ix.length)
	if ix.openLen > 0 {
		n++
		length += float64(ix.openLen)
	}
	c := corpus{n: n}
	if len(extra) > 0 {
		c.extra = make(map[string]int32)
		for _, d := range extra {
			c.n++
			length += float64(len(d))
			for i, t := range d {
				if !contains(d[:i], t) {
					c.extra[t]++
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (ix *index) idf(c corpus, q qterm) float64 {
	df := float64(c.extra[q.text])
	if q.id != noTerm {
		df += float64(ix.df[q.id])
		if ix.open[q.id] > 0 {
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
	ix.tk.each(query, func(term []byte) {
		id, ok := ix.vocab[string(term)]
		if !ok {
			if !all {
				return
			}
			id = noTerm
		}
		for _, x := range qs {
			if x.text == string(term) {
				return
			}
		}
		qs = append(qs, qterm{id, string(term)})
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
		for _, p := range ix.post[t.id] {
			if scores[p.slot] == 0 {
				touched = append(touched, p.slot)
			}
			scores[p.slot] += termScore(idf, float64(p.tf), float64(ix.slots[p.slot].length), c.avgdl)
		}
		if tf := ix.open[t.id]; tf > 0 {
			open += termScore(idf, float64(tf), float64(ix.openLen), c.avgdl)
		}
	}
	return open, touched
}

// scoreDoc scores a document that is not in the index (outside material,
// given as its terms) under the given corpus statistics.
func (ix *index) scoreDoc(c corpus, q []qterm, doc []string) float64 {
	s := 0.0
	for _, t := range q {
		tf := 0
		for _, x := range doc {
			if x == t.text {
				tf++
			}
		}
		if tf > 0 {
			s += termScore(ix.idf(c, t), float64(tf), float64(len(doc)), c.avgdl)
		}
	}
	return s
}

// closeOpen moves the open stretch into the postings as a closed text with
// the given content key, without encoding it again, and returns its slot.
func (ix *index) closeOpen(k docKey, user int32) int32 {
	if s, ok := ix.share(k, user); ok {
		ix.resetOpen()
		return s
	}
	s := ix.newSlot(k, ix.openLen, user)
	for id, n := range ix.open {
		ix.post[id] = append(ix.post[id], posting{s, n})
		ix.df[id]++
	}
	clear(ix.open)
	ix.openLen = 0
	return s
}

// share adds a stretch to the slot already holding its text, if any.
func (ix *index) share(k docKey, user int32) (int32, bool) {
	s, ok := ix.byKey[k]
	if ok {
		ix.slots[s].refs++
		ix.slots[s].users = append(ix.slots[s].users, user)
	}
	return s, ok
}

// newSlot takes a free slot for a new text of the given length in terms.
func (ix *index) newSlot(k docKey, length int32, user int32) int32 {
	var s int32
	if n := len(ix.free); n > 0 {
		s = ix.free[n-1]
		ix.free = ix.free[:n-1]
	} else {
		s = int32(len(ix.slots))
		ix.slots = append(ix.slots, slot{})
	}
	ix.slots[s] = slot{key: k, length: length, refs: 1, users: []int32{user}}
	ix.byKey[k] = s
	ix.live++
	ix.length += int64(length)
	return s
}
