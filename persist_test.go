package byheart

// ToJSON and FromJSON: round trips, what is refused, what is repaired, and
// input that is hostile or corrupted.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ── round trips ───────────────────────────────────────────────────────

// throughJSON sends data through a generic JSON value and back, as a store
// that parses and re-serialises documents would.
func throughJSON(t *testing.T, data []byte) []byte {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return out
}

func TestJSONRoundTripKeepsTurnsBoundsAndComposition(t *testing.T) {
	t.Parallel()
	for _, stability := range []float64{-1, 0} {
		t.Run(fmt.Sprint(stability), func(t *testing.T) {
			opts := Options{Budget: 3000, Stability: stability}
			m := New(opts)
			fillTurns(m, chat(11, 300))
			mustAppend(t, m, User, "multi-line\r\nnon-ASCII: café 東京 😀")
			require.NoError(t, m.Redact(17))
			queries := chat(12, 5)
			before := compose(t, m, queries[0].Text)

			data, err := m.ToJSON()
			require.NoError(t, err)
			m2, err := FromJSON(throughJSON(t, data), opts)
			require.NoError(t, err)

			require.Equal(t, m.Len(), m2.Len())
			for i := 0; i < m.Len(); i++ {
				a, _ := m.Turn(i)
				b, _ := m2.Turn(i)
				assert.Equal(t, a.Role, b.Role, "turn %d", i)
				assert.Equal(t, a.Text, b.Text, "turn %d", i)
				assert.Equal(t, a.Redacted, b.Redacted, "turn %d", i)
				assert.True(t, a.Time.Equal(b.Time), "turn %d: %v vs %v", i, a.Time, b.Time)
			}
			assert.Equal(t, m.Bounds(), m2.Bounds())
			after := compose(t, m2, queries[0].Text)
			assert.Equal(t, before.Included, after.Included)
			assert.Equal(t, before.Messages, after.Messages)
			for _, q := range queries[1:] {
				assert.Equal(t, compose(t, m, q.Text).Included, compose(t, m2, q.Text).Included)
			}
			data2, err := m2.ToJSON()
			require.NoError(t, err)
			data, err = m.ToJSON()
			require.NoError(t, err)
			assert.JSONEq(t, string(data), string(data2))
		})
	}
}

func TestRestoredSelectionStaysSticky(t *testing.T) {
	t.Parallel()
	opts := Options{Budget: 3000, Stability: 0.7}
	m := New(opts)
	fill(t, m, 80, "discussing the deploy and migration rollback, filler")
	fill(t, m, 40, "the greenhouse tomatoes and the compost, filler")
	r1 := compose(t, m, "deploy rollback migrations")
	require.NotEmpty(t, blockOf(r1))

	data, err := m.ToJSON()
	require.NoError(t, err)
	m2, err := FromJSON(throughJSON(t, data), opts)
	require.NoError(t, err)
	r2 := compose(t, m2, "deploy rollback migrations")
	assert.False(t, r2.Reselected(), "same subject after a restart: no rebuild")
	prefixHeld(t, r1, r2, "the cached prefix must survive a restart")

	mustAppend(t, m2, User, "and the rollback of the migration?")
	r3 := compose(t, m2, "and the rollback of the migration?")
	assert.False(t, r3.Reselected())
	prefixHeld(t, r2, r3, "after a restart the selection extends as before")
}

// recalledMemory returns a memory whose last call recalled past its kept
// context, with the options it was made with.
func recalledMemory(t *testing.T) (*Memory, Options) {
	t.Helper()
	opts := Options{Budget: 1500, Stability: 0.5}
	m := topicMemory(t, opts, 6, "deploy", "garden", "travel", "music")
	compose(t, m, "the greenhouse tomatoes and compost")
	r := compose(t, m, "the kubernetes canary rollback")
	require.NotEmpty(t, r.Recalled, "the fixture needs a recall")
	return m, opts
}

func TestRestoredLogComposesAsTheOriginalRecallsIncluded(t *testing.T) {
	t.Parallel()
	m, opts := recalledMemory(t)
	data, err := m.ToJSON()
	require.NoError(t, err)
	assert.NotContains(t, string(data), `"recalls"`, "the log keeps no recalls")
	m2, err := FromJSON(throughJSON(t, data), opts)
	require.NoError(t, err)
	require.NotNil(t, m2.sel)
	again, err := m2.ToJSON()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again), "a restored log writes the same bytes")
	for _, q := range []string{"the kubernetes canary rollback", "the greenhouse tomatoes", "our trip to Kyoto"} {
		want, got := compose(t, m, q), compose(t, m2, q)
		assert.Equal(t, want, got, "query %q", q)
	}
}

func TestFromJSONReadsAVersionOneSave(t *testing.T) {
	t.Parallel()
	opts := Options{Budget: 1500, Stability: 0.5}
	m := topicMemory(t, opts, 6, "deploy", "garden", "travel", "music")
	r1 := compose(t, m, "the greenhouse tomatoes and compost")
	data, err := m.ToJSON()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	doc["version"] = 1 // a version 1 save: the same shape, without recalls
	delete(doc["selection"].(map[string]any), "recalls")
	old, err := json.Marshal(doc)
	require.NoError(t, err)

	m2, err := FromJSON(old, opts)
	require.NoError(t, err)
	require.NotNil(t, m2.sel, "a version 1 selection is read")
	r2 := compose(t, m2, "the greenhouse tomatoes and compost")
	assert.False(t, r2.Reselected())
	prefixHeld(t, r1, r2, "a version 1 save keeps its cache warm")
}

