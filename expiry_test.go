package byheart

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// expiringWords is the expiring turn's own words, found nowhere else.
const expiringWords = "the shed door code is 4711, said once"

// expiryDay is when the expiry tests' conversations start.
var expiryDay = time.Date(2024, time.March, 4, 9, 0, 0, 0, time.UTC)

// expiringMemory is a conversation over its budget, one topic a day (so
// one stretch a day), with the expiringWords said on the garden day and expiring
// an hour after the newest turn. It returns the memory, the expiringWords's turn
// and the expiry.
func expiringMemory(t *testing.T, opts Options, topics ...string) (*Memory, int, time.Time) {
	t.Helper()
	m := New(opts)
	at := -1
	for k, topic := range topics {
		day := expiryDay.AddDate(0, 0, k)
		for i := range 3 {
			mustAppendAt(t, m, roleOf(m.Len()), topicTurn(topic, i), day.Add(time.Duration(i)*time.Minute))
		}
		if topic == "garden" {
			at = m.Len()
			_, err := m.AppendTurn(Turn{Role: User, Text: expiringWords, Time: day.Add(3 * time.Minute)})
			require.NoError(t, err)
		}
	}
	newest, err := m.Turn(m.Len() - 1)
	require.NoError(t, err)
	expires := newest.Time.Add(time.Hour)
	if at >= 0 {
		m.mu.Lock()
		m.setExpiry(at, expires)
		m.mu.Unlock()
	}
	return m, at, expires
}

func composeAt(t *testing.T, m *Memory, query string, when time.Time) Result {
	t.Helper()
	r, err := m.ComposeAt(context.Background(), query, when)
	require.NoError(t, err)
	checkResult(t, m, query, r)
	return r
}

func TestAnExpiredTurnReachesNoContextWhereverItStood(t *testing.T) {
	gardenQuery := "the shed door code for the compost and the seedlings"
	for _, c := range []struct {
		name string
		// before composes while the expiringWords is still true and returns what
		// showed it; after is the call past the expiry.
		before func(t *testing.T, m *Memory, at int) Result
		budget int
		// logged says the kept log showed it: a recall past the log
		// showed it to that call alone.
		logged bool
	}{
		{"in the memory block", func(t *testing.T, m *Memory, at int) Result {
			r := compose(t, m, gardenQuery)
			require.Contains(t, blockOf(r), expiringWords, "the block quotes it")
			return r
		}, 1200, true},
		{"in a recalled part", func(t *testing.T, m *Memory, at int) Result {
			r := compose(t, m, "the guitar chords for the concert rehearsal")
			require.NotContains(t, contextOf(r), expiringWords)
			r = compose(t, m, gardenQuery)
			require.NotEmpty(t, r.Recalled, "the garden is recalled past the kept log")
			require.NotContains(t, blockOf(r), expiringWords)
			require.Contains(t, contextOf(r), recallHeader)
			require.Contains(t, contextOf(r), expiringWords)
			return r
		}, 1200, false},
		{"among the native turns", func(t *testing.T, m *Memory, at int) Result {
			r := compose(t, m, "anything")
			require.Contains(t, flat(r), guardNative(expiringWords), "a turn of its own")
			return r
		}, 5000, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, at, expires := expiringMemory(t, Options{Budget: c.budget}, "deploy", "music", "garden", "travel", "cooking", "pricing")
			c.before(t, m, at)
			n, bounds := m.Len(), m.Bounds()

			r := composeAt(t, m, gardenQuery, expires)
			assert.NotContains(t, contextOf(r), expiringWords)
			assert.NotContains(t, contextOf(r), "4711")
			assert.Contains(t, contextOf(r), expiredText, "its place says it expired")
			if m.total > m.opt.Budget && c.logged {
				assert.Equal(t, RebuildTurnExpired, r.Rebuild, "the log that showed it is rebuilt")
			}
			assert.Equal(t, n, m.Len(), "no turn goes")
			got, err := m.Turn(at)
			require.NoError(t, err)
			assert.Equal(t, Turn{Role: User, Text: expiringWords, Time: got.Time, Expires: expires}, got, "kept verbatim")
			assert.Equal(t, bounds, m.Bounds(), "every stretch stays where it was")
		})
	}
}

