package main

import (
	"testing"

	"github.com/byheart/byheart/internal/recall"
)

func TestRun(t *testing.T) {
	recall.CheckRun(t, run, "| adk-go in-memory", "| byheart `byheartadk.MemoryService` | **1.000** |")
}
