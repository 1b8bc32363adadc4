package byheart

// The index: what it holds after any sequence of appends, boundary
// rewrites and redactions, that it encodes each text once, and that its
// pruned search finds exactly the top k.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkIndex rebuilds, from the turns and the stretches alone, what the
// index must hold, and compares: one slot per distinct closed text with its
// exact term frequencies, the open stretch's terms apart, the document
// frequencies, and a vocabulary of exactly the terms some text still holds.
// Any stale encoding, leftover posting or remembered word fails it.
func checkIndex(t *testing.T, m *Memory) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	ix := m.ix

	count := func(a, b int) (map[string]int32, int32) {
		tf := map[string]int32{}
		var n int32
		m.pieces(a, b, a)(func(p string) {
			for _, term := range Terms(p) {
				tf[term]++
				n++
			}
		})
		return tf, n
	}

	wantSlots := map[int32]map[string]int32{}
	wantUsers := map[int32][]int32{}
	wantVocab := map[string]bool{}
	wantDF := map[string]int32{}
	var wantLength int64
	for s := range m.str {
		a, b := m.str[s].start, m.stretchEnd(s)
		tf, n := count(a, b)
		for term := range tf {
			wantVocab[term] = true
		}
		if s == len(m.str)-1 {
			require.Equal(t, int32(-1), m.str[s].slot, "the newest stretch is the open one")
			got := map[string]int32{}
			for _, id := range ix.openIDs.list() {
				got[ix.term(id)] = ix.info(id).open
			}
			for id, ti := range ix.terms.list() {
				if ti.open != 0 {
					require.Contains(t, ix.openIDs.list(), uint32(id), "term %q counted in the open stretch but not listed", ix.term(uint32(id)))
				}
			}
			require.Equal(t, tf, got, "open stretch term frequencies")
			require.Equal(t, int(n), ix.openLen, "open stretch length")
			continue
		}
		sl := m.str[s].slot
		require.GreaterOrEqual(t, sl, int32(0), "closed stretch %d has no slot", s)
		require.Equal(t, ix.key(m.pieces(a, b, a)), ix.slots[sl].key, "stretch %d points at another text's slot", s)
		require.Equal(t, n, ix.lens[sl], "stretch %d length", s)
		wantUsers[sl] = append(wantUsers[sl], int32(s))
		if _, dup := wantSlots[sl]; !dup {
			wantSlots[sl] = tf
			wantLength += int64(n)
			for term := range tf {
				wantDF[term]++
			}
		}
	}

	gotSlots := map[int32]map[string]int32{}
	for id := range ix.terms.n {
		list, tfs := ix.list(uint32(id))
		if len(list) > 0 {
			require.NotEmpty(t, ix.term(uint32(id)), "postings for a forgotten term id %d", id)
		}
		require.LessOrEqual(t, ix.info(uint32(id)).n, ix.info(uint32(id)).room, "postings of %q overrun their run", ix.term(uint32(id)))
		require.True(t, slices.IsSorted(list), "postings of %q out of order", ix.term(uint32(id)))
		for i, s := range list {
			if gotSlots[s] == nil {
				gotSlots[s] = map[string]int32{}
			}
			gotSlots[s][ix.term(uint32(id))] = ix.tfAt(uint32(id), s, tfs[i])
		}
	}
	for sl, tf := range wantSlots {
		if len(tf) == 0 {
			continue
		}
		require.Equal(t, tf, gotSlots[sl], "postings of slot %d", sl)
	}
	for sl := range gotSlots {
		_, ok := wantSlots[sl]
		require.True(t, ok, "slot %d has postings but no stretch holds its text", sl)
	}
	keys := map[docKey]bool{}
	for sl, users := range wantUsers {
		keys[ix.slots[sl].key] = true
		require.ElementsMatch(t, users, ix.users(sl), "users of slot %d", sl)
		require.Equal(t, int32(len(users)), ix.slots[sl].refs, "refs of slot %d", sl)
		got, ok := ix.slotOf(ix.slots[sl].key)
		require.True(t, ok, "slot %d is not found by its key", sl)
		require.Equal(t, sl, got)
	}
	require.Equal(t, len(keys), ix.keyed, "the encoding cache holds texts no stretch has")
	require.Equal(t, len(wantSlots), ix.live)
	require.Equal(t, wantLength, ix.length)

	gotVocab := map[string]bool{}
	for id := range ix.terms.n {
		term := ix.term(uint32(id))
		if term == "" {
			continue
		}
		gotVocab[term] = true
		got, ok := ix.lookup([]byte(term))
		require.True(t, ok, "term %q kept outside the vocabulary", term)
		require.Equal(t, uint32(id), got, "term %q found under another id", term)
		require.Equal(t, wantDF[term], int32(ix.info(uint32(id)).n), "df of %q", term)
	}
	require.Equal(t, wantVocab, gotVocab, "vocabulary")
	require.Equal(t, len(gotVocab), ix.nterms, "terms in the table")
}

