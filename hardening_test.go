package byheart

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ── redaction ────────────────────────────────────────────────────────

const secret = "my server password is hunter2, the vault is xyzzyplugh"

func TestRedactLeavesAPlaceholderInPlace(t *testing.T) {
	m := New(Options{Budget: 2000, Chunk: 300})
	when := time.Date(2023, 5, 8, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 60; i++ {
		mustAppendAt(t, m, roleOf(i), fmt.Sprintf("turn %d about the deploy", i), when.Add(time.Duration(i)*time.Hour))
	}
	i := mustAppendAt(t, m, Assistant, secret, when.AddDate(0, 1, 0))
	fill(t, m, 20, "later talk about the garden")
	bounds := m.Bounds()
	before := make([]Turn, m.Len())
	for k := range before {
		before[k], _ = m.Turn(k)
	}

	require.NoError(t, m.Redact(i))
	require.NoError(t, m.Redact(i), "redacting twice is harmless")
	assert.Equal(t, len(before), m.Len(), "no index shifts")
	assert.Equal(t, bounds, m.Bounds(), "boundaries unchanged")
	got, err := m.Turn(i)
	require.NoError(t, err)
	assert.True(t, got.Redacted)
	assert.Equal(t, Assistant, got.Role)
	assert.True(t, got.Time.Equal(before[i].Time))
	assert.NotEmpty(t, got.Text, "a placeholder, not a hole")
	assert.NotContains(t, got.Text, "hunter2")
	for k := range before {
		if k != i {
			tu, _ := m.Turn(k)
			assert.Equal(t, before[k], tu, "turn %d changed", k)
		}
	}
}

func TestRedactOutOfRangeIsErrIndex(t *testing.T) {
	m := New(Options{})
	assert.ErrorIs(t, m.Redact(0), ErrIndex)
	mustAppend(t, m, User, "one")
	for _, i := range []int{-1, 1, 1 << 30} {
		assert.ErrorIs(t, m.Redact(i), ErrIndex, "index %d", i)
	}
	assert.Equal(t, 1, m.Len())
}

func TestRedactedTextIsUnreachable(t *testing.T) {
	type setup struct {
		opts  Options
		build func(t *testing.T, m *Memory) int // returns the secret's index
	}
	var seen []string // what a Retriever was shown, across calls
	retriever := RetrieverFunc(func(_ context.Context, q string, docs []Document) ([]float64, error) {
		out := make([]float64, len(docs))
		for i, d := range docs {
			seen = append(seen, d.Text)
			out[i] = float64(len(Terms(d.Text)) - len(Terms(strings.ReplaceAll(d.Text, "hunter2", ""))))
		}
		return out, nil
	})
	before := func(t *testing.T, m *Memory) {
		fill(t, m, 60, "discussing the deploy and migration rollback, filler")
	}
	after := func(t *testing.T, m *Memory) {
		fill(t, m, 60, "an entirely different subject, weather and vacations, filler")
	}
	cases := map[string]setup{
		"in a closed stretch": {Options{Budget: 2000}, func(t *testing.T, m *Memory) int {
			before(t, m)
			i := mustAppend(t, m, User, secret)
			after(t, m)
			return i
		}},
		"in the open stretch": {Options{Budget: 2000}, func(t *testing.T, m *Memory) int {
			before(t, m)
			i := mustAppend(t, m, User, secret)
			mustAppend(t, m, Assistant, "noted")
			mustAppend(t, m, User, "and the weather?")
			return i
		}},
		"the newest turn": {Options{Budget: 2000}, func(t *testing.T, m *Memory) int {
			before(t, m)
			return mustAppend(t, m, User, secret)
		}},
		"below the budget": {Options{Budget: 100_000}, func(t *testing.T, m *Memory) int {
			before(t, m)
			i := mustAppend(t, m, User, secret)
			after(t, m)
			return i
		}},
		"a sole closed stretch shared by nobody": {Options{Budget: 2000, Chunk: 10}, func(t *testing.T, m *Memory) int {
			before(t, m)
			i := mustAppend(t, m, User, secret) // a stretch of its own
			after(t, m)
			return i
		}},
		"in a kept selection": {Options{Budget: 2000, Stability: 1}, func(t *testing.T, m *Memory) int {
			before(t, m)
			i := mustAppend(t, m, User, secret)
			after(t, m)
			r := compose(t, m, "server password hunter2")
			require.Contains(t, blockOf(r), "hunter2", "the kept block must show the secret before redaction")
			return i
		}},
		"with a retriever": {Options{Budget: 2000, Retriever: retriever}, func(t *testing.T, m *Memory) int {
			before(t, m)
			i := mustAppend(t, m, User, secret)
			after(t, m)
			return i
		}},
		"with outside material": {Options{Budget: 2000, External: ExternalFunc(func(context.Context, string) ([]Item, error) {
			return []Item{{Text: "vault password rotation policy", Source: "wiki"}}, nil
		})}, func(t *testing.T, m *Memory) int {
			before(t, m)
			i := mustAppend(t, m, User, secret)
			after(t, m)
			return i
		}},
	}
	const query = "what was the server password? hunter2? xyzzyplugh?"
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			m := New(c.opts)
			i := c.build(t, m)
			require.Contains(t, contextOf(compose(t, m, query)), "hunter2", "before redaction the secret must be findable")

			m.mu.Lock()
			s := m.stretchOf(i)
			var oldKey docKey
			closed := m.str[s].slot >= 0
			if closed {
				oldKey = m.ix.slots[m.str[s].slot].key
			}
			m.mu.Unlock()

			require.NoError(t, m.Redact(i))
			seen = nil
			for _, q := range []string{query, "server password", "deploy rollback"} {
				r := compose(t, m, q)
				ctx := contextOf(r)
				assert.NotContains(t, ctx, "hunter2", "query %q", q)
				assert.NotContains(t, ctx, "xyzzyplugh", "query %q", q)
			}
			for _, text := range seen {
				assert.NotContains(t, text, "hunter2", "the retriever was shown the secret")
			}

			for _, word := range []string{"hunter2", "xyzzyplugh"} {
				_, inVocab := m.ix.vocab[word]
				assert.False(t, inVocab, "%q is still in the vocabulary", word)
				assert.NotContains(t, m.ix.terms, word)
			}
			if closed {
				_, cached := m.ix.byKey[oldKey]
				assert.False(t, cached, "the encoding cache still holds the secret's text")
			}
			for _, text := range m.texts {
				assert.NotContains(t, text, "hunter2")
			}
			if m.sel != nil {
				assert.NotContains(t, m.sel.block, "hunter2")
			}
			checkIndex(t, m)

			data, err := m.ToJSON()
			require.NoError(t, err)
			assert.NotContains(t, string(data), "hunter2")
			assert.NotContains(t, string(data), "xyzzyplugh")
		})
	}
}
