package byheart

// Append, AppendAt, Turn and Redact; stretches and the Boundaries hook;
// concurrent use; and no loss when an operation fails.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ── Append: roles, text and time at the door ──────────────────────────

func TestAppendAcceptsUserAndAssistantAndReturnsTheIndex(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	for want, role := range []Role{User, Assistant, Assistant, User} {
		got, err := m.Append(role, fmt.Sprintf("turn %d", want))
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	require.Equal(t, 4, m.Len())
	tu, err := m.Turn(2)
	require.NoError(t, err)
	assert.Equal(t, Turn{Role: Assistant, Text: "turn 2"}, tu)
}

func TestAppendRejectsOtherRolesAndWritesNothing(t *testing.T) {
	t.Parallel()
	for _, role := range []Role{"system", "tool", "usr", "User", "ASSISTANT", " user", ""} {
		t.Run(fmt.Sprintf("%q", string(role)), func(t *testing.T) {
			m := New(Options{})
			mustAppend(t, m, User, "the one real turn")
			before, err := m.ToJSON()
			require.NoError(t, err)
			encoded := m.ix.encoded

			i, err := m.Append(role, "text")
			require.ErrorIs(t, err, ErrRole)
			assert.Equal(t, -1, i)
			_, err = m.AppendAt(role, "text", time.Now())
			require.ErrorIs(t, err, ErrRole)

			assert.Equal(t, 1, m.Len(), "a rejected role must write nothing")
			assert.Equal(t, encoded, m.ix.encoded, "a rejected turn must not reach the index")
			after, err := m.ToJSON()
			require.NoError(t, err)
			assert.JSONEq(t, string(before), string(after))
		})
	}
}

func TestAppendRejectsEmptyOrInvalidTextAndWritesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		text string
		want error
	}{
		{"empty", "", ErrEmpty},
		{"lone continuation byte", "\x80", ErrUTF8},
		{"invalid byte inside", "hello \xff world", ErrUTF8},
		{"truncated sequence at the end", "caf\xc3", ErrUTF8},
		{"surrogate half", "\xed\xa0\x80", ErrUTF8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New(Options{})
			for _, role := range []Role{User, Assistant} {
				i, err := m.Append(role, c.text)
				require.ErrorIs(t, err, c.want)
				assert.Equal(t, -1, i)
				_, err = m.AppendAt(role, c.text, time.Now())
				require.ErrorIs(t, err, c.want)
			}
			assert.Equal(t, 0, m.Len())
			assert.Empty(t, m.Bounds())
			assert.Zero(t, m.ix.encoded)
		})
	}
}

func TestAppendAtRecordsTimeAndUntimedTurnsInheritThePrevious(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	t1 := time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC)
	t2 := time.Date(2023, time.May, 25, 9, 0, 0, 0, time.FixedZone("CEST", 2*3600))

	mustAppend(t, m, User, "said before any time was known")
	mustAppendAt(t, m, Assistant, "said at t1", t1)
	mustAppend(t, m, User, "no time of its own")
	mustAppend(t, m, Assistant, "nor this one")
	mustAppendAt(t, m, User, "said at t2", t2)
	mustAppendAt(t, m, Assistant, "zero time given explicitly", time.Time{})

	want := []time.Time{{}, t1, t1, t1, t2, t2}
	for i, w := range want {
		tu, err := m.Turn(i)
		require.NoError(t, err)
		assert.True(t, tu.Time.Equal(w), "turn %d: time %v, want %v", i, tu.Time, w)
	}
}

func TestTurnOutOfRangeIsErrIndex(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	mustAppend(t, m, User, "only turn")
	for _, i := range []int{-1, 1, 100} {
		_, err := m.Turn(i)
		assert.ErrorIs(t, err, ErrIndex, "index %d", i)
	}
}

// ── stretches and the Boundaries hook ─────────────────────────────────

func TestStretchOpensOnceTheOpenOneReachesChunkCharacters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		chunk int
		turn  string
		n     int
		want  []int
	}{
		// 25 characters a turn: the fourth turn brings the open stretch to
		// exactly 100, so the fifth opens a new one.
		{"reaching the chunk exactly closes", 100, strings.Repeat("a", 25), 10, []int{0, 4, 8}},
		// 24 characters: 96 after four turns is not yet 100.
		{"one short of the chunk stays open", 100, strings.Repeat("a", 24), 10, []int{0, 5}},
		// Two bytes per character: the counter counts characters.
		{"characters not bytes", 100, strings.Repeat("é", 25), 10, []int{0, 4, 8}},
		{"one turn over the chunk closes after it", 10, strings.Repeat("x", 30), 3, []int{0, 1, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New(Options{Chunk: c.chunk})
			for i := 0; i < c.n; i++ {
				mustAppend(t, m, roleOf(i), c.turn)
			}
			assert.Equal(t, c.want, m.Bounds())
		})
	}
}

