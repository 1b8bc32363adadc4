package byheart

// Speed benchmarks. byheart runs on every model call, often in a stateless
// server that loads the memory, appends, composes and saves, so these measure
// those steps on conversations of realistic shape (see chatGen) and, when the
// file is there, on LoCoMo's dev conversations:
//
//	go test -run '^$' -bench 'Live|Cold|ToJSON|Annotate|Score' -benchmem -count 6 .
//
// (BenchmarkAnnotate, the annotation of a typical turn, is in
// timeanchor_test.go.)
//
// BenchmarkHeapPerTurn reports the heap a memory retains per turn against
// the turn's text, and BenchmarkServerHeld what many held at once retain;
// run them with -benchtime 1x. BenchmarkAgentStep appends, saves and loads
// one agent step of 10 to 10,000 tool calls. BenchmarkExpiring is the call
// that judges 1,000 or 16,000 turns expired at once, and
// BenchmarkOutsideExpired weighs 200 outside items against 10,000 expired
// turns.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byheart/byheart/internal/locomo"
)

// snapshots caches a memory's JSON by conversation length, so -count and the
// benchmark framework's b.N probing build each conversation once.
var snapshots sync.Map // int -> []byte

// snapshot returns ToJSON of a default memory holding the first n turns of
// the benchmark chat, sticky selection included (built by a live replay of
// its last turns, as a server's memory would be).
func snapshot(b *testing.B, n int) []byte {
	if v, ok := snapshots.Load(n); ok {
		return v.([]byte)
	}
	turns := chat(1, n)
	m := New(Options{})
	ctx := context.Background()
	for i, t := range turns {
		if _, err := m.AppendAt(t.Role, t.Text, t.Time); err != nil {
			b.Fatal(err)
		}
		if i >= n-40 {
			if _, err := m.Compose(ctx, t.Text); err != nil {
				b.Fatal(err)
			}
		}
	}
	data, err := m.ToJSON()
	if err != nil {
		b.Fatal(err)
	}
	snapshots.Store(n, data)
	return data
}

func restore(b *testing.B, data []byte) *Memory {
	m, err := FromJSON(data, Options{})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// latency records each operation's duration, so a benchmark can report the
// median and p99 beside the mean that ns/op is: the live turn's targets are
// medians, and a rebuild now and then shows in the p99, not the median.
// Where the thread's CPU time can be read (see threadCPU), it records that
// too, and reports its median and p99 as p50-cpu-ns and p99-cpu-ns: on a
// machine shared with other work, the wall time's p99 is mostly the time a
// call waited for a core.
type latency struct{ took, cpu []time.Duration }

// time runs op and records how long it took.
func (l *latency) time(op func()) {
	cpu, ok := threadCPU()
	start := time.Now()
	op()
	l.took = append(l.took, time.Since(start))
	if end, ok2 := threadCPU(); ok && ok2 {
		l.cpu = append(l.cpu, end-cpu)
	}
}

func (l *latency) report(b *testing.B) {
	at := func(took []time.Duration, q float64) float64 {
		return float64(took[min(len(took)-1, int(q*float64(len(took))))].Nanoseconds())
	}
	if len(l.took) > 0 {
		slices.Sort(l.took)
		b.ReportMetric(at(l.took, 0.5), "p50-ns")
		b.ReportMetric(at(l.took, 0.99), "p99-ns")
	}
	if len(l.cpu) > 0 {
		slices.Sort(l.cpu)
		b.ReportMetric(at(l.cpu, 0.5), "p50-cpu-ns")
		b.ReportMetric(at(l.cpu, 0.99), "p99-cpu-ns")
	}
}

// liveSizes are the conversation lengths the live turn is measured at.
var liveSizes = []int{600, 10_000, 100_000}

// live hands out, one by one, the turns of the benchmark chat that follow
// its first n, to a memory of those n turns restored from their snapshot.
// Whenever window turns have been used it restores the memory again, off
// the clock, so the figures belong to n turns and not to however many b.N
// ran.
type live struct {
	b    *testing.B
	data []byte
	opts Options
	next []Turn
	m    *Memory
	k    int
	// grow gives each restored memory room for window more turns, as a
	// memory that grew to n turns would have (a restored one is exactly
	// full, and its first append would copy the whole history), and
	// collects the discarded memory's garbage off the clock: an append is
	// cheap enough for either to dominate it.
	grow bool
}

func newLive(b *testing.B, n, window int, opts Options, grow bool) *live {
	l := &live{b: b, data: snapshot(b, n), opts: opts, grow: grow}
	// The turns that follow the snapshot's, so times and sittings go on as
	// they would.
	l.next = chat(1, n+window)[n:]
	l.reload()
	return l
}

func (l *live) reload() {
	m, err := FromJSON(l.data, l.opts)
	if err != nil {
		l.b.Fatal(err)
	}
	if l.grow {
		m.turns = slices.Grow(m.turns, len(l.next))
		m.str = slices.Grow(m.str, len(l.next))
	}
	l.m, l.k = m, 0
}

// turn returns the next turn to append.
func (l *live) turn() Turn {
	if l.k == len(l.next) {
		l.b.StopTimer()
		l.reload()
		if l.grow {
			runtime.GC()
		}
		l.b.StartTimer()
	}
	l.k++
	return l.next[l.k-1]
}

// BenchmarkLiveTurn is one turn of a live chat on the default options:
// append the turn, then compose with it as the query. The memory holds n
// turns; every few operations it is restored from its snapshot, so it stays
// within a few percent of n.
func BenchmarkLiveTurn(b *testing.B) { benchLiveTurn(b, Options{}) }

// BenchmarkLiveTurnFresh is the live turn with Stability -1: a fresh
// selection on every call, the most a composition can cost.
func BenchmarkLiveTurnFresh(b *testing.B) { benchLiveTurn(b, Options{Stability: -1}) }

func benchLiveTurn(b *testing.B, opts Options) {
	ctx := context.Background()
	for _, n := range liveSizes {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			runtime.LockOSThread() // so the thread's CPU time is the calls'
			defer runtime.UnlockOSThread()
			l := newLive(b, n, max(32, n/100), opts, false)
			var lat latency
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				t := l.turn()
				lat.time(func() {
					if _, err := l.m.AppendAt(t.Role, t.Text, t.Time); err != nil {
						b.Fatal(err)
					}
					if _, err := l.m.Compose(ctx, t.Text); err != nil {
						b.Fatal(err)
					}
				})
			}
			lat.report(b)
		})
	}
}

