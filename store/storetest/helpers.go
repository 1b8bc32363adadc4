package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// Opener returns a new, empty store for one test, closed when it ends.
type Opener func(t testing.TB) store.Store

// opts is the memory configuration of the tests: a budget small enough
// that the conversations overflow it, so a selection is kept and saved.
var opts = byheart.Options{Budget: 3000}

func open(t testing.TB, st store.Store, scope store.Scope) *store.Conversation {
	t.Helper()
	c, err := store.Open(context.Background(), st, scope, opts)
	if err != nil {
		t.Fatalf("open %v: %v", scope, err)
	}
	return c
}

func save(t testing.TB, c *store.Conversation) {
	t.Helper()
	if err := c.Save(context.Background()); err != nil {
		t.Fatalf("save %v: %v", c.Scope(), err)
	}
}

// request is one stateless request: open, append turns, compose with the
// last one as the query, save.
func request(t testing.TB, st store.Store, scope store.Scope, turns []byheart.Turn) *store.Conversation {
	t.Helper()
	c := open(t, st, scope)
	appendTurns(t, c.Memory, turns)
	compose(t, c.Memory, turns[len(turns)-1].Text)
	save(t, c)
	return c
}

func appendTurns(t testing.TB, m *byheart.Memory, turns []byheart.Turn) {
	t.Helper()
	for _, turn := range turns {
		if _, err := m.AppendTurn(turn); err != nil {
			t.Fatalf("append %+v: %v", turn, err)
		}
	}
}

func compose(t testing.TB, m *byheart.Memory, query string) byheart.Result {
	t.Helper()
	r, err := m.Compose(context.Background(), query)
	if err != nil {
		t.Fatalf("compose: %v", err)
	}
	return r
}

func jsonOf(t testing.TB, m *byheart.Memory) string {
	t.Helper()
	data, err := m.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// load reads the whole stored conversation.
func load(t testing.TB, st store.Store, scope store.Scope) store.Record {
	t.Helper()
	rec, err := st.Load(context.Background(), scope, store.Position{})
	if err != nil {
		t.Fatalf("load %v: %v", scope, err)
	}
	return rec
}

// sameAs fails unless the stored conversation at scope opens as m.
func sameAs(t testing.TB, st store.Store, scope store.Scope, m *byheart.Memory) {
	t.Helper()
	if got, want := jsonOf(t, open(t, st, scope).Memory), jsonOf(t, m); got != want {
		t.Errorf("%v opens as\n%.600s\nwant\n%.600s", scope, got, want)
	}
}

// wantErr fails unless err wraps want.
func wantErr(t testing.TB, err, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %v", what, err, want)
	}
}

func audit(t testing.TB, st store.Store, tenant, user string) []store.Event {
	t.Helper()
	events, err := st.Audit(context.Background(), tenant, user)
	if err != nil {
		t.Fatalf("audit %s/%s: %v", tenant, user, err)
	}
	return events
}
