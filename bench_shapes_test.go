package byheart

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/byheart/byheart/internal/locomo"
)

// The assistant-shaped benchmarks: a user asks in a sentence or two and
// the assistant answers in pages of markdown and code. They run on the
// project's own set (testdata/assistant.json), two of its conversations
// one after the other: about two million characters, as long
// user–assistant conversations run.
//
//	go test -run '^$' -bench 'Assistant' -benchmem -count 6 .

// assistantHistory is the turns of the benchmark's assistant-shaped
// conversation, read once.
var assistantHistory = sync.OnceValues(func() ([]Turn, error) {
	ds, err := locomo.Load("testdata/assistant.json")
	if err != nil {
		return nil, err
	}
	var turns []Turn
	var shift time.Duration
	for _, c := range ds.Convs[:2] {
		if len(turns) > 0 {
			// The second conversation goes on after the first.
			shift = turns[len(turns)-1].Time.Sub(c.Turns[0].When) + 24*time.Hour
		}
		for _, t := range c.Turns {
			role := Assistant
			if t.ByA {
				role = User
			}
			turns = append(turns, Turn{Role: role, Text: t.Text, Time: t.When.Add(shift)})
		}
	}
	return turns, nil
})

// assistantLive is the last assistantWindow turns of the history, to be
// appended and composed with, and the JSON of a default memory holding
// the turns before them, its kept selection made by a live replay of
// their last user turns.
var assistantLive = sync.OnceValues(func() ([]byte, error) {
	turns, err := assistantHistory()
	if err != nil {
		return nil, err
	}
	m := New(Options{})
	ctx := context.Background()
	head := turns[:len(turns)-assistantWindow]
	for i, t := range head {
		if _, err := m.AppendTurn(t); err != nil {
			return nil, err
		}
		if i >= len(head)-40 && t.Role == User {
			if _, err := m.ComposeAt(ctx, t.Text, t.Time); err != nil {
				return nil, err
			}
		}
	}
	return m.ToJSON()
})

// assistantWindow is how many of the history's newest turns the live
// benchmarks play: a restored memory plays them again and again.
const assistantWindow = 200

func assistantBench(b *testing.B) ([]Turn, []byte) {
	turns, err := assistantHistory()
	if err != nil {
		b.Fatal(err)
	}
	data, err := assistantLive()
	if err != nil {
		b.Fatal(err)
	}
	chars := 0
	for _, t := range turns {
		chars += utf8.RuneCountInString(t.Text)
	}
	b.ReportMetric(float64(chars), "history-chars")
	return turns[len(turns)-assistantWindow:], data
}

// BenchmarkAssistantLiveTurn is one turn of the assistant-shaped chat: a
// user's turn composed as the query at its time, then appended with the
// answer that followed it. p50 and p99 are of the compositions alone.
func BenchmarkAssistantLiveTurn(b *testing.B) {
	for _, opts := range []Options{{}, {Stability: -1}, {Budget: 80_000}, {Budget: 200_000}} {
		b.Run(fmt.Sprintf("budget=%d/stability=%g", opts.normalized().Budget, opts.normalized().Stability), func(b *testing.B) {
			window, data := assistantBench(b)
			ctx := context.Background()
			var m *Memory
			k := len(window)
			var lat latency
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if k+1 >= len(window) {
					b.StopTimer()
					var err error
					if m, err = FromJSON(data, opts); err != nil {
						b.Fatal(err)
					}
					k = 0
					for window[k].Role != User {
						k++
					}
					b.StartTimer()
				}
				q := window[k]
				lat.time(func() {
					if _, err := m.ComposeAt(ctx, q.Text, q.Time); err != nil {
						b.Fatal(err)
					}
				})
				for _, t := range window[k : k+2] {
					if _, err := m.AppendTurn(t); err != nil {
						b.Fatal(err)
					}
				}
				k += 2
			}
			lat.report(b)
		})
	}
}

// BenchmarkAssistantAppend appends one turn of the assistant-shaped chat,
// a short question or an answer of pages, to a memory of about two
// million characters; SetBytes is the turn's length, so MB/s compares
// with the short-turn BenchmarkAppend per character.
func BenchmarkAssistantAppend(b *testing.B) {
	window, data := assistantBench(b)
	var m *Memory
	k := len(window)
	b.ReportAllocs()
	b.ResetTimer()
	total := 0
	for range b.N {
		if k == len(window) {
			b.StopTimer()
			var err error
			if m, err = FromJSON(data, Options{}); err != nil {
				b.Fatal(err)
			}
			k = 0
			b.StartTimer()
		}
		total += len(window[k].Text)
		if _, err := m.AppendTurn(window[k]); err != nil {
			b.Fatal(err)
		}
		k++
	}
	b.SetBytes(int64(total / max(b.N, 1)))
}

// BenchmarkAssistantColdStart restores the two-million-character memory
// from its JSON and composes for its next user turn: what a stateless
// server does on a request. SetBytes is the save's length.
func BenchmarkAssistantColdStart(b *testing.B) {
	window, data := assistantBench(b)
	ctx := context.Background()
	q := window[0]
	for q.Role != User {
		window = window[1:]
		q = window[0]
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for range b.N {
		m, err := FromJSON(data, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.ComposeAt(ctx, q.Text, q.Time); err != nil {
			b.Fatal(err)
		}
	}
}
