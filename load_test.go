package byheart

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigStoredChat is a long conversation as a store keeps it: dated talk with
// relative dates to annotate, agent steps with sources, quarantined notes,
// redacted turns, and results saved without their call's tool, which the
// load gives them.
func bigStoredChat(t *testing.T, opts Options, n int) Changes {
	t.Helper()
	m := New(opts)
	phrases := []string{"yesterday", "last Saturday", "two weeks ago", "next month", "tonight", ""}
	for i, turn := range chat(31, n) {
		turn.Text += " " + phrases[i%len(phrases)]
		mustTurn(t, m, turn)
		if turn.Role == Assistant && i%9 == 1 {
			id := fmt.Sprintf("c%d", i)
			mustTurn(t, m, Turn{Role: ToolCall, Tool: "search", CallID: id, Text: `{"q":"` + id + `"}`})
			mustTurn(t, m, Turn{Role: ToolResult, CallID: id, Text: turn.Text + " found last week",
				Source: Source{Name: "web", Authenticated: i%2 == 0}})
		}
		if i%50 == 7 {
			mustTurn(t, m, Turn{Role: Note, Text: "note made the day before yesterday", Source: Source{Name: "crm"}})
		}
		if i%20 == 19 {
			compose(t, m, turn.Text)
		}
	}
	for i := 5; i < m.Len(); i += 97 {
		require.NoError(t, m.Redact(i))
	}
	c, err := m.Since(0, 0)
	require.NoError(t, err)
	for i := range c.Turns {
		if c.Turns[i].Role == ToolResult && i%3 == 0 {
			c.Turns[i].Tool = ""
		}
	}
	return c
}

// restoreWith restores c with GOMAXPROCS set to procs, which decides how
// many goroutines the load shares its work among.
func restoreWith(t *testing.T, procs int, c Changes, opts Options) (*Memory, error) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	return Restore(c, opts)
}

// Not parallel: it sets GOMAXPROCS.
func TestParallelLoadBuildsTheMemoryASerialLoadBuilds(t *testing.T) {
	for _, opts := range []Options{{Budget: 4000}, {Budget: 2500, Unverified: Quarantine}} {
		t.Run(fmt.Sprint(opts.Unverified), func(t *testing.T) {
			c := bigStoredChat(t, opts, 3000)
			for _, procs := range []int{2, 3, 8} {
				// Each pair composes afresh: composing changes the kept selection.
				serial, err := restoreWith(t, 1, c, opts)
				require.NoError(t, err)
				par, err := restoreWith(t, procs, c, opts)
				require.NoError(t, err)
				assert.Equal(t, serial.turns, par.turns, "turns, %d procs", procs)
				assert.Equal(t, serial.str, par.str, "stretches, %d procs", procs)
				assert.Equal(t, serial.open, par.open, "open stretch, %d procs", procs)
				sameIndex(t, serial.ix, par.ix)
				assert.Equal(t, mustJSON(t, serial), mustJSON(t, par), "saved, %d procs", procs)
				for _, q := range chat(32, 5) {
					assert.Equal(t, compose(t, serial, q.Text), compose(t, par, q.Text), "composed, %d procs", procs)
				}
			}
		})
	}
}

// sameIndex checks that two indexes hold the same terms under the same ids
// and the same postings; their seeds, and so their content keys, differ.
func sameIndex(t *testing.T, want, got *index) {
	t.Helper()
	assert.Equal(t, vocabulary(want), vocabulary(got), "vocabulary")
	assert.Equal(t, want.nterms, got.nterms, "terms in the table")
	// The records hold the document frequencies, the score bounds and
	// where each term's postings are.
	assert.Equal(t, want.terms.list(), got.terms.list(), "term records")
	for id := range want.terms.n {
		ws, wt := want.list(uint32(id))
		gs, gt := got.list(uint32(id))
		assert.Equal(t, ws, gs, "postings of term %d", id)
		assert.Equal(t, wt, gt, "term frequencies of term %d", id)
	}
	assert.Equal(t, want.bigTF, got.bigTF, "large term frequencies")
	assert.Equal(t, want.lens, got.lens, "text lengths")
	assert.Equal(t, want.owner, got.owner, "owners")
	assert.Equal(t, want.openIDs.list(), got.openIDs.list(), "open stretch terms")
	for _, id := range want.openIDs.list() {
		assert.Equal(t, want.info(id).open, got.info(id).open, "open stretch count of term %d", id)
	}
	assert.Equal(t, want.openLen, got.openLen, "open stretch length")
	assert.Equal(t, want.live, got.live, "live texts")
	assert.Equal(t, want.length, got.length, "terms in all texts")
	assert.Equal(t, want.encoded, got.encoded, "texts encoded")
}

