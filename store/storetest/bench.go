package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// BenchSizes are the conversation lengths Benchmark runs at.
var BenchSizes = []int{600, 10_000}

// Benchmark measures, on stores that open returns, at each of BenchSizes
// turns:
//
//   - request: the stateless request: load the conversation, append the
//     user's turn, compose with it, append the reply, save;
//   - warm: the same request on a server that keeps the conversation in a
//     Cache, reading only what changed (here nothing: it is the only writer);
//   - load: the cold load alone, store.Open;
//   - json: today's alternative without a store, FromJSON of the whole
//     memory, the same appends and compose, ToJSON (no database I/O);
//   - memory: the appends and compose on a memory kept in memory, the
//     floor of every other.
//
// Each reports its median and 99th percentile beside the mean. The
// conversation is put back to its length, off the clock, every few
// requests, so the figures belong to that length.
func Benchmark(b *testing.B, open func(testing.TB) store.Store) {
	for _, n := range BenchSizes {
		bc := newBenchConv(b, n)
		st := open(b)
		for _, kind := range []string{"request", "warm", "load", "json", "memory"} {
			b.Run(fmt.Sprintf("%s/turns=%d", kind, n), func(b *testing.B) {
				bc.run(b, st, kind)
			})
		}
	}
}

// benchConv is a conversation of n turns and the turns that follow it.
type benchConv struct {
	n      int
	window int              // requests before the conversation is put back
	seed   byheart.Changes  // the n turns, their stretch starts and selection
	blob   []byte           // the same as ToJSON writes it
	next   [][]byheart.Turn // each request's two turns
}

func newBenchConv(b *testing.B, n int) *benchConv {
	window := max(16, n/50)
	turns := Chat(42, n+2*window+3)
	m := byheart.New(byheart.Options{})
	for i, t := range turns[:n] {
		if _, err := m.AppendTurn(t); err != nil {
			b.Fatal(err)
		}
		if i >= n-20 && t.Role == byheart.User {
			compose(b, m, t.Text)
		}
	}
	seed, err := m.Since(0, 0)
	if err != nil {
		b.Fatal(err)
	}
	blob, err := m.ToJSON()
	if err != nil {
		b.Fatal(err)
	}
	bc := &benchConv{n: n, window: window, seed: seed, blob: blob}
	// A request appends two turns, from a user turn on, so no request
	// starts inside a tool step.
	for i := n; len(bc.next) < window && i+1 < len(turns); {
		if turns[i].Role != byheart.User {
			i++
			continue
		}
		bc.next = append(bc.next, turns[i:i+2])
		i += 2
	}
	return bc
}

var benchScope = store.Scope{Tenant: "bench", User: "u", Conversation: "c"}

// reset stores the conversation as it was, off the clock.
func (bc *benchConv) reset(b *testing.B, st store.Store) {
	ctx := context.Background()
	if _, err := st.Delete(ctx, benchScope); err != nil && !errors.Is(err, store.ErrNotFound) {
		b.Fatal(err)
	}
	if _, err := st.Save(ctx, benchScope, store.Position{}, bc.seed, ""); err != nil {
		b.Fatal(err)
	}
}

func (bc *benchConv) run(b *testing.B, st store.Store, kind string) {
	ctx := context.Background()
	cache := store.NewCache(st, byheart.Options{}, 4)
	var mem *byheart.Memory
	var took []time.Duration
	k := len(bc.next)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if k == len(bc.next) {
			b.StopTimer()
			k = 0
			bc.reset(b, st)
			mem = bc.prime(b, st, cache, kind)
			b.StartTimer()
		}
		turns := bc.next[k]
		k++
		start := time.Now()
		switch kind {
		case "request":
			c, err := store.Open(ctx, st, benchScope, byheart.Options{})
			bc.request(b, c, err, turns)
		case "warm":
			c, err := cache.Open(ctx, benchScope)
			bc.request(b, c, err, turns)
			cache.Done(c)
		case "load":
			if _, err := store.Open(ctx, st, benchScope, byheart.Options{}); err != nil {
				b.Fatal(err)
			}
		case "json":
			m, err := byheart.FromJSON(bc.blob, byheart.Options{})
			if err != nil {
				b.Fatal(err)
			}
			exchange(b, m, turns)
			if _, err := m.ToJSON(); err != nil {
				b.Fatal(err)
			}
		case "memory":
			exchange(b, mem, turns)
		}
		took = append(took, time.Since(start))
	}
	reportPercentiles(b, took)
}

// prime readies what a kind keeps between requests: the cache's copy, or
// the memory kept in memory.
func (bc *benchConv) prime(b *testing.B, st store.Store, cache *store.Cache, kind string) *byheart.Memory {
	switch kind {
	case "warm":
		c, err := cache.Open(context.Background(), benchScope)
		if err != nil {
			b.Fatal(err)
		}
		cache.Done(c)
	case "memory":
		m, err := byheart.Restore(bc.seed, byheart.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	return nil
}

// request appends the exchange to an opened conversation and saves it.
func (bc *benchConv) request(b *testing.B, c *store.Conversation, err error, turns []byheart.Turn) {
	if err != nil {
		b.Fatal(err)
	}
	exchange(b, c.Memory, turns)
	if err := c.Save(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// exchange is the memory's part of a request: append the user's turn,
// compose with it, append the reply.
func exchange(b *testing.B, m *byheart.Memory, turns []byheart.Turn) {
	if _, err := m.AppendTurn(turns[0]); err != nil {
		b.Fatal(err)
	}
	compose(b, m, turns[0].Text)
	if _, err := m.AppendTurn(turns[1]); err != nil {
		b.Fatal(err)
	}
}

// reportPercentiles reports the median and 99th percentile in
// milliseconds.
func reportPercentiles(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	at := func(p float64) float64 {
		return float64(took[min(len(took)-1, int(p*float64(len(took))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
