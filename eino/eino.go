// Package byhearteino gives agents built with CloudWeGo's Eino
// (github.com/cloudwego/eino) byheart's memory: a ChatModelAgent
// middleware that keeps the conversation in a byheart.Memory and, before
// every model call, rewrites the agent's messages with what byheart
// composes for the step. One line in the agent's configuration, and the
// conversation's memory for each request:
//
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Model: model, Instruction: "...", ToolsConfig: tools,
//		Handlers: []adk.ChatModelAgentMiddleware{byhearteino.New(byhearteino.Config{})},
//	})
//	ctx = byhearteino.WithMemory(ctx, mem) // this conversation's memory
//	events := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, question)
//
// A run's input (the user's new message), the model's replies with their
// tool calls and the tool messages are appended to the memory as the run
// makes them; the agent's system instruction and tools stay as it made them.
package byhearteino

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agentturn"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
)

// ErrNoMemory: a run's context carries no memory (see WithMemory).
var ErrNoMemory = errors.New("byhearteino: no memory in the run's context: use WithMemory")

// Config configures the middleware.
type Config struct {
	// Breakpoint, when set, marks the message that ends byheart's stable
	// prefix (Result.StableUpto) as a prompt-cache breakpoint. It returns
	// the marked message and leaves the one it is given unchanged: that may
	// be the user's own message, sent as it came. For Eino's
	// Claude model (eino-ext/components/model/claude) pass a function
	// returning claude.SetMessageCacheControl(msg, nil), or with a
	// CacheControl for a longer TTL. Models that cache
	// prefixes by themselves (OpenAI, Gemini, DeepSeek) need none: the
	// prefix repeats byte for byte between rebuilds.
	Breakpoint func(*schema.Message) *schema.Message
	// Sources says where a tool message came from and whether that source
	// is authenticated. Nil names none: the result is framed as its tool's
	// and marked unverified (withheld under byheart.Quarantine).
	Sources func(msg *schema.Message) byheart.Source
	// Composed, when set, is told of every composition sent to the model.
	Composed func(ctx context.Context, res byheart.Result)
}

// New returns the middleware. It holds no conversation itself: each run
// takes its memory from its context (WithMemory), so one agent serves many
// conversations.
func New(cfg Config) adk.ChatModelAgentMiddleware {
	return &middleware{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, cfg: cfg}
}

type middleware struct {
	*adk.BaseChatModelAgentMiddleware
	cfg Config
}

// binding is a memory bound to the runs of one request's context, with how
// many of the agent's messages it has taken in.
type binding struct {
	mu  sync.Mutex
	mem *byheart.Memory
	// seen counts the agent state's messages already appended or written
	// by the middleware; the state only grows between model calls.
	seen int
	// given holds the run's user messages that hold a part byheart keeps
	// only as a description (an image, a file), by the index of their turn,
	// so the run's requests carry them as they came.
	given map[int]*schema.Message
}

type bindingKey struct{}

// WithMemory returns a context whose agent runs keep their conversation in
// mem: pass it to Runner.Run or Runner.Query. A run's messages should be the
// user's new message only; the memory holds what came before.
func WithMemory(ctx context.Context, mem *byheart.Memory) context.Context {
	return context.WithValue(ctx, bindingKey{}, &binding{mem: mem})
}

func bound(ctx context.Context) (*binding, error) {
	b, ok := ctx.Value(bindingKey{}).(*binding)
	if !ok || b.mem == nil {
		return nil, ErrNoMemory
	}
	return b, nil
}

// BeforeAgent starts a run: none of its messages are taken in yet.
func (m *middleware) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	b, err := bound(ctx)
	if err != nil {
		return ctx, rc, err
	}
	b.mu.Lock()
	b.seen, b.given = 0, map[int]*schema.Message{}
	b.mu.Unlock()
	return ctx, rc, nil
}

// BeforeModelRewriteState appends what the run added since the last model
// call (its input, or the tool messages answering the model's calls) and
// replaces the messages after the leading system messages with byheart's
// composition for the step, taken now (Memory.ContinueAt).
func (m *middleware) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	b, err := bound(ctx)
	if err != nil {
		return ctx, state, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	system := 0
	for system < len(state.Messages) && state.Messages[system].Role == schema.System {
		system++
	}
	now := time.Now()
	if err := appendMessages(b.mem, state.Messages[max(b.seen, system):], m.cfg.Sources, now, b.given); err != nil {
		return ctx, state, err
	}
	if b.mem.Len() == 0 {
		b.seen = len(state.Messages)
		return ctx, state, nil
	}
	res, err := b.mem.ContinueAt(ctx, now)
	if err != nil {
		return ctx, state, err
	}
	msgs, stable := messages(res, b.current(res))
	if stable >= 0 && m.cfg.Breakpoint != nil {
		msgs[stable] = m.cfg.Breakpoint(msgs[stable])
	}
	next := *state
	next.Messages = append(append(make([]*schema.Message, 0, system+len(msgs)), state.Messages[:system]...), msgs...)
	b.seen = len(next.Messages)
	if m.cfg.Composed != nil {
		m.cfg.Composed(ctx, res)
	}
	return ctx, &next, nil
}

// AfterModelRewriteState appends the model's reply: its text and its tool
// calls.
func (m *middleware) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	b, err := bound(ctx)
	if err != nil {
		return ctx, state, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen > len(state.Messages) {
		b.seen = len(state.Messages)
	}
	if err := appendMessages(b.mem, state.Messages[b.seen:], m.cfg.Sources, time.Now(), b.given); err != nil {
		return ctx, state, err
	}
	b.seen = len(state.Messages)
	return ctx, state, nil
}

// current maps the run's user message that holds a part byheart keeps only
// as a description to the place of its turn in res, so the request carries
// it as it came. It is the newest user turn; while that is sent as a part
// of its own (always, unless a long tool step made byheart rebuild and
// quote it in the memory block) it is the last user turn part of res.
// Earlier ones stay described.
func (b *binding) current(res byheart.Result) map[int]*schema.Message {
	u, turn := agentturn.NewestUser(b.mem)
	msg := b.given[u]
	if msg == nil {
		return nil
	}
	last, i, j := agentturn.LastUserPart(res)
	if last < 0 || !agentturn.Sent(res.Messages[i].Parts[j], turn.Text, turn.Time) {
		return nil
	}
	return map[int]*schema.Message{last: msg}
}