// BenchmarkAppend appends one turn to a warm memory of n turns. A window is
// a tenth of n, so that restoring, off the clock, stays a small share of
// the run.
func BenchmarkAppend(b *testing.B) {
	for _, n := range liveSizes {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			l := newLive(b, n, max(32, n/10), Options{}, true)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				t := l.turn()
				if _, err := l.m.AppendAt(t.Role, t.Text, t.Time); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkColdStart is a stateless server's first call: FromJSON of a
// LoCoMo-sized memory (600 turns, about 80,000 characters) and the first
// Compose.
func BenchmarkColdStart(b *testing.B) {
	data := snapshot(b, 600)
	query := chat(1, 601)[600].Text
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	timeEach(b, nil, func() {
		m := restore(b, data)
		if _, err := m.Compose(ctx, query); err != nil {
			b.Fatal(err)
		}
	})
}

// timeEach runs op b.N times, locked to its thread, each time after
// prepare (when not nil) off the clock, and reports the latencies of the
// calls (see latency) beside the mean.
func timeEach(b *testing.B, prepare, op func()) {
	runtime.LockOSThread() // so the thread's CPU time is the calls'
	defer runtime.UnlockOSThread()
	var lat latency
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if prepare != nil {
			b.StopTimer()
			prepare()
			b.StartTimer()
		}
		lat.time(op)
	}
	lat.report(b)
}

// BenchmarkToJSON saves a memory, as a stateless server does after each call.
func BenchmarkToJSON(b *testing.B) {
	for _, n := range []int{600, 10_000} {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			m := restore(b, snapshot(b, n))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := m.ToJSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScore is the hot scoring loop alone: BM25 over the posting
// lists of a query's terms on a 10,000-turn memory, the open stretch
// included. It must not allocate.
func BenchmarkScore(b *testing.B) {
	m := restore(b, snapshot(b, 10_000))
	query := chat(1, 10_001)[10_000].Text
	q := m.ix.queryTerms(query, false)
	c := m.ix.corpus(nil)
	scores := make([]float64, len(m.ix.slots))
	touched := make([]int32, 0, len(m.ix.slots))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_, touched = m.ix.score(c, q, scores, touched[:0])
		for _, s := range touched {
			scores[s] = 0
		}
	}
}

// BenchmarkAsksAboutAnswers reads the labelled questions of
// testdata/asked.json, one a call, and a long query (a question after a
// pasted file). It must not allocate.
func BenchmarkAsksAboutAnswers(b *testing.B) {
	qs := loadAskedQuestions(b)
	long := strings.Repeat("func (s *Server) handle(w http.ResponseWriter, r *http.Request) { // the retry loop\n", 100) +
		"Why does this panic? Is it the fix you suggested?"
	b.Run("question", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			asksAboutAnswers(qs[i%len(qs)].Text)
		}
	})
	b.Run("long", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(long)))
		for range b.N {
			asksAboutAnswers(long)
		}
	})
}

