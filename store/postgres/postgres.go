// Package postgres keeps byheart conversations in PostgreSQL, for many
// application servers sharing them, through github.com/jackc/pgx/v5.
//
//	st, err := postgres.Open(ctx, "postgres://app@db.internal/app")
//	defer st.Close()
//	conv, err := store.Open(ctx, st, store.Scope{Tenant: "acme", User: "u42", Conversation: "c7"}, byheart.Options{})
//
// A save locks the conversation's row (SELECT ... FOR UPDATE) and checks
// its version, so of two servers saving one conversation at once the
// second gets store.ErrConflict and writes nothing.
//
// # Erasure
//
// Once Redact, Delete or DeleteUser has returned, no query of any scope
// and no audit export returns the erased text. PostgreSQL does not
// overwrite a row in place, though: the old version of a redacted or
// deleted row stays in the table's files as a dead tuple until the table
// is rewritten, and its text stays in the write-ahead log until the log's
// segments are recycled (and for ever in any WAL archive, base backup or
// replica, which this package cannot reach). Purge rewrites the turns
// table (VACUUM FULL) and checkpoints, after which the table's files hold
// no byte of it; the test checks this by searching the data directory's
// table files. Run Purge after erasures, off-peak: it locks the turns
// table while it rewrites it.
//
// # Failures
//
// The store keeps a pool of 16 connections (change it with DB's
// SetMaxOpenConns). A call that cannot reach the server, or whose
// connection fails, returns an error wrapping store.ErrUnavailable; the
// pool drops the connection and opens another at the next call, so the
// store recovers by itself once the server is back. A save's outcome is
// then unknown: save again (Conversation.Save and SaveAs carry an id that
// makes a retry land once).
package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/sqlstore"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

// Store is a store.Store in a PostgreSQL database. It is safe for
// concurrent use, and any number of processes may share the database.
type Store struct {
	*sqlstore.Store
}

var _ store.Store = (*Store)(nil)

// Open connects to the database named by url (a postgres:// URL or a
// key=value connection string, as pgx reads them; search_path=... picks a
// schema) and creates byheart's tables if they are missing.
func Open(ctx context.Context, url string) (*Store, error) {
	s, err := sqlstore.Open(ctx, "pgx", url, dialect)
	if err != nil {
		return nil, err
	}
	return &Store{s}, nil
}

// dialect is how PostgreSQL says what sqlstore needs. Loads read one
// snapshot; saves lock the conversation's row, so a second writer waits
// for the first and then sees its version.
var dialect = sqlstore.Dialect{
	Name: "postgres",
	Schema: []string{
		`CREATE TABLE IF NOT EXISTS byheart_conversations (
			tenant text NOT NULL, user_id text NOT NULL, conversation text NOT NULL,
			version bigint NOT NULL, epoch bigint NOT NULL, turns bigint NOT NULL, bound bigint NOT NULL,
			kept bytea, created_at bigint NOT NULL, updated_at bigint NOT NULL,
			PRIMARY KEY (tenant, user_id, conversation))`,
		`CREATE TABLE IF NOT EXISTS byheart_turns (
			tenant text NOT NULL, user_id text NOT NULL, conversation text NOT NULL, seq bigint NOT NULL,
			role text NOT NULL, text bytea NOT NULL, time text NOT NULL, redacted int NOT NULL,
			tool text NOT NULL, call_id text NOT NULL, source bytea NOT NULL, authenticated int NOT NULL,
			opens int NOT NULL, written_at bigint NOT NULL,
			PRIMARY KEY (tenant, user_id, conversation, seq))`,
		`CREATE TABLE IF NOT EXISTS byheart_audit (
			id bigserial PRIMARY KEY, at bigint NOT NULL,
			tenant text NOT NULL, user_id text NOT NULL, conversation text NOT NULL,
			action text NOT NULL, turn bigint NOT NULL, count bigint NOT NULL, version bigint NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS byheart_audit_user ON byheart_audit (tenant, user_id, id)`,
		// Added with turn expiry; a table made before gains it here.
		`ALTER TABLE byheart_turns ADD COLUMN IF NOT EXISTS expires text`,
		// Added with standing turns: 0 leaves the turn to byheart.
		`ALTER TABLE byheart_turns ADD COLUMN IF NOT EXISTS standing int NOT NULL DEFAULT 0`,
		// Added after the first release: a database made before gets it on open.
		`CREATE TABLE IF NOT EXISTS byheart_saves (
			tenant text NOT NULL, user_id text NOT NULL, conversation text NOT NULL, id text NOT NULL,
			version bigint NOT NULL, epoch bigint NOT NULL, turns bigint NOT NULL, bound bigint NOT NULL,
			digest bytea NOT NULL, at bigint NOT NULL,
			PRIMARY KEY (tenant, user_id, conversation, id))`,
	},
	Dollar:     true,
	BeginRead:  "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	BeginWrite: "BEGIN",
	Lock:       " FOR UPDATE",
	Conflict:   conflict,
	Lost:       lost,
	Conns:      16, // well under the server's max_connections (100 by default), for several servers to share
}

// lost reports the connection failing rather than the server refusing a
// statement: an error the server did not send (refused, reset, closed,
// cut short), or one it sent as it shut down, while it cannot yet take
// connections, or while all its connection slots are taken (classes 08 and
// 57P, and 53300).
func lost(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		// 53300: too many connections, as when connections a network cut
		// away still hold the server's slots; it takes others once it has
		// reaped them, and no statement ran.
		return strings.HasPrefix(pg.Code, "08") || strings.HasPrefix(pg.Code, "57P") || pg.Code == "53300"
	}
	var nerr net.Error
	return errors.As(err, &nerr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) || errors.Is(err, pgconn.ErrConnClosed)
}

// conflict reports a write that lost a race: a key another transaction
// took first, a serialization failure or a deadlock.
func conflict(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "23505" || pg.Code == "40001" || pg.Code == "40P01")
}

// Purge rewrites the turns table, leaving out the dead row versions that
// redactions and deletions leave behind, and checkpoints, so that the
// table's files no longer hold erased text (see the package comment for
// what remains in the write-ahead log). CHECKPOINT needs a superuser or
// the pg_checkpoint role; without it Purge returns the error after the
// rewrite, and the old files go at the server's next checkpoint.
func (s *Store) Purge(ctx context.Context) error {
	if _, err := s.DB().ExecContext(ctx, "VACUUM FULL byheart_turns"); err != nil {
		return fmt.Errorf("store/postgres: purge: %w", err)
	}
	if _, err := s.DB().ExecContext(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("store/postgres: purge: checkpoint: %w", err)
	}
	return nil
}
