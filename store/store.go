// Package store keeps byheart conversations in a database, scoped to a
// tenant and a user: the Store interface that the SQLite module
// (github.com/byheart/byheart/store/sqlite, the embedded default) and the
// PostgreSQL module (github.com/byheart/byheart/store/postgres, for many
// servers sharing conversations) implement, in the spirit of database/sql,
// and what applications use on top of it: Conversation, a Memory bound to
// its place in a store, and Cache, a server's warm copies of recent
// conversations.
//
// A stateless request loads, appends, composes and saves:
//
//	conv, err := store.Open(ctx, st, store.Scope{Tenant: "acme", User: "u42", Conversation: "c7"}, byheart.Options{})
//	res, err := conv.Memory.Compose(ctx, question) // the question goes last in res.Messages
//	// ... call the model with res.Messages, then append both turns ...
//	conv.Memory.Append(byheart.User, question)
//	conv.Memory.Append(byheart.Assistant, answer)
//	err = conv.SaveAs(ctx, requestID) // store.ErrConflict: another writer saved first; open again and redo
//
// A save carries an id (Save's own, or the request's with SaveAs), so that
// doing it again after an error that left its outcome unknown, or redoing
// the whole request on another copy, lands its turns once.
//
// Save writes only what the memory gained: the new turns, the new stretch
// starts and the kept selection, never the history again. Every operation
// names its whole scope, which every query and index of the stores carries,
// so no call under one scope reads, counts or changes another's rows. A
// redaction or a deletion erases the text from the database itself, not
// only from what it returns (each module's README says exactly how), and
// every append, redaction and deletion is written to an audit log that
// never holds a turn's text.
//
// This package, like the core, imports only the standard library.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// Limits on what a store takes.
const (
	// MaxID is the most bytes of one scope field.
	MaxID = 256
	// MaxTurn is the most bytes of one turn: its text, tool, call id and
	// source name together.
	MaxTurn = 1 << 20
	// MaxKept is the most bytes of a kept selection (see byheart.Changes).
	MaxKept = 1 << 20
)

// Errors returned by stores. Each is a sentinel to test with errors.Is; the
// returned error may wrap it with detail. A context's error is returned as
// it is (wrapped), and a store that fails any of these checks has changed
// nothing.
var (
	// ErrScope: a scope field is not an ID (see ID). A scope is never
	// defaulted.
	ErrScope = errors.New("store: a scope needs a tenant, a user and a conversation, each 1 to 256 bytes of printable UTF-8")
	// ErrNotFound: no conversation of that scope is stored.
	ErrNotFound = errors.New("store: no such conversation in this scope")
	// ErrConflict: the conversation changed since the copy being saved was
	// loaded; nothing was written. Load it again, redo the change, save.
	ErrConflict = errors.New("store: the conversation changed since it was loaded")
	// ErrTooLarge: a turn over MaxTurn or a kept selection over MaxKept.
	ErrTooLarge = errors.New("store: turn or selection too large")
	// ErrInvalid: a change that no Memory makes: a turn byheart would
	// refuse, stretch starts out of order, changes from the wrong turn.
	ErrInvalid = errors.New("store: invalid change")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store: closed")
	// ErrUnavailable: the database could not be reached, or the
	// connection was lost mid-call, so what the call was doing may or may
	// not have happened. The store reconnects by itself on the next call;
	// a save is safe to do again with the same id (see Store.Save).
	ErrUnavailable = errors.New("store: the database is unavailable; the outcome is unknown")
	// ErrSaved: a save with that id, but other turns, committed before
	// (an earlier attempt of the same request, made by another copy);
	// nothing was written.
	ErrSaved = errors.New("store: an earlier attempt of this save committed other turns")
)

// Scope says whose conversation it is. Every field is required.
type Scope struct {
	Tenant       string `json:"tenant"`
	User         string `json:"user"`
	Conversation string `json:"conversation"`
}

// Check returns an error wrapping ErrScope unless every field is an ID.
func (s Scope) Check() error {
	return checkIDs("tenant", s.Tenant, "user", s.User, "conversation", s.Conversation)
}

// CheckUser checks a tenant and a user as Check checks a scope's.
func CheckUser(tenant, user string) error {
	return checkIDs("tenant", tenant, "user", user)
}

// ID reports whether id can be a scope field: 1 to MaxID bytes of UTF-8
// whose every character is printable as Go's unicode.IsPrint defines it (a
// letter, mark, number, punctuation, symbol or the ASCII space), so that
// no control, format (bidi overrides and isolates, zero-width characters,
// the BOM), separator other than the space (line and paragraph separators,
// no-break and other spaces), private-use or unassigned character can make
// one tenant's or user's id display as another's in rows and exports.
func ID(id string) bool {
	return id != "" && len(id) <= MaxID && utf8.ValidString(id) && strings.IndexFunc(id, notPrint) < 0
}

