package postgres

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/storetest"
)

// howToRun is what a developer without a server is told.
const howToRun = "no PostgreSQL, tests skipped: run eval \"$(scripts/pg start)\" at the repository root, then the tests, then scripts/pg stop"

// TestMain says once, even without -v, why the tests skip.
func TestMain(m *testing.M) {
	if os.Getenv("BYHEART_POSTGRES_URL") == "" {
		fmt.Println("store/postgres:", howToRun)
	}
	os.Exit(m.Run())
}

// serverURL is the server the tests run against; without one they skip.
func serverURL(t testing.TB) string {
	u := os.Getenv("BYHEART_POSTGRES_URL")
	if u == "" {
		t.Skip(howToRun)
	}
	return u
}

// newStore opens a store in a schema of its own, dropped when the test
// ends, so tests never see each other's rows.
func newStore(t testing.TB) store.Store {
	return openSchema(t)
}

func openSchema(t testing.TB) *Store {
	t.Helper()
	return openURL(t, schemaURL(t))
}

// openURL opens a store at u, closed when the test ends.
func openURL(t testing.TB, u string) *Store {
	t.Helper()
	st, err := Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// schemaURL makes a schema of the test's own, dropped when it ends, and
// returns the server's URL with the schema as its search path.
func schemaURL(t testing.TB) string {
	t.Helper()
	base := serverURL(t)
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	b := make([]byte, 6)
	rand.Read(b)
	schema := "byheart_test_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("pgx", base); err == nil {
			db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE")
			db.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestTwoProcessesServeOneDatabase serves the same conversations from this
// process and a second one through one database, with conflicting saves
// and redactions (storetest.TwoProcesses): nothing lost, nothing doubled,
// no redacted word back.
func TestTwoProcessesServeOneDatabase(t *testing.T) {
	storetest.TwoProcesses(t, schemaURL, func(t testing.TB, u string) store.Store { return openURL(t, u) })
}

func TestConformance(t *testing.T) {
	serverURL(t)
	storetest.Run(t, newStore)
}

var scope = store.Scope{Tenant: "acme", User: "alice", Conversation: "support-1"}

// tableFiles returns the bytes of every table file of the cluster's
// databases (not the write-ahead log), where the server lets us read them.
func tableFiles(t *testing.T) []byte {
	t.Helper()
	data := os.Getenv("BYHEART_PG_DATA")
	if data == "" {
		t.Skip("BYHEART_PG_DATA does not name the server's data directory (scripts/pg start sets it)")
	}
	var all []byte
	err := filepath.WalkDir(filepath.Join(data, "base"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		all = append(all, b...)
		return nil
	})
	if err != nil {
		t.Skipf("cannot read the data directory: %v", err)
	}
	return all
}

// TestPurgeRemovesErasedTextFromTheTableFiles pins what the package
// comment promises: after a redaction the dead row version still holds the
// text in the table's files; after Purge it does not.
func TestPurgeRemovesErasedTextFromTheTableFiles(t *testing.T) {
	st := openSchema(t)
	tableFiles(t)
	ctx := context.Background()
	c, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range append(storetest.Chat(1, 20), storetest.SecretTurns()...) {
		if _, err := c.Memory.AppendTurn(turn); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Save(ctx); err != nil {
		t.Fatal(err)
	}
	secret := []byte(storetest.Secret())
	checkpoint(t, st)
	if !bytes.Contains(tableFiles(t), secret) {
		t.Fatal("the text is not in the table files before the erasure: the search would find nothing anyway")
	}
	for _, i := range []int{21, 22} {
		if _, err := st.Redact(ctx, scope, i); err != nil {
			t.Fatal(err)
		}
	}
	checkpoint(t, st)
	if !bytes.Contains(tableFiles(t), secret) {
		t.Log("the dead row versions were already gone before Purge")
	}
	if err := st.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(tableFiles(t), secret); i >= 0 {
		t.Errorf("after Purge the erased text is still in the table files, at byte %d", i)
	}
}

func checkpoint(t *testing.T, st *Store) {
	t.Helper()
	if _, err := st.DB().ExecContext(context.Background(), "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
}

// TestEveryErasureLeavesNoRowHoldingTheText redacts stored turns each way
// an application can and checks, with SQL of its own, that no row of the
// turns or audit tables holds the text afterwards, then that Purge leaves
// none of it in the table files.
func TestEveryErasureLeavesNoRowHoldingTheText(t *testing.T) {
	st := openSchema(t)
	ctx := context.Background()
	secret := storetest.Secret()
	rows := func() int {
		t.Helper()
		var n int
		err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM byheart_turns
			WHERE position(convert_to($1, 'UTF8') in text) > 0 OR position(convert_to($1, 'UTF8') in source) > 0`, secret).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for k, e := range storetest.Erasures {
		scope := store.Scope{Tenant: "acme", User: "alice", Conversation: fmt.Sprint("erase-", k)}
		c, err := store.Open(ctx, st, scope, byheart.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, turn := range append(storetest.Chat(uint64(k), 20), storetest.SecretTurns()...) {
			if _, err := c.Memory.AppendTurn(turn); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Save(ctx); err != nil {
			t.Fatal(err)
		}
		if rows() == 0 {
			t.Fatalf("%s: no row holds the text before the erasure: the search would find nothing anyway", e.Name)
		}
		if err := e.Redact(ctx, st, scope, 21, 22); err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if n := rows(); n != 0 {
			t.Errorf("%s: %d rows still hold the erased text", e.Name, n)
		}
	}
	tableFiles(t)
	if err := st.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(tableFiles(t), []byte(secret)); i >= 0 {
		t.Errorf("after Purge the erased text is still in the table files, at byte %d", i)
	}
}
