package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/sqlstore"
	"github.com/byheart/byheart/store/storetest"
)

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
