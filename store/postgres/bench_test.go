package postgres

import (
	"testing"

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
	storetest.Concurrent(b, newStore)
}
