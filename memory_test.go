package byheart

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

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

// ── Compose: layout ──────────────────────────────────────────────────

func TestComposeBelowBudgetSendsEveryTurnNativelyThenTheQuery(t *testing.T) {
	m := New(Options{Budget: 10_000})
	turns := []struct {
		role Role
		text string
	}{
		{User, "hi, I'm planning the trip"},
		{User, "to Lisbon, in May"},
		{Assistant, "Lovely. How long?"},
		{User, "two weeks"},
		{Assistant, "Then get a tram pass."},
		{Assistant, "And book the hotel early."},
	}
	for _, tu := range turns {
		mustAppend(t, m, tu.role, tu.text)
	}
	r := compose(t, m, "what should I book?")

	want := []Message{
		{User, []Part{{turns[0].text}, {turns[1].text}}},
		{Assistant, []Part{{turns[2].text}}},
		{User, []Part{{turns[3].text}}},
		{Assistant, []Part{{turns[4].text}, {turns[5].text}}},
		{User, []Part{{"what should I book?"}}},
	}
	assert.Equal(t, want, r.Messages)
	assert.Equal(t, 5, r.StableUpto, "every turn is stable, the query is not")
	assert.Equal(t, m.Bounds(), r.Included)
	assert.False(t, r.Reselected)

	// A trailing user turn shares the final message with the query, which
	// stays the very last part.
	mustAppend(t, m, User, "also, trains?")
	r = compose(t, m, "what should I book?")
	last := r.Messages[len(r.Messages)-1]
	assert.Equal(t, User, last.Role)
	assert.Equal(t, []Part{{"also, trains?"}, {"what should I book?"}}, last.Parts)
}

func TestComposeAboveBudgetQuotesStretchesInOneBlockThenTheNewestExchange(t *testing.T) {
	m := topicMemory(t, Options{Budget: 1800, Stability: -1}, 6, "deploy", "garden", "travel", "music", "cooking")
	require.Greater(t, m.total, 1800)
	r := compose(t, m, "what about the greenhouse tomatoes and the guitar chords?")
	parts := flat(r)

	// One block, first, then the two newest turns natively, then the query.
	require.True(t, strings.HasPrefix(parts[0], memoryHeader), "the first part must be the memory block")
	assert.True(t, strings.HasSuffix(parts[0], memoryFooter))
	for _, p := range parts[1:] {
		assert.NotContains(t, p, memoryHeader, "more than one memory block")
	}
	n := m.Len()
	last := []string{topicTurn("cooking", 4), topicTurn("cooking", 5)}
	assert.Equal(t, last, parts[1:len(parts)-1])
	assert.Equal(t, "what about the greenhouse tomatoes and the guitar chords?", parts[len(parts)-1])
	assert.Equal(t, 2, r.StableUpto)
	assert.Equal(t, User, r.Messages[len(r.Messages)-1].Role)

	// The relevant stretches are in, quoted in time order, each turn with
	// its speaker and each stretch with its date.
	garden, music := 6, 18
	assert.Contains(t, r.Included, garden)
	assert.Contains(t, r.Included, music)
	assert.True(t, slices.IsSorted(r.Included))
	block := parts[0]
	gi := strings.Index(block, "--- 9 May 2023 ---\nuser: "+topicTurn("garden", 0)+"\n")
	mi := strings.Index(block, "--- 11 May 2023 ---\nuser: "+topicTurn("music", 0)+"\n")
	require.GreaterOrEqual(t, gi, 0, "garden stretch missing its date line or speaker label:\n%s", block)
	require.GreaterOrEqual(t, mi, 0, "music stretch missing its date line or speaker label:\n%s", block)
	assert.Less(t, gi, mi, "stretches must be in chronological order")
	assert.Contains(t, block, "\nassistant: "+topicTurn("garden", 1)+"\n")
	assert.NotContains(t, block, topicTurn("cooking", 5), "a native turn must not be quoted twice")
	assert.Equal(t, n-2, m.sel.upto)
}

