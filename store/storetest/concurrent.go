package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// Concurrency is the numbers of conversations BenchmarkConcurrent serves
// at once.
var Concurrency = []int{1, 8, 64, 256}

// concurrentTurns is how long each conversation is when the run starts.
const concurrentTurns = 200

// Concurrent measures a chat server's request with many conversations at
// once, one client each, all in one process: catch up (Cache.Open, one
// small read), append the user's turn, compose, append the reply, save
// under the request's id. It reports requests a second, p50 and p99 in
// milliseconds at each of Concurrency. measure, when not nil, is called
// on each store just before the timed requests and returns what reports,
// just after them, what the database did meanwhile (its flushes).
func Concurrent(b *testing.B, open func(testing.TB) store.Store, measure func(testing.TB, store.Store) func(*testing.B)) {
	for _, n := range Concurrency {
		b.Run(fmt.Sprintf("conversations=%d", n), func(b *testing.B) {
			st := open(b)
			ctx := context.Background()
			seed := Chat(77, concurrentTurns)
			m := byheart.New(opts)
			for _, turn := range seed {
				if _, err := m.AppendTurn(turn); err != nil {
					b.Fatal(err)
				}
			}
			changes, err := m.Since(0, 0)
			if err != nil {
				b.Fatal(err)
			}
			cache := store.NewCache(st, opts, n)
			scopes := make([]store.Scope, n)
			for i := range scopes {
				scopes[i] = store.Scope{Tenant: "load", User: fmt.Sprint("u", i), Conversation: "c"}
				if _, err := st.Save(ctx, scopes[i], store.Position{}, changes, ""); err != nil {
					b.Fatal(err)
				}
				c, err := cache.Open(ctx, scopes[i])
				if err != nil {
					b.Fatal(err)
				}
				cache.Done(c)
			}
			next := Chat(78, 64)
			var done atomic.Int64
			took := make([][]time.Duration, n)
			var wg sync.WaitGroup
			report := func(*testing.B) {}
			if measure != nil {
				report = measure(b, st)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := done.Add(1); k <= int64(b.N); k = done.Add(1) {
						q, a := next[2*(int(k)%32)], next[2*(int(k)%32)+1]
						t0 := time.Now()
						if err := serve(ctx, cache, scopes[i], q, a, fmt.Sprint("req-", k)); err != nil {
							b.Error(err)
							return
						}
						took[i] = append(took[i], time.Since(t0))
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			var all []time.Duration
			for _, t := range took {
				all = append(all, t...)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
			reportPercentiles(b, all)
			report(b)
		})
	}
}

// serve is one request of a chat server.
func serve(ctx context.Context, cache *store.Cache, scope store.Scope, q, a byheart.Turn, id string) error {
	c, err := cache.Open(ctx, scope)
	if err != nil {
		return err
	}
	q.Role, a.Role = byheart.User, byheart.Assistant
	q.Tool, q.CallID, q.Source, a.Tool, a.CallID, a.Source = "", "", byheart.Source{}, "", "", byheart.Source{}
	if _, err := c.Memory.AppendTurn(q); err != nil {
		return err
	}
	if _, err := c.Memory.Compose(ctx, q.Text); err != nil {
		return err
	}
	if _, err := c.Memory.AppendTurn(a); err != nil {
		return err
	}
	if err := c.SaveAs(ctx, id); err != nil {
		return err
	}
	cache.Done(c)
	return nil
}