func TestFromJSONDropsALogThatKeptRecalls(t *testing.T) {
	t.Parallel()
	// Saves of versions 2 to 4 could keep recalls in the log; this rule 3
	// recalls past the breakpoint, so such a log is one it could not have
	// made: it is dropped and rebuilt.
	m, opts := recalledMemory(t)
	data, err := m.ToJSON()
	require.NoError(t, err)
	sel := m.sel
	n := m.Len()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	s := doc["selection"].(map[string]any)
	s["recalls"] = []any{map[string]any{"at": n, "keys": []int{0}, "ends": []int{sel.block.keys[0]}}}
	crafted, err := json.Marshal(doc)
	require.NoError(t, err)
	m2, err := FromJSON(crafted, opts)
	require.NoError(t, err, "such a log is dropped, not refused")
	assert.Nil(t, m2.sel)
	r := compose(t, m2, "the kubernetes canary rollback")
	assert.Equal(t, RebuildRestored, r.Rebuild)
	checkResult(t, m2, "the kubernetes canary rollback", r)

	// More recalls than turns are dropped unread.
	require.NoError(t, json.Unmarshal(data, &doc))
	s = doc["selection"].(map[string]any)
	many := make([]any, n+1)
	for i := range many {
		many[i] = map[string]any{"at": n, "keys": []int{i}, "ends": []int{i + 1}}
	}
	s["recalls"] = many
	crafted, err = json.Marshal(doc)
	require.NoError(t, err)
	m2, err = FromJSON(crafted, opts)
	require.NoError(t, err)
	assert.Nil(t, m2.sel, "more recalls than turns")

	// A recall that is not numbers is malformed data, as a selection is.
	s["recalls"] = []any{map[string]any{"at": "soon", "keys": []int{0}, "ends": []int{1}}}
	crafted, err = json.Marshal(doc)
	require.NoError(t, err)
	_, err = FromJSON(crafted, opts)
	assert.ErrorIs(t, err, ErrFormat)
}

func TestToJSONWritesTheFormatVersion(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	mustAppend(t, m, User, "hello")
	data, err := m.ToJSON()
	require.NoError(t, err)
	var w struct{ Version *int }
	require.NoError(t, json.Unmarshal(data, &w))
	require.NotNil(t, w.Version)
	assert.Equal(t, FormatVersion, *w.Version)

	future := strings.Replace(string(data), fmt.Sprintf(`"version":%d`, FormatVersion), fmt.Sprintf(`"version":%d`, FormatVersion+1), 1)
	_, err = FromJSON([]byte(future), Options{})
	assert.ErrorIs(t, err, ErrVersion)
}

// ── what FromJSON refuses ─────────────────────────────────────────────

// sampleDoc is a saved memory as generic JSON, to be broken in one place.
func sampleDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(mustJSON(t, sampleMemory(t))), &doc))
	return doc
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return data
}

func TestFromJSONRefusesEveryTruncation(t *testing.T) {
	t.Parallel()
	full := []byte(mustJSON(t, sampleMemory(t)))
	for n := 0; n < len(full); n++ {
		m, err := FromJSON(full[:n], Options{})
		require.Error(t, err, "prefix of %d bytes", n)
		require.ErrorIs(t, err, ErrFormat, "prefix of %d bytes", n)
		require.Nil(t, m)
	}
	_, err := FromJSON(full, Options{})
	require.NoError(t, err)
}

// ── what FromJSON repairs ─────────────────────────────────────────────

// TestFromJSONRepairsBoundsAndDropsABadSelection covers the derived state
// the format lets FromJSON repair instead of refusing: boundaries and the
// kept selection.
func TestFromJSONRepairsBoundsAndDropsABadSelection(t *testing.T) {
	t.Parallel()
	src := sampleMemory(t)
	bounds := src.Bounds()
	require.Greater(t, len(bounds), 2)
	n := src.Len()
	inside := -1 // a turn inside a stretch, not at its start
	for i := 1; i < len(bounds) && inside < 0; i++ {
		if bounds[i]-bounds[i-1] > 1 {
			inside = bounds[i-1] + 1
		}
	}
	require.Positive(t, inside)
	cases := []struct {
		name      string
		bounds    any
		selection any
		wantB     []int // nil: same as the source
		keepsSel  bool
	}{
		{"as saved", bounds, "keep", nil, true},
		{"negative", append([]any{-1, -9223372036854775808}, toAny(bounds)...), "keep", nil, true},
		{"past the end", append(toAny(bounds), n, n+1, 9223372036854775807), "keep", nil, true},
		{"past int64", append(toAny(bounds), 1e30, "99999999999999999999999"), "keep", nil, true},
		{"duplicated", append(toAny(bounds), toAny(bounds)...), "keep", nil, true},
		{"unsorted", reversed(toAny(bounds)), "keep", nil, true},
		{"not integers", append(toAny(bounds), 2.5, -0.5, 1e-3, "2.5", nil), "keep", nil, true},
		{"null", nil, "keep", []int{0}, false},
		{"missing", absent{}, nil, []int{0}, false},
		{"only zero", []int{0}, nil, []int{0}, false},
		{"first one missing", bounds[1:], "keep", nil, true},
		{"selection of missing turns", bounds, map[string]any{"keys": []int{n + 5}, "upto": n + 9}, nil, false},
		{"selection not at a boundary", bounds, map[string]any{"keys": []int{inside}, "upto": n}, nil, false},
		{"selection unsorted", bounds, map[string]any{"keys": []int{bounds[2], bounds[1]}, "upto": n}, nil, false},
		{"selection duplicated", bounds, map[string]any{"keys": []int{bounds[1], bounds[1]}, "upto": n}, nil, false},
		{"selection past its cut", bounds, map[string]any{"keys": []int{bounds[2]}, "upto": bounds[1]}, nil, false},
		{"selection with negative cut", bounds, map[string]any{"keys": []int{}, "upto": -1}, nil, false},
		{"selection with huge numbers", bounds, map[string]any{"keys": []any{1e30}, "upto": 1e300}, nil, false},
		{"selection with a fractional cut", bounds, map[string]any{"keys": []int{}, "upto": 2.5}, nil, false},
		{"selection with no cut", bounds, map[string]any{"keys": []int{0}}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := sampleDoc(t)
			doc["bounds"] = c.bounds
			if c.bounds == (absent{}) {
				delete(doc, "bounds")
			}
			if c.selection != "keep" {
				doc["selection"] = c.selection
			}
			m, err := FromJSON(mustMarshal(t, doc), sampleOpts)
			require.NoError(t, err)
			want := c.wantB
			if want == nil {
				want = bounds
			}
			require.Equal(t, want, m.Bounds())
			require.Equal(t, c.keepsSel, m.sel != nil)
			for i := range n {
				a, _ := src.Turn(i)
				b, err := m.Turn(i)
				require.NoError(t, err)
				require.True(t, a.Time.Equal(b.Time))
				a.Time, b.Time = time.Time{}, time.Time{}
				require.Equal(t, a, b, "no turn is lost to repaired boundaries")
			}
			r, err := m.Compose(context.Background(), sampleQuery)
			require.NoError(t, err)
			checkResult(t, m, sampleQuery, r)
			if c.keepsSel {
				require.False(t, r.Reselected(), "a restored selection stays sticky")
			}
		})
	}
}

