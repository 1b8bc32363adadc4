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

// TestIDRefusesEveryCharacterThatDisplaysAsAnother pins the one rule of
// scope ids: characters that show nothing, or show as a space or a line
// break, are refused in every field; visible ones of every script pass.
func TestIDRefusesEveryCharacterThatDisplaysAsAnother(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    string
		ok   bool
	}{
		{"a NUL (Cc)", "\x00", false},
		{"a line feed (Cc)", "\n", false},
		{"DEL (Cc)", "\x7f", false},
		{"a C1 control (Cc)", "\u0085", false},
		{"right-to-left override (Cf)", "\u202e", false},
		{"left-to-right embedding (Cf)", "\u202a", false},
		{"first strong isolate (Cf)", "\u2068", false},
		{"right-to-left isolate (Cf)", "\u2067", false},
		{"pop directional isolate (Cf)", "\u2069", false},
		{"right-to-left mark (Cf)", "\u200f", false},
		{"arabic letter mark (Cf)", "\u061c", false},
		{"zero-width space (Cf)", "\u200b", false},
		{"zero-width joiner (Cf)", "\u200d", false},
		{"word joiner (Cf)", "\u2060", false},
		{"soft hyphen (Cf)", "\u00ad", false},
		{"byte order mark (Cf)", "\ufeff", false},
		{"a tag character (Cf)", "\U000e0041", false},
		{"line separator (Zl)", "\u2028", false},
		{"paragraph separator (Zp)", "\u2029", false},
		{"no-break space (Zs)", "\u00a0", false},
		{"ideographic space (Zs)", "\u3000", false},
		{"private use (Co)", "\ue000", false},
		{"unassigned (Cn)", "\U000e0080", false},
		{"the ASCII space", " ", true},
		{"a quote and a percent sign", "'%_", true},
		{"accented latin", "é", true},
		{"a combining mark", "e\u0301", true},
		{"cyrillic", "ж", true},
		{"han", "中", true},
		{"an emoji", "🙂", true},
	} {
		for _, id := range []string{tc.r, "acme" + tc.r, tc.r + "acme"} {
			if got := ID(id); got != tc.ok {
				t.Errorf("%s: ID(%q) = %v, want %v", tc.name, id, got, tc.ok)
			}
		}
		for field := range 3 {
			s := Scope{Tenant: "acme", User: "alice", Conversation: "c1"}
			*[]*string{&s.Tenant, &s.User, &s.Conversation}[field] += tc.r
			if err := s.Check(); (err == nil) != tc.ok || !tc.ok && !errors.Is(err, ErrScope) {
				t.Errorf("%s in field %d: Check says %v", tc.name, field, err)
			}
			if err := CheckUser(s.Tenant, s.User); field < 2 && (err == nil) != tc.ok {
				t.Errorf("%s in field %d: CheckUser says %v", tc.name, field, err)
			}
		}
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
