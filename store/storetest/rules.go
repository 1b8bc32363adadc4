package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// operations calls every method of st under scope, and with user those
// that take its tenant and user, returning each one's error by name.
func operations(ctx context.Context, st store.Store, scope store.Scope, base store.Position, user bool) map[string]error {
	errs := map[string]error{}
	_, errs["Load"] = st.Load(ctx, scope, store.Position{})
	_, errs["Save"] = st.Save(ctx, scope, base, byheart.Changes{From: base.Turns,
		Turns: []byheart.Turn{{Role: byheart.User, Text: "one more"}}}, "")
	_, errs["Redact"] = st.Redact(ctx, scope, 0)
	_, errs["Delete"] = st.Delete(ctx, scope)
	if !user {
		return errs
	}
	_, errs["DeleteUser"] = st.DeleteUser(ctx, scope.Tenant, scope.User)
	_, errs["Audit"] = st.Audit(ctx, scope.Tenant, scope.User)
	return errs
}

func scopeIsRequired(t *testing.T, st store.Store) {
	request(t, st, alice, Chat(7, 6))
	before := texts(t, st, alice)
	for _, bad := range []store.Scope{
		{User: "alice", Conversation: "support-1"},
		{Tenant: "acme", Conversation: "support-1"},
		{Tenant: "acme", User: "alice"},
		{Tenant: "acme\x00", User: "alice", Conversation: "support-1"},
		{Tenant: "acme", User: "alice\n", Conversation: "support-1"},
		{Tenant: "acme", User: "alice", Conversation: "support-1\xff"},
		{Tenant: "acme", User: "ali\u202ece", Conversation: "support-1"},
		{Tenant: "acme\u200b", User: "alice", Conversation: "support-1"},
		{Tenant: "acme", User: "alice", Conversation: "support-1\u2028"},
		{Tenant: "\ufeffacme", User: "alice", Conversation: "support-1"},
		{Tenant: "acme", User: "alice", Conversation: strings.Repeat("c", store.MaxID+1)},
	} {
		user := bad.Tenant != alice.Tenant || bad.User != alice.User
		for op, err := range operations(context.Background(), st, bad, store.Position{}, user) {
			wantErr(t, err, store.ErrScope, op+" under "+strings.ToValidUTF8(bad.Tenant+"/"+bad.User+"/"+bad.Conversation, "?"))
		}
	}
	if after := texts(t, st, alice); after != before {
		t.Error("an operation with an invalid scope changed the store")
	}
}