// absent marks a field to leave out of the document.
type absent struct{}

func toAny(xs []int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func reversed(xs []any) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[len(xs)-1-i] = x
	}
	return out
}

func TestFromJSONDiscardsGarbageBounds(t *testing.T) {
	t.Parallel()
	m, err := FromJSON([]byte(`{"version":1,"turns":[],"bounds":[0,5,-3,999]}`), Options{})
	require.NoError(t, err)
	assert.Empty(t, m.Bounds())
	assert.Equal(t, 0, m.Len())
	mustAppend(t, m, User, "the memory works after a repair")
	assert.Equal(t, []int{0}, m.Bounds())

	turns := make([]string, 10)
	for i := range turns {
		turns[i] = fmt.Sprintf(`{"role":%q,"text":"turn %d"}`, roleOf(i), i)
	}
	all := "[" + strings.Join(turns, ",") + "]"
	for bounds, want := range map[string][]int{
		`[0,5,-3,999,5,2,10]`: {0, 2, 5},
		`[7,3]`:               {0, 3, 7},
		`[]`:                  {0},
		`null`:                {0},
	} {
		m, err := FromJSON([]byte(`{"version":1,"turns":`+all+`,"bounds":`+bounds+`}`), Options{})
		require.NoError(t, err, bounds)
		assert.Equal(t, want, m.Bounds(), bounds)
		checkIndex(t, m)
		compose(t, m, "turn")
	}
}

func TestFromJSONDropsASelectionThatDoesNotMatch(t *testing.T) {
	t.Parallel()
	turns := make([]string, 10)
	for i := range turns {
		turns[i] = fmt.Sprintf(`{"role":%q,"text":"turn %d about the deploy"}`, roleOf(i), i)
	}
	all := "[" + strings.Join(turns, ",") + "]"
	for _, sel := range []string{
		`{"keys":[5,-1],"upto":99}`,
		`{"keys":[0,3],"upto":9}`, // 3 starts no stretch
		`{"keys":[5,0],"upto":9}`, // not ascending
		`{"keys":[5],"upto":5}`,   // a key at the cut
		`{"keys":[0],"upto":-4}`,
	} {
		m, err := FromJSON([]byte(`{"version":1,"turns":`+all+`,"bounds":[0,5],"selection":`+sel+`}`), Options{Budget: 100})
		require.NoError(t, err, sel)
		assert.Nil(t, m.sel, sel)
		r := compose(t, m, "deploy")
		assert.True(t, r.Reselected(), sel)
		assert.LessOrEqual(t, contextRunes(r), 100)
	}
}

func TestFromJSONRedactedFlagHidesTheText(t *testing.T) {
	t.Parallel()
	m, err := FromJSON([]byte(`{"version":1,"turns":[{"role":"user","text":"hunter2","redacted":true}]}`), Options{})
	require.NoError(t, err)
	tu, err := m.Turn(0)
	require.NoError(t, err)
	assert.True(t, tu.Redacted)
	assert.NotContains(t, tu.Text, "hunter2")
	assert.NotContains(t, contextOf(compose(t, m, "hunter2")), "hunter2")
}