func TestAnExpiredResultKeepsItsPairForTheProvider(t *testing.T) {
	for _, budget := range []int{5000, 500} {
		t.Run(fmt.Sprint("budget ", budget), func(t *testing.T) {
			m, _, _ := expiringMemory(t, Options{Budget: budget}, "deploy", "music", "travel", "cooking")
			last, err := m.Turn(m.Len() - 1)
			require.NoError(t, err)
			when := last.Time.Add(time.Minute)
			mustAppendAt(t, m, User, "what is the price of the Lisbon flight?", when)
			mustAppend(t, m, Assistant, "Let me look it up.")
			_, err = m.AppendTurn(Turn{Role: ToolCall, Tool: "fares", CallID: "c1", Text: `{"route":"LIS"}`})
			require.NoError(t, err)
			_, err = m.AppendTurn(Turn{Role: ToolResult, CallID: "c1", Text: "LIS return 212 EUR, held for ten minutes",
				Source: Source{Name: "tool:fares", Authenticated: true}, Expires: when.Add(10 * time.Minute)})
			require.NoError(t, err)

			r, err := m.Continue(context.Background())
			require.NoError(t, err)
			require.Contains(t, contextOf(r)+flat(r)[len(flat(r))-1], "212 EUR")

			r, err = m.ComposeAt(context.Background(), "and the hotel?", when.Add(10*time.Minute))
			require.NoError(t, err)
			checkResult(t, m, "and the hotel?", r)
			assert.NotContains(t, contextOf(r), "212 EUR")
			assert.NotContains(t, contextOf(r), "tool:fares", "nor where it came from")
			if m.total > budget {
				assert.Equal(t, RebuildTurnExpired, r.Rebuild, "the log showed it natively")
			}
			call, result := -1, -1
			k := 0
			for _, msg := range r.Messages {
				for _, p := range msg.Parts {
					switch msg.Role {
					case ToolCall:
						call = k
						require.NotNil(t, p.Call)
						assert.Equal(t, `{"route":"LIS"}`, p.Call.Arguments, "only the result expires")
					case ToolResult:
						result = k
						require.NotNil(t, p.Call)
						assert.Equal(t, "c1", p.Call.ID)
						assert.Contains(t, p.Text, expiredText)
					}
					k++
				}
			}
			require.GreaterOrEqual(t, result, 0, "the result still has its part")
			require.GreaterOrEqual(t, call, 0, "and so does its call")
			assert.Equal(t, call, r.Pairs()[result], "paired as before")
		})
	}
}

// The call of an expired result keeps its arguments: only the result's
// turn expires. This checks the one that does, the call, on its own.
func TestAnExpiredCallSendsNoArguments(t *testing.T) {
	m := New(Options{})
	when := expiryDay
	mustAppendAt(t, m, User, "book the table", when)
	_, err := m.AppendTurn(Turn{Role: ToolCall, Tool: "booking", CallID: "b1", Text: `{"pin":"0420"}`, Expires: when})
	require.NoError(t, err)
	_, err = m.AppendTurn(Turn{Role: ToolResult, CallID: "b1", Text: "booked", Source: Source{Name: "tool:booking", Authenticated: true}})
	require.NoError(t, err)
	r, err := m.Continue(context.Background())
	require.NoError(t, err)
	assert.NotContains(t, strings.Join(flat(r), "\n"), "0420")
	pairs := r.Pairs()
	found := false
	k := 0
	for _, msg := range r.Messages {
		for _, p := range msg.Parts {
			if msg.Role == ToolCall {
				found = true
				assert.Empty(t, p.Call.Arguments)
				assert.Equal(t, "[called booking] "+expiredText, p.Text)
				assert.GreaterOrEqual(t, pairs[k], 0, "still answered by its result")
			}
			k++
		}
	}
	assert.True(t, found)
}

