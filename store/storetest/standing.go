package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// StandingTurns returns n turns of Chat with three of the user's turns made
// standing instructions: one left to byheart, which recognizes it, one the
// application marks standing, and one it keeps from standing; and the
// indexes of the three.
func StandingTurns(seed uint64, n int) ([]byheart.Turn, []int) {
	turns := Chat(seed, n)
	var at []int
	for _, tu := range []byheart.Turn{
		{Role: byheart.User, Text: "From now on, always give prices in euros."},
		{Role: byheart.User, Text: "Metric units, please.", Standing: byheart.StandingYes},
		{Role: byheart.User, Text: "Never deploy on Fridays, my manager says.", Standing: byheart.StandingNo},
	} {
		i := len(turns) / (4 - len(at))
		for turns[i].Role != byheart.User { // not between a call and its result
			i++
		}
		tu.Time = turns[i-1].Time
		turns = slices.Insert(turns, i, tu)
		at = append(at, i)
	}
	return turns, at
}

// standingMarksAreKept: the application's standing mark (byheart.Turn.Standing)
// is kept in the rows, so a copy opened elsewhere has the same standing
// turns as the copy that saved them; a turn left to byheart is recognized
// again on opening; a redaction takes the mark with the words.
func standingMarksAreKept(t *testing.T, st store.Store) {
	turns, at := StandingTurns(41, 40)
	request(t, st, alice, turns[:25])
	request(t, st, alice, turns[25:])
	m := open(t, st, alice).Memory
	for i, want := range turns {
		got, err := m.Turn(i)
		if err != nil {
			t.Fatal(err)
		}
		if got.Standing != want.Standing {
			t.Errorf("turn %d opens marked %d, saved with %d", i, got.Standing, want.Standing)
		}
	}

	if _, err := st.Redact(context.Background(), alice, at[1]); err != nil {
		t.Fatal(err)
	}
	got, err := open(t, st, alice).Memory.Turn(at[1])
	if err != nil {
		t.Fatal(err)
	}
	if !got.Redacted || got.Standing != byheart.StandingAuto {
		t.Errorf("the redacted turn opens as %+v, want a placeholder with no mark", got)
	}
}

// BeforeMarks saves at scope a conversation with standing instructions in
// it as a store made before standing marks saved one, none of its turns
// marked, and returns the memory as ToJSON wrote it. A store module's test
// then removes the mark from the store's schema, opens it again and calls
// AfterMarks.
func BeforeMarks(t testing.TB, st store.Store, scope store.Scope) []byte {
	t.Helper()
	turns, _ := StandingTurns(5, 20)
	for i := range turns {
		turns[i].Standing = byheart.StandingAuto
	}
	c, err := store.Open(context.Background(), st, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendTurns(t, c.Memory, turns)
	save(t, c)
	return []byte(jsonOf(t, c.Memory))
}

// AfterMarks checks a store opened again on what BeforeMarks saved: the
// conversation opens as it was saved, its turns left to byheart, and a turn
// marked standing after keeps its mark through a save.
func AfterMarks(t testing.TB, st store.Store, scope store.Scope, saved []byte) {
	t.Helper()
	ctx := context.Background()
	c, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, c.Memory); got != string(saved) {
		t.Errorf("the old conversation opens as\n%.400s\nwant\n%.400s", got, saved)
	}
	n := c.Memory.Len()
	appendTurns(t, c.Memory, []byheart.Turn{{Role: byheart.User, Text: "Keep it short.", Standing: byheart.StandingYes}})
	save(t, c)
	if c, err = store.Open(ctx, st, scope, byheart.Options{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Memory.Turn(n); got.Standing != byheart.StandingYes {
		t.Errorf("the new turn reads as marked %d, want StandingYes", got.Standing)
	}
}