// BenchmarkSearch is the pruned search a keep check runs on a
// 100,000-turn memory: the 3 best stretches for a live turn, by full
// score (own plus the neighbour share). Its scratch is reused, so it must
// not allocate either.
func BenchmarkSearch(b *testing.B) {
	m := restore(b, snapshot(b, 100_000))
	var queries []string
	for _, t := range chat(1, 100_008)[100_000:] {
		queries = append(queries, t.Text)
	}
	buf := make([]hit, 0, 64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		rk := bm25Ranker{}.ranking(&m.state, queries[i%len(queries)])
		buf, _ = rk.bestSpread(len(m.str)-2, 16000, m.tune.judged, buf[:0])
	}
}

// locomoConv is one LoCoMo conversation as the benchmarks use it.
type locomoConv struct {
	turns     []Turn
	questions []string
}

// loadLoCoMo reads the LoCoMo dev file as the benchmark program does:
// speaker_a is the user, each session's turns at its date, a shared image's
// caption after the text. The file is $BYHEART_LOCOMO, or shared/locomo
// beside the repository, never a copy inside it; when it is not there,
// loadLoCoMo returns no conversations and the path it looked at.
func loadLoCoMo() ([]locomoConv, string, error) {
	path := os.Getenv("BYHEART_LOCOMO")
	if path == "" {
		path = filepath.Join("..", "shared", "locomo", "locomo-dev.json")
	}
	ds, err := locomo.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	if err != nil {
		return nil, path, err
	}
	var out []locomoConv
	for _, c := range ds.Convs {
		var lc locomoConv
		for _, t := range c.Turns {
			role := Assistant
			if t.ByA {
				role = User
			}
			lc.turns = append(lc.turns, Turn{Role: role, Text: t.Text, Time: t.When})
		}
		for _, q := range c.Questions {
			lc.questions = append(lc.questions, q.Text)
		}
		out = append(out, lc)
	}
	return out, path, nil
}

