package store

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
)

func TestScopeCheckRefusesEveryFieldThatIsNotAnID(t *testing.T) {
	ok := Scope{Tenant: "acme", User: "alice", Conversation: "c1"}
	if err := ok.Check(); err != nil {
		t.Fatalf("a valid scope: %v", err)
	}
	for _, tc := range []struct {
		name  string
		scope Scope
	}{
		{"no tenant", Scope{User: "alice", Conversation: "c1"}},
		{"no user", Scope{Tenant: "acme", Conversation: "c1"}},
		{"no conversation", Scope{Tenant: "acme", User: "alice"}},
		{"a NUL", Scope{Tenant: "acme", User: "al\x00ice", Conversation: "c1"}},
		{"a line break", Scope{Tenant: "acme", User: "alice", Conversation: "c\n1"}},
		{"not UTF-8", Scope{Tenant: "ac\xffme", User: "alice", Conversation: "c1"}},
		{"too long", Scope{Tenant: "acme", User: strings.Repeat("u", MaxID+1), Conversation: "c1"}},
	} {
		if err := tc.scope.Check(); !errors.Is(err, ErrScope) {
			t.Errorf("%s: %v, want ErrScope", tc.name, err)
		}
	}
	if err := CheckUser("acme", ""); !errors.Is(err, ErrScope) {
		t.Errorf("a user without an id: %v", err)
	}
}

func TestCheckSaveRefusesChangesNoMemoryMakes(t *testing.T) {
	scope := Scope{Tenant: "acme", User: "alice", Conversation: "c1"}
	base := Position{Version: 3, Epoch: 1, Turns: 4, Bound: 2}
	user := []byheart.Turn{{Role: byheart.User, Text: "hi"}}
	for _, tc := range []struct {
		name string
		c    byheart.Changes
		want error
	}{
		{"a good change", byheart.Changes{From: 4, Turns: user, Bounds: []int{4}, Kept: json.RawMessage(`{}`)}, nil},
		{"a redacted turn without text", byheart.Changes{From: 4, Turns: []byheart.Turn{{Role: byheart.Note, Redacted: true}}}, nil},
		{"from another turn", byheart.Changes{From: 3, Turns: user}, ErrInvalid},
		{"a start not after the last", byheart.Changes{From: 4, Turns: user, Bounds: []int{2}}, ErrInvalid},
		{"starts out of order", byheart.Changes{From: 4, Turns: append(user, user...), Bounds: []int{5, 4}}, ErrInvalid},
		{"a start past the turns", byheart.Changes{From: 4, Turns: user, Bounds: []int{5}}, ErrInvalid},
		{"an unknown role", byheart.Changes{From: 4, Turns: []byheart.Turn{{Role: "system", Text: "x"}}}, ErrInvalid},
		{"a source that is not UTF-8", byheart.Changes{From: 4, Turns: []byheart.Turn{{Role: byheart.Note, Text: "x",
			Source: byheart.Source{Name: "\xff"}}}}, ErrInvalid},
		{"a time no store can write", byheart.Changes{From: 4, Turns: []byheart.Turn{{Role: byheart.User, Text: "x",
			Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}}}, ErrInvalid},
		{"a turn over MaxTurn", byheart.Changes{From: 4, Turns: []byheart.Turn{{Role: byheart.User,
			Text: strings.Repeat("x", MaxTurn-3), Tool: "", CallID: "", Source: byheart.Source{Name: "four"}}}}, ErrTooLarge},
	} {
		if err := CheckSave(scope, base, tc.c); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestTimeTextKeepsTheZoneOffset(t *testing.T) {
	when := time.Date(2023, 5, 25, 9, 30, 0, 123456789, time.FixedZone("", 5*3600+1800))
	text, err := TimeText(when)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseTime(text)
	if err != nil || !back.Equal(when) || back.Format(time.RFC3339Nano) != when.Format(time.RFC3339Nano) {
		t.Errorf("%v came back as %v (%v)", when, back, err)
	}
	if text, _ := TimeText(time.Time{}); text != "" {
		t.Errorf("no time is written as %q", text)
	}
}
