package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// ask appends a request's turns, a question and an answer, to c.
func ask(t testing.TB, c *store.Conversation, question, answer string) {
	t.Helper()
	appendTurns(t, c.Memory, []byheart.Turn{{Role: byheart.User, Text: question}})
	compose(t, c.Memory, question)
	appendTurns(t, c.Memory, []byheart.Turn{{Role: byheart.Assistant, Text: answer}})
}

// count returns how many turns of the conversation at scope say text.
func count(t testing.TB, st store.Store, scope store.Scope, text string) int {
	t.Helper()
	n := 0
	for _, turn := range load(t, st, scope).Changes.Turns {
		if turn.Text == text {
			n++
		}
	}
	return n
}

// redoneSaveLandsOnce redoes one request, with one id, every way a server
// can: the same save again on the store, the same copy saving again, a
// fresh copy opened before and one opened after the first attempt
// committed, with the same answer and with another, and eight at once.
// Its turns land once each time.
func redoneSaveLandsOnce(t *testing.T, st store.Store) {
	ctx := context.Background()
	request(t, st, alice, Chat(20, 10))

	before := open(t, st, alice) // opened before the first attempt commits
	first := open(t, st, alice)
	ask(t, first, "question r1", "answer r1")
	changes, err := first.Memory.Since(first.At().Turns, first.At().Bound)
	if err != nil {
		t.Fatal(err)
	}
	at, err := st.Save(ctx, alice, first.At(), changes, "r1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := st.Save(ctx, alice, first.At(), changes, "r1")
	if err != nil || again != at {
		t.Errorf("the same save redone on the store: %+v, %v; want %+v, nil", again, err, at)
	}
	if err := first.SaveAs(ctx, "r1"); err != nil {
		t.Errorf("the same copy saving again under the id: %v", err)
	}
	if first.At() != at {
		t.Errorf("the copy is at %+v after its redone save, want %+v", first.At(), at)
	}

	ask(t, before, "question r1", "answer r1")
	if err := before.SaveAs(ctx, "r1"); err != nil {
		t.Errorf("a fresh copy from the same base, same turns: %v", err)
	}
	sameAs(t, st, alice, before.Memory)

	after := open(t, st, alice) // opened after: it holds the turns already
	ask(t, after, "question r1", "another answer r1")
	wantErr(t, after.SaveAs(ctx, "r1"), store.ErrSaved, "a fresh copy opened after the first attempt committed")
	sameAs(t, st, alice, after.Memory)
	if n := count(t, st, alice, "question r1"); n != 1 {
		t.Errorf("the question is stored %d times, want 1", n)
	}
	if n := count(t, st, alice, "another answer r1"); n != 0 {
		t.Error("the second attempt's answer was stored")
	}

	// Eight attempts of one request at once, each with its own answer, and
	// one other request: each request's question lands once.
	base := open(t, st, alice).At()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for k := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := open(t, st, alice)
				ask(t, c, "question r2", fmt.Sprint("answer r2 attempt ", k))
				errs[k] = c.SaveAs(ctx, "r2")
				if !errors.Is(errs[k], store.ErrConflict) {
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		Append(t, st, alice, byheart.Turn{Role: byheart.User, Text: "question r3"})
	}()
	wg.Wait()
	for k, err := range errs {
		if err != nil && !errors.Is(err, store.ErrSaved) {
			t.Errorf("attempt %d: %v", k, err)
		}
	}
	for _, q := range []string{"question r2", "question r3"} {
		if n := count(t, st, alice, q); n != 1 {
			t.Errorf("%q is stored %d times, want 1", q, n)
		}
	}
	if got := open(t, st, alice).At().Turns; got != base.Turns+3 {
		t.Errorf("the conversation grew from %d to %d turns, want 3 more", base.Turns, got)
	}
	// A deleted conversation forgets its saves: the id starts afresh.
	if _, err := st.Delete(ctx, alice); err != nil {
		t.Fatal(err)
	}
	c := open(t, st, alice)
	ask(t, c, "question r1", "answer r1")
	if err := c.SaveAs(ctx, "r1"); err != nil || count(t, st, alice, "question r1") != 1 {
		t.Errorf("the id of a deleted conversation's save: %v", err)
	}
	_, err = st.Save(ctx, alice, c.At(), byheart.Changes{From: c.At().Turns}, "r\n1")
	wantErr(t, err, store.ErrInvalid, "a save id that is not an ID")
}

// lostAnswer is a real store whose next lose saves commit and then report
// ErrUnavailable, as when the connection fails after COMMIT reached the
// database: the fault the PostgreSQL tests make with a proxy, here on any
// store.
type lostAnswer struct {
	store.Store
	lose int
}

func (l *lostAnswer) Save(ctx context.Context, scope store.Scope, base store.Position, c byheart.Changes, id string) (store.Position, error) {
	at, err := l.Store.Save(ctx, scope, base, c, id)
	if err == nil && l.lose > 0 {
		l.lose--
		return base, fmt.Errorf("%w: the answer to the commit was lost", store.ErrUnavailable)
	}
	return at, err
}

// saveAgainLandsOnce saves, loses the answer, and saves the same copy
// again: as it was, after appending more, and after redacting one of the
// turns whose save was lost. Each turn lands once, the redacted one
// redacted.
func saveAgainLandsOnce(t *testing.T, st store.Store) {
	ctx := context.Background()
	lossy := &lostAnswer{Store: st}
	request(t, st, alice, Chat(21, 10))
	for _, tc := range []struct {
		name   string
		then   func(c *store.Conversation)
		turns  int
		redact bool
	}{
		{"as it was", func(*store.Conversation) {}, 2, false},
		{"after appending more", func(c *store.Conversation) { ask(t, c, "question more", "answer more") }, 4, false},
		{"after redacting a turn of the lost save", func(c *store.Conversation) {
			if err := c.Memory.Redact(c.Memory.Len() - 1); err != nil {
				t.Fatal(err)
			}
		}, 2, true},
	} {
		c, err := store.Open(ctx, lossy, alice, opts)
		if err != nil {
			t.Fatal(err)
		}
		before := c.Memory.Len()
		q := "question lost " + tc.name
		ask(t, c, q, "answer lost "+tc.name)
		lossy.lose = 1
		wantErr(t, c.Save(ctx), store.ErrUnavailable, tc.name+": the save whose answer was lost")
		tc.then(c)
		if err := c.Save(ctx); err != nil {
			t.Fatalf("%s: saving again: %v", tc.name, err)
		}
		sameAs(t, st, alice, c.Memory)
		if n := count(t, st, alice, q); n != 1 || load(t, st, alice).At.Turns != before+tc.turns {
			t.Errorf("%s: the question is stored %d times and the conversation grew by %d turns, want once and %d",
				tc.name, n, load(t, st, alice).At.Turns-before, tc.turns)
		}
		if got := load(t, st, alice).Changes.Turns[before+1]; got.Redacted != tc.redact {
			t.Errorf("%s: the answer is stored redacted %v, want %v", tc.name, got.Redacted, tc.redact)
		}
	}
}

// retryWithAnExpiryIsAnotherSave redoes a request whose first attempt
// saved a turn with no expiry, now with one: the turns differ, so the
// redo is told another attempt committed (ErrSaved) and its copy holds
// what was stored, rather than taking its expiry as saved when it is not.
func retryWithAnExpiryIsAnotherSave(t *testing.T, st store.Store) {
	ctx := context.Background()
	request(t, st, alice, Chat(22, 10))
	first, redo := open(t, st, alice), open(t, st, alice)
	code := byheart.Turn{Role: byheart.User, Text: "the gate code is 2468 until noon"}
	appendTurns(t, first.Memory, []byheart.Turn{code})
	if err := first.SaveAs(ctx, "r-exp"); err != nil {
		t.Fatal(err)
	}
	code.Expires = time.Date(2024, time.March, 4, 12, 0, 0, 0, time.UTC)
	appendTurns(t, redo.Memory, []byheart.Turn{code})
	wantErr(t, redo.SaveAs(ctx, "r-exp"), store.ErrSaved, "a redo whose turn expires where the first attempt's did not")
	sameAs(t, st, alice, redo.Memory)
	if got, err := redo.Memory.Turn(redo.Memory.Len() - 1); err != nil || !got.Expires.IsZero() {
		t.Errorf("the redo's copy holds %+v, %v: want the stored turn, which never expires", got, err)
	}
}