func TestAnExpiredTurnIsNotBroughtBackAsOutsideMaterial(t *testing.T) {
	src := ExternalFunc(func(context.Context, string) ([]Item, error) {
		return []Item{{Text: "From the notes: " + expiringWords + ". Bring gloves.", Source: "notes"}}, nil
	})
	m, _, expires := expiringMemory(t, Options{Budget: 5000, External: src, ExternalMargin: 1e6}, "deploy", "garden", "travel")
	r := compose(t, m, "door code shed")
	require.Contains(t, flat(r)[len(flat(r))-2], "Bring gloves", "admitted while the turn holds")
	r = composeAt(t, m, "door code shed", expires)
	assert.NotContains(t, strings.Join(flat(r), "\n"), "4711")
	assert.Zero(t, r.Spent.Outside)
}

func TestExpiryIsJudgedByTheCallsClock(t *testing.T) {
	said := expiryDay
	for _, c := range []struct {
		name    string
		expires time.Time
		clock   time.Time // ComposeAt's; zero for Compose
		noTimes bool      // the conversation knows no time
		expired bool
	}{
		{"zero never expires", time.Time{}, said.AddDate(100, 0, 0), false, false},
		{"before the turn was said: gone at once", said.Add(-time.Hour), time.Time{}, false, true},
		{"at the newest turn's time, for Compose", said, time.Time{}, false, true},
		{"a nanosecond after it", said.Add(1), time.Time{}, false, false},
		{"at the time ComposeAt gives", said.Add(time.Hour), said.Add(time.Hour), false, true},
		{"ComposeAt before the newest turn judges by the turn", said, said.Add(-24 * time.Hour), false, true},
		{"far future", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), said.AddDate(7000, 0, 0), false, false},
		{"the distant past", time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}, false, true},
		{"a memory that knows no time expires nothing", said.Add(-time.Hour), time.Time{}, true, false},
		{"in another zone, the same instant", said.In(time.FixedZone("", -5*3600)), time.Time{}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := New(Options{})
			turn := Turn{Role: User, Text: expiringWords, Expires: c.expires}
			if !c.noTimes {
				turn.Time = said
			}
			i, err := m.AppendTurn(turn)
			require.NoError(t, err)
			got, err := m.Turn(i)
			require.NoError(t, err)
			assert.True(t, got.Expires.Equal(c.expires) && got.Expires.Location().String() == c.expires.Location().String(), "kept as given")
			var r Result
			if c.clock.IsZero() {
				r = compose(t, m, "code")
			} else {
				r = composeAt(t, m, "code", c.clock)
			}
			assert.Equal(t, c.expired, !strings.Contains(contextOf(r), expiringWords))
			assert.Equal(t, c.expired, strings.Contains(contextOf(r), expiredText))
		})
	}
}

func TestAnExpiryToJSONCannotSaveIsRefused(t *testing.T) {
	m := New(Options{})
	for _, when := range []time.Time{
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("", 86400)),
	} {
		i, err := m.AppendTurn(Turn{Role: User, Text: "x", Expires: when})
		assert.ErrorIs(t, err, ErrTime, "%v", when)
		assert.Equal(t, -1, i)
	}
	assert.Zero(t, m.Len(), "nothing recorded")
}

func TestAnEarlierClockShowsATurnAgain(t *testing.T) {
	m, at, expires := expiringMemory(t, Options{Budget: 5000}, "garden", "travel")
	r := composeAt(t, m, "code", expires.Add(time.Minute))
	require.NotContains(t, contextOf(r), expiringWords)
	r = compose(t, m, "code") // the newest turn's time: an hour before the expiry
	assert.Contains(t, contextOf(r), expiringWords, "expiry is judged by each call's clock, not a clock the memory keeps")
	got, err := m.Turn(at)
	require.NoError(t, err)
	assert.Equal(t, expiringWords, got.Text)
}

