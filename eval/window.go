package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/byheart/byheart/internal/locomo"
)

// Where the window ends: without byheart, a user sends the whole history
// with prompt caching, which on conversations of LoCoMo's length recalls
// everything at about half of plain RAG's bill, the context growing without
// bound. This section plays the live chat with questions on a history
// windowTimes as long, chained synthetic conversations, so the bill of each
// method can be read along the history.

// windowTimes is how many conversations of the synthetic data's length
// are chained, and windowSeed draws them (not the committed data's seed).
const (
	windowTimes = 10
	windowSeed  = synthSeed + 1
)

// windowMethods are compared along the long history.
var windowMethods = []method{byheartDefault, byheartFresh, fullHistory, plainRAG}

// windowRow is one method along the long history.
type windowRow struct {
	Method   string  `json:"method"`
	Recall14 float64 `json:"recall_1_4"`
	// Segments holds the effective tokens per call over each of the
	// windowTimes lengths of the history in turn.
	Segments []float64 `json:"effective_tokens_per_call_by_length"`
	Mean     float64   `json:"effective_tokens_per_call"`
	// MaxContextChars is the largest context the method sent.
	MaxContextChars int `json:"max_context_chars"`
}

// windowResult is the window section.
type windowResult struct {
	Budget    int         `json:"budget"`
	Turns     int         `json:"turns"`
	Chars     int         `json:"chars"`
	Questions int         `json:"questions"`
	Rows      []windowRow `json:"rows"`
}

// chained is windowTimes synthetic conversations played one after the
// other as one conversation, a week apart, each question's evidence
// pointing into it.
func chained() (*conversation, error) {
	var convs []*conversation
	for seed := uint64(windowSeed); len(convs) < windowTimes; seed++ {
		src, err := locomo.Parse(synthesizeFrom(seed))
		if err != nil {
			return nil, err
		}
		convs = append(convs, fromLoCoMo(src).Convs...)
	}
	long := &conversation{ID: fmt.Sprintf("%d chained", windowTimes)}
	var end time.Time
	session := 0
	for _, c := range convs[:windowTimes] {
		shift := time.Duration(0)
		if !end.IsZero() {
			shift = end.Add(7 * 24 * time.Hour).Sub(c.Turns[0].When)
		}
		base, sessions := len(long.Turns), 0
		for _, t := range c.Turns {
			t.When = t.When.Add(shift)
			sessions = max(sessions, t.Session+1)
			t.Session += session
			long.Turns = append(long.Turns, t)
		}
		session += sessions
		end = long.Turns[len(long.Turns)-1].When
		for _, q := range c.Questions {
			q.Evidence = append([]int(nil), q.Evidence...)
			for i := range q.Evidence {
				q.Evidence[i] += base
			}
			long.Questions = append(long.Questions, q)
		}
	}
	return long, nil
}

func measureWindow(budget int, lat *latencies, prog *progress) (*windowResult, error) {
	long, err := chained()
	if err != nil {
		return nil, err
	}
	bills := make([]replayTally, len(windowMethods))
	recalls := make([]recallTally, len(windowMethods))
	at := schedule(long)
	err = parallel(len(windowMethods), lat, prog, "window", func(j int, lat *latencies) (err error) {
		bills[j], recalls[j], err = liveConversation(long, windowMethods[j], budget, lat, at)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &windowResult{Budget: budget, Turns: len(long.Turns), Chars: conversationChars(long), Questions: len(long.Questions)}
	for j, m := range windowMethods {
		row := windowRow{Method: m.name, Recall14: recalls[j].row(m.name).Recall14, MaxContextChars: bills[j].maxContext,
			Mean: ratio(bills[j].effective, bills[j].calls)}
		sum := make([]float64, windowTimes)
		calls := make([]int, windowTimes)
		for _, c := range bills[j].along {
			seg := min(c.At*windowTimes/len(long.Turns), windowTimes-1)
			sum[seg] += c.Effective
			calls[seg]++
		}
		for s := range sum {
			row.Segments = append(row.Segments, ratio(sum[s], calls[s]))
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

func writeWindow(b *strings.Builder, r *windowResult) {
	fmt.Fprintf(b, "\n## Where the window ends: a history %d× as long, at %s characters\n\n", windowTimes, thousands(float64(r.Budget)))
	fmt.Fprintf(b, "%d synthetic conversations chained into one of %s turns and %s characters (about %s tokens), played as the live chat with its %s questions in it. ",
		windowTimes, thousands(float64(r.Turns)), thousands(float64(r.Chars)), thousands(float64(r.Chars)/4), thousands(float64(r.Questions)))
	b.WriteString("Effective tokens per call over each tenth of the history (1× is one conversation's length).\n\n")
	b.WriteString("| method | recall 1–4 | 1× | 3× | 10× | all calls | largest context (tokens) |\n|---|---:|---:|---:|---:|---:|---:|\n")
	var def, full windowRow
	for _, row := range r.Rows {
		switch row.Method {
		case byheartDefault.name:
			def = row
		case fullHistory.name:
			full = row
		}
		fmt.Fprintf(b, "| %s | %.3f | %s | %s | %s | %s | %s |\n", row.Method, row.Recall14, thousands(row.Segments[0]), thousands(row.Segments[2]),
			thousands(row.Segments[windowTimes-1]), thousands(row.Mean), thousands(float64(row.MaxContextChars)/4))
	}
	if len(def.Segments) > 0 {
		fmt.Fprintf(b, "\nFull history's bill per call against byheart default's: %.1f× at 1×, %.1f× at 3×, %.1f× at %d×.\n",
			ratio(full.Segments[0], def.Segments[0]), ratio(full.Segments[2], def.Segments[2]), ratio(full.Segments[windowTimes-1], def.Segments[windowTimes-1]), windowTimes)
	}
}
