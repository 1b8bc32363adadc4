package main

import (
	"testing"

	"github.com/byheart/byheart/internal/recall"
)

func TestRun(t *testing.T) {
	recall.CheckRun(t, run, "| tRPC-Agent-Go in-memory", "| byheart `byhearttrpc.MemoryService` | **1.000** |")
}
