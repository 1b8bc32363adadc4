package postgres

import (
	"testing"
	"time"

	"github.com/byheart/byheart/store"

	"github.com/byheart/byheart/store/storetest"
)

// BenchmarkStore runs the store benchmarks (see storetest.Benchmark) on
// the server BYHEART_POSTGRES_URL names, in a schema of its own.
func BenchmarkStore(b *testing.B) {
	serverURL(b)
	storetest.Benchmark(b, newStore)
}

// BenchmarkConcurrent runs storetest.Concurrent on the server: 1 to 256
// conversations served at once.
func BenchmarkConcurrent(b *testing.B) {
	serverURL(b)
	storetest.Concurrent(b, newStore, flushes)
}

// flushes reads the server's count of write-ahead-log flushes before the
// timed requests, and reports after them how many saves (one a request)
// shared a flush: PostgreSQL's own grouping of concurrent commits. The
// count is the whole server's, so nothing else should run on it.
func flushes(tb testing.TB, st store.Store) func(*testing.B) {
	db := st.(*Store).DB()
	read := func() (syncs float64) {
		// Statistics reach the views when backends flush them, at most a
		// second late.
		time.Sleep(1100 * time.Millisecond)
		if _, err := db.Exec("SELECT pg_stat_clear_snapshot()"); err != nil {
			tb.Fatal(err)
		}
		if err := db.QueryRow(`SELECT wal_sync FROM pg_stat_wal`).Scan(&syncs); err != nil {
			tb.Fatal(err)
		}
		return syncs
	}
	s0 := read()
	return func(b *testing.B) {
		if s1 := read(); s1 > s0 {
			b.ReportMetric(float64(b.N)/(s1-s0), "saves/flush")
		}
	}
}