func TestBoundariesHookSeesOnlyTheOpenStretchAndItsSplitsApply(t *testing.T) {
	t.Parallel()
	type call struct {
		first string // text of the first turn it was shown
		n     int
	}
	var calls []call
	hook := func(tail []Turn) []int {
		calls = append(calls, call{tail[0].Text, len(tail)})
		if len(tail) >= 4 {
			return []int{len(tail) / 2}
		}
		return nil
	}
	m := New(Options{Budget: 100_000, Chunk: 300, Boundaries: hook})
	const n = 120
	texts := make([]string, n)
	starts := map[string]int{} // first turn text → the index of that turn
	for i := 0; i < n; i++ {
		texts[i] = fmt.Sprintf("turn %03d discussing the deploy and migration rollback", i)
		starts[texts[i]] = i
		mustAppend(t, m, roleOf(i), texts[i])
	}

	require.NotEmpty(t, calls, "the hook was never asked")
	assert.Less(t, len(calls), n/3, "the hook must not run on every append")

	bounds := m.Bounds()
	assert.True(t, slices.IsSorted(bounds), "bounds are not sorted: %v", bounds)
	assert.Equal(t, len(bounds), len(slices.Compact(slices.Clone(bounds))), "bounds repeat: %v", bounds)

	// Each call saw exactly one open stretch: from the turn after the
	// previous stretch closed up to the newest turn, never the history.
	open := 0
	for k, c := range calls {
		first := starts[c.first]
		assert.Equal(t, open, first, "call %d started its tail at turn %d", k, first)
		assert.LessOrEqual(t, c.n, 300/len(texts[0])+1, "call %d saw %d turns: more than one stretch", k, c.n)
		assert.Contains(t, bounds, first, "call %d's tail does not start a stretch", k)
		if c.n >= 4 {
			assert.Contains(t, bounds, first+c.n/2, "the split of call %d was not applied", k)
		}
		open = first + c.n
	}
	assert.Equal(t, bounds[len(bounds)-1], open, "the newest stretch must start after the last tail")
}

func TestBoundariesHookThatFailsRecordsNothingAndTheMemoryRecovers(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })

	faults := map[string]func(tail []Turn) []int{
		"panics":               func([]Turn) []int { panic("boom") },
		"panics with an error": func([]Turn) []int { panic(errors.New("boom")) },
		"panics with nil":      func([]Turn) []int { panic(nil) },
		"exits its goroutine":  func([]Turn) []int { runtime.Goexit(); return nil },
		"blocks":               func([]Turn) []int { <-release; return nil },
		"split at zero":        func([]Turn) []int { return []int{0} },
		"split at the end":     func(tail []Turn) []int { return []int{len(tail)} },
		"split past the end":   func(tail []Turn) []int { return []int{1, len(tail) + 5} },
		"negative split":       func([]Turn) []int { return []int{-1} },
		"huge split":           func([]Turn) []int { return []int{math.MaxInt} },
		"unsorted":             func(tail []Turn) []int { return []int{2, 1} },
		"repeated":             func([]Turn) []int { return []int{1, 1} },
		"too many":             func(tail []Turn) []int { return make([]int, len(tail)+1) },
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			var mode atomic.Bool // true: faulty
			hook := func(tail []Turn) []int {
				if mode.Load() {
					return fault(tail)
				}
				if len(tail) >= 3 {
					return []int{1, 2}
				}
				return nil
			}
			opts := Options{Budget: 300, Chunk: 50, Boundaries: hook}
			m := New(opts)
			ctx := context.Background()
			for i := range 12 {
				_, err := m.Append(roleOf(i), fmt.Sprintf("turn %d talks about topic %d at some length", i, i%3))
				require.NoError(t, err)
			}
			_, err := m.Compose(ctx, "topic 1")
			require.NoError(t, err)
			// Fill the open stretch so that the next Append asks the hook.
			for m.open < m.opt.Chunk {
				_, err := m.Append(User, "more about topic 2 and nothing else")
				require.NoError(t, err)
			}
			mode.Store(true)
			before := mustJSON(t, m)
			n := m.Len()
			if name == "blocks" {
				// Only the hook that never answers needs a short wait; the
				// others must be noticed at once, under any load.
				m.tune.boundariesTimeout = 50 * time.Millisecond
			}
			i, err := m.Append(Assistant, "this turn must not be recorded")
			m.tune.boundariesTimeout = defaults.boundariesTimeout
			require.ErrorIs(t, err, ErrBoundaries)
			switch name {
			case "blocks":
				require.ErrorContains(t, err, "no answer within")
			case "exits its goroutine":
				require.NotContains(t, err.Error(), "no answer within", "an exited hook is noticed at once")
			}
			require.Equal(t, -1, i)
			require.Equal(t, before, mustJSON(t, m), "a failed Append records nothing")
			require.Equal(t, n, m.Len())

			// Still usable: composes, and appends once the hook recovers.
			r, err := m.Compose(ctx, "topic 2")
			require.NoError(t, err)
			checkResult(t, m, "topic 2", r)
			mode.Store(false)
			i, err = m.Append(Assistant, "this turn is recorded")
			require.NoError(t, err)
			require.Equal(t, n, i)
			checkBounds(t, m)
			checkRoundTrip(t, m, opts, "topic 2")
		})
	}
}