// TestFromJSONReadsOddButValidData: input that looks hostile but is a
// memory.
func TestFromJSONReadsOddButValidData(t *testing.T) {
	t.Parallel()
	saved := mustJSON(t, sampleMemory(t))
	for name, data := range map[string]string{
		"wrapped in whitespace":   strings.Repeat(" \n\t\r", 1<<20) + saved + strings.Repeat("\n", 1<<20),
		"unknown fields":          strings.Replace(saved, `{"version":1`, `{"version":1,"extra":[[[{"a":null}]]],"more":"x"`, 1),
		"lone surrogate":          `{"version":1,"turns":[{"role":"user","text":"\ud800 and \udfff"}]}`,
		"invalid UTF-8 in string": "{\"version\":1,\"turns\":[{\"role\":\"user\",\"text\":\"\xff\xfe\"}]}",
		"escaped everything":      `{"version":1,"turns":[{"role":"\u0075ser","text":"\u0000\r\n\u2028\u0085"}]}`,
		"years at the edges":      `{"version":1,"turns":[{"role":"user","text":"a","time":"0000-01-01T00:00:00Z"},{"role":"user","text":"b","time":"9999-12-31T23:59:59.999999999-23:59"}]}`,
		"redacted with its text":  `{"version":1,"turns":[{"role":"user","text":"my secret","redacted":true}]}`,
		"older empty":             `{"version":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			m, err := FromJSON([]byte(data), Options{Budget: 400})
			require.NoError(t, err)
			checkBounds(t, m)
			require.NotContains(t, mustJSON(t, m), "my secret")
			checkRoundTrip(t, m, Options{Budget: 400}, "a")
		})
	}
}

// ── corrupted input ───────────────────────────────────────────────────

// exercise runs a restored memory through its whole surface.
func exercise(t testing.TB, m *Memory) {
	if _, err := m.Compose(context.Background(), "deploy rollback 東京"); err != nil {
		t.Fatalf("compose on a restored memory: %v", err)
	}
	if _, err := m.ToJSON(); err != nil {
		t.Fatalf("ToJSON on a restored memory: %v", err)
	}
	if _, err := m.Append(User, "one more"); err != nil {
		t.Fatalf("append on a restored memory: %v", err)
	}
	if n := m.Len(); n > 1 {
		_ = m.Redact(n / 2)
	}
	if _, err := m.Compose(context.Background(), "one more"); err != nil {
		t.Fatalf("compose on a restored memory: %v", err)
	}
}

// ── changes: Since, Apply and Restore, as a store of rows uses them ────

// rowStore keeps a conversation as a store of rows does: turns appended,
// stretch starts added, the kept selection replaced.
type rowStore struct {
	turns  []Turn
	bounds []int
	kept   json.RawMessage
}

func (s *rowStore) save(c Changes) {
	s.turns = append(s.turns[:c.From], c.Turns...)
	s.bounds = append(s.bounds, c.Bounds...)
	s.kept = c.Kept
}

func (s *rowStore) all() Changes {
	return Changes{Turns: s.turns, Bounds: s.bounds, Kept: s.kept}
}

// lastBound is the last stretch start of m, as a store tracks it.
func lastBound(m *Memory) int {
	b := m.Bounds()
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1]
}

func TestChangesSavedInStepsRestoreAndCatchUpAsToJSONDoes(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{
		{Budget: 3000},
		{Budget: 3000, Stability: -1},
		{Budget: 3000, Boundaries: func(tail []Turn) []int {
			if len(tail) > 3 {
				return []int{len(tail) / 2}
			}
			return nil
		}},
	} {
		t.Run(fmt.Sprint(opts.Stability, opts.Boundaries != nil), func(t *testing.T) {
			t.Parallel()
			m := New(opts)
			var db rowStore
			saved, bound := 0, 0
			replica := New(Options{Budget: opts.Budget, Stability: opts.Stability,
				Boundaries: func([]Turn) []int { panic("Apply cut stretches with the hook rather than the saved starts") }})
			for i, turn := range chat(21, 400) {
				mustAppendAt(t, m, turn.Role, turn.Text, turn.Time)
				if i%7 == 3 {
					compose(t, m, turn.Text)
				}
				if i == 150 {
					require.NoError(t, m.Redact(40))
					saved, bound = 0, 0 // a redaction rewrites history: save it whole
					db = rowStore{}
					replica = New(Options{Budget: opts.Budget, Stability: opts.Stability})
				}
				if i%11 == 0 {
					c, err := m.Since(saved, bound)
					require.NoError(t, err)
					db.save(c)
					require.NoError(t, replica.Apply(c))
					saved, bound = m.Len(), lastBound(m)
				}
			}
			c, err := m.Since(saved, bound)
			require.NoError(t, err)
			db.save(c)
			require.NoError(t, replica.Apply(c))

			restored, err := Restore(db.all(), opts)
			require.NoError(t, err)
			want := mustJSON(t, m)
			assert.Equal(t, want, mustJSON(t, restored), "restored from rows")
			assert.Equal(t, want, mustJSON(t, replica), "caught up step by step")
			for _, q := range chat(22, 4) {
				r := compose(t, m, q.Text)
				assert.Equal(t, r, compose(t, restored, q.Text))
				assert.Equal(t, r, compose(t, replica, q.Text))
			}
		})
	}
}

func TestSinceReturnsOnlyWhatFollowsThePoint(t *testing.T) {
	t.Parallel()
	m := New(Options{Budget: 2000})
	fillTurns(m, chat(5, 200))
	bounds := m.Bounds()
	require.Greater(t, len(bounds), 3)
	at := bounds[len(bounds)-2]
	c, err := m.Since(at+1, at)
	require.NoError(t, err)
	assert.Equal(t, at+1, c.From)
	assert.Len(t, c.Turns, m.Len()-at-1)
	assert.Equal(t, bounds[len(bounds)-1:], c.Bounds)
	assert.Nil(t, c.Kept, "no selection is kept before the first Compose over the budget")

	compose(t, m, "anything at all")
	c, err = m.Since(m.Len(), lastBound(m))
	require.NoError(t, err)
	assert.Empty(t, c.Turns)
	assert.Empty(t, c.Bounds)
	assert.NotEmpty(t, c.Kept)

	for _, from := range []int{-1, m.Len() + 1} {
		_, err := m.Since(from, 0)
		assert.ErrorIs(t, err, ErrIndex, "from %d", from)
	}
}

func TestApplyRefusesWhatDoesNotFitAndChangesNothing(t *testing.T) {
	t.Parallel()
	call := Turn{Role: ToolCall, Tool: "search", CallID: "c1", Text: "{}"}
	tests := []struct {
		name  string
		from  int
		turns []Turn
		want  error
	}{
		{"changes from an earlier point", 3, []Turn{{Role: User, Text: "hi"}}, ErrIndex},
		{"changes from a later point", 5, []Turn{{Role: User, Text: "hi"}}, ErrIndex},
		{"a role no turn has", 4, []Turn{{Role: "system", Text: "obey"}}, ErrRole},
		{"empty text", 4, []Turn{{Role: User}}, ErrEmpty},
		{"text that is not UTF-8", 4, []Turn{{Role: User, Text: "a\xffb"}}, ErrUTF8},
		{"a result no call waits for", 4, []Turn{{Role: ToolResult, CallID: "zz", Text: "x"}}, ErrNoCall},
		{"a bad turn after good ones", 4, []Turn{{Role: User, Text: "fine"}, call, {Role: User}}, ErrEmpty},
		{"a time ToJSON cannot write", 4, []Turn{{Role: User, Text: "x",
			Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}, ErrTime},
		{"a source on a user turn", 4, []Turn{{Role: User, Text: "x", Source: Source{Name: "web"}}}, ErrTool},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Options{Budget: 2000})
			fillTurns(m, chat(3, 4))
			before := mustJSON(t, m)
			err := m.Apply(Changes{From: tc.from, Turns: tc.turns, Bounds: []int{5}})
			require.ErrorIs(t, err, tc.want)
			if tc.want != ErrIndex {
				assert.ErrorIs(t, err, ErrFormat)
			}
			assert.Equal(t, before, mustJSON(t, m))
			mustAppend(t, m, User, "the memory still takes turns")
		})
	}
}

func TestApplyDropsStartsAndSelectionsItCannotUse(t *testing.T) {
	t.Parallel()
	m := New(Options{Budget: 2000})
	fillTurns(m, chat(8, 60))
	want := mustJSON(t, m)
	c, err := m.Since(0, 0)
	require.NoError(t, err)
	good := c.Bounds
	for _, tc := range []struct {
		name    string
		bounds  []int
		kept    string
		dropped bool // the memory says, and saves, that it dropped a selection
	}{
		{"starts out of range, repeated and unsorted", append([]int{-3, 0, 1 << 40, good[1]}, good...), "", false},
		{"a selection that is not JSON", good, `{"keys":`, false},
		{"a selection naming turns that do not exist", good, `{"keys":[0],"ends":[999],"upto":999}`, true},
		{"a selection of the wrong shape", good, `[1,2,3]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Restore(Changes{Turns: c.Turns, Bounds: tc.bounds, Kept: json.RawMessage(tc.kept)}, Options{Budget: 2000})
			require.NoError(t, err)
			if tc.dropped {
				assert.Equal(t, strings.TrimSuffix(want, "}")+`,"selection":{"dropped":"restored"}}`, mustJSON(t, r))
				return
			}
			assert.Equal(t, want, mustJSON(t, r))
		})
	}
}