// BenchmarkLoCoMo runs on the LoCoMo dev conversations when the file is
// beside the repository: "replay" appends each turn in order and composes
// with each user turn (the benchmark program's live replay, one call per
// op); "cold-start" restores a whole conversation and answers one of its
// questions; "question" composes a question on a warm memory.
func BenchmarkLoCoMo(b *testing.B) {
	convs, path, err := loadLoCoMo()
	if err != nil {
		b.Fatal(err)
	}
	if convs == nil {
		b.Skip("no LoCoMo dev file at " + path)
	}
	ctx := context.Background()
	b.Run("replay", func(b *testing.B) {
		var m *Memory
		c, t := 0, 0
		b.ReportAllocs()
		for range b.N {
			if m == nil || t == len(convs[c].turns) {
				if m != nil {
					c, t = (c+1)%len(convs), 0
				}
				m = New(Options{})
			}
			turn := convs[c].turns[t]
			t++
			if _, err := m.AppendAt(turn.Role, turn.Text, turn.Time); err != nil {
				b.Fatal(err)
			}
			if turn.Role == User {
				if _, err := m.Compose(ctx, turn.Text); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	saved := make([][]byte, len(convs))
	warm := make([]*Memory, len(convs))
	for i, c := range convs {
		m := New(Options{Stability: -1})
		fillTurns(m, c.turns)
		if saved[i], err = m.ToJSON(); err != nil {
			b.Fatal(err)
		}
		warm[i] = m
	}
	b.Run("cold-start", func(b *testing.B) {
		runtime.LockOSThread() // so the thread's CPU time is the calls'
		defer runtime.UnlockOSThread()
		var lat latency
		b.ReportAllocs()
		for i := range b.N {
			c := i % len(convs)
			lat.time(func() {
				m, err := FromJSON(saved[c], Options{Stability: -1})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.Compose(ctx, convs[c].questions[i%len(convs[c].questions)]); err != nil {
					b.Fatal(err)
				}
			})
		}
		lat.report(b)
	})
	b.Run("question", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			c := i % len(convs)
			if _, err := warm[c].Compose(ctx, convs[c].questions[(i/len(convs))%len(convs[c].questions)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHeapPerTurn builds a 100,000-turn memory, composes once (so the
// per-query scratch is there too) and reports the heap it retains per turn,
// the turns' own text included, against the text's bytes. The texts are
// allocated at their size, as decoded requests are. Run it with
// -benchtime 1x; the timing itself means little.
func BenchmarkHeapPerTurn(b *testing.B) {
	const n = 100_000
	for range b.N {
		g := newChatGen(1)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := New(Options{})
		text := 0
		for range n {
			t := g.next()
			text += len(t.Text)
			if _, err := m.AppendAt(t.Role, t.Text, t.Time); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := m.Compose(context.Background(), g.next().Text); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		runtime.KeepAlive(m)
		runtime.KeepAlive(g)
		b.ReportMetric(heap/n, "heap-B/turn")
		b.ReportMetric(float64(text)/n, "text-B/turn")
		b.ReportMetric(heap/float64(text), "heap/text")
	}
}

// BenchmarkServerHeld is a server holding many conversations warm at once:
// n conversations of the given length, each restored from a save of the
// benchmark chat (so each holds its own copy of the texts, as decoded
// requests would) and composed once, so its query scratch is there too.
// It reports the heap they retain per conversation and per turn, the
// texts included; the time to bring one back from a store is
// BenchmarkStore's load in store/sqlite. Run it with -benchtime 1x.
func BenchmarkServerHeld(b *testing.B) {
	for _, c := range []struct{ convs, turns int }{{1000, 600}, {100, 10_000}} {
		b.Run(fmt.Sprintf("convs=%d/turns=%d", c.convs, c.turns), func(b *testing.B) {
			data := snapshot(b, c.turns)
			query := chat(1, c.turns+1)[c.turns].Text
			ctx := context.Background()
			for range b.N {
				held := make([]*Memory, c.convs)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				for i := range held {
					held[i] = restore(b, data)
					if _, err := held[i].Compose(ctx, query); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
				runtime.KeepAlive(held)
				b.ReportMetric(heap/float64(c.convs), "heap-B/conv")
				b.ReportMetric(heap/float64(c.convs*c.turns), "heap-B/turn")
			}
		})
	}
}

// BenchmarkComposeLongInputs composes on a 3,000-turn memory with a query,
// or an outside item, of n distinct words, to show the work growing in
// proportion to n (ns/word stays flat) rather than with its square. The
// query's words are all the conversation's (a pasted list of ids it holds);
// the item's are new to it.
func BenchmarkComposeLongInputs(b *testing.B) {
	words := func(prefix string, n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("%s%x", prefix, i*2654435761%(1<<32))
		}
		return strings.Join(s, " ")
	}
	turns := append(chat(2, 3000), Turn{Role: User, Text: words("x", 32000)})
	for _, n := range []int{8000, 32000} {
		for _, kind := range []string{"query", "item"} {
			b.Run(fmt.Sprintf("%s/words=%d", kind, n), func(b *testing.B) {
				opts := Options{Budget: 5000}
				query := words("x", n)
				if kind == "item" {
					query = "what about the weather?"
					item := []Item{{Text: words("y", n), Source: "paste"}}
					opts.External = ExternalFunc(func(context.Context, string) ([]Item, error) { return item, nil })
				}
				m := New(opts)
				fillTurns(m, turns)
				ctx := context.Background()
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if _, err := m.Compose(ctx, query); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/word")
			})
		}
	}
}

// BenchmarkLiveTurnExpiring is the live turn at 10,000 turns when every
// tenth turn expires half an hour after it was said, so most of them have
// expired and the newest have not: what judging expiry on every call
// costs, beside BenchmarkLiveTurn/turns=10000.
func BenchmarkLiveTurnExpiring(b *testing.B) {
	const n, window = 10_000, 100
	expiring := func(i int, t Turn) Turn {
		if i%10 == 0 {
			t.Expires = t.Time.Add(30 * time.Minute)
		}
		return t
	}
	turns := chat(1, n+window)
	m := New(Options{})
	for i, t := range turns[:n] {
		if _, err := m.AppendTurn(expiring(i, t)); err != nil {
			b.Fatal(err)
		}
	}
	// Saved after a call, as a server saves a memory: the save keeps the
	// clock that call judged the turns by, and a restore shows them so.
	ctx := context.Background()
	if _, err := m.Compose(ctx, turns[n-1].Text); err != nil {
		b.Fatal(err)
	}
	data, err := m.ToJSON()
	if err != nil {
		b.Fatal(err)
	}
	runtime.LockOSThread() // so the thread's CPU time is the calls'
	defer runtime.UnlockOSThread()
	var lat latency
	b.ReportAllocs()
	b.ResetTimer()
	for k := range b.N {
		if k%window == 0 {
			b.StopTimer()
			m = restore(b, data)
			b.StartTimer()
		}
		i := n + k%window
		lat.time(func() {
			if _, err := m.AppendTurn(expiring(i, turns[i])); err != nil {
				b.Fatal(err)
			}
			if _, err := m.Compose(ctx, turns[i].Text); err != nil {
				b.Fatal(err)
			}
		})
	}
	lat.report(b)
}

// agentStep is a conversation whose one agent step holds calls tool calls
// and their results, answered in an order that is not the calls' own.
func agentStep(calls int) []Turn {
	turns := []Turn{{Role: User, Text: "check every supplier's delivery status"}, {Role: Assistant, Text: "Checking each supplier."}}
	for i := range calls {
		turns = append(turns, Turn{Role: ToolCall, Tool: "lookup", CallID: fmt.Sprintf("call_%d", i), Text: fmt.Sprintf(`{"supplier":%d}`, i)})
	}
	for i := range calls {
		j := (i*7919 + calls/2) % calls // a permutation when calls is not a multiple of 7919
		turns = append(turns, Turn{Role: ToolResult, CallID: fmt.Sprintf("call_%d", j), Text: fmt.Sprintf("supplier %d ships on day %d", j, j%30),
			Source: Source{Name: "tool:lookup", Authenticated: true}})
	}
	return append(turns, Turn{Role: Assistant, Text: "All suppliers checked."})
}

// BenchmarkAgentStep is one agent step of 10, 1,000 and 10,000 tool calls
// with their results: appended live, read back by FromJSON, and restored
// from a store's rows (Restore). Each must cost in proportion to the step.
func BenchmarkAgentStep(b *testing.B) {
	for _, calls := range []int{10, 1_000, 10_000} {
		turns := agentStep(calls)
		build := func(b *testing.B) *Memory {
			m := New(Options{})
			for _, t := range turns {
				if _, err := m.AppendTurn(t); err != nil {
					b.Fatal(err)
				}
			}
			return m
		}
		b.Run(fmt.Sprintf("append/calls=%d", calls), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				build(b)
			}
		})
		b.Run(fmt.Sprintf("fromjson/calls=%d", calls), func(b *testing.B) {
			data, err := build(b).ToJSON()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				restore(b, data)
			}
		})
		b.Run(fmt.Sprintf("restore/calls=%d", calls), func(b *testing.B) {
			c, err := build(b).Since(0, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := Restore(c, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOutsideExpired composes on 10,000 turns with 200 outside items
// of about a thousand characters, every turn expired (expired) or none
// (kept): an item that quotes an expired turn whole is dropped, and
// finding which must not cost turns × items.
func BenchmarkOutsideExpired(b *testing.B) {
	const n, items = 10_000, 200
	turns, docs := chat(1, n), chat(2, 10*items)
	// Passages a source retrieved, every tenth quoting a turn.
	offered := make([]Item, items)
	for i := range offered {
		var text strings.Builder
		for _, t := range docs[10*i : 10*i+10] {
			text.WriteString(t.Text + " ")
		}
		if i%10 == 0 {
			text.WriteString("as noted: " + turns[i*37].Text)
		}
		offered[i] = Item{Text: text.String(), Source: fmt.Sprint("doc ", i)}
	}
	src := ExternalFunc(func(context.Context, string) ([]Item, error) { return offered, nil })
	for _, expired := range []bool{false, true} {
		b.Run(map[bool]string{false: "kept", true: "expired"}[expired], func(b *testing.B) {
			m := New(Options{External: src})
			for _, t := range turns {
				if expired {
					t.Expires = t.Time
				}
				if _, err := m.AppendTurn(t); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			query := turns[n-1].Text
			if _, err := m.Compose(ctx, query); err != nil {
				b.Fatal(err)
			}
			timeEach(b, nil, func() {
				if _, err := m.Compose(ctx, query); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkExpiring is the call that judges many turns expired at once,
// in the shapes of manyExpiring (1,000 and 16,000 turns), with every turn
// expiring (expired) and with none (kept): the one must cost in proportion
// to the other, not to the turns times their stretch.
func BenchmarkExpiring(b *testing.B) {
	for name, shape := range manyExpiring() {
		for _, expiring := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/%s", name, map[bool]string{false: "kept", true: "expired"}[expiring]), func(b *testing.B) {
				var judge func() // a call that judges them
				timeEach(b, func() { judge = shape(b, expiring) }, func() { judge() })
			})
		}
	}
}
