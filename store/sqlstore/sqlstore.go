// Package sqlstore is a store.Store over database/sql, for the databases
// whose Dialect says how they differ: the SQLite and PostgreSQL modules are
// a Dialect and an Open each. It imports only the standard library.
//
// Four tables hold everything, each keyed by the whole scope (tenant,
// user, conversation), which every statement names in full:
// byheart_conversations, one row per conversation with its version, epoch,
// turn count, last stretch start and kept selection; byheart_turns, one
// row per turn; byheart_saves, the id of each save made with one and the
// position it made; and byheart_audit, the audit log, which never holds a
// turn's text. A database made before byheart_saves existed gets it when
// it is opened. A save appends rows and updates one; it never rewrites a
// turn it did not add. A turn's expiry (byheart.Turn.Expires) is a
// nullable column of its row, and the application's standing mark
// (byheart.Turn.Standing) a column that is 0 when it left the turn to
// byheart, which recognizes it again on every load; both are added on open
// to tables made before them.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/byheart/byheart/store"
)

// Dialect is what a database needs said its own way.
type Dialect struct {
	// Name names the database in errors.
	Name string
	// Schema creates the tables and their indexes if they are missing; it
	// is run, statement by statement, by New, and so migrates a database
	// made by an earlier version.
	Schema []string
	// Migrate, when set, runs after Schema, to bring tables an older
	// version made up to date (a column added since).
	Migrate func(ctx context.Context, db *sql.DB) error
	// Dollar numbers the placeholders $1, $2, ... rather than writing ?.
	Dollar bool
	// BeginRead and BeginWrite start a transaction that reads a consistent
	// snapshot, and one that writes: once it has read a conversation's row
	// with Lock after it, no other writer changes that row until it ends.
	BeginRead, BeginWrite string
	// Lock is appended to the select of a conversation's row in a writing
	// transaction: " FOR UPDATE", or "" where BeginWrite locks already.
	Lock string
	// Conns is the most connections the pool holds, all of them kept
	// open when idle, so that a burst of requests does not close and
	// reopen them; a call waits for a free one (or its context). 0 leaves
	// database/sql's defaults (no limit, two idle).
	Conns int
	// OneWriter says the database takes one writing transaction at a time
	// (SQLite): the store's writers then queue for it in the process, in
	// order, rather than each polling the database's lock, whose waits
	// back off to many milliseconds under load.
	OneWriter bool
	// Conflict reports whether err is the database refusing a write that
	// raced another (a unique key taken, a serialization failure).
	Conflict func(err error) bool
	// Lost, when set, reports whether err is the connection to the
	// database failing (refused, reset, closed by the server) rather than
	// the database refusing a statement: the store reports it as
	// store.ErrUnavailable.
	Lost func(err error) bool
	// Erase, when set, runs after a redaction or deletion has committed,
	// to remove the erased bytes from files the database keeps beside its
	// tables (SQLite's write-ahead log).
	Erase func(ctx context.Context, db *sql.DB) error
}

// Store is a store.Store over a *sql.DB. It is safe for concurrent use.
type Store struct {
	db     *sql.DB
	d      Dialect
	closed atomic.Bool
	q      queries
	writer chan struct{} // held by the one writing transaction, with OneWriter
	group  group         // the saves waiting to be committed together, with OneWriter
}

var _ store.Store = (*Store)(nil)

// New returns a Store over db, creating its tables if they are missing.
// The Store owns db from then on: Close closes it.
func New(ctx context.Context, db *sql.DB, d Dialect) (*Store, error) {
	if d.Conns > 0 {
		db.SetMaxOpenConns(d.Conns)
		db.SetMaxIdleConns(d.Conns)
	}
	for _, stmt := range d.Schema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("store: %s schema: %w", d.Name, err)
		}
	}
	if d.Migrate != nil {
		if err := d.Migrate(ctx, db); err != nil {
			return nil, fmt.Errorf("store: %s schema: %w", d.Name, err)
		}
	}
	return &Store{db: db, d: d, q: newQueries(d.Dollar), writer: make(chan struct{}, 1)}, nil
}

// Open opens a database with the named database/sql driver and returns
// a Store over it, as New does; on error nothing stays open.
func Open(ctx context.Context, driver, dsn string, d Dialect) (*Store, error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", d.Name, err)
	}
	s, err := New(ctx, db, d)
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// DB returns the database the store uses, for maintenance such as
// PostgreSQL's VACUUM.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the database; later calls fail with store.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.db.Close()
}

