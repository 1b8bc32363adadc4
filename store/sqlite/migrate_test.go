package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/sqlstore"
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

// TestADatabaseFromBeforeSaveIDsGetsThemOnOpen makes a database with the
// schema as it was before saves had ids (no byheart_saves), stores a
// conversation in it, and opens it with Open: the table is added, the
// conversation loads as it was, and a save under an id lands once.
func TestADatabaseFromBeforeSaveIDsGetsThemOnOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old := dialect
	old.Schema = nil
	for _, stmt := range dialect.Schema {
		if !strings.Contains(stmt, "byheart_saves") {
			old.Schema = append(old.Schema, stmt)
		}
	}
	if len(old.Schema) != len(dialect.Schema)-1 {
		t.Fatalf("the old schema has %d statements of %d", len(old.Schema), len(dialect.Schema))
	}
	before, err := sqlstore.Open(ctx, "sqlite", "file:"+path, old)
	if err != nil {
		t.Fatal(err)
	}
	c, err := store.Open(ctx, before, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range storetest.Chat(3, 12) {
		if _, err := c.Memory.AppendTurn(turn); err != nil {
			t.Fatal(err)
		}
	}
	changes, _ := c.Memory.Since(0, 0)
	if _, err := before.Save(ctx, scope, store.Position{}, changes, ""); err != nil {
		t.Fatal(err)
	}
	if tables(t, before) != 3 {
		t.Fatalf("the old database has %d byheart tables, want 3", tables(t, before))
	}
	before.Close()

	st := openAt(t, path)
	if n := tables(t, st.Store); n != 4 {
		t.Errorf("after Open the database has %d byheart tables, want 4", n)
	}
	again, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Memory.Len() != 12 {
		t.Errorf("the old conversation opens with %d turns, want 12", again.Memory.Len())
	}
	if _, err := again.Memory.Append(byheart.User, "after the migration"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := again.SaveAs(ctx, "request-1"); err != nil {
			t.Fatal(err)
		}
	}
	fresh, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil || fresh.Memory.Len() != 13 {
		t.Errorf("after saving twice under one id: %v, %d turns, want 13", err, fresh.Memory.Len())
	}
}

func tables(t *testing.T, st *sqlstore.Store) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'byheart\_%' ESCAPE '\'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A file written before turns could be marked standing has no standing
// column (and, older still, no expires column): Open adds what is missing,
// the old turns read as left to byheart, which recognizes their
// instructions again, and new turns keep their marks.
func TestAFileFromBeforeStandingTurnsGainsTheColumnOnOpen(t *testing.T) {
	ctx := context.Background()
	for _, dropped := range [][]string{{"standing"}, {"standing", "expires"}} {
		path := filepath.Join(t.TempDir(), "byheart.db")
		st, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		saved := storetest.BeforeMarks(t, st, scope)
		for _, col := range dropped { // what the file looked like before the columns
			if _, err := st.DB().ExecContext(ctx, "ALTER TABLE byheart_turns DROP COLUMN "+col); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
		for range 2 { // and opening again finds them there
			st = openAt(t, path)
		}
		storetest.AfterMarks(t, st, scope, saved)
	}
}
