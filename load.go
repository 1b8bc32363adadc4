package byheart

import (
	"hash/maphash"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// A long conversation restored from a store spends most of its load on work
// each turn or stretch does alone: checking a turn and annotating its dates,
// tokenizing a stretch's text. That work is done ahead, on as many
// goroutines as GOMAXPROCS allows; what depends on the turns before (a
// result pairing with its call, a term's id being the order of its first
// use) stays serial, so the memory is the one a serial load builds, byte for
// byte.

// turnsPerWorker is the fewest turns a load gives each goroutine it starts:
// with fewer, starting the goroutine and the vocabulary it builds cost more
// than it saves.
const turnsPerWorker = 256

// loadWorkers is how many goroutines share work on n turns, at most
// GOMAXPROCS; under two, none is started.
func loadWorkers(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/turnsPerWorker))
}

// inParallel calls do(worker, lo, hi) over [0, n) in blocks of block, on w
// goroutines that each take the next block when done with theirs, and
// returns when all are done. A panic in one is raised again here, in the
// caller's goroutine, as the serial path would raise it.
func inParallel(n, w, block int, do func(worker, lo, hi int)) {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		panicked atomic.Pointer[any]
	)
	wg.Add(w)
	for k := range w {
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					panicked.CompareAndSwap(nil, &p)
				}
			}()
			for {
				lo := int(next.Add(int64(block))) - block
				if lo >= n || panicked.Load() != nil {
					return
				}
				do(k, lo, min(lo+block, n))
			}
		}()
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		panic(*p)
	}
}

// prepared is stored turns checked and derived ahead of their places: each
// turn as makeTurn derives it, but for the step's count of waiting calls,
// which only its place tells, and the first turn the checks refuse.
type prepared struct {
	turns []turn
	bad   int // len(turns) when none is refused
	err   error
}

// prepareStored checks and derives turns ahead, in parallel, for
// prepared.accept, into the spare capacity of m.turns, which it makes; nil
// when there are too few to share out, or when sizes come from
// Options.Measure, which need not be safe for concurrent use and whose
// failures are reported turn by turn. m is locked.
func (m *state) prepareStored(turns []Turn) *prepared {
	w := loadWorkers(len(turns))
	if w < 2 || m.meter.f != nil {
		return nil
	}
	m.turns = slices.Grow(m.turns, len(turns))
	if m.zones == nil {
		// setTime makes the table on first use; its workers must share one.
		m.zones = &turnZones{of: map[*time.Location]uint16{}}
	}
	p := &prepared{turns: m.turns[len(m.turns) : len(m.turns)+len(turns)], bad: len(turns)}
	var mu sync.Mutex
	inParallel(len(turns), w, 64, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			t, err := checkStored(turns[i])
			if err == nil {
				p.turns[i] = m.makeTurn(t, 0)
				continue
			}
			// Only the first refusal counts: the load stops there.
			mu.Lock()
			if i < p.bad {
				p.bad, p.err = i, err
			}
			mu.Unlock()
			return
		}
	})
	return p
}

// accept is acceptStored for turn i, prepared ahead. m is locked.
func (p *prepared) accept(m *state, i int) (turn, error) {
	if i >= p.bad {
		return turn{}, p.err
	}
	t := m.bare(&p.turns[i])
	next, waiting, err := m.stepOf(t)
	if err != nil {
		return turn{}, err
	}
	if next.Tool != t.Tool {
		// A result that takes its call's tool shows it: derive it again.
		return m.makeTurn(next, waiting), nil
	}
	x := p.turns[i]
	x.waiting = waiting
	return x, nil
}

// ahead is the stretches of a load tokenized ahead, in parallel, for the
// index to take serially in their order.
type ahead struct {
	texts []textAhead
	vocab []*localVocab // by worker
	pairs []uint64      // scratch: a text's term ids and counts, to sort
}

// textAhead is one stretch's text tokenized ahead: its key, its length in
// terms and number of pieces, and its distinct terms in order of first use,
// with their counts, as ids of its worker's vocabulary.
type textAhead struct {
	key    docKey
	length int
	pieces int
	ids    []int32
	counts []int32
	worker int
}

