package sqlstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// Load implements store.Store.
func (s *Store) Load(ctx context.Context, scope store.Scope, since store.Position) (rec store.Record, err error) {
	if err := scope.Check(); err != nil {
		return rec, err
	}
	if since.Version != 0 {
		// A warm copy is usually current: one statement tells, with no
		// transaction around it.
		if rec, current, err := s.current(ctx, scope, since); current || err != nil {
			return rec, store.Op("load", scope, err)
		}
	}
	t, err := s.begin(ctx, false)
	if err != nil {
		return rec, store.Op("load", scope, err)
	}
	defer func() { err = store.Op("load", scope, s.end(ctx, t, err)) }()
	c, err := s.conversation(ctx, t, scope, false)
	if err != nil {
		return rec, err
	}
	rec.At = c.Position
	switch {
	case since.Version == 0 || since.Epoch != c.Epoch || since.Turns > c.Turns || since.Version > c.Version:
		since = store.Position{}
	case since.Version == c.Version:
		rec.Changes.From = c.Turns
		return rec, nil
	}
	rec.Changes = byheart.Changes{From: since.Turns, Kept: store.Kept(c.kept)}
	if since.Bound < since.Turns-1 {
		if rec.Changes.Bounds, err = s.starts(ctx, t, scope, since.Bound, since.Turns); err != nil {
			return rec, err
		}
	}
	return rec, s.readTurns(ctx, t, scope, c.Position, &rec.Changes)
}

// current reports whether the conversation is still at since, and then
// the record that says so.
func (s *Store) current(ctx context.Context, scope store.Scope, since store.Position) (store.Record, bool, error) {
	if s.closed.Load() {
		return store.Record{}, false, store.ErrClosed
	}
	var at store.Position
	err := s.db.QueryRowContext(ctx, s.q.version, scope.Tenant, scope.User, scope.Conversation).
		Scan(&at.Version, &at.Epoch, &at.Turns, &at.Bound)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return store.Record{}, false, store.ErrNotFound
	case err != nil:
		return store.Record{}, false, s.failed(err)
	case at != since:
		return store.Record{}, false, nil
	}
	return store.Record{At: at, Changes: byheart.Changes{From: at.Turns}}, true, nil
}

