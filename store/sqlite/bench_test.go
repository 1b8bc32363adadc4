package sqlite

import (
	"testing"

	"github.com/byheart/byheart/store/storetest"
)

// BenchmarkStore runs the store benchmarks (see storetest.Benchmark) on a
// SQLite file in a temporary directory.
func BenchmarkStore(b *testing.B) {
	storetest.Benchmark(b, newStore)
}