// localVocab is one worker's vocabulary: each term it met, by local id, and
// the id the index gave it, plus one (0 until the index has it); and what
// the worker reads with.
type localVocab struct {
	byTerm map[string]int32
	terms  []string
	global []uint32
	seen   []int32 // by local id: its place in the text being read, plus one

	tk      tokenizer
	key     keying
	text    *textAhead   // the text being read
	from    int          // where its terms start in ids and counts
	ids     []int32      // the terms of the texts read, end to end
	counts  []int32      // and their counts
	onPiece func(string) // piece, bound once
	onTerm  func([]byte) // term, bound once
}

func newLocalVocab() *localVocab {
	v := &localVocab{byTerm: map[string]int32{}}
	v.onPiece, v.onTerm = v.piece, v.term
	return v
}

// tokenizeAhead tokenizes the stretches that start at starts, the last
// running to the last turn, in parallel; nil when there are too few turns
// to share out. m is locked.
func (m *state) tokenizeAhead(starts []int) *ahead {
	w := loadWorkers(len(m.turns) - starts[0])
	if w < 2 {
		return nil
	}
	a := &ahead{texts: make([]textAhead, len(starts)), vocab: make([]*localVocab, w)}
	for k := range a.vocab {
		a.vocab[k] = newLocalVocab()
	}
	inParallel(len(starts), w, 1, func(k, i, _ int) {
		end := len(m.turns)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		a.texts[i] = a.vocab[k].read(m.ix.seed, m.pieces(starts[i], end, starts[i]))
		a.texts[i].worker = k
	})
	return a
}

// read tokenizes a text given as pieces, keying it as index.key does.
func (v *localVocab) read(seed maphash.Seed, pieces func(yield func(string))) textAhead {
	var t textAhead
	v.text, v.from = &t, len(v.ids)
	v.key.h.SetSeed(seed)
	v.key.n, v.key.first = 0, true
	pieces(v.onPiece)
	t.ids, t.counts = v.ids[v.from:len(v.ids):len(v.ids)], v.counts[v.from:len(v.counts):len(v.counts)]
	for _, id := range t.ids {
		v.seen[id] = 0
	}
	t.key = docKey{v.key.h.Sum64(), v.key.n}
	v.text = nil
	return t
}

// piece reads one piece of the text being read.
func (v *localVocab) piece(p string) {
	v.key.piece(p)
	v.text.pieces++
	v.tk.each(p, v.onTerm)
}

// term counts one term of the text being read.
func (v *localVocab) term(term []byte) {
	id := v.id(term)
	if v.seen[id] == 0 {
		v.ids, v.counts = append(v.ids, id), append(v.counts, 0)
		v.seen[id] = int32(len(v.ids) - v.from)
	}
	v.counts[v.from+int(v.seen[id])-1]++
	v.text.length++
}

// id returns the local id of term, adding it if new.
func (v *localVocab) id(term []byte) int32 {
	if id, ok := v.byTerm[string(term)]; ok {
		return id
	}
	id := int32(len(v.terms))
	s := string(term)
	v.byTerm[s] = id
	v.terms, v.global, v.seen = append(v.terms, s), append(v.global, 0), append(v.seen, 0)
	return id
}

// terms returns text i's terms as index ids, each with its count in the
// low 32 bits, sorted; new terms join the index's vocabulary in the order
// of their first use, as encoding the text would add them.
func (a *ahead) terms(ix *index, i int) []uint64 {
	t, v := &a.texts[i], a.vocab[a.texts[i].worker]
	a.pairs = a.pairs[:0]
	for j, id := range t.ids {
		if v.global[id] == 0 {
			v.global[id] = ix.intern([]byte(v.terms[id])) + 1
		}
		a.pairs = append(a.pairs, uint64(v.global[id]-1)<<32|uint64(uint32(t.counts[j])))
	}
	ix.encoded += t.pieces
	return a.pairs
}

// acquire is index.acquire for text i, a closed stretch's, held by user.
func (a *ahead) acquire(ix *index, i int, user int32) int32 {
	t := &a.texts[i]
	if s, ok := ix.share(t.key, user); ok {
		return s
	}
	pairs := a.terms(ix, i)
	s := ix.newSlot(t.key, t.length, user)
	slices.Sort(pairs)
	for _, p := range pairs {
		ix.addPosting(uint32(p>>32), s, int32(uint32(p)))
	}
	return s
}

// addOpen adds text i, the open stretch's, as index.addOpen adds each of
// its pieces.
func (a *ahead) addOpen(ix *index, i int) {
	for _, p := range a.terms(ix, i) {
		ix.addOpenTerm(uint32(p>>32), int(uint32(p)))
	}
	ix.openLen += a.texts[i].length
}
