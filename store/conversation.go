package store

import (
	"bytes"
	"container/list"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"

	"github.com/byheart/byheart"
)

// Conversation is a Memory bound to its place in a Store: load it with
// Open, append to and compose with its Memory as usual, and Save what it
// gained. A Conversation is one request's copy: use it from one goroutine
// at a time.
type Conversation struct {
	// Memory is the conversation's memory. Open and Refresh may replace
	// it, so read the field rather than keeping the pointer.
	Memory *byheart.Memory
	st     Store
	scope  Scope
	opts   byheart.Options
	at     Position
	kept   []byte // the kept selection as stored at `at`
	erased int    // how many of the Memory's Redactions the store has
	tried  tried  // the last save whose outcome is not known
}

// tried is a save that failed without saying whether it committed: its id
// and the position it built on.
type tried struct {
	id   string
	auto bool // the id is the Conversation's own, which no other copy has
	base Position
}

// Open loads the conversation at scope whole, configured by opts. A
// conversation not stored yet opens empty and is created by its first Save.
func Open(ctx context.Context, st Store, scope Scope, opts byheart.Options) (*Conversation, error) {
	c := &Conversation{st: st, scope: scope, opts: opts}
	rec, err := st.Load(ctx, scope, Position{})
	if errors.Is(err, ErrNotFound) {
		c.Memory = byheart.New(opts)
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if c.Memory, err = byheart.Restore(rec.Changes, opts); err != nil {
		return nil, Op("open", scope, err)
	}
	c.at, c.kept = rec.At, rec.Changes.Kept
	return c, nil
}

// Scope returns the conversation's scope.
func (c *Conversation) Scope() Scope { return c.scope }

// At returns the stored position the copy was loaded or last saved at.
func (c *Conversation) At() Position { return c.at }

// Unsaved reports whether the Memory holds turns, or redactions of stored
// turns, not yet saved.
func (c *Conversation) Unsaved() bool {
	return c.Memory.Len() != c.at.Turns || c.Memory.Redactions(c.erased) != nil
}

// Save writes what the Memory gained since it was loaded or last saved:
// first the redactions made on it (Memory.Redact) of turns the store
// holds, each erased there as Redact erases it, then its new turns and
// stretch starts, and its kept selection, so that the next request extends
// the same cached prefix. When another writer saved first it fails with
// ErrConflict and writes no turn (the redactions are written all the
// same); Open the conversation again and redo the request's appends.
//
// Calling Save again after any error is safe: a save carries an id of the
// copy's own, kept until it succeeds, so that a retry after an error that
// left its outcome unknown (ErrUnavailable: a connection lost at commit)
// lands the turns once. To make redoing the whole request safe too, on a
// fresh copy or another server, use SaveAs with the request's id.
func (c *Conversation) Save(ctx context.Context) error { return c.SaveAs(ctx, "") }

// SaveAs saves as Save does, under id (an ID, e.g. the id a client sends
// with each request and again when it retries it): however often the
// request is redone, on this copy or a fresh one, on this server or
// another, its turns land once. When an earlier attempt of it committed
// the same turns, SaveAs writes nothing and returns nil; when that attempt
// committed other turns (another copy's, with another answer from the
// model), it writes nothing, replaces the Memory by the stored
// conversation, which holds that attempt's turns, and returns an error
// wrapping ErrSaved. An empty id is Save's.
func (c *Conversation) SaveAs(ctx context.Context, id string) error {
	if err := c.erase(ctx); err != nil {
		return err
	}
	changes, err := c.Memory.Since(c.at.Turns, c.at.Bound)
	if err != nil {
		return Op("save", c.scope, err)
	}
	if c.at.Version != 0 && len(changes.Turns) == 0 && len(changes.Bounds) == 0 && bytes.Equal(changes.Kept, c.kept) {
		return nil // nothing to write
	}
	try := tried{id: id, base: c.at}
	if id == "" {
		try = c.tried
		if !try.auto || try.base != c.at {
			try = tried{id: newID(), auto: true, base: c.at}
		}
	}
	at, err := c.st.Save(ctx, c.scope, c.at, changes, try.id)
	switch {
	case err == nil:
		c.tried, c.at, c.kept = tried{}, at, changes.Kept
		return nil
	case !errors.Is(err, ErrSaved):
		c.tried = try
		return err
	case try.auto && (at.Epoch == c.at.Epoch || c.at.Version == 0) && at.Version == c.at.Version+1 &&
		at.Turns > c.at.Turns && at.Turns <= c.Memory.Len():
		// This copy's earlier attempt committed, and the Memory gained or
		// redacted turns since: take that attempt as saved, erase again
		// what was redacted (of the turns it stored, too) and save the rest.
		c.tried, c.at, c.kept, c.erased = tried{}, at, nil, 0
		return c.SaveAs(ctx, "")
	}
	c.tried = tried{}
	if rerr := c.reload(ctx); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// newID returns a save id no other copy has.
func newID() string {
	return rand.Text()
}

// reload replaces the Memory by the stored conversation.
func (c *Conversation) reload(ctx context.Context) error {
	rec, err := c.st.Load(ctx, c.scope, Position{})
	if err != nil {
		return err
	}
	m, err := byheart.Restore(rec.Changes, c.opts)
	if err != nil {
		return Op("save", c.scope, err)
	}
	c.Memory, c.at, c.kept, c.erased = m, rec.At, rec.Changes.Kept, 0
	return nil
}

// Refresh brings the copy up to date with what other writers saved,
// reading only the turns they added, or the whole conversation when its
// history was rewritten by a redaction. A copy with unsaved turns cannot
// take others' turns after its own: that is ErrConflict.
func (c *Conversation) Refresh(ctx context.Context) error {
	if err := c.erase(ctx); err != nil {
		return err
	}
	rec, err := c.st.Load(ctx, c.scope, c.at)
	if err != nil {
		return err
	}
	if rec.At.Version == c.at.Version && rec.At.Epoch == c.at.Epoch {
		return nil
	}
	if c.Unsaved() {
		return Op("refresh", c.scope, fmt.Errorf("%w: the copy holds unsaved turns", ErrConflict))
	}
	if rec.Whole() {
		m, err := byheart.Restore(rec.Changes, c.opts)
		if err != nil {
			return Op("refresh", c.scope, err)
		}
		c.Memory, c.erased = m, 0
	} else if err := c.Memory.Apply(rec.Changes); err != nil {
		return Op("refresh", c.scope, err)
	}
	c.at, c.kept = rec.At, rec.Changes.Kept
	return nil
}

// Redact redacts turn i in the Memory and in the store, erasing its text
// there (see Store.Redact). A turn not saved yet is redacted in the Memory
// alone, and saved as its placeholder. When the store cannot be reached
// the turn stays redacted in the Memory, and the next Save, Refresh or
// Redact erases it in the store before anything else.
func (c *Conversation) Redact(ctx context.Context, i int) error {
	err := c.Memory.Redact(i)
	if errors.Is(err, byheart.ErrIndex) {
		return Op("redact", c.scope, err)
	}
	if werr := c.erase(ctx); werr != nil {
		return werr
	}
	return err
}

// erase writes to the store the redactions made on the Memory since the
// last it wrote, of the turns the store holds; the others are saved as
// their placeholders. A redaction the store has already is not written
// twice: Store.Redact does nothing to a redacted turn.
func (c *Conversation) erase(ctx context.Context) error {
	for _, i := range c.Memory.Redactions(c.erased) {
		if i < c.at.Turns {
			at, err := c.st.Redact(ctx, c.scope, i)
			if err != nil {
				return err
			}
			if at.Version == c.at.Version+1 {
				c.at, c.kept = at, nil // nobody else wrote in between: the copy is current
			}
		}
		c.erased++
	}
	return nil
}

// Cache keeps a server's recent conversations in memory, so that a request
// for one reads only what other servers added since, usually nothing but
// its row, instead of loading and indexing its whole history.
type Cache struct {
	st   Store
	opts byheart.Options
	size int

	mu    sync.Mutex
	lru   list.List // of *Conversation, most recent first
	byKey map[Scope]*list.Element
}

// NewCache returns a cache of at most size conversations of st, opened
// with opts.
func NewCache(st Store, opts byheart.Options, size int) *Cache {
	return &Cache{st: st, opts: opts, size: max(size, 1), byKey: map[Scope]*list.Element{}}
}

// Open returns the conversation at scope, up to date with the store: the
// cached copy, refreshed, or one loaded whole. The caller has it to itself
// until it hands it back with Done; a second request for the same scope
// meanwhile gets a copy of its own, and the two save as any two writers do.
func (c *Cache) Open(ctx context.Context, scope Scope) (*Conversation, error) {
	if err := scope.Check(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	e := c.byKey[scope]
	if e != nil {
		c.lru.Remove(e)
		delete(c.byKey, scope)
	}
	c.mu.Unlock()
	if e != nil {
		conv := e.Value.(*Conversation)
		err := conv.Refresh(ctx)
		if err == nil {
			return conv, nil
		}
		if !errors.Is(err, ErrNotFound) && !errors.Is(err, byheart.ErrFormat) && !errors.Is(err, byheart.ErrIndex) {
			return nil, err
		}
	}
	return Open(ctx, c.st, scope, c.opts)
}

// Done hands a conversation back after its request. A copy with unsaved
// turns is dropped, and so is one older than the copy already cached.
func (c *Cache) Done(conv *Conversation) {
	if conv.Unsaved() || conv.at.Version == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byKey[conv.scope]; e != nil {
		if e.Value.(*Conversation).at.Version >= conv.at.Version {
			return
		}
		c.lru.Remove(e)
	}
	c.byKey[conv.scope] = c.lru.PushFront(conv)
	for c.lru.Len() > c.size {
		old := c.lru.Back()
		delete(c.byKey, old.Value.(*Conversation).scope)
		c.lru.Remove(old)
	}
}
