package main

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// composer is one way of deciding what a model is sent: byheart itself or a
// baseline a user might pick instead. Every section drives all of them the
// same way, on the same turns and queries.
type composer interface {
	add(t *turn) error
	compose(query string) (call, error)
}

// timed is a composer that can be told when a query is asked. The live
// replay tells it the time of the user's turn it composes for; the
// baselines have no use for it.
type timed interface {
	composeAt(query string, when time.Time) (call, error)
}

// method names a composer and builds a fresh one for a conversation.
type method struct {
	name string
	make func(budget int, lat *latencies) composer
	// selects says the method keeps a selection that it may rebuild, so
	// its rebuilds are worth counting.
	selects bool
}

var (
	byheartFresh = method{name: "byheart fresh", selects: true, make: func(budget int, lat *latencies) composer {
		return newByheart(byheart.Options{Budget: budget, Stability: -1}, lat)
	}}
	byheartDefault = method{name: "byheart default", selects: true, make: func(budget int, lat *latencies) composer {
		return newByheart(byheart.Options{Budget: budget}, lat)
	}}
	recencyWindow = method{name: "recency window", make: func(budget int, _ *latencies) composer {
		return &recency{budget: budget}
	}}
	plainRAG = method{name: "plain RAG", make: func(budget int, _ *latencies) composer {
		return newRAG(budget)
	}}
	fullHistory = method{name: "full history", make: func(int, *latencies) composer {
		return &full{}
	}}
)

// byheartMemory drives the core through its public API only, timing every
// call for the speed section.
type byheartMemory struct {
	mem   *byheart.Memory
	lat   *latencies
	turns int
	// externalErrs counts compositions whose External source failed.
	externalErrs int
}

func newByheart(opts byheart.Options, lat *latencies) *byheartMemory {
	return &byheartMemory{mem: byheart.New(opts), lat: lat}
}

func (b *byheartMemory) add(t *turn) error {
	start := time.Now()
	_, err := b.mem.AppendAt(t.Role, t.Text, t.When)
	b.lat.appends = append(b.lat.appends, sample{b.turns, time.Since(start)})
	if err != nil {
		return fmt.Errorf("append %s: %w", t.DiaID, err)
	}
	b.turns++
	return nil
}

func (b *byheartMemory) compose(query string) (call, error) {
	return b.composeAt(query, time.Time{})
}

// composeAt is compose for a query asked at when, as a chat server knows
// when each message arrived (see timed).
func (b *byheartMemory) composeAt(query string, when time.Time) (call, error) {
	start := time.Now()
	r, err := b.mem.ComposeAt(context.Background(), query, when)
	b.lat.composes = append(b.lat.composes, sample{b.turns, time.Since(start)})
	if err != nil {
		return call{}, fmt.Errorf("compose %q: %w", query, err)
	}
	if r.ExternalErr != nil {
		b.externalErrs++
	}
	c := resultCall(r)
	if len(c.parts) == 0 {
		return call{}, fmt.Errorf("compose %q: the result has no parts, not even the query", query)
	}
	return c, nil
}

// resultCall flattens a byheart composition.
func resultCall(r byheart.Result) call {
	c := call{breakpoint: r.StableUpto, reselected: r.Reselected(), outside: r.Outside}
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			c.parts = append(c.parts, part{m.Role, p.Text})
		}
	}
	if len(c.parts) > 0 {
		c.standing = standingChars(c.parts[0].text)
	}
	return c
}

// The section of standing turns a memory block opens with is framed by
// these, as the package documents.
const (
	standingMarker = "«byheart standing» "
	standingEnd    = "«end of byheart standing»\n"
)

// standingChars is the size of the section of standing turns in block, 0
// when it has none.
func standingChars(block string) int {
	i := strings.Index(block, standingMarker)
	if i < 0 || !strings.HasPrefix(block, memoryMarker) {
		return 0
	}
	j := strings.Index(block[i:], standingEnd)
	if j < 0 {
		return 0
	}
	return utf8.RuneCountInString(block[i : i+j+len(standingEnd)])
}

// history keeps the turns a baseline has seen, raw: a baseline is what a user
// would build without byheart, so it knows nothing of annotations.
type history struct{ turns []*turn }

func (h *history) add(t *turn) error {
	h.turns = append(h.turns, t)
	return nil
}

// native lays turns out as the provider's own messages, then the query, with
// the cache breakpoint on the last history part.
func native(turns []*turn, query string) call {
	c := call{parts: make([]part, 0, len(turns)+1), breakpoint: len(turns) - 1}
	for _, t := range turns {
		c.parts = append(c.parts, part{t.Role, t.Text})
	}
	c.parts = append(c.parts, part{byheart.User, query})
	return c
}

// full sends the whole history: the recall ceiling, and what a chat app
// without memory management sends.
type full struct{ history }

func (f *full) compose(query string) (call, error) { return native(f.turns, query), nil }

// recency sends the newest turns that fit the budget, as a token-buffer
// memory does. Turns are sized as rendered "speaker: text\n" lines, which is
// how such buffers count, and sent as native messages.
type recency struct {
	history
	budget int
}

func (r *recency) compose(query string) (call, error) {
	used, from := 0, len(r.turns)
	for from > 0 {
		t := r.turns[from-1]
		size := utf8.RuneCountInString(t.Speaker) + len(": ") + utf8.RuneCountInString(t.Text) + len("\n")
		if used+size > r.budget {
			break
		}
		used += size
		from--
	}
	return native(r.turns[from:], query), nil
}
