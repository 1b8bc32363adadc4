package main

import (
	"math"
	"slices"
	"time"
)

// latencies collects how long the core's calls took. Each conversation's job
// keeps its own, merged afterwards, so no lock sits inside the timed region.
type latencies struct {
	composes, appends []sample
}

// sample is one timed call and the number of turns the memory held then.
type sample struct {
	turns int
	took  time.Duration
}

func (l *latencies) merge(o *latencies) {
	l.composes = append(l.composes, o.composes...)
	l.appends = append(l.appends, o.appends...)
}

// historyBuckets bound the history lengths latency is broken down by, to show
// how the cost of a call grows with the conversation.
var historyBuckets = []int{100, 250, 500}

// latencySummary is the spread of one kind of call.
type latencySummary struct {
	Calls  int     `json:"calls"`
	Median float64 `json:"median_us"`
	P99    float64 `json:"p99_us"`
	Max    float64 `json:"max_us"`
}

// latencyGrowth is the median latency of calls made on histories of one
// length range.
type latencyGrowth struct {
	FromTurns int            `json:"from_turns"`
	ToTurns   int            `json:"to_turns"` // exclusive; 0 means no upper bound
	Compose   latencySummary `json:"compose"`
	Append    latencySummary `json:"append"`
}

// speedResult is the speed section.
type speedResult struct {
	Compose  latencySummary  `json:"compose"`
	Append   latencySummary  `json:"append"`
	Growth   []latencyGrowth `json:"growth"`
	Sections []sectionTime   `json:"sections"`
	Seconds  float64         `json:"program_seconds"`
}

type sectionTime struct {
	Section string  `json:"section"`
	Seconds float64 `json:"seconds"`
}

func summarize(samples []sample) latencySummary {
	ds := make([]time.Duration, len(samples))
	for i, s := range samples {
		ds[i] = s.took
	}
	slices.Sort(ds)
	return latencySummary{Calls: len(ds), Median: quantile(ds, 0.5), P99: quantile(ds, 0.99), Max: quantile(ds, 1)}
}

// quantile is the nearest-rank quantile of sorted durations, in microseconds.
func quantile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := max(0, min(int(math.Ceil(q*float64(len(sorted))))-1, len(sorted)-1))
	return float64(sorted[rank]) / float64(time.Microsecond)
}

// growth breaks latency down by history length.
func growth(l *latencies) []latencyGrowth {
	var out []latencyGrowth
	from := 0
	for i := 0; i <= len(historyBuckets); i++ {
		to := 0
		if i < len(historyBuckets) {
			to = historyBuckets[i]
		}
		in := func(s sample) bool { return s.turns >= from && (to == 0 || s.turns < to) }
		c, a := filter(l.composes, in), filter(l.appends, in)
		if len(c)+len(a) > 0 {
			out = append(out, latencyGrowth{FromTurns: from, ToTurns: to, Compose: summarize(c), Append: summarize(a)})
		}
		from = to
	}
	return out
}

func filter(samples []sample, keep func(sample) bool) []sample {
	var out []sample
	for _, s := range samples {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}
