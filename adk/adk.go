// Package byheartadk gives agents built with Google's Agent Development Kit
// for Go (google.golang.org/adk/v2) byheart's memory, in one line of their
// runner's configuration:
//
//	runner.New(runner.Config{AppName: "app", Agent: agent, SessionService: sessions,
//		PluginConfig: runner.PluginConfig{Plugins: []*plugin.Plugin{byheartadk.Plugin(byheartadk.Config{})}}})
//
// The plugin appends every event of a session to a byheart.Memory as it
// happens (the user's message, the model's text and function calls, the
// functions' responses with their source) and, before every model call of
// every agent in the tree, replaces the request's contents with what
// byheart composes for the step (Memory.Continue): the conversation within
// the budget, verbatim, with a prefix that repeats byte for byte between
// rebuilds, so Gemini's implicit cache keeps hitting. The request's system
// instruction, tools and configuration are left as the agent made them.
//
// MemoryService is an ADK memory.Service backed by byheart: it keeps the
// sessions added to it and answers a search with the conversation's best
// stretches by BM25.
package byheartadk

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agentturn"
	"github.com/byheart/byheart/store"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/session"
	"google.golang.org/genai"
)

// Config configures the plugin. The zero value keeps each session's memory
// in this process, with byheart's default options.
type Config struct {
	// Options configure every session's byheart.Memory.
	Options byheart.Options
	// Store, when set, keeps each session's memory in a byheart store
	// (store/sqlite, store/postgres), scoped by the session's app name as
	// tenant, its user and its id, so a server keeps it across restarts and
	// replicas. Nil keeps it in this process only. An id the store's scope
	// refuses (store.ID), or one that starts with "byheart-sha256:", is
	// stored as "byheart-sha256:" and its hex SHA-256, so every id ADK
	// accepts has a scope of its own; a turn over store.MaxTurn is cut to
	// fit, ending with " […]".
	Store store.Store
	// Cached is how many sessions' memories a Store-backed plugin keeps
	// warm in this process; zero means 256.
	Cached int
	// Sources says where a function's response came from and whether that
	// source is authenticated. Nil names no source: a response is framed
	// as its tool's, marked unverified (and withheld under
	// byheart.Quarantine).
	Sources Sources
	// Composed, when set, is told of every composition the plugin sends,
	// with where its stable prefix ends in the request's contents.
	Composed func(ctx agent.Context, res byheart.Result, bp Breakpoint)
}

// Plugin returns an ADK plugin that keeps each session's conversation in
// byheart and composes every model request from it. See New for one whose
// memories can be read.
func Plugin(cfg Config) *plugin.Plugin { return New(cfg).Plugin() }

// Memories are the byheart memories of the sessions a plugin sees, one per
// session (app name, user, session id).
type Memories struct {
	cfg   Config
	cache *store.Cache

	mu   sync.Mutex
	keys map[key]*entry
}

type key struct{ app, user, session string }

// entry is one session's memory, or, over a store, its thought signatures
// only (the store's cache holds the memory).
type entry struct {
	mu  sync.Mutex
	mem *byheart.Memory
	// signatures are the thought signatures of the session's calls, by
	// call id: Gemini wants them back with the calls of the turn in
	// progress, and byheart does not keep them. They are kept after that
	// turn too, so that the bytes of a call, once sent, never change.
	signatures map[string][]byte
}

// New returns the memories a plugin keeps.
func New(cfg Config) *Memories {
	m := &Memories{cfg: cfg, keys: map[key]*entry{}}
	if cfg.Store != nil {
		size := cfg.Cached
		if size <= 0 {
			size = 256
		}
		m.cache = store.NewCache(cfg.Store, cfg.Options, size)
	}
	return m
}

// Plugin returns the ADK plugin that keeps m.
func (m *Memories) Plugin() *plugin.Plugin {
	p, _ := plugin.New(plugin.Config{
		Name:                  "byheart",
		OnUserMessageCallback: m.onUserMessage,
		OnEventCallback:       m.onEvent,
		BeforeModelCallback:   m.beforeModel,
	})
	return p // plugin.New fails on nothing
}

// Do calls f with the memory of a session, up to date with the store, and
// saves what f appended. It is how an application reads a session's memory
// (to inspect it, redact a turn) while no run uses it.
func (m *Memories) Do(ctx context.Context, app, user, sessionID string, f func(*byheart.Memory) error) error {
	return m.do(ctx, key{app, user, sessionID}, func(mem *byheart.Memory, _ *entry) error { return f(mem) })
}

// Forget drops what m keeps in this process for a session: its memory when
// there is no Store (gone for good), and its thought signatures. Over a
// Store the memory stays stored. A server calls it when a session ends, so
// the process does not keep every session it ever saw.
func (m *Memories) Forget(app, user, sessionID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.keys, key{app, user, sessionID})
}

func (m *Memories) entry(k key) *entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.keys[k]
	if !ok {
		e = &entry{signatures: map[string][]byte{}}
		if m.cache == nil {
			e.mem = byheart.New(m.cfg.Options)
		}
		m.keys[k] = e
	}
	return e
}