// TestBoundariesHookOwnsItsTail: a hook may scribble on the turns it is
// shown; the memory keeps its own.
func TestBoundariesHookOwnsItsTail(t *testing.T) {
	t.Parallel()
	m := New(Options{Chunk: 10, Boundaries: func(tail []Turn) []int {
		for i := range tail {
			tail[i].Text = "scribbled"
			tail[i].Role = "system"
		}
		return nil
	}})
	for _, text := range []string{"first turn, long enough", "second turn, long enough", "third"} {
		_, err := m.Append(User, text)
		require.NoError(t, err)
	}
	got, err := m.Turn(0)
	require.NoError(t, err)
	require.Equal(t, Turn{Role: User, Text: "first turn, long enough"}, got)
	require.NotContains(t, mustJSON(t, m), "scribbled")
}

// ── redaction ─────────────────────────────────────────────────────────

const secret = "my server password is hunter2, the vault is xyzzyplugh"

func TestRedactLeavesAPlaceholderInPlace(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	m := New(Options{})
	assert.ErrorIs(t, m.Redact(0), ErrIndex)
	mustAppend(t, m, User, "one")
	for _, i := range []int{-1, 1, 1 << 30} {
		assert.ErrorIs(t, m.Redact(i), ErrIndex, "index %d", i)
	}
	assert.Equal(t, 1, m.Len())
}

func TestRedactionsListsEachTurnRedactOnceInOrder(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	for range 5 {
		mustAppend(t, m, User, "one more")
	}
	assert.Nil(t, m.Redactions(0), "before any redaction")
	for _, i := range []int{3, 1, 3, 9, 0} {
		_ = m.Redact(i)
	}
	assert.Equal(t, []int{3, 1, 0}, m.Redactions(0), "a turn redacted again or out of range is not listed")
	assert.Equal(t, []int{0}, m.Redactions(2))
	assert.Nil(t, m.Redactions(3))
	assert.Nil(t, m.Redactions(-1))
}

func TestRedactedTextIsUnreachable(t *testing.T) {
	t.Parallel()
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
				_, inVocab := m.ix.lookup([]byte(word))
				assert.False(t, inVocab, "%q is still in the vocabulary", word)
				assert.NotContains(t, vocabulary(m.ix), word)
			}
			if closed {
				_, cached := m.ix.slotOf(oldKey)
				assert.False(t, cached, "the encoding cache still holds the secret's text")
			}
			for _, text := range m.texts {
				assert.NotContains(t, text, "hunter2")
			}
			if m.sel != nil {
				assert.NotContains(t, m.sel.block.text, "hunter2")
			}
			checkIndex(t, m)

			data, err := m.ToJSON()
			require.NoError(t, err)
			assert.NotContains(t, string(data), "hunter2")
			assert.NotContains(t, string(data), "xyzzyplugh")
		})
	}
}

// ── concurrency ───────────────────────────────────────────────────────