// Not parallel: it sets GOMAXPROCS.
func TestParallelLoadRefusesTheTurnASerialLoadRefuses(t *testing.T) {
	c := bigStoredChat(t, Options{}, 1500)
	late := len(c.Turns) - 3
	for name, spoil := range map[string]func(ts []Turn){
		"empty text":          func(ts []Turn) { ts[late].Text = "" },
		"two bad turns":       func(ts []Turn) { ts[late].Role = "system"; ts[900].Text = "\xff" },
		"tool on a user turn": func(ts []Turn) { ts[late].Role, ts[late].Tool = User, "x" },
		"result without call": func(ts []Turn) { ts[late] = Turn{Role: ToolResult, CallID: "nobody", Text: "x"} },
	} {
		t.Run(name, func(t *testing.T) {
			bad := c
			bad.Turns = append([]Turn(nil), c.Turns...)
			spoil(bad.Turns)
			_, serial := restoreWith(t, 1, bad, Options{})
			require.ErrorIs(t, serial, ErrFormat)
			for _, procs := range []int{2, 8} {
				_, err := restoreWith(t, procs, bad, Options{})
				assert.Equal(t, serial, err, "%d procs", procs)
			}
		})
	}
}

func TestSmallLoadsStartNoGoroutines(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 1, loadWorkers(2*turnsPerWorker-1))
	assert.Equal(t, 1, loadWorkers(0))
	assert.LessOrEqual(t, loadWorkers(1<<20), runtime.GOMAXPROCS(0))
}

// Not parallel: it sets GOMAXPROCS.
func TestAPanicInALoadWorkerReachesTheCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	assert.PanicsWithValue(t, "turn 700", func() {
		inParallel(1000, 4, 10, func(_, lo, hi int) {
			if lo <= 700 && 700 < hi {
				panic("turn 700")
			}
		})
	})
}

func TestRestoreOfALongConversationComposesAsTheSavedMemory(t *testing.T) {
	t.Parallel()
	opts := Options{Budget: 3000}
	m := New(opts)
	fillTurns(m, chat(33, 2000))
	compose(t, m, "what did we plan")
	c, err := m.Since(0, 0)
	require.NoError(t, err)
	r, err := Restore(c, opts)
	require.NoError(t, err)
	assert.Equal(t, mustJSON(t, m), mustJSON(t, r))
	ctx := context.Background()
	for _, q := range chat(34, 5) {
		want, err := m.Compose(ctx, q.Text)
		require.NoError(t, err)
		got, err := r.Compose(ctx, q.Text)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

// Not parallel: it sets GOMAXPROCS.
func TestALoadNeverCallsTheMeasureFromTwoGoroutines(t *testing.T) {
	var inside, overlapped atomic.Int32
	count := ApproxTokens(O200k)
	measure := func(s string) int {
		if inside.Add(1) > 1 {
			overlapped.Store(1)
		}
		defer inside.Add(-1)
		return count(s)
	}
	opts := Options{Budget: 1500, Measure: measure}
	c := bigStoredChat(t, opts, 1500)
	serial, err := restoreWith(t, 1, c, opts)
	require.NoError(t, err)
	par, err := restoreWith(t, 4, c, opts)
	require.NoError(t, err)
	assert.Zero(t, overlapped.Load(), "a measure need not be safe for concurrent use")
	assert.Equal(t, serial.turns, par.turns)
	assert.Equal(t, mustJSON(t, serial), mustJSON(t, par))
}
