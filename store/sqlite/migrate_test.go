package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/storetest"
)

// A file written before turns could expire has no expires column: Open
// adds it, the old turns read as never expiring, and new ones keep theirs.
func TestAFileFromBeforeExpiryGainsTheColumnOnOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "byheart.db")
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := storetest.Chat(5, 12)
	c, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range old {
		if _, err := c.Memory.AppendTurn(turn); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Save(ctx); err != nil {
		t.Fatal(err)
	}
	// What the file looked like before the column.
	if _, err := st.DB().ExecContext(ctx, "ALTER TABLE byheart_turns DROP COLUMN expires"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	for range 2 { // and opening again finds it there
		st = openAt(t, path)
	}
	c, err = store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Memory.Len() != len(old) {
		t.Fatalf("the old file opens with %d turns, want %d", c.Memory.Len(), len(old))
	}
	for i := range old {
		if got, _ := c.Memory.Turn(i); !got.Expires.IsZero() {
			t.Errorf("old turn %d reads as expiring at %v", i, got.Expires)
		}
	}
	expires := old[len(old)-1].Time.Add(time.Hour)
	if _, err := c.Memory.AppendTurn(byheart.Turn{Role: byheart.User, Text: "the gate code is 2291", Expires: expires}); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(ctx); err != nil {
		t.Fatal(err)
	}
	c, err = store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Memory.Turn(len(old)); !got.Expires.Equal(expires) {
		t.Errorf("the new turn reads as expiring at %v, want %v", got.Expires, expires)
	}
}