func TestRedactStillErasesAnExpiredTurn(t *testing.T) {
	m, at, expires := expiringMemory(t, Options{Budget: 1200}, "deploy", "music", "garden", "travel", "cooking", "pricing")
	composeAt(t, m, "door code", expires)
	require.NoError(t, m.Redact(at))
	got, err := m.Turn(at)
	require.NoError(t, err)
	assert.Equal(t, redactedText, got.Text)
	assert.True(t, got.Redacted)
	assert.NotContains(t, mustJSON(t, m), "4711")
	r := composeAt(t, m, "door code", expires)
	assert.NotContains(t, contextOf(r), expiredText, "a redacted turn says it was redacted")
	assert.Equal(t, RebuildRedacted, r.Rebuild)
}

func TestExpirySurvivesToJSONAndFromJSON(t *testing.T) {
	for _, budget := range []int{700, 5000} {
		t.Run(fmt.Sprint("budget ", budget), func(t *testing.T) {
			opts := Options{Budget: budget}
			m, at, expires := expiringMemory(t, opts, "deploy", "garden", "travel")
			compose(t, m, "the shed door code for the compost")
			data := mustJSON(t, m)
			assert.Contains(t, data, `"expires":"`+expires.Format(time.RFC3339Nano)+`"`)
			m2 := checkRoundTrip(t, m, opts, "the shed door code for the compost")
			got, err := m2.Turn(at)
			require.NoError(t, err)
			assert.Equal(t, expires, got.Expires)

			// Saved past the expiry, with the kept log rebuilt without it:
			// the restored copy shows what the original does, and keeps its log.
			r1 := composeAt(t, m, "door code", expires)
			m3, err := FromJSON([]byte(mustJSON(t, m)), opts)
			require.NoError(t, err)
			a1 := composeAt(t, m, "door code", expires.Add(time.Minute))
			a2 := composeAt(t, m3, "door code", expires.Add(time.Minute))
			assert.Equal(t, unsaved(a1), unsaved(a2))
			assert.NotContains(t, contextOf(a2), expiringWords)
			if budget < m.total {
				assert.Equal(t, RebuildTurnExpired, r1.Rebuild)
				assert.Empty(t, a2.Rebuild, "the restored log already said it expired")
			}
		})
	}
}

func TestSavesBeforeExpiryStillLoad(t *testing.T) {
	old := `{"version":3,"turns":[{"role":"user","text":"hi","time":"2023-05-20T09:30:00Z"},` +
		`{"role":"assistant","text":"hello"}],"bounds":[0]}`
	m, err := FromJSON([]byte(old), Options{})
	require.NoError(t, err)
	for i := range 2 {
		got, err := m.Turn(i)
		require.NoError(t, err)
		assert.True(t, got.Expires.IsZero())
	}
	assert.Contains(t, mustJSON(t, m), fmt.Sprintf(`"version":%d`, FormatVersion))
	assert.NotContains(t, mustJSON(t, m), "expires", "no expiry, nothing written")

	for _, bad := range []string{`"2023-05-20"`, `1684575000`, `"9999-99-99T00:00:00Z"`, `{}`} {
		data := `{"version":4,"turns":[{"role":"user","text":"hi","expires":` + bad + `}]}`
		_, err := FromJSON([]byte(data), Options{})
		assert.ErrorIs(t, err, ErrFormat, bad)
	}
}

func TestExpiryTravelsThroughChanges(t *testing.T) {
	opts := Options{Budget: 700}
	m, at, expires := expiringMemory(t, opts, "deploy", "garden", "travel")
	composeAt(t, m, "door code", expires)
	c, err := m.Since(0, 0)
	require.NoError(t, err)
	assert.Equal(t, expires, c.Turns[at].Expires)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var back Changes
	require.NoError(t, json.Unmarshal(b, &back))
	m2, err := Restore(back, opts)
	require.NoError(t, err)
	got, err := m2.Turn(at)
	require.NoError(t, err)
	assert.True(t, expires.Equal(got.Expires))
	r1 := composeAt(t, m, "door code", expires)
	r2 := composeAt(t, m2, "door code", expires)
	assert.Equal(t, unsaved(r1), unsaved(r2))
	assert.NotContains(t, contextOf(r2), expiringWords)

	// A failed Apply takes back the expiries of the turns it had read.
	m3 := New(opts)
	bad := Changes{Turns: []Turn{{Role: User, Text: "a", Expires: expires}, {Role: "system", Text: "b"}}}
	require.Error(t, m3.Apply(bad))
	assert.Nil(t, m3.exp)
}