func TestComposeOnAnEmptyMemorySendsOnlyTheQuery(t *testing.T) {
	r := compose(t, New(Options{}), "hello?")
	assert.Equal(t, []Message{{User, []Part{{"hello?"}}}}, r.Messages)
	assert.Equal(t, -1, r.StableUpto)
	assert.Empty(t, r.Included)
}

func TestComposeRefusesABadQueryOrADoneContextAndChangesNothing(t *testing.T) {
	m := topicMemory(t, Options{Budget: 1500}, 6, "deploy", "garden", "travel", "music")
	first := compose(t, m, "the greenhouse tomatoes")

	_, err := m.Compose(context.Background(), "green\xffhouse")
	assert.ErrorIs(t, err, ErrUTF8)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = m.Compose(ctx, "the kubernetes canary")
	assert.ErrorIs(t, err, context.Canceled)

	r := compose(t, m, "the greenhouse tomatoes")
	assert.False(t, r.Reselected, "a refused call must not disturb the kept selection")
	prefixHeld(t, first, r, "after refused calls")
}

func TestMemoryBlockDatesEachStretchAndEachNewDay(t *testing.T) {
	m := New(Options{Budget: 700, Stability: -1})
	day1 := time.Date(2023, time.May, 8, 23, 0, 0, 0, time.UTC)
	mustAppend(t, m, User, "the greenhouse needs compost, said before any date was known")
	mustAppendAt(t, m, Assistant, "then order the compost for the greenhouse", day1)
	mustAppend(t, m, User, "the greenhouse compost arrived late") // inherits day1
	mustAppendAt(t, m, Assistant, "the greenhouse compost is spread", day1.Add(2*time.Hour))
	for i := 0; i < 12; i++ {
		mustAppend(t, m, roleOf(i), fmt.Sprintf("weather report %d: rain, wind and a cold front", i))
	}
	setBounds(m, []int{0, 1, 4, 8, 12})
	block := blockOf(compose(t, m, "greenhouse compost"))
	require.NotEmpty(t, block)
	assert.Contains(t, block, "---\nuser: the greenhouse needs compost", "an undated stretch opens with a bare rule")
	assert.Contains(t, block, "--- 8 May 2023 ---\nassistant: then order the compost for the greenhouse\n"+
		"user: the greenhouse compost arrived late\n"+
		"--- 9 May 2023 ---\nassistant: the greenhouse compost is spread\n",
		"a stretch is dated at its start and again where the day changes")
}

func TestZeroOptionsGiveA20000CharacterBudgetAndAStickySelection(t *testing.T) {
	m := New(Options{})
	// 20 turns of exactly 1,000 characters: the history is the budget.
	for i := 0; i < 20; i++ {
		topic := []string{"deploy", "garden", "travel", "music", "cooking"}[i%5]
		text := topicTurn(topic, i) + " "
		text += strings.Repeat(".", 1000-utf8.RuneCountInString(text))
		mustAppend(t, m, roleOf(i), text)
	}
	r := compose(t, m, "the greenhouse")
	assert.Empty(t, blockOf(r), "20,000 characters fit a zero-options budget")
	assert.Len(t, flat(r), 21)

	mustAppend(t, m, User, "a") // one character over
	r = compose(t, m, "the greenhouse tomatoes and compost")
	require.NotEmpty(t, blockOf(r), "20,001 characters do not")
	assert.True(t, r.Reselected)
	assert.LessOrEqual(t, contextRunes(r), 20_000)

	r2 := compose(t, m, "the greenhouse tomatoes and compost")
	assert.False(t, r2.Reselected, "the default keeps a selection for a repeated query")
	r3 := compose(t, m, "tomatoes in the greenhouse")
	assert.False(t, r3.Reselected, "the default keeps a selection for a similar query")
}

// ── the budget, over random conversations ────────────────────────────

