package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// expiryIsKeptAndAudited: a turn's expiry is kept in its row, so a copy
// opened elsewhere leaves the turn out of its contexts from the same
// moment as the copy that saved it; the audit export says which turn
// expires when, without its text.
func expiryIsKeptAndAudited(t *testing.T, st store.Store) {
	ctx := context.Background()
	turns := Chat(31, 60)
	last := turns[len(turns)-1].Time
	const code = "the locker code is 80417, keep it quiet"
	expires := last.Add(time.Hour).In(time.FixedZone("", 2*3600)) // an offset of its own, kept as given
	at := 20
	for turns[at].Role != byheart.User { // not between a call and its result
		at++
	}
	turns = slices.Insert(turns, at, byheart.Turn{Role: byheart.User, Text: code, Time: turns[at-1].Time, Expires: expires})
	// A turn that expires far in the future, and one that expired before
	// it was said: the hostile ends of the range.
	turns[at+1].Expires = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	turns[at+2].Expires = turns[at+2].Time.Add(-time.Hour)
	first := request(t, st, alice, turns[:40])
	request(t, st, alice, turns[40:])

	m := open(t, st, alice).Memory
	for i, want := range turns {
		got, err := m.Turn(i)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Expires.Equal(want.Expires) || got.Expires.IsZero() != want.Expires.IsZero() {
			t.Errorf("turn %d opens expiring at %v, saved with %v", i, got.Expires, want.Expires)
		}
	}
	if got, _ := m.Turn(at); got.Text != code {
		t.Errorf("the expiring turn opens as %q, want it verbatim", got.Text)
	}
	if first.Memory.Len() != 40 {
		t.Fatalf("the first copy holds %d turns", first.Memory.Len())
	}
	// Asked after a pause, so the context is chosen afresh for the query.
	before, err := m.ComposeAt(ctx, "the locker code to keep quiet", last.Add(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	after, err := m.ComposeAt(ctx, "the locker code to keep quiet", expires)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(textOf(before), code) {
		t.Errorf("before its expiry the turn is not in the context for its own words")
	}
	if strings.Contains(textOf(after), "80417") {
		t.Errorf("a copy opened from the rows still shows the turn after its expiry")
	}
	if strings.Contains(textOf(before), turns[at+2].Text) {
		t.Errorf("a turn that expired before it was said reaches the context")
	}

	var got []store.Event
	for _, e := range audit(t, st, alice.Tenant, alice.User) {
		if e.Action == store.Expiring {
			got = append(got, e)
		}
	}
	want := map[int]time.Time{at: expires, at + 1: turns[at+1].Expires, at + 2: turns[at+2].Expires}
	if len(got) != len(want) {
		t.Fatalf("the audit shows %d expiring turns, want %d: %+v", len(got), len(want), got)
	}
	for _, e := range got {
		if w, ok := want[e.Turn]; !ok || !e.Expires.Equal(w) || e.Count != 1 || e.Scope != alice {
			t.Errorf("audit event %+v, want turn %d expiring at %v", e, e.Turn, w)
		}
	}

	if _, err := st.Delete(ctx, alice); err != nil {
		t.Fatal(err)
	}
	for _, e := range audit(t, st, alice.Tenant, alice.User) {
		if e.Action == store.Expiring && !e.Expires.IsZero() {
			t.Errorf("after the deletion the audit still reads turn %d's expiry from its row", e.Turn)
		}
	}
}

// textOf is every part of r, joined.
func textOf(r byheart.Result) string {
	var b strings.Builder
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			b.WriteString(p.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// reopenedDecidesAsLive saves a conversation whose turns expire, with
// turns appended after its last call, and opens it again, fresh and by a
// warm copy catching up (Refresh): at the next call each copy composes
// exactly as the copy that saved it, Rebuild included, whatever the
// call's clock.
func reopenedDecidesAsLive(t *testing.T, st store.Store) {
	ctx := context.Background()
	turns := Chat(23, 16*8)
	for i := range turns {
		if i%3 == 0 {
			turns[i].Expires = turns[i].Time.Add(time.Duration(i%5-1) * 10 * time.Minute)
		}
	}
	live := open(t, st, alice)
	var warm *store.Conversation
	for round := range 16 {
		step := turns[round*8 : round*8+8]
		appendTurns(t, live.Memory, step[:5])
		newest := step[4].Time
		next := func(m *byheart.Memory) string {
			var r byheart.Result
			var err error
			switch round % 3 {
			case 0:
				r, err = m.Compose(ctx, step[4].Text)
			case 1:
				r, err = m.ComposeAt(ctx, step[4].Text, newest.Add(25*time.Minute))
			default:
				r, err = m.Continue(ctx)
			}
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			composed, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			return string(composed) + "\n" + jsonOf(t, m)
		}
		next(live.Memory)
		appendTurns(t, live.Memory, step[5:]) // after the call, before the save
		save(t, live)
		if warm == nil {
			warm = open(t, st, alice)
		} else if err := warm.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		fresh := open(t, st, alice)
		want := next(live.Memory)
		for name, c := range map[string]*store.Conversation{"a copy opened afresh": fresh, "a warm copy caught up": warm} {
			if got := next(c.Memory); got != want {
				t.Fatalf("round %d: %s composes\n%.2000s\nwant\n%.2000s", round, name, got, want)
			}
		}
		save(t, live)
	}
}
