package byhearttrpc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/byheart/byheart"
	"trpc.group/trpc-go/trpc-agent-go/memory"
	memorytool "trpc.group/trpc-go/trpc-agent-go/memory/tool"
	"trpc.group/trpc-go/trpc-agent-go/session"
	"trpc.group/trpc-go/trpc-agent-go/tool"
)

// ErrVerbatim: UpdateMemory asked byheart to rewrite what was said, which
// it does not do. Delete the memory (its turns are redacted) and add the
// new text instead.
var ErrVerbatim = errors.New("byhearttrpc: memories are kept as said and never rewritten")

// MemoryService is a trpc-agent-go memory.Service backed by byheart, in
// this process: one byheart.Memory per app and user holds the events of
// every session handed to EnqueueAutoMemoryJob (the runner hands each
// session over after a run) and the memories AddMemory adds; a search
// returns the stretches of that conversation byheart would compose for the
// query, chosen by BM25 within the budget (Options.Budget, 20,000
// characters by default), one entry each, in the order they were said. It
// is safe for concurrent use.
type MemoryService struct {
	opts byheart.Options

	mu    sync.Mutex
	users map[memory.UserKey]*userMemory
}

type userMemory struct {
	mu  sync.Mutex
	mem *byheart.Memory
	// added counts the turns taken from each session, so a session handed
	// over again adds only what it gained.
	added map[string]int
}

var _ memory.Service = (*MemoryService)(nil)

// NewMemoryService returns an empty MemoryService. Every search selects
// afresh, whatever opts.Stability says: a search has no prompt cache to
// keep warm.
func NewMemoryService(opts byheart.Options) *MemoryService {
	opts.Stability = -1
	return &MemoryService{opts: opts, users: map[memory.UserKey]*userMemory{}}
}

func (s *MemoryService) user(k memory.UserKey, create bool) *userMemory {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[k]
	if !ok && create {
		u = &userMemory{mem: byheart.New(s.opts), added: map[string]int{}}
		s.users[k] = u
	}
	return u
}

// EnqueueAutoMemoryJob takes in, at once, the session's events that were
// not taken in before, in their order, read as the plugin reads them. An
// event byheart refuses is an error, and the turns before it stay added.
func (s *MemoryService) EnqueueAutoMemoryJob(ctx context.Context, sess *session.Session) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if sess == nil {
		return session.ErrNilSession
	}
	k := memory.UserKey{AppName: sess.AppName, UserID: sess.UserID}
	if err := k.CheckUserKey(); err != nil {
		return err
	}
	var all []byheart.Turn
	sess.EventMu.RLock()
	for i := range sess.Events {
		all = append(all, turns(&sess.Events[i], nil)...)
	}
	sess.EventMu.RUnlock()
	u := s.user(k, true)
	u.mu.Lock()
	defer u.mu.Unlock()
	for i := u.added[sess.ID]; i < len(all); i++ {
		if err := appendTurns(u.mem, all[i:i+1]); err != nil {
			return fmt.Errorf("byhearttrpc: session %s, turn %d: %w", sess.ID, i, err)
		}
		u.added[sess.ID] = i + 1
	}
	return nil
}

// AddMemory adds memoryText as a note from the source "memory" (topics
// are left out), unverified: it is what an agent chose to remember, not
// what the user said.
func (s *MemoryService) AddMemory(ctx context.Context, userKey memory.UserKey, memoryText string, _ []string, _ ...memory.AddOption) error {
	if err := userKey.CheckUserKey(); err != nil {
		return err
	}
	u := s.user(userKey, true)
	u.mu.Lock()
	defer u.mu.Unlock()
	_, err := u.mem.AppendTurn(byheart.Turn{Role: byheart.Note, Text: memoryText, Time: time.Now(), Source: byheart.Source{Name: "memory"}})
	return err
}

// UpdateMemory returns ErrVerbatim.
func (s *MemoryService) UpdateMemory(context.Context, memory.Key, string, []string, ...memory.UpdateOption) error {
	return ErrVerbatim
}

