package sqlstore

import (
	"context"
	"slices"
	"sync"

	"github.com/byheart/byheart/store"
)

// group is the saves waiting for the writer of a OneWriter database.
type group struct {
	mu      sync.Mutex
	waiting []*write
}

// grouped makes the save w on a database of one writer, together with the
// saves that queued while another held the writer: whoever takes the
// writer next makes every waiting save in one transaction, each in a
// savepoint of its own so that one that fails (a conflict) leaves the
// others whole, and commits them at once, so that they share one flush to
// disk instead of taking one each. A save whose context ends while it
// waits leaves the queue and writes nothing.
func (s *Store) grouped(w *write) {
	w.done = make(chan struct{})
	s.group.mu.Lock()
	s.group.waiting = append(s.group.waiting, w)
	s.group.mu.Unlock()
	select {
	case s.writer <- struct{}{}:
		s.group.mu.Lock()
		batch := s.group.waiting
		s.group.waiting = nil
		s.group.mu.Unlock()
		if len(batch) > 0 {
			s.commitGroup(batch)
		}
		<-s.writer
		<-w.done
	case <-w.done:
	case <-w.ctx.Done():
		s.group.mu.Lock()
		i := slices.Index(s.group.waiting, w)
		if i >= 0 {
			s.group.waiting = slices.Delete(s.group.waiting, i, i+1)
		}
		s.group.mu.Unlock()
		if i >= 0 {
			w.err = w.ctx.Err()
			return
		}
		<-w.done
	}
}

// savepoint is each grouped save's own.
const savepoint = "byheart_save"

// commitGroup makes the saves of batch in one transaction and commits it;
// the writer is held. A lone save runs as any transaction does, on its own
// context; a group's transaction outlives any one save's context, and
// each save's statements run on its own.
func (s *Store) commitGroup(batch []*write) {
	defer func() {
		for _, w := range batch {
			close(w.done)
		}
	}()
	ctx := batch[0].ctx
	if len(batch) > 1 {
		ctx = context.WithoutCancel(ctx)
	}
	fail := func(err error) {
		for _, w := range batch {
			if w.err == nil {
				w.err = err
			}
		}
	}
	if s.closed.Load() {
		fail(store.ErrClosed)
		return
	}
	t := &tx{}
	if err := s.open(ctx, t, true); err != nil {
		fail(err)
		return
	}
	for _, w := range batch {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			continue
		}
		if len(batch) == 1 {
			w.at, w.err = s.saveIn(w.ctx, t, w)
			w.err = s.end(ctx, t, w.err)
			return
		}
		if _, err := t.conn.ExecContext(ctx, "SAVEPOINT "+savepoint); err != nil {
			fail(s.end(ctx, t, err))
			return
		}
		w.at, w.err = s.saveIn(w.ctx, t, w)
		if w.err != nil {
			w.err = s.classify(w.err)
			if _, err := t.conn.ExecContext(ctx, "ROLLBACK TO "+savepoint); err != nil {
				fail(s.end(ctx, t, err))
				return
			}
		}
		if _, err := t.conn.ExecContext(ctx, "RELEASE "+savepoint); err != nil {
			fail(s.end(ctx, t, err))
			return
		}
	}
	fail(s.end(ctx, t, nil))
}
