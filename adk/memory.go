package byheartadk

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agentturn"
	"google.golang.org/adk/v2/memory"
	"google.golang.org/adk/v2/session"
	"google.golang.org/genai"
)

// MemoryService is an ADK memory.Service backed by byheart, in this
// process: one byheart.Memory per app and user holds the events of every
// session added to it, and a search returns the stretches of that
// conversation that byheart would compose for the query, chosen by BM25
// within the budget (Options.Budget, 20,000 characters by default). It is
// safe for concurrent use.
type MemoryService struct {
	opts byheart.Options

	mu    sync.Mutex
	users map[userKey]*userMemory
}

type userKey struct{ app, user string }

type userMemory struct {
	mu  sync.Mutex
	mem *byheart.Memory
	// added counts the turns appended from each session, so a session
	// added again appends only what it gained.
	added map[string]int
	// entries caches each stretch's entry by its first turn, with the
	// turn it ends before: a stretch only grows while it is the newest,
	// so an entry is rendered again only when its end moved.
	entries map[int]cachedEntry
}

type cachedEntry struct {
	end   int
	entry memory.Entry
	ok    bool
}

var _ memory.Service = (*MemoryService)(nil)

// NewMemoryService returns an empty MemoryService. Every search selects
// afresh, whatever opts.Stability says: a search has no prompt cache to
// keep warm.
func NewMemoryService(opts byheart.Options) *MemoryService {
	opts.Stability = -1
	return &MemoryService{opts: opts, users: map[userKey]*userMemory{}}
}

func (s *MemoryService) user(k userKey, create bool) *userMemory {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[k]
	if !ok && create {
		u = &userMemory{mem: byheart.New(s.opts), added: map[string]int{}, entries: map[int]cachedEntry{}}
		s.users[k] = u
	}
	return u
}

// AddSessionToMemory appends the session's events that were not added
// before, in their order: a session may be added many times as it grows.
// Events are read as the plugin reads them (see Plugin); an event byheart
// refuses is an error, and the turns before it stay added.
func (s *MemoryService) AddSessionToMemory(ctx context.Context, sess session.Session) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var all []piece
	for ev := range sess.Events().All() {
		if ev == nil || ev.LLMResponse.Partial {
			continue
		}
		ps, err := turns(ev.LLMResponse.Content, ev.Author, ev.Timestamp, nil)
		if err != nil {
			return err
		}
		all = append(all, ps...)
	}
	u := s.user(userKey{sess.AppName(), sess.UserID()}, true)
	u.mu.Lock()
	defer u.mu.Unlock()
	done := u.added[sess.ID()]
	for i := done; i < len(all); i++ {
		if _, err := agentturn.Append(u.mem, all[i].turn, 0); err != nil {
			return fmt.Errorf("byheartadk: session %s, turn %d: %w", sess.ID(), i, err)
		}
		u.added[sess.ID()] = i + 1
	}
	return nil
}

// SearchMemory returns the stretches of the app's and user's conversation
// that byheart selects for the query, one entry each, in the order they
// were said, each turn on lines of its own under its speaker, with relative
// dates resolved. An unknown user, or a query nothing matches, gets no
// entries.
func (s *MemoryService) SearchMemory(ctx context.Context, req *memory.SearchRequest) (*memory.SearchResponse, error) {
	res := &memory.SearchResponse{}
	u := s.user(userKey{req.AppName, req.UserID}, false)
	if u == nil {
		return res, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	composed, err := u.mem.Compose(ctx, req.Query)
	if err != nil {
		return nil, err
	}
	bounds := u.mem.Bounds()
	for _, first := range composed.Included {
		end := u.mem.Len()
		for _, b := range bounds {
			if b > first {
				end = b
				break
			}
		}
		c, cached := u.entries[first]
		if !cached || c.end != end {
			entry, ok, err := s.entry(u.mem, first, end)
			if err != nil {
				return nil, err
			}
			c = cachedEntry{end: end, entry: entry, ok: ok}
			u.entries[first] = c
		}
		if c.ok {
			e := c.entry // a Content of its own, so a caller's change stays its own
			e.Content = genai.NewContentFromText(e.Content.Parts[0].Text, genai.RoleUser)
			res.Memories = append(res.Memories, e)
		}
	}
	return res, nil
}

// entry renders turns [first, end) as one memory entry. Material from an
// unverified source is marked so, or left out under byheart.Quarantine.
func (s *MemoryService) entry(mem *byheart.Memory, first, end int) (memory.Entry, bool, error) {
	var b strings.Builder
	e := memory.Entry{ID: fmt.Sprintf("turn-%d", first)}
	for i := first; i < end; i++ {
		t, err := mem.Turn(i)
		if err != nil {
			return e, false, err
		}
		if i == first {
			e.Timestamp = t.Time
		}
		label := string(t.Role)
		switch t.Role {
		case byheart.ToolCall:
			label = "tool call " + t.Tool
		case byheart.ToolResult, byheart.Note:
			if !t.Source.Authenticated && s.opts.Unverified == byheart.Quarantine {
				continue
			}
			name := t.Source.Name
			if name == "" {
				name = "tool:" + t.Tool
			}
			label = string(t.Role) + " from " + name
			if !t.Source.Authenticated {
				label += " (UNVERIFIED)"
			}
		}
		if t.Redacted {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(label + ": " + byheart.Indent(byheart.Annotate(t.Text, t.Time)))
	}
	if b.Len() == 0 {
		return e, false, nil
	}
	e.Content = genai.NewContentFromText(b.String(), genai.RoleUser)
	return e, true, nil
}
