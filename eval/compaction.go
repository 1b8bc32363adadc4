package main

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/pricing"
)

// Server-side compaction is what a user of a provider's API might pick
// instead of byheart: send the full history, and when a call's input
// crosses a threshold the provider summarises it, in an extra pass of the
// same request, and later calls start from the summary. Both large
// providers offer it (eval/README.md cites their documentation). Its bill
// follows from what they document; what the model still knows after a
// summary cannot be measured without a model, so it has a bill here and
// no recall.

// compactor is one provider's compaction: the input, in tokens, at which a
// call is compacted, the size of the summary it leaves, and whether the
// user's own messages are kept verbatim beside it.
type compactor struct {
	name     string
	trigger  float64
	summary  float64
	keepUser bool
}

var (
	// anthropicCompaction is the compact_20260112 edit at its default
	// trigger: everything before the compaction block is dropped.
	anthropicCompaction = compactor{name: "compaction (Anthropic)", trigger: 150_000, summary: 3_500}
	// openAICompaction is the Responses API's context_management with
	// compact_threshold 200,000: the user's messages are kept, followed
	// by one opaque compaction item.
	openAICompaction = compactor{name: "compaction (OpenAI)", trigger: 200_000, summary: 3_500, keepUser: true}
)

func (cp compactor) method() method {
	return method{name: cp.name, make: func(int, *latencies) composer { return &compacting{compactor: cp} }}
}

// compacting is full history under compaction. Every call sends what the
// last compaction kept, then every turn since, natively, the cache
// breakpoint on the last of them. A call whose input reaches the trigger
// is first sent whole to be summarised (pass, which billHistory prices
// and clears), then sent again as what the compaction keeps and the
// query.
type compacting struct {
	compactor
	kept  []part // the user's turns when kept, then the newest summary
	since []part // turns appended since the last compaction
	users []part // every user turn so far
	n     int    // compactions so far
	pass  *call
}

func (c *compacting) add(t *turn) error {
	p := part{t.Role, t.Text}
	c.since = append(c.since, p)
	if t.Role == byheart.User {
		c.users = append(c.users, p)
	}
	return nil
}

func (c *compacting) compose(query string) (call, error) {
	whole := c.request(query)
	if tokens(whole.parts) < c.trigger {
		return whole, nil
	}
	c.pass = &whole
	c.n++
	c.kept = nil
	if c.keepUser {
		c.kept = slices.Clone(c.users)
	}
	c.kept = append(c.kept, part{byheart.Assistant, summaryText(c.n, c.summary)})
	c.since = nil
	return c.request(query), nil
}

// request lays out what the provider is sent for query.
func (c *compacting) request(query string) call {
	parts := make([]part, 0, len(c.kept)+len(c.since)+1)
	parts = append(append(parts, c.kept...), c.since...)
	return call{parts: append(parts, part{byheart.User, query}), breakpoint: len(parts) - 1}
}

// summaryText stands in for the n-th summary: a text of the given size in
// tokens, different from every other summary's.
func summaryText(n int, size float64) string {
	head := fmt.Sprintf("[summary %d] ", n)
	return head + strings.Repeat("s", int(size)*pricing.CharsPerToken-utf8.RuneCountInString(head))
}
