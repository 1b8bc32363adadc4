//go:build race

package byheart

// raceEnabled is set under the race detector, which empties sync.Pool at
// random, so allocation counts that rely on the pool do not hold there.
const raceEnabled = true
