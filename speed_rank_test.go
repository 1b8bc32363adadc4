package byheart

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// The built-in ranking scores stretches on demand and prunes its search
// for the best ones. These tests hold it to a plain pass that scores every
// posting and walks every stretch, as choose did before: same scores to the
// last bit, same stretches chosen in the same order, on memories of many
// shapes (shared texts, tiny and huge stretches, redactions, restored
// boundaries) and fills of every room.

// exhaustive is the reference: every stretch's score from one pass over
// every posting of the query, plus the share of its better neighbour's in
// the same sitting.
func exhaustive(m *Memory, query string) []float64 {
	own := exhaustiveOwn(m, query)
	out := make([]float64, len(own))
	for s := range own {
		nb := 0.0
		if s > 0 && m.sameSitting(s-1) {
			nb = max(nb, own[s-1])
		}
		if s+1 < len(own) && m.sameSitting(s) {
			nb = max(nb, own[s+1])
		}
		out[s] = own[s] + m.tune.neighbour*nb
	}
	return out
}

// exhaustiveOwn is every stretch's own score, from one pass over every
// posting of the query.
func exhaustiveOwn(m *Memory, query string) []float64 {
	q := m.ix.queryTerms(query, false)
	slots := make([]float64, len(m.ix.slots))
	open, _ := m.ix.score(m.ix.corpus(nil), q, slots, nil)
	out := make([]float64, len(m.str))
	for s, st := range m.str {
		if st.slot < 0 {
			out[s] = open
		} else {
			out[s] = slots[st.slot]
		}
	}
	return out
}

// chooseReference is choose as a walk over every stretch in order:
// positive scores best first, newer first on ties, then the rest newest
// first.
func chooseReference(m *Memory, scores []float64, upto, capacity, limit int) (keys, picked []int) {
	var hits []hit
	var rest []int
	for s, v := range scores {
		if v > 0 {
			hits = append(hits, hit{s, v})
		} else {
			rest = append(rest, s)
		}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].before(hits[j]) })
	order := make([]int, 0, len(scores))
	for _, h := range hits {
		order = append(order, h.s)
	}
	for i := len(rest) - 1; i >= 0; i-- {
		order = append(order, rest[i])
	}
	for _, s := range order {
		if limit > 0 && len(picked) == limit {
			break
		}
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
		if scores[s] > 0 {
			picked = append(picked, s)
		}
	}
	sort.Ints(keys)
	return keys, picked
}

