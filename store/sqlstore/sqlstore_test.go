package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/byheart/byheart"
)

func TestRebindNumbersEveryPlaceholderInOrder(t *testing.T) {
	for _, tc := range []struct {
		in     string
		dollar bool
		want   string
	}{
		{"a = ? AND b = ?", false, "a = ? AND b = ?"},
		{"a = ? AND b = ?", true, "a = $1 AND b = $2"},
		{"VALUES (?, ?, ?)", true, "VALUES ($1, $2, $3)"},
		{"no placeholders", true, "no placeholders"},
	} {
		if got := rebind(tc.in, tc.dollar); got != tc.want {
			t.Errorf("rebind(%q, %v) = %q, want %q", tc.in, tc.dollar, got, tc.want)
		}
	}
}

// What a redaction leaves as the kept selection in the database is what
// the redacting memory's Since writes, so a copy loaded after it rebuilds
// for the same reason.
func TestARedactionKeepsWhatTheRedactingMemoryWrites(t *testing.T) {
	m := byheart.New(byheart.Options{Budget: 400})
	for i := range 40 {
		if _, err := m.Append([]byheart.Role{byheart.User, byheart.Assistant}[i%2], fmt.Sprintf("turn %d about the garden and the roses", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Compose(context.Background(), "the roses"); err != nil {
		t.Fatal(err)
	}
	if err := m.Redact(3); err != nil {
		t.Fatal(err)
	}
	c, err := m.Since(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Kept) != string(keptRedacted) {
		t.Errorf("the redacting memory keeps %s, the store %s", c.Kept, keptRedacted)
	}
}