// starts reads the stretch starts in (after, before).
func (s *Store) starts(ctx context.Context, t *tx, scope store.Scope, after, before int) ([]int, error) {
	rows, err := t.conn.QueryContext(ctx, s.q.starts, scope.Tenant, scope.User, scope.Conversation, after, before)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var b int
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// splitRows is the fewest turns a load reads on two connections at once.
const splitRows = 2048

// readTurns reads the turns from c.From to at.Turns into c, with their
// starts. A long run is read in two halves at once, the second by aside,
// on a connection of its own, when one is free by the time the first half
// is read and its snapshot holds the conversation at the same version and
// epoch, and so the same rows: every change to a turn's row changes the
// version. Otherwise the loading transaction reads the second half too.
func (s *Store) readTurns(ctx context.Context, t *tx, scope store.Scope, at store.Position, c *byheart.Changes) error {
	n, mid := at.Turns, at.Turns
	var a *aside
	if n-c.From >= splitRows && runtime.GOMAXPROCS(0) > 1 {
		mid = c.From + (n-c.From)/2
		a = s.readAside(ctx, scope, at, mid)
	}
	c.Turns = make([]byheart.Turn, 0, n-c.From)
	err := s.readRows(ctx, t.conn, scope, mid, c)
	if a != nil && a.done(err == nil) {
		c.Turns, c.Bounds = append(c.Turns, a.c.Turns...), append(c.Bounds, a.c.Bounds...)
	} else if err == nil {
		err = s.readRows(ctx, t.conn, scope, n, c)
	}
	return err
}

// readRows reads the turns from the next c holds to before end into c,
// with their starts. The row's values are scanned into variables kept
// across rows, which database/sql would otherwise allocate one turn at a
// time.
func (s *Store) readRows(ctx context.Context, conn *sql.Conn, scope store.Scope, end int, c *byheart.Changes) error {
	from := c.From + len(c.Turns)
	rows, err := conn.QueryContext(ctx, s.q.turns, scope.Tenant, scope.User, scope.Conversation, from, end)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		flags                                  int
		role, text, when, tool, callID, source string
		expires                                sql.NullString
	)
	for rows.Next() {
		if err := rows.Scan(&flags, &role, &text, &when, &tool, &callID, &source, &expires); err != nil {
			return err
		}
		seq := c.From + len(c.Turns)
		turn := byheart.Turn{Role: byheart.Role(role), Text: text, Redacted: flags&flagRedacted != 0, Tool: tool, CallID: callID,
			Source: byheart.Source{Name: source, Authenticated: flags&flagAuthenticated != 0}}
		if turn.Time, err = store.ParseTime(when); err != nil {
			return fmt.Errorf("%w: turn %d: %w", byheart.ErrFormat, seq, err)
		}
		if turn.Expires, err = store.ParseTime(expires.String); err != nil {
			return fmt.Errorf("%w: turn %d: expiry: %w", byheart.ErrFormat, seq, err)
		}
		if flags&flagOpens != 0 && seq > 0 {
			c.Bounds = append(c.Bounds, seq)
		}
		c.Turns = append(c.Turns, turn)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if got := c.From + len(c.Turns); got != end {
		return fmt.Errorf("%w: turns %d to %d stored where the conversation counts %d", byheart.ErrFormat, from, got, end)
	}
	return nil
}

// aside is the second half of a long load, read on a connection of its own.
type aside struct {
	state  atomic.Int32 // asideWaiting, then asideReading or asideDropped
	cancel context.CancelFunc
	ended  chan struct{}
	c      byheart.Changes
	err    error
}

const (
	asideWaiting int32 = iota // for a connection
	asideReading              // it has one: the load waits for it
	asideDropped              // the load read the first half first and reads on
)

// readAside starts reading the turns from mid to at.Turns on another
// connection.
func (s *Store) readAside(ctx context.Context, scope store.Scope, at store.Position, mid int) *aside {
	a := &aside{ended: make(chan struct{}), c: byheart.Changes{From: mid}}
	ctx, a.cancel = context.WithCancel(ctx)
	go func() {
		defer close(a.ended)
		a.err = s.readSecond(ctx, a, scope, at)
	}()
	return a
}

// readSecond is the aside's work: in a transaction of its own, once the
// load still wants it, check the position and read the rows.
func (s *Store) readSecond(ctx context.Context, a *aside, scope store.Scope, at store.Position) (err error) {
	t, err := s.begin(ctx, false)
	if err != nil {
		return err
	}
	defer func() { err = s.end(ctx, t, err) }()
	if !a.state.CompareAndSwap(asideWaiting, asideReading) {
		return context.Canceled
	}
	cur, err := s.conversation(ctx, t, scope, false)
	if err != nil {
		return err
	}
	if cur.Version != at.Version || cur.Epoch != at.Epoch {
		return store.ErrConflict
	}
	a.c.Turns = make([]byheart.Turn, 0, at.Turns-a.c.From)
	return s.readRows(ctx, t.conn, scope, at.Turns, &a.c)
}

// done reports whether the aside read its half, once the load is done
// with the first (use tells whether it still wants the second). An aside
// still waiting for a connection is dropped rather than waited for: a pool
// with no connection to spare must not hold the load up.
func (a *aside) done(use bool) bool {
	if !use || a.state.CompareAndSwap(asideWaiting, asideDropped) {
		a.cancel()
		return false
	}
	<-a.ended
	a.cancel()
	return a.err == nil
}

// Save implements store.Store. The conversation's row is written first,
// on condition that it is still at base's version, which both checks and
// locks it in one statement; a new conversation's row is inserted, and a
// key already taken is the conflict. A save with an id looks for it first,
// and again after a conflict, which may be an earlier attempt of its own
// that committed in between.
func (s *Store) Save(ctx context.Context, scope store.Scope, base store.Position, c byheart.Changes, id string) (at store.Position, err error) {
	if err := store.CheckSave(scope, base, c); err != nil {
		return base, store.Op("save", scope, err)
	}
	var sum []byte
	if id != "" {
		if !store.ID(id) {
			return base, store.Op("save", scope, fmt.Errorf("%w: a save id must be 1 to %d bytes of printable UTF-8", store.ErrInvalid, store.MaxID))
		}
		sum = digest(c)
	}
	w := &write{ctx: ctx, scope: scope, base: base, c: c, id: id, sum: sum}
	if s.d.OneWriter {
		s.grouped(w)
	} else if t, err := s.begin(ctx, true); err != nil {
		w.err = err
	} else {
		w.at, w.err = s.saveIn(ctx, t, w)
		w.err = s.end(ctx, t, w.err)
	}
	if id != "" && errors.Is(w.err, store.ErrConflict) {
		// The conflict may be an earlier attempt of this save committing
		// in between.
		if prior, err := s.saved(ctx, s.db, scope, id, sum); err == nil || errors.Is(err, store.ErrSaved) {
			w.at, w.err = prior, err
		}
	}
	if w.err != nil && !errors.Is(w.err, store.ErrSaved) {
		w.at = base
	}
	return w.at, store.Op("save", scope, w.err)
}

// write is one save.
type write struct {
	ctx   context.Context
	scope store.Scope
	base  store.Position
	c     byheart.Changes
	id    string
	sum   []byte
	at    store.Position
	err   error
	done  chan struct{} // closed once a grouped save's outcome is known
}

// saveIn makes the save w in t: it looks for its id, then advances or
// creates the conversation's row, appends the turns, records the id and
// audits the append.
func (s *Store) saveIn(ctx context.Context, t *tx, w *write) (at store.Position, err error) {
	scope, base, c := w.scope, w.base, w.c
	if w.id != "" {
		if prior, err := s.saved(ctx, t.conn, scope, w.id, w.sum); !errors.Is(err, store.ErrNotFound) {
			return prior, err
		}
	}
	now := store.Now()
	at = store.Position{Version: base.Version + 1, Epoch: base.Epoch, Turns: c.From + len(c.Turns), Bound: base.Bound}
	if len(c.Bounds) > 0 {
		at.Bound = c.Bounds[len(c.Bounds)-1]
	}
	if base == (store.Position{}) {
		at.Epoch = now.UnixMicro()
		_, err = t.conn.ExecContext(ctx, s.q.newConv, scope.Tenant, scope.User, scope.Conversation,
			at.Version, at.Epoch, at.Turns, at.Bound, []byte(c.Kept), now.UnixMicro(), now.UnixMicro())
	} else {
		err = s.advance(ctx, t, scope, base, at, c.Kept, now)
	}
	if err != nil {
		return base, err
	}
	if err := s.append(ctx, t, scope, c, now); err != nil {
		return base, err
	}
	if w.id != "" {
		if _, err := t.conn.ExecContext(ctx, s.q.addSave, scope.Tenant, scope.User, scope.Conversation, w.id,
			at.Version, at.Epoch, at.Turns, at.Bound, w.sum, now.UnixMicro()); err != nil {
			return base, err
		}
	}
	if len(c.Turns) > 0 {
		err = s.audit(ctx, t, store.Event{At: now, Scope: scope, Action: store.Appended, Turn: c.From, Count: len(c.Turns), Version: at.Version})
	}
	for i, turn := range c.Turns {
		if err == nil && !turn.Expires.IsZero() {
			err = s.audit(ctx, t, store.Event{At: now, Scope: scope, Action: store.Expiring, Turn: c.From + i, Count: 1, Version: at.Version})
		}
	}
	return at, err
}

// querier is a connection or the pool.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// saved returns the position the save of id to scope made: with no error
// when its turns' digest is sum, ErrSaved when it is another's, and
// ErrNotFound when no save of id committed.
func (s *Store) saved(ctx context.Context, q querier, scope store.Scope, id string, sum []byte) (store.Position, error) {
	var at store.Position
	var had []byte
	err := q.QueryRowContext(ctx, s.q.saved, scope.Tenant, scope.User, scope.Conversation, id).
		Scan(&at.Version, &at.Epoch, &at.Turns, &at.Bound, &had)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return at, store.ErrNotFound
	case err != nil:
		return at, err
	case !bytes.Equal(had, sum):
		return at, fmt.Errorf("%w: save %q", store.ErrSaved, id)
	}
	return at, nil
}