func notPrint(r rune) bool { return !unicode.IsPrint(r) }

// checkIDs checks name, value pairs with ID.
func checkIDs(pairs ...string) error {
	for i := 0; i < len(pairs); i += 2 {
		if name, id := pairs[i], pairs[i+1]; !ID(id) {
			return fmt.Errorf("%w: the %s %q is not 1 to %d bytes of printable UTF-8", ErrScope, name, id, MaxID)
		}
	}
	return nil
}

// Position is how far a copy of a conversation goes: the stored version it
// reflects, the number of its turns and its last stretch start. The zero
// Position is a copy that holds nothing, of a conversation not yet stored.
type Position struct {
	// Version counts the saves, redactions and deletions of the
	// conversation; a save names the version it builds on.
	Version int64 `json:"version"`
	// Epoch changes whenever history is rewritten (a redaction, or a
	// deletion and a new start): a copy of another epoch loads whole.
	Epoch int64 `json:"epoch"`
	// Turns is the number of turns.
	Turns int `json:"turns"`
	// Bound is the last stretch start.
	Bound int `json:"bound"`
}

// Record is what Load returns: the store's position, and the changes that
// bring a copy at the position asked for up to it.
type Record struct {
	At Position
	// Changes start at turn 0 when the copy must load whole (a zero
	// position, or another epoch), and are empty, with no kept selection
	// to apply, when the copy is at At's version already.
	Changes byheart.Changes
}

// Whole reports whether the record holds the conversation from its start.
func (r Record) Whole() bool { return r.Changes.From == 0 }

// Action is what an audit event records.
type Action string

// The actions the audit log records.
const (
	// Appended: Count turns appended from Turn on.
	Appended Action = "append"
	// Redacted: turn Turn redacted.
	Redacted Action = "redact"
	// Deleted: the conversation deleted, Count turns with it.
	Deleted Action = "delete"
	// Expiring: turn Turn, appended by the save at At, expires at Expires
	// (see byheart.Turn.Expires), which reads as zero once the turn's row
	// is deleted.
	Expiring Action = "expires"
)

// Event is one entry of the audit log. It names what happened, when and to
// whose conversation, and never holds a turn's text.
type Event struct {
	At      time.Time `json:"at"`
	Scope   Scope     `json:"scope"`
	Action  Action    `json:"action"`
	Turn    int       `json:"turn"`
	Count   int       `json:"count"`
	Version int64     `json:"version"`
	// Expires is when an Expiring event's turn expires.
	Expires time.Time `json:"expires,omitzero"`
}

// Store keeps conversations. Every method takes the whole scope it acts
// on, refuses an invalid one with ErrScope before it reads anything, and
// either does all it says or, on error, nothing. A Store is safe for
// concurrent use, by goroutines and by other processes that open the same
// database.
type Store interface {
	// Load returns the conversation at scope from the copy at since on
	// (see Record), or ErrNotFound.
	Load(ctx context.Context, scope Scope, since Position) (Record, error)
	// Save appends to the conversation what a copy at base gained (see
	// byheart.Memory.Since; c.From must be base.Turns) and returns the new
	// position. It creates the conversation when base is the zero
	// Position. When the stored conversation is not at base's version it
	// fails with ErrConflict, writing nothing: two writers never overwrite
	// each other.
	//
	// A save with an id (an ID, e.g. the request's id; "" for none) lands
	// once however often it is redone, on any copy and any server: when a
	// save of that id to scope has committed before, Save writes nothing
	// and returns the position that save made, with no error if it
	// appended the same turns as c, or with ErrSaved if it appended
	// others. The store keeps a save's id as long as the conversation.
	Save(ctx context.Context, scope Scope, base Position, c byheart.Changes, id string) (Position, error)
	// Redact replaces a turn's text by its placeholder and erases it,
	// with its source, from the database; it drops the kept selection,
	// which may quote it. Redacting a redacted turn does nothing. A turn
	// out of range is byheart.ErrIndex.
	Redact(ctx context.Context, scope Scope, turn int) (Position, error)
	// Delete erases the conversation and returns how many turns it held.
	Delete(ctx context.Context, scope Scope) (int, error)
	// DeleteUser erases every conversation of a user and returns how many
	// there were.
	DeleteUser(ctx context.Context, tenant, user string) (int, error)
	// Audit returns the audit log of a user's conversations, oldest first,
	// deleted ones included.
	Audit(ctx context.Context, tenant, user string) ([]Event, error)
	// Close releases the store; every later call fails with ErrClosed.
	Close() error
}

