package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// The external section tests rule 4 from both sides, on every question of
// categories 1–4 (category 5 asks about things the conversation never said,
// so it has no "needed" material to admit):
//
//   - junk: the memory holds the whole conversation and the External source
//     returns turns of the other conversations. Rejected when none of them
//     reaches the context.
//   - needed: the question's evidence turns are left out at ingest and the
//     source returns them mixed with junk. Admitted when at least one
//     evidence turn reaches the context.
//
// Both run with a negative Stability (every question answered fresh) and the
// default margin. Pools come from a seeded generator, so a run is repeatable.

// junkItems is how many items the source returns per question: the headline
// setting for both tests.
const junkItems = 5

// junkSizes are the item counts the rejection test runs with, to show whether
// more junk gets through when there is more of it.
var junkSizes = []int{1, junkItems, 10}

// minJunkChars keeps short turns ("Thanks!") out of the junk pool: they are
// likely to appear in the conversation itself.
const minJunkChars = 40

// fixedSource is an External that returns whatever the harness loaded into it
// for the next question.
type fixedSource struct{ items []byheart.Item }

func (s *fixedSource) Fetch(context.Context, string) ([]byheart.Item, error) { return s.items, nil }

// externalTally counts one conversation's admissions.
type externalTally struct {
	questions    int
	rejected     []int // by junkSizes
	admitted     int
	overruns     int
	externalErrs int
}

func (a *externalTally) merge(b externalTally) {
	a.questions += b.questions
	if a.rejected == nil {
		a.rejected = make([]int, len(junkSizes))
	}
	for i, n := range b.rejected {
		a.rejected[i] += n
	}
	a.admitted += b.admitted
	a.overruns += b.overruns
	a.externalErrs += b.externalErrs
}

// junkPool returns the turns of the other conversations that may serve as
// junk for conv: none of them appears anywhere in conv, so finding one in a
// context can only mean the external block was admitted.
func junkPool(ds *dataset, conv *conversation) []string {
	var own strings.Builder
	for _, t := range conv.Turns {
		own.WriteString(t.flat)
		own.WriteByte('\n')
	}
	var pool []string
	for _, other := range ds.Convs {
		if other == conv {
			continue
		}
		for _, t := range other.Turns {
			if utf8.RuneCountInString(t.Text) >= minJunkChars && !strings.Contains(own.String(), t.flat) {
				pool = append(pool, t.Text)
			}
		}
	}
	return pool
}

// draw picks n distinct junk items.
func draw(r *rng, pool []string, n int) []byheart.Item {
	n = min(n, len(pool))
	picked := map[int]bool{}
	items := make([]byheart.Item, 0, n)
	for len(items) < n {
		i := r.intn(len(pool))
		if !picked[i] {
			picked[i] = true
			items = append(items, byheart.Item{Text: pool[i], Source: "junk"})
		}
	}
	return items
}

// seed derives a question's generator from the conversation and question, so
// the pools do not depend on the order jobs run in.
func seed(conv *conversation, q int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(conv.ID))
	return h.Sum64() ^ uint64(q)*0x9e3779b97f4a7c15
}

func externalConversation(ds *dataset, conv *conversation, budget int, lat *latencies) (externalTally, error) {
	t := externalTally{rejected: make([]int, len(junkSizes))}
	pool := junkPool(ds, conv)
	src := &fixedSource{}
	opts := byheart.Options{Budget: budget, Stability: -1, External: src}
	whole := newByheart(opts, lat)
	for i := range conv.Turns {
		if err := whole.add(&conv.Turns[i]); err != nil {
			return t, err
		}
	}
	for qi, q := range conv.Questions {
		if q.Category > 4 {
			continue
		}
		t.questions++
		r := newRNG(seed(conv, qi))
		for si, n := range junkSizes {
			src.items = draw(r, pool, n)
			c, err := whole.compose(q.Text)
			if err != nil {
				return t, err
			}
			t.count(c, budget)
			if !anyReached(newSent(c), src.items) {
				t.rejected[si]++
			}
		}

		needed, err := withoutEvidence(conv, q, opts, lat)
		if err != nil {
			return t, err
		}
		var evidence []byheart.Item
		for _, e := range q.Evidence {
			evidence = append(evidence, byheart.Item{Text: conv.Turns[e].Text, Source: "evidence"})
		}
		src.items = append(draw(r, pool, max(junkItems-len(evidence), 1)), evidence...)
		shuffle(r, src.items)
		c, err := needed.compose(q.Text)
		if err != nil {
			return t, err
		}
		t.count(c, budget)
		t.externalErrs += needed.externalErrs
		if anyReached(newSent(c), evidence) {
			t.admitted++
		}
	}
	t.externalErrs += whole.externalErrs
	return t, nil
}

// count records the budget check every byheart composition gets.
func (t *externalTally) count(c call, budget int) {
	if c.contextChars() > budget {
		t.overruns++
	}
}

// withoutEvidence builds a memory of conv with q's evidence turns left out.
func withoutEvidence(conv *conversation, q question, opts byheart.Options, lat *latencies) (*byheartMemory, error) {
	skip := map[int]bool{}
	for _, e := range q.Evidence {
		skip[e] = true
	}
	m := newByheart(opts, lat)
	for i := range conv.Turns {
		if skip[i] {
			continue
		}
		if err := m.add(&conv.Turns[i]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func anyReached(s *sent, items []byheart.Item) bool {
	for _, it := range items {
		if s.hasText(it.Text) {
			return true
		}
	}
	return false
}

// externalRow is one line of the external table.
type externalRow struct {
	Test      string  `json:"test"`
	Items     string  `json:"items_per_fetch"`
	Questions int     `json:"questions"`
	Share     float64 `json:"share"`
	Target    float64 `json:"target,omitempty"`
}

// externalResult is the external section.
type externalResult struct {
	Rows           []externalRow `json:"rows"`
	Overruns       int           `json:"over_budget"`
	ExternalErrors int           `json:"external_errors"`
}

func (t externalTally) result() *externalResult {
	res := &externalResult{Overruns: t.overruns, ExternalErrors: t.externalErrs}
	share := func(n int) float64 { return ratio(float64(n), t.questions) }
	for i, n := range junkSizes {
		if n == junkItems {
			res.Rows = append(res.Rows, externalRow{"junk rejected", fmt.Sprintf("%d junk", n), t.questions, share(t.rejected[i]), 0.95})
		}
	}
	res.Rows = append(res.Rows, externalRow{"needed admitted", fmt.Sprintf("evidence + junk, at least %d in all", junkItems), t.questions, share(t.admitted), 0.90})
	for i, n := range junkSizes {
		if n != junkItems {
			res.Rows = append(res.Rows, externalRow{"junk rejected", fmt.Sprintf("%d junk", n), t.questions, share(t.rejected[i]), 0})
		}
	}
	return res
}
