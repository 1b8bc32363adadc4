// Package sqlite is byheart's embedded store: one SQLite file, zero setup,
// through a pure-Go driver (modernc.org/sqlite, no cgo).
//
//	st, err := sqlite.Open(ctx, "conversations.db", sqlite.Options{})
//	defer st.Close()
//	conv, err := store.Open(ctx, st, store.Scope{Tenant: "acme", User: "u42", Conversation: "c7"}, byheart.Options{})
//
// The file is in write-ahead-log mode, with full synchronisation (a save
// that returned survives a crash of the process or the machine) and
// secure_delete on: SQLite overwrites deleted and replaced content with
// zeros. After each redaction or deletion the log is checkpointed into the
// file and truncated to nothing, so once Redact, Delete or DeleteUser has
// returned, no byte of the erased text is in the database file or its
// log (the test searches both). What the store cannot reach is outside
// it: copies of the file, backups, and blocks the file system or the
// disk keep after a file shrinks.
//
// SQLite takes one writer at a time. A store's saves queue for it in the
// process, and are made together in one transaction (each in a savepoint
// of its own) with one commit, so that concurrent conversations share the
// disk's flushes; other processes on the same file wait on SQLite's lock.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/sqlstore"
	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlitelib "modernc.org/sqlite/lib"
)

// Store is a store.Store in one SQLite file. It is safe for concurrent
// use, and several processes may open the same file.
type Store struct {
	*sqlstore.Store
}

var _ store.Store = (*Store)(nil)

// Options configures Open. The zero value is the durable default.
type Options struct {
	// Relaxed syncs the file to disk at checkpoints only, not on every
	// save (SQLite's synchronous=NORMAL in WAL mode): a save that returned
	// still survives the process crashing, but the last ones may be lost
	// if the machine loses power. It takes the disk's flush off every
	// request; the README measures what that saves.
	Relaxed bool
}

// Open opens the SQLite database at path, creating it and byheart's tables
// if they are missing.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("store/sqlite: a file path without ? or #, not %q", path)
	}
	sync := "FULL"
	if opts.Relaxed {
		sync = "NORMAL"
	}
	// Every connection gets these: see the package comment.
	pragmas := []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(" + sync + ")", "secure_delete(ON)"}
	dsn := "file:" + path + "?_pragma=" + strings.Join(pragmas, "&_pragma=")
	s, err := sqlstore.Open(ctx, "sqlite", dsn, dialect)
	if err != nil {
		return nil, err
	}
	return &Store{s}, nil
}

// dialect is how SQLite says what sqlstore needs: BEGIN IMMEDIATE takes
// the write lock at once, so two writers never both read and then race to
// write, and every table is clustered on the whole scope.
var dialect = sqlstore.Dialect{
	Name: "sqlite",
	Schema: []string{
		`CREATE TABLE IF NOT EXISTS byheart_conversations (
			tenant TEXT NOT NULL, user_id TEXT NOT NULL, conversation TEXT NOT NULL,
			version INTEGER NOT NULL, epoch INTEGER NOT NULL, turns INTEGER NOT NULL, bound INTEGER NOT NULL,
			kept BLOB, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
			PRIMARY KEY (tenant, user_id, conversation)) WITHOUT ROWID`,
		`CREATE TABLE IF NOT EXISTS byheart_turns (
			tenant TEXT NOT NULL, user_id TEXT NOT NULL, conversation TEXT NOT NULL, seq INTEGER NOT NULL,
			role TEXT NOT NULL, text BLOB NOT NULL, time TEXT NOT NULL, redacted INTEGER NOT NULL,
			tool TEXT NOT NULL, call_id TEXT NOT NULL, source BLOB NOT NULL, authenticated INTEGER NOT NULL,
			opens INTEGER NOT NULL, written_at INTEGER NOT NULL,
			PRIMARY KEY (tenant, user_id, conversation, seq)) WITHOUT ROWID`,
		`CREATE TABLE IF NOT EXISTS byheart_audit (
			id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
			tenant TEXT NOT NULL, user_id TEXT NOT NULL, conversation TEXT NOT NULL,
			action TEXT NOT NULL, turn INTEGER NOT NULL, count INTEGER NOT NULL, version INTEGER NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS byheart_audit_user ON byheart_audit (tenant, user_id, id)`,
		// Added after the first release: a database made before gets it on open.
		`CREATE TABLE IF NOT EXISTS byheart_saves (
			tenant TEXT NOT NULL, user_id TEXT NOT NULL, conversation TEXT NOT NULL, id TEXT NOT NULL,
			version INTEGER NOT NULL, epoch INTEGER NOT NULL, turns INTEGER NOT NULL, bound INTEGER NOT NULL,
			digest BLOB NOT NULL, at INTEGER NOT NULL,
			PRIMARY KEY (tenant, user_id, conversation, id)) WITHOUT ROWID`,
	},
	Migrate:    addColumns,
	BeginRead:  "BEGIN",
	BeginWrite: "BEGIN IMMEDIATE",
	OneWriter:  true,
	Conns:      8, // one writes at a time; the others read beside it
	Conflict:   conflict,
	Erase:      checkpoint,
}

// addedColumns are the turns' columns added since the first release, with
// their types: a table made before one gains it on open.
var addedColumns = []struct{ name, decl string }{
	{"expires", "TEXT"},
	{"standing", "INTEGER NOT NULL DEFAULT 0"},
}

// addColumns adds to the turns' table the columns it was made without.
// SQLite has no ADD COLUMN IF NOT EXISTS: each column is looked for, and
// an ALTER that fails because another process added it meanwhile is fine.
func addColumns(ctx context.Context, db *sql.DB) error {
	for _, c := range addedColumns {
		has := func() (bool, error) {
			var n int
			err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pragma_table_info('byheart_turns') WHERE name = ?", c.name).Scan(&n)
			return n > 0, err
		}
		if ok, err := has(); ok || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		if _, err := db.ExecContext(ctx, "ALTER TABLE byheart_turns ADD COLUMN "+c.name+" "+c.decl); err != nil {
			if ok, _ := has(); !ok {
				return err
			}
		}
	}
	return nil
}

// conflict reports a key another writer took first: a conversation
// created twice.
func conflict(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && (e.Code() == sqlitelib.SQLITE_CONSTRAINT_PRIMARYKEY || e.Code() == sqlitelib.SQLITE_CONSTRAINT_UNIQUE)
}

// ErrErasurePending: an erasure committed, but readers kept the
// write-ahead log from being emptied, so it may still hold the erased
// bytes; call Checkpoint when they are done.
var ErrErasurePending = errors.New("store/sqlite: erased in the database, but the write-ahead log could not be emptied yet")

// checkpoint copies the write-ahead log into the database file and
// truncates it, retrying while readers hold it.
func checkpoint(ctx context.Context, db *sql.DB) error {
	for try := 0; ; try++ {
		var busy, logged, moved int
		err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &moved)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrErasurePending, err)
		}
		if busy == 0 {
			return nil
		}
		if try == 50 {
			return ErrErasurePending
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Checkpoint empties the write-ahead log into the database file, as every
// erasure does; it is ErrErasurePending while readers hold the log.
func (s *Store) Checkpoint(ctx context.Context) error {
	return checkpoint(ctx, s.DB())
}
