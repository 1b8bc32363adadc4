//go:build !linux

package byheart

import "time"

// threadCPU is not measured here: see bench_linux_test.go.
func threadCPU() (time.Duration, bool) { return 0, false }