// TestConcurrentUseLosesNoTurnAndKeepsEveryInvariant runs 16 goroutines that
// append, compose, redact, serialise and read at once; run it under -race.
func TestConcurrentUseLosesNoTurnAndKeepsEveryInvariant(t *testing.T) {
	t.Parallel()
	split := func(tail []Turn) []int {
		if len(tail) >= 4 {
			return []int{len(tail) / 2}
		}
		return nil
	}
	for name, opts := range map[string]Options{
		"built-in":             {Budget: 1500, Chunk: 120},
		"hooks and one-shot":   {Budget: 1500, Chunk: 120, Boundaries: split, Retriever: overlap, Stability: -1},
		"outside material too": {Budget: 1200, Chunk: 200, External: noteSource, Stability: 0.9},
	} {
		t.Run(name, func(t *testing.T) {
			useConcurrently(t, opts)
		})
	}
}

func useConcurrently(t *testing.T, opts Options) {
	const (
		appenders  = 6
		perWriter  = 40
		composers  = 4
		redactors  = 2
		serialiser = 2
		readers    = 2
	)
	require.Equal(t, 16, appenders+composers+redactors+serialiser+readers)
	m := New(opts)
	budget := m.opt.Budget
	topics := []string{"marathon training", "moving to Lisbon", "the blue shoes", "my sister Anna", "a trip to Kyoto", "baking sourdough", "the new job"}
	var (
		wg       sync.WaitGroup
		writing  atomic.Int32
		mu       sync.Mutex
		wrote    = map[int]string{} // index -> text
		redacted = map[int]bool{}
		snaps    [][]byte
		failures = make(chan error, 64)
		checks   collector
	)
	fail := func(err error) {
		select {
		case failures <- err:
		default:
		}
	}
	writing.Store(appenders)
	for g := range appenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer writing.Add(-1)
			prev := -1
			for k := range perWriter {
				text := fmt.Sprintf("writer %d turn %d: about %s, line\r\n%d", g, k, topics[(g+k)%len(topics)], k)
				role := roleOf(k)
				when := time.Date(2024, 1, 1+k/5, g, 0, 0, 0, time.UTC)
				i, err := m.AppendAt(role, text, when)
				if err != nil {
					fail(fmt.Errorf("append: %w", err))
					return
				}
				if i <= prev {
					fail(fmt.Errorf("writer %d: index %d after %d", g, i, prev))
				}
				prev = i
				mu.Lock()
				if _, dup := wrote[i]; dup {
					fail(fmt.Errorf("index %d handed out twice", i))
				}
				wrote[i] = text
				mu.Unlock()
			}
		}()
	}
	for c := range composers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; writing.Load() > 0 || k < 3; k++ {
				q := topics[(c+k)%len(topics)]
				r, err := m.Compose(context.Background(), q)
				if err != nil {
					fail(fmt.Errorf("compose: %w", err))
					return
				}
				checkShape(&checks, budget, q, r)
			}
		}()
	}
	for d := range redactors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(d), 7))
			for writing.Load() > 0 {
				n := m.Len()
				if n == 0 {
					runtime.Gosched()
					continue
				}
				i := rng.IntN(n)
				if rng.IntN(4) != 0 {
					runtime.Gosched()
					continue
				}
				if err := m.Redact(i); err != nil {
					fail(fmt.Errorf("redact %d of %d: %w", i, n, err))
					return
				}
				mu.Lock()
				redacted[i] = true
				mu.Unlock()
				if err := m.Redact(n + 1000); !errors.Is(err, ErrIndex) {
					fail(fmt.Errorf("redact past the end: %v", err))
				}
			}
		}()
	}
	for range serialiser {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; (writing.Load() > 0 || k < 2) && k < 100; k++ {
				data, err := m.ToJSON()
				if err != nil {
					fail(fmt.Errorf("ToJSON: %w", err))
					return
				}
				mu.Lock()
				snaps = append(snaps, data)
				mu.Unlock()
			}
		}()
	}
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for writing.Load() > 0 {
				n := m.Len()
				b := m.Bounds()
				if n > 0 && (len(b) == 0 || b[0] != 0) {
					fail(fmt.Errorf("bounds %v for %d turns", b, n))
				}
				if n > 0 {
					if _, err := m.Turn(n - 1); err != nil {
						fail(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Error(err)
	}
	for _, msg := range checks.errs {
		t.Error(msg)
	}
	require.False(t, t.Failed())

	// No turn lost or duplicated, each where its Append said it went.
	require.Equal(t, appenders*perWriter, m.Len())
	require.Len(t, wrote, appenders*perWriter)
	for i, text := range wrote {
		got, err := m.Turn(i)
		require.NoError(t, err)
		if redacted[i] {
			require.True(t, got.Redacted)
			require.Equal(t, redactedText, got.Text)
		} else {
			require.Equal(t, text, got.Text)
		}
	}
	checkBounds(t, m)

	// Every snapshot restores to a memory that composes within the budget
	// and holds a prefix of the final conversation.
	require.NotEmpty(t, snaps)
	for _, data := range snaps {
		s, err := FromJSON(data, opts)
		require.NoError(t, err)
		checkBounds(t, s)
		require.LessOrEqual(t, s.Len(), m.Len())
		for i := range s.Len() {
			a, _ := s.Turn(i)
			b, _ := m.Turn(i)
			if a.Redacted {
				require.True(t, b.Redacted, "a redaction is never undone")
			} else if !b.Redacted {
				require.Equal(t, b.Text, a.Text)
			}
		}
		q := topics[s.Len()%len(topics)]
		r, err := s.Compose(context.Background(), q)
		require.NoError(t, err)
		checkResult(t, s, q, r)
	}
}

// ── no loss on failure ────────────────────────────────────────────────

// TestAFailedOperationLeavesTheMemoryAsItWas: every operation that returns
// an error leaves the memory exactly as it was, in every state a memory can
// be in.
func TestAFailedOperationLeavesTheMemoryAsItWas(t *testing.T) {
	t.Parallel()
	var broken atomic.Bool
	ret := RetrieverFunc(func(ctx context.Context, q string, docs []Document) ([]float64, error) {
		if broken.Load() {
			return nil, errors.New("down")
		}
		return overlap(ctx, q, docs)
	})
	hook := func(tail []Turn) []int {
		if broken.Load() {
			return []int{0}
		}
		return nil
	}
	type state struct {
		make  func(t *testing.T) (*Memory, Options)
		hooks bool // has a Boundaries hook and a Retriever, and is above its budget
	}
	states := map[string]state{
		"empty": {make: func(*testing.T) (*Memory, Options) { return New(Options{}), Options{} }},
		"below the budget": {make: func(t *testing.T) (*Memory, Options) {
			m := New(Options{})
			_, err := m.Append(User, "hello")
			require.NoError(t, err)
			return m, Options{}
		}},
		"above the budget with a kept selection": {hooks: true, make: func(t *testing.T) (*Memory, Options) {
			opts := Options{Budget: 300, Chunk: 50, Retriever: ret, Boundaries: hook}
			return overBudget(t, opts), opts
		}},
		"redacted and restored": {hooks: true, make: func(t *testing.T) (*Memory, Options) {
			opts := sampleOpts
			opts.Retriever, opts.Boundaries = ret, hook
			m2, err := FromJSON([]byte(mustJSON(t, sampleMemory(t))), opts)
			require.NoError(t, err)
			return m2, opts
		}},
	}
	type op struct {
		run   func(m *Memory) error
		hooks bool // fails only in a state with hooks
	}
	ops := map[string]op{
		"append with a bad role": {run: func(m *Memory) error { _, err := m.Append("system", "x"); return err }},
		"append with no role":    {run: func(m *Memory) error { _, err := m.Append("", "x"); return err }},
		"append empty text":      {run: func(m *Memory) error { _, err := m.Append(User, ""); return err }},
		"append invalid UTF-8":   {run: func(m *Memory) error { _, err := m.Append(User, "ok \xc3\x28"); return err }},
		"append a year past 9999": {run: func(m *Memory) error {
			_, err := m.AppendAt(User, "x", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
			return err
		}},
		"append a year before 0": {run: func(m *Memory) error {
			_, err := m.AppendAt(User, "x", time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC))
			return err
		}},
		"append a zone of 25 hours": {run: func(m *Memory) error {
			_, err := m.AppendAt(User, "x", time.Now().In(time.FixedZone("", 25*3600)))
			return err
		}},
		"redact -1":             {run: func(m *Memory) error { return m.Redact(-1) }},
		"redact past the end":   {run: func(m *Memory) error { return m.Redact(m.Len()) }},
		"redact MaxInt":         {run: func(m *Memory) error { return m.Redact(math.MaxInt) }},
		"compose invalid UTF-8": {run: func(m *Memory) error { _, err := m.Compose(context.Background(), "\xff"); return err }},
		"turn -1":               {run: func(m *Memory) error { _, err := m.Turn(-1); return err }},
		"compose with a cancelled context": {run: func(m *Memory) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := m.Compose(ctx, "topic")
			return err
		}},
		"append past a failing hook": {hooks: true, run: func(m *Memory) error {
			broken.Store(true)
			_, err := m.Append(User, "x")
			return err
		}},
		"compose past a failing retriever": {hooks: true, run: func(m *Memory) error {
			broken.Store(true)
			_, err := m.Compose(context.Background(), "topic")
			return err
		}},
	}
	for sname, st := range states {
		for oname, o := range ops {
			if o.hooks && !st.hooks {
				continue
			}
			t.Run(sname+"/"+oname, func(t *testing.T) {
				broken.Store(false)
				m, opts := st.make(t)
				for m.open < m.opt.Chunk && m.Len() > 0 {
					_, err := m.Append(User, "filler so the next append asks the hook")
					require.NoError(t, err)
				}
				before := mustJSON(t, m)
				n := m.Len()
				err := o.run(m)
				broken.Store(false)
				require.Error(t, err)
				require.True(t, isSentinel(err) || errors.Is(err, context.Canceled), "undocumented error %v", err)
				require.Equal(t, before, mustJSON(t, m), "failed %s changed the memory", oname)
				require.Equal(t, n, m.Len())
				r, err := m.Compose(context.Background(), "topic")
				require.NoError(t, err)
				checkResult(t, m, "topic", r)
				checkRoundTrip(t, m, opts, "topic")
			})
		}
	}
}

// TestATurnsPackedTimeIsTheTimeItWasGiven: a turn keeps its time in 16
// bytes and its location as an index; what comes back is the time given,
// in its location, less a monotonic reading, and the packed difference of
// two turns' times is time.Sub's, saturated as it is.
func TestATurnsPackedTimeIsTheTimeItWasGiven(t *testing.T) {
	t.Parallel()
	east, west := time.FixedZone("east", 5*3600+1800), time.FixedZone("", -8*3600)
	times := []struct {
		name string
		at   time.Time
	}{
		{"none", time.Time{}},
		{"UTC", time.Date(2023, 5, 25, 10, 30, 0, 123456789, time.UTC)},
		{"a fixed zone", time.Date(2023, 5, 25, 10, 30, 0, 1, east)},
		{"another zone", time.Date(2023, 5, 26, 1, 0, 0, 0, west)},
		{"the local zone", time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.Local)},
		{"year 0", time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"year 9999", time.Date(9999, 12, 31, 23, 59, 59, 999999999, east)},
		{"now, with its monotonic reading", time.Now()},
	}
	var c conversation
	for _, x := range times {
		var tt turn
		c.setTime(&tt, x.at)
		c.turns = append(c.turns, tt)
		t.Run(x.name, func(t *testing.T) {
			got := c.timeOf(&tt)
			assert.Equal(t, x.at.Round(0), got)
			assert.Equal(t, x.at.Location(), got.Location())
			assert.Equal(t, !x.at.IsZero(), tt.timed())
		})
	}
	for a := range times {
		for b := range times {
			p, q := times[a].at, times[b].at
			d, ok := c.elapsed(a, b)
			require.Equal(t, !p.IsZero() && !q.IsZero(), ok, "%s to %s", times[a].name, times[b].name)
			if ok {
				require.Equal(t, q.Round(0).Sub(p.Round(0)), d, "%s to %s", times[a].name, times[b].name)
			}
		}
	}
	t.Run("a location past the table's room is kept behind the pointer", func(t *testing.T) {
		c := conversation{zones: &turnZones{locs: make([]*time.Location, maxZones), of: map[*time.Location]uint16{}}}
		at := time.Date(2023, 5, 25, 10, 30, 0, 7, east)
		var tt turn
		c.setTime(&tt, at)
		c.turns = append(c.turns, tt)
		assert.Equal(t, at, c.timeOf(&tt))
		assert.Same(t, east, c.timeOf(&tt).Location())
		d, ok := c.elapsed(0, 0)
		assert.True(t, ok)
		assert.Zero(t, d)
	})
	t.Run("an agent turn past the table's room keeps its time beside its fields", func(t *testing.T) {
		m := New(Options{})
		m.zones = &turnZones{locs: make([]*time.Location, maxZones), of: map[*time.Location]uint16{}}
		at := time.Date(2023, 5, 25, 10, 30, 0, 0, west)
		mustTurn(t, m, Turn{Role: ToolCall, Tool: "lookup", CallID: "c1", Text: "{}", Time: at})
		got, err := m.Turn(0)
		require.NoError(t, err)
		assert.Equal(t, at, got.Time)
		assert.Equal(t, "lookup", got.Tool)
	})
}