// digest is what tells two attempts of a save apart: its first turn and
// every field of its turns, each length-prefixed. The stretch starts and
// the kept selection are left out: they are derived from the turns, and a
// server with other Options derives them otherwise, while the turns are
// the same save. The expiries come last, marked, and only when a turn has
// one, so a save without them has the digest it had before they were
// hashed and an id recorded then still recognises its retry; no role is
// the marker, so the two layouts never meet.
func digest(c byheart.Changes) []byte {
	h := sha256.New()
	var n [8]byte
	field := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(strconv.Itoa(c.From))
	expiring := false
	for _, t := range c.Turns {
		when, _ := store.TimeText(t.Time) // CheckSave has refused a time it cannot write
		field(string(t.Role))
		field(t.Text)
		field(when)
		field(strconv.FormatBool(t.Redacted))
		field(t.Tool)
		field(t.CallID)
		field(t.Source.Name)
		field(strconv.FormatBool(t.Source.Authenticated))
		expiring = expiring || !t.Expires.IsZero()
	}
	if expiring {
		field(expiriesMarker)
		for _, t := range c.Turns {
			expires, _ := store.TimeText(t.Expires) // "" for never
			field(expires)
		}
	}
	return h.Sum(nil)
}

// expiriesMarker opens the expiries in a save's digest.
const expiriesMarker = "expires"

