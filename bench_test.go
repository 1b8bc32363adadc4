package byheart

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// synth is a deterministic synthetic conversation: two speakers, a topic
// that drifts every few dozen turns, words drawn from a Zipf-distributed
// vocabulary of a few thousand pseudo-words plus English function words,
// numbers and dates, and time moving on by minutes within a session and by
// days between sessions. The same seed always gives the same conversation.
type synth struct {
	r      *rand.Rand
	zipf   *rand.Zipf
	vocab  []string
	topics [][]string
	topic  int
	left   int // turns before the topic moves on
	n      int
	when   time.Time
}

var synthFunction = strings.Fields(`the a and we I you it was is to of in on for that
	with about so but then just really think remember said told going did have had
	my your our this there what when how yes no maybe well`)

var synthSyllables = strings.Fields(`ka lo mi ren tas vo shi dor bel na qua pel gri sto
	ful ard win ex tre mon zu pha cor lin dra ves olo tum bri sen gal hen rak`)

func newSynth(seed uint64) *synth {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	g := &synth{r: r, when: time.Date(2023, time.January, 2, 9, 0, 0, 0, time.UTC)}
	seen := map[string]bool{}
	for len(g.vocab) < 5000 {
		var b strings.Builder
		for k := 2 + r.IntN(3); k > 0; k-- {
			b.WriteString(synthSyllables[r.IntN(len(synthSyllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			g.vocab = append(g.vocab, w)
		}
	}
	g.zipf = rand.NewZipf(r, 1.1, 2, uint64(len(g.vocab)-1))
	g.topics = make([][]string, 300)
	for i := range g.topics {
		for k := 0; k < 12; k++ {
			g.topics[i] = append(g.topics[i], g.vocab[r.IntN(len(g.vocab))])
		}
	}
	return g
}

// next returns the next turn of the conversation.
func (g *synth) next() (Role, string, time.Time) {
	r := g.r
	if g.left <= 0 {
		g.topic = r.IntN(len(g.topics))
		g.left = 20 + r.IntN(40)
		if r.IntN(3) == 0 { // a new session
			g.when = g.when.AddDate(0, 0, 1+r.IntN(10))
		}
	}
	g.left--
	g.when = g.when.Add(time.Duration(1+r.IntN(5)) * time.Minute)
	words := 4 + r.IntN(40)
	if r.IntN(20) == 0 {
		words += 100
	}
	var b strings.Builder
	for i := 0; i < words; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch x := r.IntN(100); {
		case x < 30:
			b.WriteString(synthFunction[r.IntN(len(synthFunction))])
		case x < 60:
			t := g.topics[g.topic]
			b.WriteString(t[r.IntN(len(t))])
		case x < 62:
			fmt.Fprintf(&b, "%d", r.IntN(3000))
		case x < 63:
			b.WriteString(g.when.AddDate(0, 0, -r.IntN(60)).Format("2 January"))
		default:
			b.WriteString(g.vocab[g.zipf.Uint64()])
		}
	}
	role := roleOf(g.n)
	g.n++
	return role, b.String(), g.when
}

type synthTurn struct {
	role Role
	text string
	when time.Time
}

func (g *synth) take(n int) []synthTurn {
	out := make([]synthTurn, n)
	for i := range out {
		out[i].role, out[i].text, out[i].when = g.next()
	}
	return out
}

var benchSizes = []int{1_000, 10_000, 100_000}

// bench is a memory of n synthetic turns with default options that a
// benchmark extends turn by turn. So that the figures belong to n turns and
// not to however many b.Loop ran, the memory is restored, off the timer,
// from a snapshot at n turns whenever a tenth of n has been appended.
type bench struct {
	b     *testing.B
	m     *Memory
	snap  []byte
	next  []synthTurn // the turns that follow the first n
	every int
	i     int
}

func newBench(b *testing.B, n int) *bench {
	b.Helper()
	g := newSynth(42)
	m := New(Options{})
	for _, t := range g.take(n) {
		if _, err := m.AppendAt(t.role, t.text, t.when); err != nil {
			b.Fatal(err)
		}
	}
	next := g.take(n / 10)
	if _, err := m.Compose(context.Background(), next[len(next)-1].text); err != nil {
		b.Fatal(err) // a warm memory: the selection is built before timing
	}
	snap, err := m.ToJSON()
	if err != nil {
		b.Fatal(err)
	}
	return &bench{b: b, m: m, snap: snap, next: next, every: len(next)}
}

// turn returns the next turn to append, restoring the memory first when a
// window is used up.
func (x *bench) turn() synthTurn {
	if x.i == x.every {
		x.b.StopTimer()
		m, err := FromJSON(x.snap, Options{})
		if err != nil {
			x.b.Fatal(err)
		}
		// A restored memory's slices are exactly full; give them the room a
		// memory that grew to n turns would have, so the first append of
		// each window does not pay for copying the whole history.
		m.turns = slices.Grow(m.turns, x.every)
		m.str = slices.Grow(m.str, x.every)
		x.m, x.i = m, 0
		runtime.GC() // the discarded memory's garbage is not the next window's cost
		x.b.StartTimer()
	}
	t := x.next[x.i]
	x.i++
	return t
}

// BenchmarkAppend appends one turn to a conversation of 1k, 10k and 100k
// turns.
func BenchmarkAppend(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			x := newBench(b, n) // b.Loop runs this body once
			b.ReportAllocs()
			for b.Loop() {
				t := x.turn()
				if _, err := x.m.AppendAt(t.role, t.text, t.when); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompose is the live path on a warm memory: each iteration
// appends the user's newest message and composes with it as the query.
func BenchmarkCompose(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			x := newBench(b, n)
			b.ReportAllocs()
			for b.Loop() {
				t := x.turn()
				if _, err := x.m.AppendAt(User, t.text, t.when); err != nil {
					b.Fatal(err)
				}
				if _, err := x.m.Compose(ctx, t.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
