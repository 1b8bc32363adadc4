//go:build !race

package byheart

// raceEnabled is set under the race detector; see timeanchor_race_test.go.
const raceEnabled = false