func TestApplyTakesARedactedTurnAsItsPlaceholder(t *testing.T) {
	t.Parallel()
	m, err := Restore(Changes{Turns: []Turn{
		{Role: User, Text: "my card is 4111 1111 1111 1111", Redacted: true},
		{Role: Note, Redacted: true, Source: Source{Name: "upload:scan.pdf"}},
		{Role: Assistant, Text: "ok"},
	}}, Options{})
	require.NoError(t, err)
	for i := range 2 {
		turn, err := m.Turn(i)
		require.NoError(t, err)
		assert.True(t, turn.Redacted)
		assert.Equal(t, redactedText, turn.Text)
		assert.Zero(t, turn.Source)
	}
	assert.NotContains(t, mustJSON(t, m), "4111")
}

// BenchmarkLoad compares three ways a stateless server can rebuild a
// memory of n turns: FromJSON of the whole-memory blob; Restore from the
// turns, stretch starts and kept selection a store of rows keeps (the index
// rebuilt from the turns); and replaying every turn through AppendTurn,
// which recomputes the stretch starts too.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{600, 10_000} {
		m := restore(b, snapshot(b, n))
		data, err := m.ToJSON()
		require.NoError(b, err)
		c, err := m.Since(0, 0)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("from=json/turns=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				restore(b, data)
			}
		})
		b.Run(fmt.Sprintf("from=rows/turns=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := Restore(c, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("from=replay/turns=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				r := New(Options{})
				for _, t := range c.Turns {
					if _, err := r.AppendTurn(t); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// ── exact round trips ─────────────────────────────────────────────────

// randomZone is a zone a conversation may be held in: a real one (some with
// offsets in seconds in their history) or an offset of any size under a day.
func randomZone(t *testing.T, r *rand.Rand) *time.Location {
	names := []string{"UTC", "Europe/Amsterdam", "Africa/Monrovia", "Europe/Dublin", "America/New_York",
		"Asia/Kolkata", "Asia/Kathmandu", "Pacific/Chatham", "America/St_Johns", "Pacific/Kiritimati", "Local"}
	if r.IntN(3) == 0 {
		return time.FixedZone("", r.IntN(2*86400-1)-86400+1)
	}
	return mustZone(t, names[r.IntN(len(names))])
}

// randomWhen is an instant between 1850 and 2030, often a few seconds either
// side of midnight in loc, where an offset cut short moves the date.
func randomWhen(r *rand.Rand, loc *time.Location) time.Time {
	day := time.Date(1850+r.IntN(180), time.Month(1+r.IntN(12)), 1+r.IntN(28), 0, 0, 0, 0, loc)
	if r.IntN(2) == 0 {
		return day.Add(time.Duration(r.IntN(119)-59) * time.Second)
	}
	return day.Add(time.Duration(r.Int64N(int64(24 * time.Hour))))
}

// TestRestoredMemoryComposesAndSavesByteForByte is the round-trip property:
// for random memories in random time zones, historical offsets with seconds
// included, FromJSON(ToJSON(m)) composes exactly what m composes for every
// query, as both go on taking turns, and writes the same JSON.
func TestRestoredMemoryComposesAndSavesByteForByte(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(20, 20))
	phrases := []string{"yesterday", "last Saturday", "two weeks ago", "next month", "tonight", "on the 3rd",
		"last summer", "this weekend", ""}
	ctx := context.Background()
	for k := range 40 {
		opts := Options{Budget: 300 + r.IntN(3000), Chunk: 60 + r.IntN(400), Stability: []float64{-1, 0, 0.7}[k%3]}
		m := New(opts)
		g := newChatGen(uint64(k))
		loc := randomZone(t, r)
		when := randomWhen(r, loc)
		say := func(mm ...*Memory) {
			turn := g.next()
			text := turn.Text + " " + phrases[r.IntN(len(phrases))]
			nearGap := time.Duration(3600+r.IntN(119)-59) * time.Second // either side of a new sitting
			switch r.IntN(6) {
			case 0:
				loc = randomZone(t, r)
				when = randomWhen(r, loc)
			case 1:
				when = time.Time{} // inherits the previous turn's
			case 2:
				loc = randomZone(t, r)
				when = when.In(loc).Add(nearGap)
			case 3:
				when = when.Add(nearGap)
			default:
				when = when.Add(time.Duration(r.IntN(3*86400)) * time.Second)
			}
			for _, x := range mm {
				_, err := x.AppendAt(turn.Role, text, when)
				require.NoError(t, err)
			}
			if when.IsZero() {
				when = m.when(len(m.turns) - 1)
			}
		}
		for range 20 + r.IntN(60) {
			say(m)
			if r.IntN(15) == 0 {
				require.NoError(t, m.Redact(r.IntN(m.Len())))
			}
			if r.IntN(5) == 0 {
				compose(t, m, g.next().Text)
			}
		}
		saved := mustJSON(t, m)
		m2, err := FromJSON([]byte(saved), opts)
		require.NoError(t, err)
		require.Equal(t, saved, mustJSON(t, m2), "memory %d: the restored memory writes the same JSON", k)
		for range 6 {
			q := g.next().Text
			r1, err1 := m.Compose(ctx, q)
			r2, err2 := m2.Compose(ctx, q)
			require.NoError(t, err1)
			require.NoError(t, err2)
			require.Equal(t, unsaved(r1), unsaved(r2), "memory %d: the restored memory composes the same context", k)
			say(m, m2)
		}
		require.Equal(t, mustJSON(t, m), mustJSON(t, m2), "memory %d", k)
	}
}

// ── resource use ──────────────────────────────────────────────────────

// hostileSaves are saves that are valid, or nearly, but shaped to make a
// reader allocate out of proportion: lists the library never writes that
// long, a stretch or a zone for every turn, fields it does not know.
func hostileSaves() map[string][]byte {
	saves := map[string][]byte{}
	build := func(name string, n int, turn func(i int) string, bounds func(i int) string) {
		var b bytes.Buffer
		b.WriteString(`{"version":1,"turns":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(turn(i))
		}
		b.WriteString(`],"bounds":[`)
		for i := 0; bounds != nil && i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(bounds(i))
		}
		b.WriteString("]}")
		saves[name] = b.Bytes()
	}
	hi := func(int) string { return `{"role":"user","text":"hi"}` }
	build("two turns and a million boundaries", 2, hi, nil)
	saves["two turns and a million boundaries"] = bytes.Replace(saves["two turns and a million boundaries"],
		[]byte(`"bounds":[`), append([]byte(`"bounds":[`), bytes.Repeat([]byte("1,"), 1_000_000)...), 1)
	saves["two turns and a million boundaries"] = bytes.Replace(saves["two turns and a million boundaries"], []byte(",]"), []byte("]"), 1)
	build("a stretch per turn of one word", 200_000, hi, strconv.Itoa)
	chatTurns := chat(5, 20_000)
	build("a stretch per turn of chat", len(chatTurns), func(i int) string {
		return fmt.Sprintf(`{"role":%q,"text":%q}`, chatTurns[i].Role, chatTurns[i].Text)
	}, strconv.Itoa)
	build("a zone per turn", 100_000, func(i int) string {
		return fmt.Sprintf(`{"role":"user","text":"hi","time":"2023-05-20T09:30:00+%02d:%02d:%02d"}`, i/3600%24, i/60%60, i%60)
	}, nil)
	build("fields it does not know", 50_000, func(int) string {
		return `{"role":"user","text":"hi","zz":[1,2,3,4,5,6,7,8,9,10,[11,{"a":"b"}]],"yy":{"x":null}}`
	}, nil)
	build("escapes in every text", 20_000, func(int) string {
		return `{"role":"assistant","text":"caf\u00e9\n\t\"quoted\" \ud83d\ude00 and a line\r\nmore"}`
	}, nil)
	m := New(Options{})
	fillTurns(m, chatTurns)
	saves["a saved chat"] = []byte(mustJSON(&collector{}, m))
	ones := strings.TrimSuffix(strings.Repeat("1,", 1_000_000), ",")
	saves["a selection of a million keys"] = []byte(`{"version":2,"turns":[{"role":"user","text":"hi"},{"role":"user","text":"hi"}],` +
		`"bounds":[0,1],"selection":{"keys":[` + ones + `],"ends":[` + ones + `],"upto":1}}`)
	saves["a million recalls"] = []byte(`{"version":2,"turns":[{"role":"user","text":"hi"},{"role":"user","text":"hi"}],` +
		`"bounds":[0,1],"selection":{"keys":[],"ends":[],"upto":1,"recalls":[` +
		strings.TrimSuffix(strings.Repeat(`{"at":2,"keys":[0],"ends":[1]},`, 200_000), ",") + `]}}`)
	for name, turns := range agentShapes(4000) {
		m := New(Options{})
		fillTurns(m, turns)
		saves[name] = []byte(mustJSON(&collector{}, m))
	}
	return saves
}

// agentShapes are conversations heavy with agent turns, of the shapes an
// agent writes and of shapes crafted to cost the most per byte: one step of
// many calls and their results, many small steps, calls without ids, calls
// no result answers.
func agentShapes(calls int) map[string][]Turn {
	var small, blank, unanswered []Turn
	for i := range calls {
		id := fmt.Sprintf("c%d", i)
		small = append(small, Turn{Role: User, Text: "next?"}, Turn{Role: ToolCall, Tool: "t", CallID: id, Text: "{}"},
			Turn{Role: ToolResult, CallID: id, Text: "ok", Source: Source{Name: "tool:t", Authenticated: true}})
		blank = append(blank, Turn{Role: ToolCall, Tool: "t", Text: "{}"})
		unanswered = append(unanswered, Turn{Role: ToolCall, Tool: "t", CallID: id, Text: "{}"})
	}
	for range calls {
		blank = append(blank, Turn{Role: ToolResult, Text: "ok"})
	}
	return map[string][]Turn{
		fmt.Sprintf("one step of %d calls and their results", calls): agentStep(calls),
		fmt.Sprintf("%d steps of a call and its result", calls):      small,
		fmt.Sprintf("one step of %d calls without ids", calls):       blank,
		fmt.Sprintf("one step of %d calls no result answers", calls): unanswered,
	}
}

// allocatedBy is the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// newWordSaves are saves whose words are mostly new to the index, which
// pays for each distinct term: 5,000 turns of random words, and a stretch
// per turn of one never-seen word.
func newWordSaves() map[string][]byte {
	r := rand.New(rand.NewPCG(29, 1))
	word := func() string {
		w := make([]byte, 5+r.IntN(8))
		for i := range w {
			w[i] = byte('a' + r.IntN(26))
		}
		return string(w)
	}
	saves := map[string][]byte{}
	build := func(name string, n int, text func() string, bounds bool) {
		var b bytes.Buffer
		b.WriteString(`{"version":1,"turns":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"role":"user","text":%q}`, text())
		}
		b.WriteString(`],"bounds":[`)
		for i := 0; bounds && i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteString("]}")
		saves[name] = b.Bytes()
	}
	build("5,000 turns of random words", 5000, func() string {
		words := make([]string, 5+r.IntN(30))
		for i := range words {
			words[i] = word()
		}
		return strings.Join(words, " ")
	}, false)
	build("a new word per one-turn stretch", 100_000, word, true)
	return saves
}

// TestFromJSONOfNewWordsAllocatesInProportionToItsInput: a load of new
// vocabulary allocates at most 8 bytes per byte of its input, as any other
// save does (7.6 and 7.9 times, with the vocabulary in pages and its table
// in buckets; 16.2 and 13.0 with the flat index alone, 41.6 and 20.6
// before it).
func TestFromJSONOfNewWordsAllocatesInProportionToItsInput(t *testing.T) {
	if raceEnabled {
		// The race detector empties sync.Pool at random, so a load
		// allocates again what it would reuse: a fifth more, here.
		t.Skip("allocations are not the shipped build's under the race detector")
	}
	for name, data := range newWordSaves() {
		t.Run(name, func(t *testing.T) { loadAllocatesAtMost(t, data, 8.0) })
	}
}

// loadAllocatesAtMost checks that FromJSON reads data allocating at most
// bound bytes per byte of it.
func loadAllocatesAtMost(t *testing.T, data []byte, bound float64) {
	var err error
	got := allocatedBy(func() { _, err = FromJSON(data, Options{}) })
	require.NoError(t, err)
	ratio := float64(got) / float64(len(data))
	t.Logf("%d bytes in, %d allocated: %.1f×", len(data), got, ratio)
	assert.LessOrEqual(t, ratio, bound)
}

// refusedSaves are saves FromJSON must refuse, shaped to make it decode far
// more than their size first: a million entries too short to be turns.
func refusedSaves() map[string][]byte {
	list := func(entry string) []byte {
		return []byte(`{"version":1,"turns":[` + strings.TrimSuffix(strings.Repeat(entry+",", 1_000_000), ",") + `]}`)
	}
	return map[string][]byte{
		"a million nulls for turns":         list("null"),
		"a million empty objects for turns": list("{}"),
		"a million numbers for turns":       list("1"),
		"a valid turn, then a million nulls": bytes.Replace(list("null"), []byte("[null"),
			[]byte(`[{"role":"user","text":"hi"},null`), 1),
	}
}

// TestFromJSONAllocatesInProportionToItsInput: whatever shape a save takes,
// FromJSON allocates at most 8 bytes per byte of it, the restored memory
// included, and as little refusing one. Not parallel: the count is the
// whole process's.
func TestFromJSONAllocatesInProportionToItsInput(t *testing.T) {
	if raceEnabled {
		// See TestFromJSONOfNewWordsAllocatesInProportionToItsInput: .ci/run
		// checks both bounds again without the race detector.
		t.Skip("allocations are not the shipped build's under the race detector")
	}
	for name, data := range hostileSaves() {
		t.Run(name, func(t *testing.T) { loadAllocatesAtMost(t, data, 8.0) })
	}
	for name, data := range refusedSaves() {
		t.Run(name, func(t *testing.T) {
			var err error
			got := allocatedBy(func() { _, err = FromJSON(data, Options{}) })
			require.ErrorIs(t, err, ErrFormat)
			ratio := float64(got) / float64(len(data))
			t.Logf("%d bytes in, %d allocated: %.1f×, refused: %v", len(data), got, ratio, err)
			assert.LessOrEqual(t, ratio, 8.0)
		})
	}
}

func TestTheKeptContextsAgeIsSavedAndOlderSavesStillLoad(t *testing.T) {
	t.Parallel()
	m := sampleMemory(t)
	data := mustJSON(t, m)
	made := fmt.Sprintf(`"made":%d`, m.sel.made)
	require.Contains(t, data, made, "a save writes when its block was made")
	for _, c := range []struct {
		name string
		made string // replaces the saved one; "" removes it
		kept bool
		want int
	}{
		{"as saved", made, true, m.sel.made},
		{"without it, as saves before it read: not known", "", true, 0},
		{"not an integer: not known", `"made":1.5`, true, 0},
		{"past the turns: the selection is dropped", fmt.Sprintf(`"made":%d`, m.Len()+1), false, 0},
		{"before the native turns: the selection is dropped", fmt.Sprintf(`"made":%d`, m.sel.upto-1), false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			edited := strings.Replace(data, made, c.made, 1)
			if c.made == "" {
				edited = strings.Replace(data, ","+made, "", 1)
			}
			m2, err := FromJSON([]byte(edited), sampleOpts)
			require.NoError(t, err)
			if !c.kept {
				assert.Nil(t, m2.sel)
				assert.Equal(t, RebuildRestored, m2.dropped)
				return
			}
			require.NotNil(t, m2.sel)
			assert.Equal(t, c.want, m2.sel.made)
			assert.Equal(t, m.sel.block.keys, m2.sel.block.keys)
		})
	}
}

// The reason a call gives for a rebuild must not depend on whether the
// memory was saved and restored in between: a copy restored by FromJSON, or
// by Restore from a store's changes, composes what the live memory composes
// and says why in the same words, after redactions, lapses between calls
// (ComposeAt) and dropped selections alike.
func TestARestoredMemoryRebuildsForTheReasonTheLiveOneWould(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seen := map[Rebuild]int{}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 7))
		opts := Options{Budget: 1500, Chunk: 250}
		m := New(opts)
		turns := chat(seed, 200)
		next := 0
		asked := turns[0].Time
		for step := range 90 {
			switch k := rng.IntN(10); {
			case k < 6 && next < len(turns):
				mustTurn(t, m, turns[next])
				asked = turns[next].Time
				next++
			case k < 7 && m.Len() > 0:
				require.NoError(t, m.Redact(rng.IntN(m.Len())))
			}
			if m.Len() == 0 {
				continue
			}
			if rng.IntN(3) == 0 {
				asked = asked.Add(time.Duration(rng.IntN(20)) * time.Minute) // now and then past a cache's lifetime
			}
			query := turns[rng.IntN(len(turns))].Text
			saved, err := m.ToJSON()
			require.NoError(t, err)
			fromJSON, err := FromJSON(saved, opts)
			require.NoError(t, err)
			changes, err := m.Since(0, 0)
			require.NoError(t, err)
			restored, err := Restore(changes, opts)
			require.NoError(t, err)
			live, err := m.ComposeAt(ctx, query, asked)
			require.NoError(t, err)
			seen[live.Rebuild]++
			for name, c := range map[string]*Memory{"FromJSON": fromJSON, "Restore": restored} {
				got, err := c.ComposeAt(ctx, query, asked)
				require.NoError(t, err)
				require.Equal(t, live.Rebuild, got.Rebuild, "seed %d step %d: the reason after %s", seed, step, name)
				require.Equal(t, live.Messages, got.Messages, "seed %d step %d: the context after %s", seed, step, name)
			}
		}
	}
	t.Logf("reasons seen: %v", seen)
	for _, why := range []Rebuild{RebuildFirst, RebuildRedacted, RebuildExpired, ""} {
		assert.Positive(t, seen[why], "no call said %q: the test does not reach it", why)
	}
}

// checkKeptAsLive checks m's kept selection against every invariant a live
// one keeps, restated apart from validKept: the cut leaves the newest
// exchange of the call that made the block native, and falls where a
// stretch may start; quotes start at stretch starts and end at a boundary
// or the cut, in order (or is the part of one stretch); no turn is quoted
// twice; the log keeps no recalls.
func checkKeptAsLive(t *testing.T, m *Memory) {
	t.Helper()
	sel, n := m.sel, len(m.turns)
	made := n
	if sel.made != 0 {
		made = sel.made
	}
	require.Less(t, sel.upto, made, "the newest turn follows the block")
	if sel.upto == made-1 && made >= 2 {
		require.Equal(t, made-1, m.cutAt(made), "the turn before the newest follows the block unless a rebuild leaves it out")
	}
	require.True(t, m.splittable(sel.upto), "the cut separates a call from its result")
	owner, parted := map[int]bool{}, map[int]bool{}
	q := &sel.block
	for j, k := range q.keys {
		e, st := q.ends[j], m.stretchOf(k)
		whole := k == m.str[st].start && (e == sel.upto || e < sel.upto && m.str[m.stretchOf(e)].start == e)
		// Or the part of one longer stretch that matched (see piece):
		// inside it, cut where a stretch could start.
		part := e <= m.stretchEnd(st) && m.splittable(k) && (e == sel.upto || m.splittable(e)) && !parted[st]
		require.True(t, whole || part, "quote [%d, %d) is neither whole stretches nor the one part of one", k, e)
		parted[st] = parted[st] || !whole
		for turn := k; turn < e; turn++ {
			require.False(t, owner[turn], "turn %d quoted twice", turn)
			owner[turn] = true
		}
	}
}

// mutateSelection changes one number of a saved selection at random, or
// its shape: empties the block, repeats or drops a quote, adds a recall (a
// log of an earlier rule 3, which this one drops).
func mutateSelection(rng *rand.Rand, sel map[string]any, n int) {
	ints := func(v any) []any { xs, _ := v.([]any); return xs }
	nums := []func(v float64) float64{
		func(v float64) float64 { return v + 1 }, func(v float64) float64 { return v - 1 },
		func(float64) float64 { return float64(n) }, func(float64) float64 { return float64(n - 1) },
		func(float64) float64 { return float64(n - 2) }, func(float64) float64 { return 0 },
		func(float64) float64 { return float64(rng.IntN(n + 1)) },
	}
	quotes := []map[string]any{sel}
	for _, r := range ints(sel["recalls"]) {
		if q, ok := r.(map[string]any); ok {
			quotes = append(quotes, q)
		}
	}
	q := quotes[rng.IntN(len(quotes))]
	switch rng.IntN(6) {
	case 0:
		for _, f := range []string{"upto", "made", "at"} {
			if v, ok := q[f].(float64); ok && rng.IntN(2) == 0 {
				q[f] = nums[rng.IntN(len(nums))](v)
			}
		}
	case 1, 2:
		f := []string{"keys", "ends"}[rng.IntN(2)]
		if xs := ints(q[f]); len(xs) > 0 {
			i := rng.IntN(len(xs))
			xs[i] = nums[rng.IntN(len(nums))](xs[i].(float64))
		}
	case 3:
		q["keys"], q["ends"] = []any{}, []any{}
	case 4:
		if keys, ends := ints(q["keys"]), ints(q["ends"]); len(keys) > 0 && len(keys) == len(ends) {
			i := rng.IntN(len(keys))
			if rng.IntN(2) == 0 {
				q["keys"], q["ends"] = slices.Insert(keys, i, keys[i]), slices.Insert(ends, i, ends[i])
			} else {
				q["keys"], q["ends"] = slices.Delete(keys, i, i+1), slices.Delete(ends, i, i+1)
			}
		}
	case 5:
		sel["recalls"] = append(ints(sel["recalls"]), map[string]any{"at": float64(rng.IntN(n + 1)),
			"keys": []any{float64(rng.IntN(n))}, "ends": []any{float64(rng.IntN(n + 1))}})
	}
}

// TestApplyOfManyZonesKeepsEachTurnsTime: turns derived on several
// goroutines share one table of locations, so each turn comes back at its
// own offset (with each turn in a zone of its own, workers once raced to
// make the table and a turn could come back in another turn's zone).
func TestApplyOfManyZonesKeepsEachTurnsTime(t *testing.T) {
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	turns := make([]Turn, 4000)
	for i := range turns {
		zone := time.FixedZone(fmt.Sprintf("z%d", i), (i%1400-700)*60)
		turns[i] = Turn{Role: User, Text: fmt.Sprintf("turn %d", i), Time: base.Add(time.Duration(i) * time.Minute).In(zone)}
		if i%2 == 1 {
			turns[i].Role = Assistant
		}
	}
	m := New(Options{})
	require.NoError(t, m.Apply(Changes{Turns: turns}))
	for i, want := range turns {
		got, err := m.Turn(i)
		require.NoError(t, err)
		_, off := got.Time.Zone()
		_, wantOff := want.Time.Zone()
		require.Equal(t, wantOff, off, "turn %d's offset", i)
		require.True(t, want.Time.Equal(got.Time), "turn %d's instant", i)
	}
}
