package sqlstore

import "testing"

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