// randomText returns a turn's text: words of mixed scripts, sometimes
// several lines, sometimes long, sometimes dressed as framing.
func randomText(r *rand.Rand, words []string) string {
	n := 1 + r.IntN(30)
	if r.IntN(10) == 0 {
		n += r.IntN(400)
	}
	var b strings.Builder
	switch r.IntN(25) {
	case 0:
		b.WriteString(memoryHeader)
	case 1:
		b.WriteString(externalHeader)
	case 2:
		b.WriteString("\n\nassistant: ")
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			switch r.IntN(12) {
			case 0:
				b.WriteString("\n")
			case 1:
				b.WriteString("\r\n")
			case 2:
				b.WriteString("\u2028user: ")
			default:
				b.WriteString(" ")
			}
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

var propertyWords = strings.Fields(`deploy rollback migration greenhouse tomatoes compost
	Lisbon flight hotel guitar chords piano sourdough oven pricing invoice euro 55
	2031 café naïve Zürich straße 東京 日本語 연구 Москва память 😀 e\u0301 «quoted»
	[redacted] --- « » user: assistant: byheart memory the and a of`)

func TestBudgetIsNeverExceeded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const conversations = 200
	admitted, blocks := 0, 0
	for c := 0; c < conversations; c++ {
		var budget int
		switch r.IntN(3) {
		case 0:
			budget = 1 + r.IntN(40) // smaller than most turns
		case 1:
			budget = 40 + r.IntN(400)
		default:
			budget = 400 + r.IntN(4000)
		}
		opts := Options{
			Budget:    budget,
			Chunk:     20 + r.IntN(800),
			Stability: []float64{-1, 0, 0.3, 0.7, 1}[r.IntN(5)],
		}
		if r.IntN(2) == 0 {
			pool := make([]Item, r.IntN(4))
			for i := range pool {
				pool[i] = Item{Text: randomText(r, propertyWords), Source: fmt.Sprintf("source %d\nuser: x", i)}
			}
			opts.External = ExternalFunc(func(context.Context, string) ([]Item, error) { return pool, nil })
			opts.ExternalMargin = []float64{0, 2, 100}[r.IntN(3)]
		}
		if r.IntN(4) == 0 {
			opts.Boundaries = func(tail []Turn) []int {
				if len(tail) >= 2 {
					return []int{len(tail) / 2}
				}
				return nil
			}
		}
		m := New(opts)
		when := time.Date(2023, time.January, 1, 0, 0, 0, 0, time.UTC)
		for step := 0; step < 30; step++ {
			for k := r.IntN(6); k > 0; k-- {
				role := []Role{User, Assistant}[r.IntN(2)]
				text := randomText(r, propertyWords)
				if r.IntN(3) == 0 {
					when = when.Add(time.Duration(r.IntN(72)) * time.Hour)
					mustAppendAt(t, m, role, text, when)
				} else {
					mustAppend(t, m, role, text)
				}
			}
			if n := m.Len(); n > 0 && r.IntN(20) == 0 {
				require.NoError(t, m.Redact(r.IntN(n)))
			}
			query := randomText(r, propertyWords)
			res, err := m.Compose(context.Background(), query)
			require.NoError(t, err)
			require.NoError(t, res.ExternalErr)
			parts := flat(res)
			require.Equal(t, query, parts[len(parts)-1], "the query must be the final part")
			require.Equal(t, User, res.Messages[len(res.Messages)-1].Role)
			require.LessOrEqual(t, contextRunes(res), budget,
				"conversation %d step %d: budget %d exceeded (opts %+v)", c, step, budget, opts)
			require.Less(t, res.StableUpto, len(parts)-1, "the query is never part of the stable prefix")
			require.True(t, slices.IsSorted(res.Included))
			if blockOf(res) != "" {
				blocks++
			}
			for _, p := range parts {
				if strings.HasPrefix(p, externalHeader) {
					admitted++
				}
			}
		}
	}
	t.Logf("%d compositions with a block, %d with outside material", blocks, admitted)
	// The property is only worth something if the paths it covers ran.
	assert.Greater(t, blocks, 500, "too few compositions above the budget")
	assert.Greater(t, admitted, 50, "too few compositions with outside material")
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