func TestAClockNoSaveHoldsStillSaves(t *testing.T) {
	for _, clock := range []time.Time{
		time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 3, 4, 9, 0, 0, 0, time.FixedZone("", 30*3600)),
	} {
		m, at, _ := expiringMemory(t, Options{Budget: 1200}, "deploy", "music", "garden", "travel", "cooking", "pricing")
		compose(t, m, "the shed door code for the compost")
		composeAt(t, m, "the shed door code for the compost", clock)
		data, err := m.ToJSON()
		require.NoError(t, err, "%v", clock)
		m2, err := FromJSON(data, m.opt)
		require.NoError(t, err)
		a, b := composeAt(t, m, "code", clock), composeAt(t, m2, "code", clock)
		assert.Equal(t, unsaved(a), unsaved(b), "%v", clock)
		assert.Equal(t, clock.After(time.Date(2024, 3, 12, 0, 0, 0, 0, time.UTC)), !strings.Contains(contextOf(a), expiringWords), "turn %d, %v", at, clock)
	}
}

func TestOutsideItemsKeepTheirIndicesWhenOneIsDroppedForQuotingAnExpiredTurn(t *testing.T) {
	offered := []Item{
		{Text: "From the notes: " + expiringWords + ". Bring gloves.", Source: "notes"},
		{Text: "  ", Source: "blank"},
		{Text: "The shed door sticks; lift it before turning the key.", Source: "manual"},
		{Text: "The door code for the shed was changed in spring.", Source: "log"},
	}
	src := ExternalFunc(func(context.Context, string) ([]Item, error) { return offered, nil })
	m, _, expires := expiringMemory(t, Options{Budget: 5000, External: src, ExternalMargin: 1e6}, "deploy", "garden", "travel")
	r := composeAt(t, m, "door code shed", expires)
	require.NotEmpty(t, r.Outside)
	for _, a := range r.Outside {
		assert.NotZero(t, a.Item, "the item quoting the expired turn is not weighed")
		assert.Equal(t, offered[a.Item].Source, a.Source, "Admission.Item names the item as the source gave it")
	}
	assert.Len(t, r.Outside, 2, "the blank item and the expired quote have no Admission")
}

func TestAnItemIsDroppedOnlyForQuotingAnExpiredTurnWholeWithinItself(t *testing.T) {
	half := len(expiringWords) / 2
	offered := []Item{
		{Text: "Notes, page one: " + expiringWords[:half], Source: "first half"},
		{Text: expiringWords[half:] + " and the rest of page two.", Source: "second half"},
		{Text: "Twice: " + expiringWords + " " + expiringWords, Source: "twice"},
		{Text: expiringWords, Source: "exactly"},
		{Text: "the shed door code is 4712, said once", Source: "another code"},
	}
	src := ExternalFunc(func(context.Context, string) ([]Item, error) { return offered, nil })
	m, _, expires := expiringMemory(t, Options{Budget: 5000, External: src, ExternalMargin: 1e6}, "deploy", "garden", "travel")
	r := composeAt(t, m, "door code shed", expires)
	var weighed []string
	for _, a := range r.Outside {
		weighed = append(weighed, a.Source)
	}
	assert.Equal(t, []string{"first half", "second half", "another code"}, weighed)
}