func scopesAreIsolated(t *testing.T, st store.Store) {
	ctx := context.Background()
	scopes := []store.Scope{
		alice,
		{Tenant: "acme", User: "alice", Conversation: "support-2"},
		{Tenant: "acme", User: "bob", Conversation: "support-1"},
		{Tenant: "globex", User: "alice", Conversation: "support-1"},
		{Tenant: "acme%", User: "alice", Conversation: "support-1"},
		{Tenant: "acme' OR '1'='1", User: "alice", Conversation: "support-1"},
		{Tenant: "a_me", User: "_lice", Conversation: "support-_"},
	}
	for i, s := range scopes {
		request(t, st, s, []byheart.Turn{{Role: byheart.User, Text: "belongs to scope " + string(rune('A'+i))}})
	}
	check := func(stage string, gone ...int) {
		t.Helper()
		for i, s := range scopes {
			rec, err := st.Load(ctx, s, store.Position{})
			if contains(gone, i) {
				wantErr(t, err, store.ErrNotFound, stage+": "+s.Tenant+"/"+s.User+"/"+s.Conversation)
				continue
			}
			want := "belongs to scope " + string(rune('A'+i))
			if err != nil || len(rec.Changes.Turns) != 1 || rec.Changes.Turns[0].Text != want && !rec.Changes.Turns[0].Redacted {
				t.Errorf("%s: scope %d loads %+v, %v; want its one turn %q", stage, i, rec.Changes.Turns, err, want)
			}
		}
	}
	for _, guess := range []store.Scope{
		{Tenant: "acme", User: "alice", Conversation: "support-%"},
		{Tenant: "acme", User: "alice", Conversation: "SUPPORT-1"},
		{Tenant: "acme", User: "%", Conversation: "support-1"},
		{Tenant: "acme", User: "alice", Conversation: "support-1 "},
	} {
		_, err := st.Load(ctx, guess, store.Position{})
		wantErr(t, err, store.ErrNotFound, "a guessed scope "+guess.User+"/"+guess.Conversation)
	}
	if _, err := st.Redact(ctx, scopes[0], 0); err != nil {
		t.Fatal(err)
	}
	check("after redacting scope 0")
	if _, err := st.Delete(ctx, scopes[0]); err != nil {
		t.Fatal(err)
	}
	check("after deleting scope 0", 0)
	if n, err := st.DeleteUser(ctx, "acme", "alice"); n != 1 || err != nil {
		t.Errorf("deleting acme/alice deleted %d conversations, %v; want 1", n, err)
	}
	check("after deleting user acme/alice", 0, 1)
	for _, s := range scopes {
		for _, e := range audit(t, st, s.Tenant, s.User) {
			if e.Scope.Tenant != s.Tenant || e.Scope.User != s.User {
				t.Errorf("the audit of %s/%s shows an event of %s/%s", s.Tenant, s.User, e.Scope.Tenant, e.Scope.User)
			}
		}
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func badInputChangesNothing(t *testing.T, st store.Store) {
	ctx := context.Background()
	at := request(t, st, alice, Chat(8, 20)).At()
	before := texts(t, st, alice)
	user := func(text string) []byheart.Turn { return []byheart.Turn{{Role: byheart.User, Text: text}} }
	for _, tc := range []struct {
		name string
		c    byheart.Changes
		want error
	}{
		{"a turn over MaxTurn", byheart.Changes{From: 20, Turns: user(strings.Repeat("x", store.MaxTurn+1))}, store.ErrTooLarge},
		{"changes from the wrong turn", byheart.Changes{From: 19, Turns: user("hi")}, store.ErrInvalid},
		{"a role byheart refuses", byheart.Changes{From: 20, Turns: []byheart.Turn{{Role: "system", Text: "obey"}}}, store.ErrInvalid},
		{"an empty turn", byheart.Changes{From: 20, Turns: user("")}, store.ErrInvalid},
		{"text that is not UTF-8", byheart.Changes{From: 20, Turns: user("\xff")}, store.ErrInvalid},
		{"a stretch start before the last", byheart.Changes{From: 20, Turns: user("hi"), Bounds: []int{at.Bound}}, store.ErrInvalid},
		{"a stretch start past the turns", byheart.Changes{From: 20, Turns: user("hi"), Bounds: []int{21}}, store.ErrInvalid},
		{"a kept selection that is not JSON", byheart.Changes{From: 20, Kept: json.RawMessage("{")}, store.ErrInvalid},
		{"a kept selection over MaxKept", byheart.Changes{From: 20, Kept: json.RawMessage(`"` + strings.Repeat("k", store.MaxKept) + `"`)}, store.ErrTooLarge},
		{"an assistant's turn marked standing", byheart.Changes{From: 20, Turns: []byheart.Turn{{Role: byheart.Assistant, Text: "obey", Standing: byheart.StandingYes}}}, store.ErrInvalid},
		{"a standing mark byheart does not know", byheart.Changes{From: 20, Turns: []byheart.Turn{{Role: byheart.User, Text: "hi", Standing: 9}}}, store.ErrInvalid},
	} {
		_, err := st.Save(ctx, alice, at, tc.c, "")
		wantErr(t, err, tc.want, tc.name)
	}
	unknown := store.Scope{Tenant: "acme", User: "alice", Conversation: "never-saved"}
	_, err := st.Load(ctx, unknown, store.Position{})
	wantErr(t, err, store.ErrNotFound, "loading an unknown conversation")
	_, err = st.Redact(ctx, unknown, 0)
	wantErr(t, err, store.ErrNotFound, "redacting in an unknown conversation")
	_, err = st.Delete(ctx, unknown)
	wantErr(t, err, store.ErrNotFound, "deleting an unknown conversation")
	for _, i := range []int{-1, 20} {
		_, err = st.Redact(ctx, alice, i)
		wantErr(t, err, byheart.ErrIndex, "redacting a turn out of range")
	}
	if after := texts(t, st, alice); after != before {
		t.Error("bad input changed the store")
	}
}

func cancelledContextChangesNothing(t *testing.T, st store.Store) {
	at := request(t, st, alice, Chat(9, 10)).At()
	before := texts(t, st, alice)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for op, err := range operations(ctx, st, alice, at, true) {
		wantErr(t, err, context.Canceled, op+" with a cancelled context")
	}
	if after := texts(t, st, alice); after != before {
		t.Error("an operation with a cancelled context changed the store")
	}
}

func closedStoreRefuses(t *testing.T, st store.Store) {
	at := request(t, st, alice, Chat(10, 4)).At()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for op, err := range operations(context.Background(), st, alice, at, true) {
		wantErr(t, err, store.ErrClosed, op+" on a closed store")
	}
	if err := st.Close(); err != nil {
		t.Errorf("closing twice: %v", err)
	}
}

// secret is text a test erases and then searches for.
const secret = "locker code 7731-QX-ERASE-ME"

// SecretTurns are turns whose text and source hold secret, for the
// erasure tests: Redact turn 1 and 2, or delete the conversation, and no
// byte of it may remain.
func SecretTurns() []byheart.Turn {
	return []byheart.Turn{
		{Role: byheart.User, Text: "what is on the note I uploaded?"},
		{Role: byheart.Note, Text: "The " + secret + ", do not share.", Source: byheart.Source{Name: "upload:" + secret}},
		{Role: byheart.Assistant, Text: "It says the " + secret + "."},
	}
}

// Secret returns what the erasure tests search for: the text SecretTurns
// holds.
func Secret() string { return secret }

func redactionRemovesText(t *testing.T, st store.Store) {
	ctx := context.Background()
	request(t, st, alice, Chat(11, 30))
	at := request(t, st, alice, SecretTurns()).At()
	events := len(audit(t, st, alice.Tenant, alice.User))
	for _, i := range []int{31, 32} {
		if _, err := st.Redact(ctx, alice, i); err != nil {
			t.Fatal(err)
		}
	}
	again, err := st.Redact(ctx, alice, 31)
	if err != nil || len(audit(t, st, alice.Tenant, alice.User)) != events+2 {
		t.Errorf("redacting a redacted turn: %v, or it was audited again", err)
	}
	if again.Version != at.Version+2 || again.Epoch == at.Epoch {
		t.Errorf("redactions took the conversation from %+v to %+v: want two versions more and a new epoch", at, again)
	}
	if all := texts(t, st, alice); strings.Contains(all, "7731-QX") {
		t.Errorf("the redacted text is still in a load or the audit log")
	}
	m := open(t, st, alice).Memory
	for _, i := range []int{31, 32} {
		if turn, _ := m.Turn(i); !turn.Redacted || turn.Source != (byheart.Source{}) {
			t.Errorf("turn %d opens as %+v", i, turn)
		}
	}
	if strings.Contains(jsonOf(t, m), "7731-QX") {
		t.Error("the reopened memory holds the redacted text")
	}
}

func deletionRemovesConversations(t *testing.T, st store.Store) {
	ctx := context.Background()
	c2 := store.Scope{Tenant: "acme", User: "alice", Conversation: "support-2"}
	bob := store.Scope{Tenant: "acme", User: "bob", Conversation: "support-1"}
	request(t, st, alice, Chat(12, 20))
	request(t, st, c2, Chat(13, 10))
	request(t, st, bob, Chat(14, 5))
	stale := open(t, st, alice)
	if n, err := st.Delete(ctx, alice); n != 20 || err != nil {
		t.Errorf("deleting a conversation of 20 turns: %d, %v", n, err)
	}
	_, err := st.Delete(ctx, alice)
	wantErr(t, err, store.ErrNotFound, "deleting it again")
	appendTurns(t, stale.Memory, Chat(15, 1))
	wantErr(t, stale.Save(ctx), store.ErrConflict, "saving a copy of a deleted conversation")
	if n, err := st.DeleteUser(ctx, "acme", "alice"); n != 1 || err != nil {
		t.Errorf("deleting the user's conversations: %d, %v; want 1", n, err)
	}
	if n, err := st.DeleteUser(ctx, "acme", "alice"); n != 0 || err != nil {
		t.Errorf("deleting a user with no conversations: %d, %v; want 0, nil", n, err)
	}
	load(t, st, bob)
	if n := request(t, st, alice, Chat(16, 2)).Memory.Len(); n != 2 {
		t.Errorf("a conversation started again after its deletion holds %d turns, want 2", n)
	}
}

func auditRecordsEveryChange(t *testing.T, st store.Store) {
	ctx := context.Background()
	start := since()
	turns := Chat(17, 13)
	request(t, st, alice, turns[:10])
	request(t, st, alice, turns[10:])
	if _, err := st.Redact(ctx, alice, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Delete(ctx, alice); err != nil {
		t.Fatal(err)
	}
	events := audit(t, st, alice.Tenant, alice.User)
	want := []store.Event{
		{Scope: alice, Action: store.Appended, Turn: 0, Count: 10},
		{Scope: alice, Action: store.Appended, Turn: 10, Count: 3},
		{Scope: alice, Action: store.Redacted, Turn: 2, Count: 1},
		{Scope: alice, Action: store.Deleted, Turn: 0, Count: 13},
	}
	if len(events) != len(want) {
		t.Fatalf("audit log %+v, want %d events", events, len(want))
	}
	prev := int64(0)
	for i, e := range events {
		if e.At.Before(start.Truncate(time.Microsecond)) || e.At.After(time.Now()) || e.Version <= prev {
			t.Errorf("event %d at %v, version %d: want a time in the test and a rising version", i, e.At, e.Version)
		}
		prev = e.Version
		e.At, e.Version = time.Time{}, 0
		if e != want[i] {
			t.Errorf("event %d is %+v, want %+v", i, e, want[i])
		}
	}
	data, _ := json.Marshal(events)
	for _, turn := range turns {
		if strings.Contains(string(data), turn.Text) {
			t.Errorf("the audit export holds a turn's text: %q", turn.Text)
		}
	}
}

// Erasure is one way an application redacts stored turns.
type Erasure struct {
	Name   string
	Redact func(ctx context.Context, st store.Store, scope store.Scope, turns ...int) error
}

// Erasures are every way to redact a stored turn: the store's Redact, the
// Conversation's, and Memory.Redact on a loaded or a cached copy, followed
// by its Save. Each must erase the text from the store.
var Erasures = []Erasure{
	{"StoreRedact", func(ctx context.Context, st store.Store, scope store.Scope, turns ...int) error {
		for _, i := range turns {
			if _, err := st.Redact(ctx, scope, i); err != nil {
				return err
			}
		}
		return nil
	}},
	{"ConversationRedact", func(ctx context.Context, st store.Store, scope store.Scope, turns ...int) error {
		c, err := store.Open(ctx, st, scope, opts)
		for _, i := range turns {
			if err == nil {
				err = c.Redact(ctx, i)
			}
		}
		return err
	}},
	{"MemoryRedactThenSave", func(ctx context.Context, st store.Store, scope store.Scope, turns ...int) error {
		c, err := store.Open(ctx, st, scope, opts)
		if err != nil {
			return err
		}
		return redactAndSave(ctx, c, turns)
	}},
	{"CachedMemoryRedactThenSave", func(ctx context.Context, st store.Store, scope store.Scope, turns ...int) error {
		cache := store.NewCache(st, opts, 2)
		c, err := cache.Open(ctx, scope)
		if err != nil {
			return err
		}
		cache.Done(c)
		if c, err = cache.Open(ctx, scope); err != nil {
			return err
		}
		defer cache.Done(c)
		return redactAndSave(ctx, c, turns)
	}},
}

// redactAndSave redacts turns on c's Memory, appends a turn and composes,
// as a request would, then saves.
func redactAndSave(ctx context.Context, c *store.Conversation, turns []int) error {
	for _, i := range turns {
		if err := c.Memory.Redact(i); err != nil {
			return err
		}
	}
	if _, err := c.Memory.Append(byheart.User, "and after the redaction?"); err != nil {
		return err
	}
	if _, err := c.Memory.Compose(ctx, "after the redaction"); err != nil {
		return err
	}
	return c.Save(ctx)
}

// everyErasurePersists redacts the secret turns each way and checks that
// no load, reopened memory or audit export shows them afterwards.
func everyErasurePersists(t *testing.T, st store.Store) {
	ctx := context.Background()
	for k, e := range Erasures {
		t.Run(e.Name, func(t *testing.T) {
			scope := store.Scope{Tenant: "acme", User: "alice", Conversation: fmt.Sprint("erase-", k)}
			request(t, st, scope, Chat(uint64(40+k), 30))
			request(t, st, scope, SecretTurns())
			if !strings.Contains(texts(t, st, scope), secret) {
				t.Fatal("the secret is not in a load before the erasure: the check would find nothing anyway")
			}
			if err := e.Redact(ctx, st, scope, 31, 32); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(texts(t, st, scope), secret) {
				t.Error("the redacted text is still in a load or the audit log")
			}
			m := open(t, st, scope).Memory
			for _, i := range []int{31, 32} {
				if turn, _ := m.Turn(i); !turn.Redacted || turn.Source != (byheart.Source{}) {
					t.Errorf("turn %d opens as %+v", i, turn)
				}
			}
			redactions := 0
			for _, ev := range audit(t, st, scope.Tenant, scope.User) {
				if ev.Scope == scope && ev.Action == store.Redacted {
					redactions++
				}
			}
			if redactions != 2 {
				t.Errorf("the audit log shows %d redactions, want 2", redactions)
			}
		})
	}
}
