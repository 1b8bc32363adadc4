package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/storetest"
)

// BenchmarkStore runs the store benchmarks (see storetest.Benchmark) on a
// SQLite file in a temporary directory.
func BenchmarkStore(b *testing.B) {
	storetest.Benchmark(b, newStore)
}

// BenchmarkStoreRelaxed runs them with Options.Relaxed: no flush to disk
// on each save.
func BenchmarkStoreRelaxed(b *testing.B) {
	storetest.Benchmark(b, relaxed)
}

func relaxed(b testing.TB) store.Store {
	st, err := Open(context.Background(), filepath.Join(b.TempDir(), "byheart.db"), Options{Relaxed: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// BenchmarkConcurrent runs storetest.Concurrent on a SQLite file: 1 to 256
// conversations served at once.
func BenchmarkConcurrent(b *testing.B) {
	storetest.Concurrent(b, newStore, nil)
}

// BenchmarkConcurrentRelaxed runs it with Options.Relaxed: no flush on
// each commit, the most that sharing flushes could buy.
func BenchmarkConcurrentRelaxed(b *testing.B) {
	storetest.Concurrent(b, relaxed, nil)
}