// manyExpiring are the shapes in which many turns expire at once, each a
// function that prepares them, expiring or not, and returns the call that
// judges them: a crafted save of 1,000 turns in one stretch and a save of
// 16,000 turns in ordinary stretches, each loaded and composed once, and
// an agent step of 1,000 tool results that expire together, at the call
// after it.
func manyExpiring() map[string]func(t tb, expiring bool) func() {
	ctx := context.Background()
	loadAndCompose := func(t tb, data []byte) func() {
		return func() {
			m, err := FromJSON(data, Options{})
			require.NoError(t, err)
			_, err = m.Compose(ctx, "the garden and the shed")
			require.NoError(t, err)
		}
	}
	return map[string]func(t tb, expiring bool) func(){
		"a save of 1,000 turns in one stretch": func(t tb, expiring bool) func() {
			turns := make([]wireTurn, 1000)
			for i, tu := range chat(6, len(turns)) {
				at := tu.Time
				turns[i] = wireTurn{Role: tu.Role, Text: tu.Text, Time: (*savedTime)(&at)}
				if expiring {
					turns[i].Expires = (*savedTime)(&at)
				}
			}
			data, err := json.Marshal(wire{Version: FormatVersion, Turns: turns, Bounds: []int{}})
			require.NoError(t, err)
			return loadAndCompose(t, data)
		},
		"a save of 16,000 turns in ordinary stretches": func(t tb, expiring bool) func() {
			m := New(Options{})
			for _, tu := range chat(7, 16_000) {
				if expiring {
					tu.Expires = tu.Time
				}
				_, err := m.AppendTurn(tu)
				require.NoError(t, err)
			}
			return loadAndCompose(t, []byte(mustJSON(t, m)))
		},
		"an agent step of 1,000 results": func(t tb, expiring bool) func() {
			m := New(Options{})
			fillTurns(m, chat(8, 200))
			last, err := m.Turn(m.Len() - 1)
			require.NoError(t, err)
			for _, tu := range agentStep(1000) {
				if tu.Role == ToolResult && expiring {
					tu.Expires = last.Time.Add(10 * time.Minute)
				}
				_, err := m.AppendTurn(tu)
				require.NoError(t, err)
			}
			_, err = m.Continue(ctx)
			require.NoError(t, err)
			return func() {
				_, err := m.ComposeAt(ctx, "which supplier ships on day 7?", last.Time.Add(10*time.Minute))
				require.NoError(t, err)
			}
		},
	}
}

// TestExpiringTurnsAllocatesInProportionToItsInput: when many turns expire
// at once, judging them costs in proportion to them, not to them times
// their stretch: the call that judges them allocates at most three times
// what it does when none expires (it indexes each stretch that holds them
// again, once). Not parallel: the count is the whole process's.
func TestExpiringTurnsAllocatesInProportionToItsInput(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not the shipped build's under the race detector")
	}
	for name, shape := range manyExpiring() {
		t.Run(name, func(t *testing.T) {
			plain, expiring := allocatedBy(shape(t, false)), allocatedBy(shape(t, true))
			t.Logf("%d bytes allocated with every turn expiring, %d with none", expiring, plain)
			assert.LessOrEqual(t, expiring, 3*plain+1<<20)
		})
	}
}