// DeleteMemory redacts the turns of the entry memoryKey names (an ID
// SearchMemories or ReadMemories returned): their words are erased, and
// the rest of the conversation stays.
func (s *MemoryService) DeleteMemory(_ context.Context, memoryKey memory.Key) error {
	if err := memoryKey.CheckMemoryKey(); err != nil {
		return err
	}
	first, err := strconv.Atoi(strings.TrimPrefix(memoryKey.MemoryID, "turn-"))
	u := s.user(memory.UserKey{AppName: memoryKey.AppName, UserID: memoryKey.UserID}, false)
	if err != nil || u == nil || !strings.HasPrefix(memoryKey.MemoryID, "turn-") {
		return fmt.Errorf("byhearttrpc: no memory %q", memoryKey.MemoryID)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if first < 0 || first >= u.mem.Len() {
		return fmt.Errorf("byhearttrpc: no memory %q", memoryKey.MemoryID)
	}
	for i, end := first, stretchEnd(u.mem, first); i < end; i++ {
		if err := u.mem.Redact(i); err != nil {
			return err
		}
	}
	return nil
}

// ClearMemories forgets everything the user's memory holds.
func (s *MemoryService) ClearMemories(_ context.Context, userKey memory.UserKey) error {
	if err := userKey.CheckUserKey(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.users, userKey)
	return nil
}

// ReadMemories returns the user's newest stretches, newest first, at most
// limit of them (all when limit is not positive).
func (s *MemoryService) ReadMemories(_ context.Context, userKey memory.UserKey, limit int) ([]*memory.Entry, error) {
	if err := userKey.CheckUserKey(); err != nil {
		return nil, err
	}
	u := s.user(userKey, false)
	if u == nil {
		return []*memory.Entry{}, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	bounds := u.mem.Bounds()
	out := []*memory.Entry{}
	for i := len(bounds) - 1; i >= 0 && (limit <= 0 || len(out) < limit); i-- {
		e, ok, err := s.entry(userKey, u.mem, bounds[i])
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// SearchMemories returns the stretches of the user's conversation that
// byheart selects for the query, one entry each, in the order they were
// said, each turn on lines of its own under its speaker, with relative
// dates resolved. The budget bounds what it returns; search options are
// not applied. An unknown user, or a query nothing matches, gets none.
func (s *MemoryService) SearchMemories(ctx context.Context, userKey memory.UserKey, query string, _ ...memory.SearchOption) ([]*memory.Entry, error) {
	if err := userKey.CheckUserKey(); err != nil {
		return nil, err
	}
	out := []*memory.Entry{}
	u := s.user(userKey, false)
	if u == nil || strings.TrimSpace(query) == "" {
		return out, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	composed, err := u.mem.Compose(ctx, query)
	if err != nil {
		return nil, err
	}
	for _, first := range composed.Included {
		e, ok, err := s.entry(userKey, u.mem, first)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// Tools returns trpc-agent-go's memory_search and memory_load tools, which
// read this service through the invocation.
func (s *MemoryService) Tools() []tool.Tool {
	return []tool.Tool{memorytool.NewSearchTool(), memorytool.NewLoadTool()}
}

// Close releases nothing: the service holds no workers.
func (s *MemoryService) Close() error { return nil }

// stretchEnd is the turn the stretch starting at first ends before.
func stretchEnd(mem *byheart.Memory, first int) int {
	for _, b := range mem.Bounds() {
		if b > first {
			return b
		}
	}
	return mem.Len()
}

// entry renders the stretch starting at turn first as one memory entry.
// Material from an unverified source is marked so, or left out under
// byheart.Quarantine; redacted turns are left out. ok is false when
// nothing is left.
func (s *MemoryService) entry(k memory.UserKey, mem *byheart.Memory, first int) (e *memory.Entry, ok bool, err error) {
	var b strings.Builder
	e = &memory.Entry{ID: fmt.Sprintf("turn-%d", first), AppName: k.AppName, UserID: k.UserID}
	for i, end := first, stretchEnd(mem, first); i < end; i++ {
		t, err := mem.Turn(i)
		if err != nil {
			return nil, false, err
		}
		if i == first {
			e.CreatedAt = t.Time
		}
		e.UpdatedAt = t.Time
		if t.Redacted || (t.Role == byheart.ToolResult || t.Role == byheart.Note) && !t.Source.Authenticated && s.opts.Unverified == byheart.Quarantine {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(label(t) + ": " + byheart.Indent(byheart.Annotate(t.Text, t.Time)))
	}
	if b.Len() == 0 {
		return nil, false, nil
	}
	when := e.CreatedAt
	e.Memory = &memory.Memory{Memory: b.String(), Kind: memory.KindEpisode, EventTime: &when, LastUpdated: &e.UpdatedAt}
	return e, true, nil
}

// label names who said a turn: its role, a tool call's tool, a result's or
// a note's source, marked UNVERIFIED when not authenticated.
func label(t byheart.Turn) string {
	switch t.Role {
	case byheart.ToolCall:
		return "tool call " + t.Tool
	case byheart.ToolResult, byheart.Note:
		name := t.Source.Name
		if name == "" {
			name = "tool:" + t.Tool
		}
		l := string(t.Role) + " from " + name
		if !t.Source.Authenticated {
			l += " (UNVERIFIED)"
		}
		return l
	}
	return string(t.Role)
}
