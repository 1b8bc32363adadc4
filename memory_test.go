package byheart

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ── Append: roles, text and time at the door ─────────────────────────

func TestAppendAcceptsUserAndAssistantAndReturnsTheIndex(t *testing.T) {
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
	m := New(Options{})
	mustAppend(t, m, User, "only turn")
	for _, i := range []int{-1, 1, 100} {
		_, err := m.Turn(i)
		assert.ErrorIs(t, err, ErrIndex, "index %d", i)
	}
}

// ── stretches ────────────────────────────────────────────────────────

func TestStretchOpensOnceTheOpenOneReachesChunkCharacters(t *testing.T) {
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

func TestBoundariesHookThatFailsRecordsNothing(t *testing.T) {
	cases := map[string]func([]Turn) []int{
		"panics":              func([]Turn) []int { panic("segmenter down") },
		"split at zero":       func([]Turn) []int { return []int{0} },
		"split past the tail": func(tail []Turn) []int { return []int{len(tail)} },
		"not increasing":      func(tail []Turn) []int { return []int{2, 1} },
	}
	for name, hook := range cases {
		t.Run(name, func(t *testing.T) {
			m := New(Options{Chunk: 60, Boundaries: hook})
			fill(t, m, 3, "twenty characters...") // 66 characters: the next append closes
			bounds := m.Bounds()
			_, err := m.Append(User, "one more turn")
			require.ErrorIs(t, err, ErrBoundaries)
			assert.Equal(t, 3, m.Len())
			assert.Equal(t, bounds, m.Bounds())
		})
	}
}

// ── concurrency ──────────────────────────────────────────────────────

func TestConcurrentAppendAndComposeLoseNoTurn(t *testing.T) {
	m := New(Options{Budget: 3000, Chunk: 300,
		External: ExternalFunc(func(_ context.Context, q string) ([]Item, error) {
			return []Item{{Text: "outside: " + q, Source: "kb"}}, nil
		})})
	const writers, perWriter = 4, 60
	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter*2)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				text := fmt.Sprintf("writer %d turn %d about the deploy and the greenhouse", w, i)
				if _, err := m.Append(roleOf(i), text); err != nil {
					errs <- err
				}
				if r, err := m.Compose(context.Background(), text); err != nil {
					errs <- err
				} else if contextRunes(r) > 3000 {
					errs <- errors.New("budget exceeded under concurrency")
				}
				if i%10 == 0 {
					if _, err := m.ToJSON(); err != nil {
						errs <- err
					}
					_ = m.Bounds()
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	require.Equal(t, writers*perWriter, m.Len())
	seen := map[string]int{}
	for i := 0; i < m.Len(); i++ {
		tu, err := m.Turn(i)
		require.NoError(t, err)
		seen[tu.Text]++
	}
	for w := 0; w < writers; w++ {
		for i := 0; i < perWriter; i++ {
			text := fmt.Sprintf("writer %d turn %d about the deploy and the greenhouse", w, i)
			assert.Equal(t, 1, seen[text], "%q", text)
		}
	}
}