// rankShapes are memories of different make.
func rankShapes(t testing.TB) map[string]*Memory {
	shapes := map[string]*Memory{}

	m := New(Options{})
	fillTurns(m, chat(21, 3000))
	shapes["chat-3000"] = m

	m = New(Options{Chunk: 150})
	fillTurns(m, chat(22, 800))
	shapes["small-chunks"] = m

	// Untimed turns that repeat, so many stretches share one text (a slot
	// with several users).
	m = New(Options{Chunk: 120})
	g := newChatGen(23)
	var pool []string
	for range 12 {
		pool = append(pool, g.sentence(50))
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 900 {
		role := User
		if i%2 == 1 {
			role = Assistant
		}
		_, err := m.Append(role, pool[r.IntN(3)*(i%4)])
		require.NoError(t, err)
	}
	shapes["shared-texts"] = m

	// A Boundaries hook that cuts stretches to single turns and pairs, then
	// redactions, then a trip through JSON (restored boundaries).
	m = New(Options{Chunk: 600, Boundaries: func(tail []Turn) []int {
		var cuts []int
		for i := 1; i < len(tail); i += 1 + i%2 {
			cuts = append(cuts, i)
		}
		return cuts
	}})
	fillTurns(m, chat(24, 1200))
	for _, i := range []int{3, 40, 41, 700, 1100} {
		require.NoError(t, m.Redact(i))
	}
	data, err := m.ToJSON()
	require.NoError(t, err)
	m, err = FromJSON(data, Options{Chunk: 600})
	require.NoError(t, err)
	fillTurns(m, chat(25, 50))
	shapes["boundaries-redacted-restored"] = m

	// Long turns: stretches far larger than the chunk.
	m = New(Options{})
	g = newChatGen(26)
	for i := range 300 {
		tt := g.next()
		text := tt.Text
		if i%17 == 0 {
			text = g.sentence(4000)
		}
		_, err := m.AppendAt(tt.Role, text, tt.Time)
		require.NoError(t, err)
	}
	shapes["long-turns"] = m
	return shapes
}

func rankQueries(m *Memory, seed uint64) []string {
	g := newChatGen(seed)
	qs := []string{"", "nothing here qqqz", g.vocab[0], g.vocab[0] + " " + g.vocab[1] + " " + g.vocab[2]}
	for range 12 {
		qs = append(qs, g.next().Text)
	}
	// Turns of the memory itself, as a live chat's query is.
	for i := 0; i < len(m.turns); i += max(1, len(m.turns)/6) {
		qs = append(qs, m.turns[i].Text)
	}
	return qs
}

func TestRankingMatchesExhaustive(t *testing.T) {
	shapes := rankShapes(t)
	// The defaults; then every query searched, as a long conversation's
	// are; then searches so shallow that fills go deeper, score stretches
	// one by one and fall back to scoring every posting.
	d := defaults
	for _, depth := range [][3]int{{d.firstK, d.maxK, d.smallQuery}, {d.firstK, d.maxK, 0}, {1, 4, 0}, {2, 1 << 30, 0}} {
		for name, m := range shapes {
			t.Run(fmt.Sprintf("%s/k=%d-%d-%d", name, depth[0], depth[1], depth[2]), func(t *testing.T) {
				m.tune.firstK, m.tune.maxK, m.tune.smallQuery = depth[0], depth[1], depth[2]
				testRanking(t, m)
			})
		}
	}
}

func testRanking(t *testing.T, m *Memory) {
	n := len(m.turns)
	r := rand.New(rand.NewPCG(7, uint64(n)))
	for qi, query := range rankQueries(m, uint64(len(m.str))) {
		want := exhaustive(m, query)
		rk := bm25Ranker{}.ranking(m, query)
		for s := range m.str {
			require.Equal(t, want[s], rk.score(s), "score of stretch %d, query %d", s, qi)
		}
		uptos := []int{n, n - 1, n - 2, r.IntN(n + 1), r.IntN(n + 1)}
		rooms := []int{20000, 16000, 5000, 1200, 600, 100, r.IntN(30000), r.IntN(2000)}
		for _, upto := range uptos {
			for _, room := range rooms {
				for _, limit := range []int{0, m.tune.judged} {
					rk := bm25Ranker{}.ranking(m, query)
					keys, picked := rk.choose(upto, room, limit)
					wk, wp := chooseReference(m, want, upto, room, limit)
					require.Equal(t, wp, picked, "picked: query %d upto %d room %d limit %d", qi, upto, room, limit)
					if limit == 0 {
						require.Equal(t, wk, keys, "keys: query %d upto %d room %d", qi, upto, room)
					}
				}
			}
		}
	}
}

// TestBestIsTopK checks the pruned searches alone, by own scores and by
// full ones, against a sort of every stretch, at depths from one to past
// the number of stretches.
func TestBestIsTopK(t *testing.T) {
	for name, m := range rankShapes(t) {
		t.Run(name, func(t *testing.T) {
			for _, query := range rankQueries(m, 3) {
				testBest(t, m, query, exhaustiveOwn(m, query), func(lim, room, k int) ([]hit, bool) {
					fits := func(u int32) bool { return int(u) < lim && m.str[u].size <= room }
					return m.ix.best(m.ix.prepare(query), k, 1, fits, nil)
				})
				testBest(t, m, query, exhaustive(m, query), func(lim, room, k int) ([]hit, bool) {
					rk := bm25Ranker{}.ranking(m, query)
					return rk.bestSpread(lim, room, k, nil)
				})
			}
		})
	}
}

func testBest(t *testing.T, m *Memory, query string, want []float64, best func(lim, room, k int) ([]hit, bool)) {
	lim := len(m.str) - 1
	for _, room := range []int{1 << 30, 1100, 400} {
		var all []hit
		for s := 0; s < lim; s++ {
			if want[s] > 0 && m.str[s].size <= room {
				all = append(all, hit{s, want[s]})
			}
		}
		sortHits(all)
		for _, k := range []int{1, 2, 3, 8, 48, 500, len(all) + 1} {
			got, complete := best(lim, room, k)
			wantK := all[:min(k, len(all))]
			require.Equal(t, fmt.Sprint(wantK), fmt.Sprint(got), "query %q k %d room %d", query, k, room)
			if len(all) < k {
				require.True(t, complete, "fewer than k %d found, so all were", k)
			} else if len(all) > k {
				require.False(t, complete, "more than k %d exist", k)
			}
			require.True(t, slices.IndexFunc(m.ix.acc, func(a float64) bool { return a != 0 }) < 0, "scratch left dirty")
		}
	}
}