// do runs f on the session's memory, holding the session for it. Over a
// store the memory is brought up to date first and saved after; when
// another writer saved first, f runs again on a fresh copy, so nothing it
// appends is lost or doubled.
func (m *Memories) do(ctx context.Context, k key, f func(*byheart.Memory, *entry) error) error {
	e := m.entry(k)
	e.mu.Lock()
	defer e.mu.Unlock()
	if m.cache == nil {
		return f(e.mem, e)
	}
	scope := store.Scope{Tenant: scopeID(k.app), User: scopeID(k.user), Conversation: scopeID(k.session)}
	var err error
	for range 3 {
		var conv *store.Conversation
		if conv, err = m.cache.Open(ctx, scope); err != nil {
			return err
		}
		if err = f(conv.Memory, e); err == nil {
			err = conv.Save(ctx)
		}
		m.cache.Done(conv)
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return err
}

func keyOf(s session.Session) key { return key{s.AppName(), s.UserID(), s.ID()} }

// onUserMessage appends the user's message. A session that had events
// before the plugin saw it (the plugin was added to a running app) has them
// appended first, so its memory holds the whole conversation.
func (m *Memories) onUserMessage(ctx agent.InvocationContext, msg *genai.Content) (*genai.Content, error) {
	s := ctx.Session()
	return nil, m.do(ctx, keyOf(s), func(mem *byheart.Memory, e *entry) error {
		if mem.Len() == 0 {
			for ev := range s.Events().All() {
				if err := m.appendEvent(mem, e, ev); err != nil {
					return err
				}
			}
		}
		ps, err := turns(msg, genai.RoleUser, time.Now(), m.cfg.Sources)
		if err != nil {
			return err
		}
		return m.appendPieces(mem, e, ps)
	})
}

// onEvent appends an event of the run as it happens: the model's reply,
// its function calls, the functions' responses.
func (m *Memories) onEvent(ctx agent.InvocationContext, ev *session.Event) (*session.Event, error) {
	if ev == nil || ev.LLMResponse.Partial || ev.LLMResponse.Content == nil {
		return nil, nil
	}
	return nil, m.do(ctx, keyOf(ctx.Session()), func(mem *byheart.Memory, e *entry) error {
		return m.appendEvent(mem, e, ev)
	})
}

func (m *Memories) appendEvent(mem *byheart.Memory, e *entry, ev *session.Event) error {
	c := ev.LLMResponse.Content
	if ev.LLMResponse.Partial || c == nil {
		return nil
	}
	ps, err := turns(c, ev.Author, ev.Timestamp, m.cfg.Sources)
	if err != nil {
		return err
	}
	return m.appendPieces(mem, e, ps)
}

// appendPieces appends ps, mapped to what byheart takes (agentturn.Append)
// and, over a store, cut to what it takes (store.MaxTurn), keeping the
// thought signature of each call by the id it was appended with.
func (m *Memories) appendPieces(mem *byheart.Memory, e *entry, ps []piece) error {
	limit := 0
	if m.cache != nil {
		limit = store.MaxTurn
	}
	for _, p := range ps {
		t, err := agentturn.Append(mem, p.turn, limit)
		if err != nil {
			return err
		}
		if t.Role == byheart.ToolCall && len(p.signature) > 0 {
			e.signatures[t.CallID] = p.signature
		}
	}
	return nil
}

// beforeModel replaces the request's contents with byheart's composition
// for the step. A session whose memory holds nothing yet is left as ADK
// built it.
func (m *Memories) beforeModel(ctx agent.Context, req *model.LLMRequest) (*model.LLMResponse, error) {
	var res byheart.Result
	var sent []*genai.Content
	var bp Breakpoint
	err := m.do(ctx, key{ctx.AppName(), ctx.UserID(), ctx.SessionID()}, func(mem *byheart.Memory, e *entry) error {
		sent = nil
		if mem.Len() == 0 {
			return nil
		}
		var err error
		if res, err = mem.Continue(ctx); err != nil {
			return err
		}
		_, said := agentturn.NewestUser(mem)
		sent, bp = contents(res, e.signatures, current(ctx.UserContent(), res, said.Time))
		return nil
	})
	if err != nil || sent == nil {
		return nil, err
	}
	req.Contents = sent
	if m.cfg.Composed != nil {
		m.cfg.Composed(ctx, res, bp)
	}
	return nil, nil
}

// current maps the parts of the invocation's user message that byheart
// holds only as a description (an image, a file) to the place of that
// description in res, so the request carries them as ADK gave them. The
// message's turns are the newest user turns; while they are sent as parts
// of their own (always, unless a long tool step made byheart rebuild and
// quote them in the memory block), they end the last run of user turns in
// res. Those quoted in the block stay described. when is the time the
// message's turns were appended at, by which byheart resolves the dates
// in them.
func current(msg *genai.Content, res byheart.Result, when time.Time) map[int]*genai.Part {
	ps, err := turns(msg, genai.RoleUser, time.Time{}, nil)
	if err != nil || !slices.ContainsFunc(ps, func(p piece) bool { return p.part != nil }) {
		return nil
	}
	last, lastMsg, lastPart := agentturn.LastUserPart(res)
	given := map[int]*genai.Part{}
	parts := res.Messages[max(lastMsg, 0)].Parts
	for n := 0; last >= 0 && n < len(ps) && n <= lastPart; n++ {
		p, part := ps[len(ps)-1-n], parts[lastPart-n]
		if !agentturn.Sent(part, p.turn.Text, when) {
			break
		}
		if p.part != nil {
			given[last-n] = p.part
		}
	}
	return given
}