// advance moves a stored conversation from base to at, or says why it
// cannot: it is at another version, or it is gone.
func (s *Store) advance(ctx context.Context, t *tx, scope store.Scope, base, at store.Position, kept []byte, now time.Time) error {
	res, err := t.conn.ExecContext(ctx, s.q.saveConv, at.Version, at.Turns, at.Bound, kept, now.UnixMicro(),
		scope.Tenant, scope.User, scope.Conversation, base.Version, base.Epoch)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	cur, err := s.conversation(ctx, t, scope, false)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: it was deleted", store.ErrConflict)
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: stored at version %d, the copy at %d", store.ErrConflict, cur.Version, base.Version)
}

// append writes the turns of c, as many to a statement as the databases
// take, and marks its stretch starts.
func (s *Store) append(ctx context.Context, t *tx, scope store.Scope, c byheart.Changes, now time.Time) error {
	for lo := 0; lo < len(c.Turns); lo += rowsPerInsert {
		hi := min(lo+rowsPerInsert, len(c.Turns))
		args := make([]any, 0, (hi-lo)*turnArgs)
		for i, turn := range c.Turns[lo:hi] {
			seq := c.From + lo + i
			when, err := store.TimeText(turn.Time)
			if err != nil {
				return err
			}
			var expires any // NULL: never
			if !turn.Expires.IsZero() {
				if expires, err = store.TimeText(turn.Expires); err != nil {
					return err
				}
			}
			text, source := []byte(turn.Text), []byte(turn.Source.Name)
			if turn.Redacted {
				text, source = []byte{}, []byte{}
			}
			args = append(args, scope.Tenant, scope.User, scope.Conversation,
				seq, string(turn.Role), text, when, flag(turn.Redacted), turn.Tool, turn.CallID, source,
				flag(turn.Source.Authenticated && !turn.Redacted), flag(slices.Contains(c.Bounds, seq)), expires, now.UnixMicro())
		}
		if _, err := t.conn.ExecContext(ctx, s.q.addTurns(hi-lo), args...); err != nil {
			return err
		}
	}
	for _, b := range c.Bounds {
		if b >= c.From {
			break
		}
		if _, err := t.conn.ExecContext(ctx, s.q.open, scope.Tenant, scope.User, scope.Conversation, b); err != nil {
			return err
		}
	}
	return nil
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Redact implements store.Store.
func (s *Store) Redact(ctx context.Context, scope store.Scope, turn int) (at store.Position, err error) {
	if err := scope.Check(); err != nil {
		return at, store.Op("redact", scope, err)
	}
	t, err := s.begin(ctx, true)
	if err != nil {
		return at, store.Op("redact", scope, err)
	}
	changed := false
	defer func() {
		err = s.end(ctx, t, err)
		if err == nil && changed {
			err = s.erased(ctx)
		}
		err = store.Op("redact", scope, err)
	}()
	cur, err := s.conversation(ctx, t, scope, true)
	if err != nil {
		return at, err
	}
	if turn < 0 || turn >= cur.Turns {
		return at, fmt.Errorf("%w: turn %d of %d", byheart.ErrIndex, turn, cur.Turns)
	}
	var redacted int
	if err := t.conn.QueryRowContext(ctx, s.q.redacted, scope.Tenant, scope.User, scope.Conversation, turn).Scan(&redacted); err != nil {
		return at, err
	}
	if redacted != 0 {
		return cur.Position, nil
	}
	now := store.Now()
	at = cur.Position
	at.Version, at.Epoch = cur.Version+1, max(cur.Epoch+1, now.UnixMicro())
	if _, err := t.conn.ExecContext(ctx, s.q.redact, []byte{}, []byte{}, scope.Tenant, scope.User, scope.Conversation, turn); err != nil {
		return at, err
	}
	if _, err := t.conn.ExecContext(ctx, s.q.redactConv, at.Version, at.Epoch, now.UnixMicro(), scope.Tenant, scope.User, scope.Conversation); err != nil {
		return at, err
	}
	// A redaction drops the kept selection, as Memory.Redact does; what is
	// kept instead says so, so a copy loaded after it gives the next
	// call's reason as the redacting one does.
	if _, err := t.conn.ExecContext(ctx, s.q.redactKept, keptRedacted, scope.Tenant, scope.User, scope.Conversation); err != nil {
		return at, err
	}
	changed = true
	return at, s.audit(ctx, t, store.Event{At: now, Scope: scope, Action: store.Redacted, Turn: turn, Count: 1, Version: at.Version})
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, scope store.Scope) (n int, err error) {
	if err := scope.Check(); err != nil {
		return 0, store.Op("delete", scope, err)
	}
	t, err := s.begin(ctx, true)
	if err != nil {
		return 0, store.Op("delete", scope, err)
	}
	defer func() {
		if err = s.end(ctx, t, err); err == nil {
			err = s.erased(ctx)
		}
		err = store.Op("delete", scope, err)
	}()
	cur, err := s.conversation(ctx, t, scope, true)
	if err != nil {
		return 0, err
	}
	return cur.Turns, s.drop(ctx, t, scope, cur.Position, store.Now())
}

// drop deletes a conversation locked in t and records it.
func (s *Store) drop(ctx context.Context, t *tx, scope store.Scope, cur store.Position, now time.Time) error {
	if _, err := t.conn.ExecContext(ctx, s.q.deleteTurns, scope.Tenant, scope.User, scope.Conversation); err != nil {
		return err
	}
	if _, err := t.conn.ExecContext(ctx, s.q.dropConv, scope.Tenant, scope.User, scope.Conversation); err != nil {
		return err
	}
	if _, err := t.conn.ExecContext(ctx, s.q.dropSaves, scope.Tenant, scope.User, scope.Conversation); err != nil {
		return err
	}
	return s.audit(ctx, t, store.Event{At: now, Scope: scope, Action: store.Deleted, Count: cur.Turns, Version: cur.Version + 1})
}

// DeleteUser implements store.Store.
func (s *Store) DeleteUser(ctx context.Context, tenant, user string) (n int, err error) {
	scope := store.Scope{Tenant: tenant, User: user, Conversation: "*"}
	if err := store.CheckUser(tenant, user); err != nil {
		return 0, store.Op("delete user", scope, err)
	}
	t, err := s.begin(ctx, true)
	if err != nil {
		return 0, store.Op("delete user", scope, err)
	}
	defer func() {
		if err = s.end(ctx, t, err); err == nil && n > 0 {
			err = s.erased(ctx)
		}
		err = store.Op("delete user", scope, err)
	}()
	rows, err := t.conn.QueryContext(ctx, s.q.userConvs+s.d.Lock, tenant, user)
	if err != nil {
		return 0, err
	}
	var convs []store.Position
	var names []string
	for rows.Next() {
		var name string
		var p store.Position
		if err := rows.Scan(&name, &p.Version, &p.Turns); err != nil {
			rows.Close()
			return 0, err
		}
		names, convs = append(names, name), append(convs, p)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, err
	}
	now := store.Now()
	for i, name := range names {
		if err := s.drop(ctx, t, store.Scope{Tenant: tenant, User: user, Conversation: name}, convs[i], now); err != nil {
			return 0, err
		}
	}
	return len(names), nil
}

// Audit implements store.Store.
func (s *Store) Audit(ctx context.Context, tenant, user string) (events []store.Event, err error) {
	scope := store.Scope{Tenant: tenant, User: user, Conversation: "*"}
	if err := store.CheckUser(tenant, user); err != nil {
		return nil, store.Op("audit", scope, err)
	}
	t, err := s.begin(ctx, false)
	if err != nil {
		return nil, store.Op("audit", scope, err)
	}
	defer func() { err = store.Op("audit", scope, s.end(ctx, t, err)) }()
	rows, err := t.conn.QueryContext(ctx, s.q.auditOf, tenant, user)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		e := store.Event{Scope: store.Scope{Tenant: tenant, User: user}}
		var at int64
		var action string
		var expires sql.NullString
		if err := rows.Scan(&at, &e.Scope.Conversation, &action, &e.Turn, &e.Count, &e.Version, &expires); err != nil {
			return nil, err
		}
		e.At, e.Action = time.UnixMicro(at).UTC(), store.Action(action)
		if e.Expires, err = store.ParseTime(expires.String); err != nil {
			return nil, fmt.Errorf("%w: turn %d: expiry: %w", byheart.ErrFormat, e.Turn, err)
		}
		events = append(events, e)
	}
	return events, rows.Err()
}

// keptRedacted is the kept selection byheart.Memory.Since writes for a
// memory whose selection a redaction dropped: none, and why.
var keptRedacted = []byte(`{"dropped":"redacted"}`)