// CheckSave checks a save's arguments as every Store does before it reads
// anything: the scope, the base, the turns (their roles, sizes and text)
// and the stretch starts, which must ascend after base.Bound and fall on
// turns that exist once c is saved.
func CheckSave(scope Scope, base Position, c byheart.Changes) error {
	if err := scope.Check(); err != nil {
		return err
	}
	if c.From != base.Turns || base.Turns < 0 || base.Version < 0 {
		return fmt.Errorf("%w: changes from turn %d to a copy at turn %d", ErrInvalid, c.From, base.Turns)
	}
	for i, t := range c.Turns {
		if err := checkTurn(t); err != nil {
			return fmt.Errorf("turn %d: %w", c.From+i, err)
		}
	}
	prev := base.Bound
	for _, b := range c.Bounds {
		if b <= prev || b >= c.From+len(c.Turns) {
			return fmt.Errorf("%w: stretch start %d after %d in %d turns", ErrInvalid, b, prev, c.From+len(c.Turns))
		}
		prev = b
	}
	if len(c.Kept) > MaxKept {
		return fmt.Errorf("%w: a kept selection of %d bytes", ErrTooLarge, len(c.Kept))
	}
	if len(c.Kept) > 0 && !json.Valid(c.Kept) {
		return fmt.Errorf("%w: the kept selection is not JSON", ErrInvalid)
	}
	return nil
}

// checkTurn refuses a turn no Memory holds, or one over MaxTurn.
func checkTurn(t byheart.Turn) error {
	if n := len(t.Text) + len(t.Tool) + len(t.CallID) + len(t.Source.Name); n > MaxTurn {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, n, MaxTurn)
	}
	switch t.Role {
	case byheart.User, byheart.Assistant, byheart.ToolCall, byheart.ToolResult, byheart.Note:
	default:
		return fmt.Errorf("%w: %w", ErrInvalid, byheart.ErrRole)
	}
	if t.Text == "" && !t.Redacted {
		return fmt.Errorf("%w: %w", ErrInvalid, byheart.ErrEmpty)
	}
	if t.Standing < byheart.StandingAuto || t.Standing > byheart.StandingNo ||
		t.Standing == byheart.StandingYes && t.Role != byheart.User {
		return fmt.Errorf("%w: %w: standing mark %d on a %s turn", ErrInvalid, byheart.ErrRole, t.Standing, t.Role)
	}
	for _, s := range []string{t.Text, t.Tool, t.CallID, t.Source.Name} {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%w: %w", ErrInvalid, byheart.ErrUTF8)
		}
	}
	if !t.Time.IsZero() {
		if _, err := t.Time.MarshalText(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, byheart.ErrTime)
		}
	}
	return nil
}

// Op wraps an error a store met while doing op, so that a caller's
// errors.Is finds the sentinels and context errors it wraps.
func Op(op string, scope Scope, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store: %s %s/%s/%s: %w", op, scope.Tenant, scope.User, scope.Conversation, err)
}

// Kept returns the kept selection a store read back, nil for an empty one,
// so that a conversation with none restores with none.
func Kept(data []byte) json.RawMessage {
	if len(data) == 0 {
		return nil
	}
	return json.RawMessage(data)
}

// timeSeconds is how a turn time whose zone offset has seconds (the local
// mean times of history: Amsterdam was 00:19:32 ahead of UTC until 1937)
// is written, as ToJSON writes it; RFC 3339 would round the offset to the
// minute and shift the time.
const timeSeconds = "2006-01-02T15:04:05.999999999Z07:00:00"

// TimeText is a turn's time as stores keep it, byte for byte as ToJSON
// writes it: RFC 3339 with its zone offset, the offset's seconds kept when
// it has any, or "" for none. A time ToJSON cannot write (a year outside
// 0-9999, an offset of a day or more) is an error.
func TimeText(t time.Time) (string, error) {
	if t.IsZero() {
		return "", nil
	}
	b, err := t.MarshalText()
	if err != nil {
		return "", err
	}
	if _, off := t.Zone(); off%60 != 0 {
		return t.Format(timeSeconds), nil
	}
	return string(b), nil
}

// ParseTime reads a time TimeText wrote.
func ParseTime(s string) (time.Time, error) {
	var t time.Time
	if s == "" {
		return t, nil
	}
	if err := t.UnmarshalText([]byte(s)); err != nil {
		return time.Parse(timeSeconds, s)
	}
	return t, nil
}

// Now is the time stores write into the audit log, in microseconds, which
// every database keeps exactly.
func Now() time.Time {
	return time.Now().UTC().Truncate(time.Microsecond)
}