// tx is one transaction on a connection of its own, begun with a plain
// statement so that each dialect chooses how it locks.
type tx struct {
	conn   *sql.Conn
	done   bool
	writer bool // it holds the store's writer
}

// begin starts a transaction, after checking that the store is open and
// ctx is not done.
func (s *Store) begin(ctx context.Context, write bool) (*tx, error) {
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := &tx{writer: write && s.d.OneWriter}
	if t.writer {
		select {
		case s.writer <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := s.open(ctx, t, write); err != nil {
		s.release(t)
		return nil, err
	}
	return t, nil
}

// open takes a connection for t and begins its transaction.
func (s *Store) open(ctx context.Context, t *tx, write bool) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.failed(err)
	}
	stmt := s.d.BeginRead
	if write {
		stmt = s.d.BeginWrite
	}
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		// A BEGIN that failed may have begun all the same: a driver
		// reports a context that ended while the statement ran, even when
		// it ran (the SQLite driver does). Back in the pool, the connection
		// would fail every later BEGIN, so it is dropped.
		conn.Raw(func(any) error { return errBadConn })
		conn.Close()
		return s.failed(err)
	}
	t.conn = conn
	return nil
}

// release lets the next writer in, if t held the writer.
func (s *Store) release(t *tx) {
	if t.writer {
		t.writer = false
		<-s.writer
	}
}

// end commits the transaction if err is nil and rolls it back otherwise;
// a rollback runs even when ctx is done, and a connection whose rollback
// fails is dropped rather than returned to the pool mid-transaction.
func (s *Store) end(ctx context.Context, t *tx, err error) error {
	if t.done {
		return err
	}
	t.done = true
	defer s.release(t)
	defer t.conn.Close()
	if err == nil {
		if _, err = t.conn.ExecContext(ctx, "COMMIT"); err == nil {
			return nil
		}
	}
	if _, rerr := t.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
		t.conn.Raw(func(any) error { return errBadConn })
	}
	return s.classify(err)
}

// classify reports a write that lost a race as store.ErrConflict, and
// other failures as failed does.
func (s *Store) classify(err error) error {
	if err != nil && s.d.Conflict != nil && s.d.Conflict(err) && !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("%w: %w", store.ErrConflict, err)
	}
	return s.failed(err)
}

// failed reports a failure of a closed store as store.ErrClosed, and one
// of the connection as store.ErrUnavailable.
func (s *Store) failed(err error) error {
	switch {
	case err == nil || errors.Is(err, store.ErrClosed) || errors.Is(err, store.ErrUnavailable):
		return err
	case s.closed.Load():
		return fmt.Errorf("%w: %w", store.ErrClosed, err)
	case s.d.Lost != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && s.d.Lost(err):
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

// conv is a conversation's row.
type conv struct {
	store.Position
	kept []byte
}

// conversation reads the row of scope, locking it in a writing transaction.
func (s *Store) conversation(ctx context.Context, t *tx, scope store.Scope, lock bool) (conv, error) {
	q := s.q.conv
	if lock {
		q += s.d.Lock
	}
	var c conv
	err := t.conn.QueryRowContext(ctx, q, scope.Tenant, scope.User, scope.Conversation).
		Scan(&c.Version, &c.Epoch, &c.Turns, &c.Bound, &c.kept)
	if errors.Is(err, sql.ErrNoRows) {
		return c, store.ErrNotFound
	}
	return c, err
}

// audit records an event in the transaction.
func (s *Store) audit(ctx context.Context, t *tx, e store.Event) error {
	_, err := t.conn.ExecContext(ctx, s.q.audit, e.At.UnixMicro(), e.Scope.Tenant, e.Scope.User,
		e.Scope.Conversation, string(e.Action), e.Turn, e.Count, e.Version)
	return err
}

// erased runs the dialect's Erase after an erasure committed.
func (s *Store) erased(ctx context.Context) error {
	if s.d.Erase == nil {
		return nil
	}
	return s.failed(s.d.Erase(context.WithoutCancel(ctx), s.db))
}

// rebind numbers the ? placeholders of q as $1, $2, ... .
func rebind(q string, dollar bool) string {
	if !dollar {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