// TestARestoredMemoryDecidesAsTheLiveOne: over random conversations in
// which turns expire, calls come at random clocks (Compose, ComposeAt
// before, at and after the newest turn, Continue), turns are appended
// between calls and some are redacted, a copy restored at any point
// (FromJSON of ToJSON, Restore of Since, and a copy kept up to date by
// Apply, as a store's copies are) makes the next call exactly as the live
// memory does: the same Result, Rebuild included, and the same save after.
func TestARestoredMemoryDecidesAsTheLiveOne(t *testing.T) {
	t.Parallel()
	topics := []string{"garden", "deploy", "music", "travel", "cooking", "pricing"}
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 39))
		opts := Options{Budget: 300 + r.IntN(1500), Chunk: 60 + r.IntN(200)}
		live, follower := New(opts), New(opts)
		now := expiryDay
		for step := range 50 {
			for range 1 + r.IntN(4) {
				now = now.Add(time.Duration(r.IntN(20)) * time.Minute)
				i := live.Len()
				tu := Turn{Role: roleOf(i), Time: now,
					Text: fmt.Sprintf("turn %d on the %s and the %s, code %dx", i, topics[r.IntN(len(topics))], topics[r.IntN(len(topics))], i)}
				if r.IntN(6) == 0 {
					_, err := live.AppendTurn(Turn{Role: ToolCall, Tool: "look", CallID: fmt.Sprint("c", i), Text: `{"q":1}`, Time: now})
					require.NoError(t, err)
					tu = Turn{Role: ToolResult, CallID: fmt.Sprint("c", i), Text: tu.Text, Time: now, Source: Source{Name: "tool:look"}}
				}
				if r.IntN(3) == 0 {
					tu.Expires = now.Add(time.Duration(r.IntN(120)-30) * time.Minute)
				}
				_, err := live.AppendTurn(tu)
				require.NoError(t, err)
			}
			if r.IntN(15) == 0 {
				require.NoError(t, live.Redact(r.IntN(live.Len())))
				// A store erases a redacted turn in its rows, and a copy
				// that held it loads the conversation again whole.
				follower = New(opts)
			}
			query := fmt.Sprintf("the %s code", topics[r.IntN(len(topics))])
			var clock time.Time
			kind := r.IntN(4)
			if kind == 1 {
				clock = now.Add(time.Duration(r.IntN(120)-60) * time.Minute)
			}
			call := func(m *Memory) (Result, string) {
				var res Result
				var err error
				if kind == 3 {
					res, err = m.Continue(context.Background())
				} else {
					res, err = m.ComposeAt(context.Background(), query, clock)
				}
				require.NoError(t, err)
				return res, mustJSON(t, m)
			}
			copies := map[string]*Memory{}
			if r.IntN(2) == 0 {
				restored, err := FromJSON([]byte(mustJSON(t, live)), opts)
				require.NoError(t, err)
				c, err := live.Since(0, 0)
				require.NoError(t, err)
				rows, err := Restore(c, opts)
				require.NoError(t, err)
				bound := 0
				if b := follower.Bounds(); len(b) > 0 {
					bound = b[len(b)-1]
				}
				c, err = live.Since(follower.Len(), bound)
				require.NoError(t, err)
				require.NoError(t, follower.Apply(c))
				copies = map[string]*Memory{"FromJSON": restored, "Restore": rows, "Apply": follower}
			}
			want, saved := call(live)
			for name, m := range copies {
				got, gotSaved := call(m)
				require.Equal(t, want, got, "seed %d, step %d: the copy made by %s composes otherwise", seed, step, name)
				require.Equal(t, saved, gotSaved, "seed %d, step %d: the copy made by %s saves otherwise", seed, step, name)
			}
		}
	}
}

func TestContinueAtJudgesExpiryByTheTimeOfTheStep(t *testing.T) {
	m := New(Options{})
	mustAppendAt(t, m, User, "book the cheapest fare to Lisbon", expiryDay)
	mustTurn(t, m, Turn{Role: ToolCall, Tool: "fares", CallID: "c1", Text: `{"to":"LIS"}`})
	mustTurn(t, m, Turn{Role: ToolResult, CallID: "c1", Text: "LIS return 212 EUR, held for ten minutes",
		Source: Source{Name: "tool:fares", Authenticated: true}, Expires: expiryDay.Add(10 * time.Minute)})
	for _, step := range []struct {
		name  string
		at    time.Time // zero: Continue
		shown bool
	}{
		{"a minute into the run", expiryDay.Add(time.Minute), true},
		{"when the hold ends", expiryDay.Add(10 * time.Minute), false},
		{"an hour into the run", expiryDay.Add(time.Hour), false},
		{"Continue, by the newest turn's time, which the run's untimed turns never moved", time.Time{}, true},
	} {
		r, err := m.ContinueAt(context.Background(), step.at)
		require.NoError(t, err, step.name)
		checkAgent(t, m, r, true)
		assert.Equal(t, step.shown, strings.Contains(strings.Join(flat(r), "\n"), "212 EUR"), step.name)
	}
}