// vocabulary is every term the index holds, by id, forgotten ones left out.
func vocabulary(ix *index) []string {
	var out []string
	for id := range ix.terms.n {
		if t := ix.term(uint32(id)); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// cacheMemory has 40 turns, ten on each of four topics, one stretch per
// topic; the fourth is the open one. The budget holds one stretch.
func cacheMemory(t *testing.T) *Memory {
	m := New(Options{Budget: 1400, Stability: -1})
	topics := []string{"deploy", "garden", "travel", "music"}
	for i := 0; i < 40; i++ {
		mustAppend(t, m, roleOf(i), topicTurn(topics[i/10], i))
	}
	setBounds(m, []int{0, 10, 20, 30})
	checkIndex(t, m)
	return m
}

func TestEncodingCacheIsKeyedByTextNotPosition(t *testing.T) {
	t.Parallel()
	m := cacheMemory(t)
	slot10, slot20 := m.str[1].slot, m.str[2].slot
	key10 := m.ix.slots[slot10].key
	enc := m.ix.encoded

	// A boundary before them shifts both stretches one position on.
	setBounds(m, []int{0, 5, 10, 20, 30})
	require.Equal(t, 10, m.str[2].start)
	assert.Equal(t, slot10, m.str[2].slot, "the stretch at turn 10 lost its encoding when its position moved")
	assert.Equal(t, key10, m.ix.slots[slot10].key)
	assert.Equal(t, slot20, m.str[3].slot)
	// Only the two new texts (turns 0-9) and the open stretch (30-39) are
	// tokenized again.
	assert.Equal(t, 10+10, m.ix.encoded-enc)
	checkIndex(t, m)

	// And the shifted stretch still answers for its own words.
	r := compose(t, m, "greenhouse seedlings")
	assert.Contains(t, r.Included, 10)
	assert.Contains(t, contextOf(r), topicTurn("garden", 12))
}

func TestEncodingCacheForgetsTextsThatAreGone(t *testing.T) {
	t.Parallel()
	m := cacheMemory(t)
	k0, k10 := m.ix.slots[m.str[0].slot].key, m.ix.slots[m.str[1].slot].key

	setBounds(m, []int{0, 20, 30})
	_, ok0 := m.ix.slotOf(k0)
	_, ok10 := m.ix.slotOf(k10)
	assert.False(t, ok0, "a text no stretch holds stays in the cache")
	assert.False(t, ok10, "a text no stretch holds stays in the cache")
	assert.Equal(t, 2, m.ix.live)
	checkIndex(t, m)

	// Bringing the old stretches back encodes them again: they were gone.
	enc := m.ix.encoded
	setBounds(m, []int{0, 10, 20, 30})
	assert.Equal(t, 20+10, m.ix.encoded-enc)
	checkIndex(t, m)
}

// A posting keeps its term frequency in a byte; a term said more often in
// one text keeps its exact count beside it, through closing, loading and
// removal.
func TestATermSaidMoreThanAByteHoldsKeepsItsCount(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	fillTurns(m, []Turn{
		{Role: User, Text: strings.Repeat("zebra ", 300) + "and a giraffe"},
		{Role: Assistant, Text: "that is a lot of zebras"},
		{Role: User, Text: "the giraffe again"},
	})
	setBounds(m, []int{0, 1, 2})
	checkIndex(t, m)
	id, ok := m.ix.lookup([]byte(Terms("zebra")[0]))
	require.True(t, ok)
	assert.Equal(t, int32(300), m.ix.tf(id, m.str[0].slot))
	assert.Len(t, m.ix.bigTF, 1)

	data, err := m.ToJSON()
	require.NoError(t, err)
	r, err := FromJSON(data, Options{})
	require.NoError(t, err)
	checkIndex(t, r)
	id, ok = r.ix.lookup([]byte(Terms("zebra")[0]))
	require.True(t, ok)
	assert.Equal(t, int32(300), r.ix.tf(id, r.str[0].slot), "after a load")

	setBounds(m, []int{0})
	checkIndex(t, m)
	assert.Empty(t, m.ix.bigTF, "the count of a text no stretch holds is kept")
}

// A vocabulary large enough to fill many pages of records and of bytes,
// and to split its table's buckets again and again, finds every term under
// the id it was given, and forgetting every other term leaves the rest
// found and the forgotten ones gone.
func TestALargeVocabularyFindsEveryTermThroughPagesAndSplits(t *testing.T) {
	t.Parallel()
	ix := newIndex()
	const n = 60_000
	term := func(i int) []byte { return fmt.Appendf(nil, "term%dx%d", i, i*7919%1000) }
	for i := range n {
		require.Equal(t, uint32(i), ix.intern(term(i)))
	}
	require.Greater(t, len(ix.table.buckets), 16, "the table never split")
	require.Greater(t, len(ix.terms.pages), 4, "the records never left their first page")
	require.Greater(t, len(ix.arena.pages), 4, "the bytes never left their first page")
	for i := range n {
		id, ok := ix.lookup(term(i))
		require.True(t, ok, "term %d lost", i)
		require.Equal(t, uint32(i), id)
		require.Equal(t, string(term(i)), ix.term(id))
	}
	for i := 0; i < n; i += 2 {
		ix.forget(uint32(i))
	}
	for i := range n {
		id, ok := ix.lookup(term(i))
		require.Equal(t, i%2 == 1, ok, "term %d", i)
		if ok {
			require.Equal(t, uint32(i), id)
		}
	}
	require.Equal(t, n/2, ix.nterms)
}

// Forgetting many terms at once (a redaction of a text full of words no
// other turn has) takes them out of the hash table and packs the arena,
// and every term left is still found under its id.
func TestForgettingManyTermsLeavesTheRestFound(t *testing.T) {
	t.Parallel()
	words := make([]string, 3000)
	for i := range words {
		words[i] = fmt.Sprintf("unique%dword", i)
	}
	m := New(Options{})
	fillTurns(m, append([]Turn{{Role: User, Text: strings.Join(words, " ")}}, chat(3, 200)...))
	setBounds(m, []int{0, 1, 100})
	checkIndex(t, m)
	before := m.ix.arena.size
	require.NoError(t, m.Redact(0))
	checkIndex(t, m)
	assert.Less(t, m.ix.arena.size, before/2, "the arena was not packed")
	for _, w := range words[:10] {
		_, ok := m.ix.lookup([]byte(Terms(w)[0]))
		assert.False(t, ok, "%q is still in the vocabulary", w)
	}
}

func TestComposingWithUnchangedStretchesDoesNoReindexing(t *testing.T) {
	t.Parallel()
	m := cacheMemory(t)
	m.opt.External = ExternalFunc(func(context.Context, string) ([]Item, error) {
		return []Item{{Text: "zebra quantum marmalade greenhouse", Source: "kb"}}, nil
	})
	compose(t, m, "greenhouse")
	enc, vocab := m.ix.encoded, m.ix.nterms
	slots := slices.Clone(m.ix.slots)
	for _, q := range []string{"greenhouse", "the kubernetes canary", "words no turn has: xylophone", ""} {
		compose(t, m, q)
	}
	assert.Equal(t, enc, m.ix.encoded, "composing re-tokenized stretches")
	assert.Equal(t, vocab, m.ix.nterms, "queries or outside material leaked into the vocabulary")
	assert.Equal(t, len(slots), len(m.ix.slots))
	for i := range slots {
		assert.Equal(t, slots[i].key, m.ix.slots[i].key)
	}
	checkIndex(t, m)
}

func TestAppendingATurnEncodesOnlyThatTurn(t *testing.T) {
	t.Parallel()
	m := New(Options{Budget: 500, Chunk: 200})
	type closed struct {
		start int
		slot  int32
		key   docKey
	}
	var before []closed
	for i := 0; i < 60; i++ {
		enc := m.ix.encoded
		mustAppend(t, m, roleOf(i), topicTurn([]string{"deploy", "garden"}[i/30], i))
		assert.Equal(t, 1, m.ix.encoded-enc, "append %d encoded more than its own turn", i)
		compose(t, m, "rollback")
		// Stretches closed before this append keep slot and text.
		for _, c := range before {
			s := m.stretchOf(c.start)
			require.Equal(t, c.start, m.str[s].start)
			assert.Equal(t, c.slot, m.str[s].slot)
			assert.Equal(t, c.key, m.ix.slots[c.slot].key)
		}
		before = before[:0]
		for _, s := range m.str[:len(m.str)-1] {
			before = append(before, closed{s.start, s.slot, m.ix.slots[s.slot].key})
		}
	}
	require.Greater(t, len(m.str), 5, "the test must close several stretches")
	assert.Equal(t, 60, m.ix.encoded, "closing a stretch must not tokenize it again")
	checkIndex(t, m)
}

func TestANewBoundaryReencodesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	t.Run("hook split", func(t *testing.T) {
		var tails []int
		m := New(Options{Chunk: 300, Boundaries: func(tail []Turn) []int {
			tails = append(tails, len(tail))
			return []int{len(tail) / 2}
		}})
		for i := 0; i < 30; i++ {
			enc, calls := m.ix.encoded, len(tails)
			var earlier []int32
			for _, s := range m.str[:max(len(m.str)-1, 0)] {
				earlier = append(earlier, s.slot)
			}
			mustAppend(t, m, roleOf(i), topicTurn("travel", i))
			want := 1
			if len(tails) > calls {
				want += tails[len(tails)-1] // the split open stretch, once
			}
			assert.Equal(t, want, m.ix.encoded-enc, "append %d", i)
			for k, sl := range earlier {
				assert.Equal(t, sl, m.str[k].slot, "append %d touched closed stretch %d", i, k)
			}
		}
		require.NotEmpty(t, tails)
		checkIndex(t, m)
	})
	t.Run("rewritten boundaries", func(t *testing.T) {
		m := cacheMemory(t)
		s0, s20 := m.str[0].slot, m.str[2].slot
		k1020 := m.ix.slots[m.str[1].slot].key
		enc := m.ix.encoded
		setBounds(m, []int{0, 10, 15, 20, 30})
		assert.Equal(t, 10+10, m.ix.encoded-enc, "only turns 10-19 and the open stretch are new texts")
		assert.Equal(t, s0, m.str[0].slot)
		assert.Equal(t, s20, m.str[3].slot)
		_, stale := m.ix.slotOf(k1020)
		assert.False(t, stale)
		checkIndex(t, m)
	})
}

func TestWarmMemoryComposesLikeAColdOne(t *testing.T) {
	t.Parallel()
	turns := chat(3, 425)
	history, queries := turns[:400], turns[400:]
	opts := Options{Budget: 3000, Stability: -1}
	build := func() *Memory {
		m := New(opts)
		fillTurns(m, history)
		return m
	}
	cold := func(q string) Result { return compose(t, build(), q) }

	warm := build()
	churned := build() // its stretches rewritten back and forth first
	r := rand.New(rand.NewPCG(5, 5))
	orig := churned.Bounds()
	for k := 0; k < 3; k++ {
		var b []int
		for _, x := range orig {
			if r.IntN(2) == 0 || x == 0 {
				b = append(b, x)
			}
		}
		setBounds(churned, b)
	}
	setBounds(churned, orig)
	data, err := warm.ToJSON()
	require.NoError(t, err)
	restored, err := FromJSON(data, opts)
	require.NoError(t, err)

	for i, q := range queries {
		want := cold(q.Text)
		for name, m := range map[string]*Memory{"warm": warm, "churned": churned, "restored": restored} {
			got := compose(t, m, q.Text)
			assert.Equal(t, want.Included, got.Included, "%s memory, query %d", name, i)
			assert.Equal(t, want.Messages, got.Messages, "%s memory, query %d", name, i)
		}
	}
	checkIndex(t, churned)
}

// ── long inputs ───────────────────────────────────────────────────────

// TestWeighScoresOutsideMaterialTermByTerm pins the weighing of outside
// material against its definition: each item's score is the sum, in the
// query's order, of the BM25 score of each distinct query term it holds,
// its frequency counted by a scan of the item.
func TestWeighScoresOutsideMaterialTermByTerm(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	fillTurns(m, chat(7, 300))
	g := newChatGen(8)
	r := rand.New(rand.NewPCG(8, 8))
	for range 30 {
		var extra [][]string
		for range 1 + r.IntN(5) {
			extra = append(extra, Terms(g.sentence(r.IntN(600))))
		}
		query := g.sentence(r.IntN(400)) + " " + g.sentence(r.IntN(40))
		got, _ := m.ix.weigh(m.ix.queryTerms(query, true), extra, true)

		c := m.ix.corpus(extra)
		q := m.ix.queryTerms(query, true)
		for i, doc := range extra {
			want := 0.0
			for _, term := range q {
				tf := 0
				for _, x := range doc {
					if x == term.text {
						tf++
					}
				}
				if tf > 0 {
					want += termScore(m.ix.idf(c, term), float64(tf), float64(len(doc)), c.avgdl)
				}
			}
			assert.Equal(t, want, got[i], "item %d", i) // to the last bit
		}
		// Each document counts once in a term's document frequency.
		for term, e := range c.extra {
			n := 0
			for _, doc := range extra {
				if slices.Contains(doc, term) {
					n++
				}
			}
			require.Equal(t, int32(n), e.df, term)
		}
	}
}

// TestQueriesHoldEachTermOnceInTheOrderSaid pins prepare and queryTerms:
// distinct terms, first occurrence first, and the bounds ordered highest
// first with ties in query order.
func TestQueriesHoldEachTermOnceInTheOrderSaid(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	fillTurns(m, chat(9, 500))
	query := chat(10, 40)[3].Text + " " + chat(10, 40)[3].Text + " " + chat(11, 5)[1].Text + " zzzq"
	var want []string
	for _, term := range Terms(query) {
		if !slices.Contains(want, term) {
			want = append(want, term)
		}
	}
	all := m.ix.queryTerms(query, true)
	var got []string
	for _, q := range all {
		got = append(got, q.text)
	}
	require.Equal(t, want, got)

	q := m.ix.prepare(query)
	var known []uint32
	for _, qt := range all {
		if qt.id != noTerm {
			known = append(known, qt.id)
		}
	}
	var ids []uint32
	for _, qt := range q.terms {
		ids = append(ids, qt.id)
	}
	require.Equal(t, known, ids)
	for j := 1; j < len(q.byUB); j++ {
		a, b := q.byUB[j-1], q.byUB[j]
		require.True(t, q.ub[a] > q.ub[b] || q.ub[a] == q.ub[b] && a < b, "bounds out of order at %d", j)
	}
}

// TestAnIndexToldToStopReadsNoFurther: once the caller's context has ended,
// a query is read no further than the next check, and outside material
// not yet weighed scores nothing.
func TestAnIndexToldToStopReadsNoFurther(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	fillTurns(m, chat(12, 2000))
	query := strings.Join(vocabulary(m.ix), " ") // every word the conversation used
	done := make(chan struct{})
	close(done)

	require.Greater(t, len(m.ix.prepare(query).terms), 2048)
	m.ix.stop, m.ix.stopped = done, false
	assert.Empty(t, m.ix.prepare(query).terms, "the context had ended before the first term")
	assert.True(t, m.ix.stopped)

	m.ix.stopped = false
	scores, _ := m.ix.weigh(m.ix.queryTerms(query, true), [][]string{Terms(query)}, true)
	assert.Equal(t, []float64{0}, scores)
}
