// Package byhearttrpc gives agents built with tRPC-Agent-Go
// (trpc.group/trpc-go/trpc-agent-go) byheart's memory, in one line of
// their runner's configuration:
//
//	r := runner.NewRunner("app", agent, runner.WithPlugins(byhearttrpc.New(byhearttrpc.Config{})))
//
// The plugin keeps each session's conversation (the app, user and session
// of trpc-agent-go's session.Key) in a byheart.Memory and, before every
// model call of every agent in the run, takes in the session's events it
// has not seen (the user's message, the model's replies and tool calls,
// the tools' responses) and replaces the request's messages after its
// leading system messages with what byheart composes for the step
// (Memory.Continue): the conversation within the budget, verbatim, with a
// prefix that repeats byte for byte between rebuilds, so a provider's
// prompt cache keeps hitting. The request's system messages, tools and
// generation config stay as the agent made them.
//
// MemoryService is a trpc-agent-go memory.Service backed by byheart: it
// takes sessions in through EnqueueAutoMemoryJob, as the runner hands them
// over, and answers a search with the conversation's best stretches by
// BM25.
package byhearttrpc

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agentturn"
	"trpc.group/trpc-go/trpc-agent-go/agent"
	"trpc.group/trpc-go/trpc-agent-go/event"
	"trpc.group/trpc-go/trpc-agent-go/model"
	"trpc.group/trpc-go/trpc-agent-go/plugin"
	"trpc.group/trpc-go/trpc-agent-go/session"
)

// Config configures the plugin. The zero value keeps each session's
// memory in this process with byheart's default options.
type Config struct {
	// Options configure every session's byheart.Memory.
	Options byheart.Options
	// Sources says where a tool's response came from and whether that
	// source is authenticated. Nil names none: a response is framed as its
	// tool's, marked unverified (and withheld under byheart.Quarantine).
	Sources func(msg model.Message) byheart.Source
	// Composed, when set, is told of every composition the plugin sends,
	// with the request as the model gets it and the index in
	// req.Messages of the message that ends the stable prefix (-1 for
	// none): the place for a cache breakpoint, for a model that takes one.
	Composed func(ctx context.Context, res byheart.Result, req *model.Request, stable int)
}

// Plugin is a trpc-agent-go runner plugin that keeps each session's
// conversation in byheart and composes every model request from it. One
// plugin serves every session of a runner at once.
type Plugin struct {
	cfg Config

	mu       sync.Mutex
	sessions map[session.Key]*conversation
}

// conversation is one session's memory and how many of the session's
// events it has taken in.
type conversation struct {
	mu   sync.Mutex
	mem  *byheart.Memory
	seen int
}

var _ plugin.Plugin = (*Plugin)(nil)

// New returns a plugin configured by cfg.
func New(cfg Config) *Plugin {
	return &Plugin{cfg: cfg, sessions: map[session.Key]*conversation{}}
}

// Name is the plugin's name in the runner: "byheart".
func (p *Plugin) Name() string { return "byheart" }

// Register registers the plugin's model callback, and a hook that takes
// in a run's last events when it ends.
func (p *Plugin) Register(r *plugin.Registry) {
	r.BeforeModel(p.beforeModel)
	r.AfterRun(p.afterRun)
}

// Do calls f with a session's memory, for an application to inspect it or
// redact a turn while no run uses the session.
func (p *Plugin) Do(app, user, sessionID string, f func(*byheart.Memory) error) error {
	c := p.conversation(session.Key{AppName: app, UserID: user, SessionID: sessionID})
	c.mu.Lock()
	defer c.mu.Unlock()
	return f(c.mem)
}

// Forget drops a session's memory from the plugin, for a server to call
// when a session ends.
func (p *Plugin) Forget(app, user, sessionID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.sessions, session.Key{AppName: app, UserID: user, SessionID: sessionID})
}

func (p *Plugin) conversation(k session.Key) *conversation {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.sessions[k]
	if !ok {
		c = &conversation{mem: byheart.New(p.cfg.Options)}
		p.sessions[k] = c
	}
	return c
}

// beforeModel takes in the session's new events and replaces the messages
// after the request's leading system messages with byheart's composition.
// A call outside a runner's invocation, or a session whose memory holds
// nothing, is left as the agent built it.
func (p *Plugin) beforeModel(ctx context.Context, args *model.BeforeModelArgs) (*model.BeforeModelResult, error) {
	inv, ok := agent.InvocationFromContext(ctx)
	if !ok || inv.Session == nil || args == nil || args.Request == nil {
		return nil, nil
	}
	c := p.conversation(session.Key{AppName: inv.Session.AppName, UserID: inv.Session.UserID, SessionID: inv.Session.ID})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.takeIn(inv.Session, p.cfg.Sources); err != nil {
		return nil, err
	}
	if c.mem.Len() == 0 {
		return nil, nil
	}
	res, err := c.mem.Continue(ctx)
	if err != nil {
		return nil, err
	}
	req := args.Request
	system := 0
	for system < len(req.Messages) && req.Messages[system].Role == model.RoleSystem {
		system++
	}
	_, said := agentturn.NewestUser(c.mem)
	msgs, stable := messages(res, current(inv.Message, res, said.Time))
	req.Messages = append(req.Messages[:system:system], msgs...)
	if stable >= 0 {
		stable += system
	}
	if p.cfg.Composed != nil {
		p.cfg.Composed(ctx, res, req, stable)
	}
	return nil, nil
}

// afterRun takes in the events of a run that ended after its last model
// call (the model's final reply), so Do sees the whole conversation.
func (p *Plugin) afterRun(_ context.Context, args *plugin.AfterRunArgs) error {
	if args == nil || args.Invocation == nil || args.Invocation.Session == nil {
		return nil
	}
	sess := args.Invocation.Session
	c := p.conversation(session.Key{AppName: sess.AppName, UserID: sess.UserID, SessionID: sess.ID})
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.takeIn(sess, p.cfg.Sources)
}

// takeIn appends the session's events c has not seen.
func (c *conversation) takeIn(sess *session.Session, sources func(model.Message) byheart.Source) error {
	sess.EventMu.RLock()
	events := sess.Events[min(c.seen, len(sess.Events)):]
	c.seen = len(sess.Events)
	sess.EventMu.RUnlock()
	for i := range events {
		if err := appendTurns(c.mem, turns(&events[i], sources)); err != nil {
			return err
		}
	}
	return nil
}

// turns are the byheart turns an event holds: the user's message as a
// user turn, the model's reply as an assistant turn and its tool calls as
// tool calls with their arguments, a tool's response as a tool result,
// each message's text as text gives it. Partial (streaming) events, system
// messages and empty text are left out.
func turns(e *event.Event, sources func(model.Message) byheart.Source) []byheart.Turn {
	if e == nil || e.Response == nil || e.IsPartial {
		return nil
	}
	when := e.Timestamp
	if when.IsZero() {
		when = time.Now()
	}
	var out []byheart.Turn
	for _, ch := range e.Choices {
		m := ch.Message
		text := text(m)
		switch m.Role {
		case model.RoleUser:
			if strings.TrimSpace(text) != "" {
				out = append(out, byheart.Turn{Role: byheart.User, Text: text, Time: when})
			}
		case model.RoleAssistant:
			if strings.TrimSpace(text) != "" {
				out = append(out, byheart.Turn{Role: byheart.Assistant, Text: text, Time: when})
			}
			for _, call := range m.ToolCalls {
				args := string(call.Function.Arguments)
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				out = append(out, byheart.Turn{Role: byheart.ToolCall, Tool: call.Function.Name, CallID: call.ID, Text: args, Time: when})
			}
		case model.RoleTool:
			var src byheart.Source
			if sources != nil {
				src = sources(m)
			}
			out = append(out, byheart.Turn{Role: byheart.ToolResult, Tool: m.ToolName, CallID: m.ToolID, Text: text, Source: src, Time: when})
		}
	}
	return out
}

// appendTurns appends ts through agentturn.Append, which maps what
// trpc-agent-go accepts and byheart would refuse: calls of one reply that
// share an id, a tool name or call id that is not one line of printable
// text, invalid UTF-8, a response with no text (agentturn.NoOutput). A
// response that answers no call waiting in the step is kept as a note from
// its source, so the model still sees it, framed.
func appendTurns(mem *byheart.Memory, ts []byheart.Turn) error {
	for _, t := range ts {
		if _, err := agentturn.Append(mem, t, 0); err != nil {
			return err
		}
	}
	return nil
}

// text is a message's text: its content, then each of its parts, one
// paragraph each, a part that is not text (an image, audio, a video, a
// file) as the line that describes it (agentturn.Describe): byheart holds
// text.
func text(m model.Message) string {
	parts := []string{m.Content}
	for _, p := range m.ContentParts {
		parts = append(parts, describe(p))
	}
	parts = slices.DeleteFunc(parts, func(s string) bool { return strings.TrimSpace(s) == "" })
	return strings.Join(parts, "\n\n")
}

// describe is a part's text, or the line that describes it.
func describe(p model.ContentPart) string {
	a := agentturn.Attachment{Kind: string(p.Type)}
	switch {
	case p.Type == model.ContentTypeText:
		if p.Text == nil {
			return ""
		}
		return *p.Text
	case p.Image != nil:
		a.MIME, a.URL, a.Size = mime(p.Type, p.Image.Format), p.Image.URL, len(p.Image.Data)
	case p.Audio != nil:
		a.MIME, a.URL, a.Size = mime(p.Type, p.Audio.Format), p.Audio.URL, len(p.Audio.Data)
	case p.Video != nil:
		a.MIME, a.URL, a.Size = mime(p.Type, p.Video.Format), p.Video.URL, len(p.Video.Data)
	case p.File != nil:
		a.MIME, a.Name, a.URL, a.Size = p.File.MimeType, p.File.Name, p.File.URL, len(p.File.Data)
	}
	return agentturn.Describe(a)
}

// mime is a part's format as a MIME type: trpc-agent-go takes a subtype
// ("png") or a whole type ("image/png").
func mime(kind model.ContentType, format string) string {
	if format == "" || strings.Contains(format, "/") {
		return format
	}
	return string(kind) + "/" + format
}

// media reports whether m holds a part that is not text.
func media(m model.Message) bool {
	return slices.ContainsFunc(m.ContentParts, func(p model.ContentPart) bool { return p.Type != model.ContentTypeText })
}

// current maps the invocation's message, when it holds a part byheart
// keeps only as a description, to the place of its turn in res, so the
// request carries it as trpc-agent-go gave it. Its turn is the newest user
// turn, said at when; while that is sent as a part of its own it is the
// last user turn part of res (see agentturn.LastUserPart). Earlier
// messages stay described.
func current(msg model.Message, res byheart.Result, when time.Time) map[int]model.Message {
	if !media(msg) {
		return nil
	}
	last, i, j := agentturn.LastUserPart(res)
	if last < 0 || !agentturn.Sent(res.Messages[i].Parts[j], text(msg), when) {
		return nil
	}
	return map[int]model.Message{last: msg}
}

// Opening is the user message placed first when a composition starts with
// the assistant: several providers want a conversation to open with the
// user.
const Opening = "(The conversation so far begins with the assistant.)"

// Messages turns a composition into trpc-agent-go messages: each user
// turn, memory part, outside material and note a user message; each
// assistant turn an assistant message, which also carries the tool calls
// of its reply (see byheart.Result.Pairs) with their arguments verbatim;
// each result that answers one a tool message with its call's id and
// tool, whose content is the result framed with its source, marked
// UNVERIFIED when that is not authenticated. Text of the reply after its
// calls joins that message's content, so its tool messages follow it. A
// call or result without its partner is sent as its framed text. Call ids
// are byheart.Result.CallIDs', so no two calls of a request share one. A
// composition that starts with the assistant is opened by Opening. stable
// is the index of the message holding the part at Result.Breakpoint, where
// a cache breakpoint goes, or -1.
func Messages(res byheart.Result) (msgs []model.Message, stable int) {
	return messages(res, nil)
}

// messages is Messages with the user messages given holds, by the index of
// their part in the composition, sent as they are in place of byheart's.
func messages(res byheart.Result, given map[int]model.Message) (msgs []model.Message, stable int) {
	ids := res.CallIDs(nil)
	bm, bp, hasBreakpoint := res.Breakpoint()
	stable = -1
	reply := -1 // the assistant message the current reply's calls join
	k := 0
	for i, m := range res.Messages {
		for j, p := range m.Parts {
			g, sent := given[k]
			switch {
			case m.Role == byheart.ToolCall && ids[k] != "" && p.Call != nil:
				if reply < 0 {
					msgs = append(msgs, model.Message{Role: model.RoleAssistant})
					reply = len(msgs) - 1
				}
				msgs[reply].ToolCalls = append(msgs[reply].ToolCalls, model.ToolCall{Type: "function", ID: ids[k],
					Function: model.FunctionDefinitionParam{Name: p.Call.Name, Arguments: []byte(p.Call.Arguments)}})
			case m.Role == byheart.ToolResult && ids[k] != "" && p.Call != nil:
				reply = -1
				msgs = append(msgs, model.NewToolMessage(ids[k], p.Call.Name, p.Text))
			case (m.Role == byheart.Assistant || m.Role == byheart.ToolCall) && reply >= 0 && len(msgs[reply].ToolCalls) > 0:
				// Text after a reply's calls joins the message that carries
				// them, which its tool messages must follow.
				msgs[reply].Content = strings.TrimPrefix(msgs[reply].Content+"\n\n"+p.Text, "\n\n")
			case m.Role == byheart.Assistant || m.Role == byheart.ToolCall:
				msgs = append(msgs, model.NewAssistantMessage(p.Text))
				reply = len(msgs) - 1
			case sent:
				reply = -1
				msgs = append(msgs, g)
			default:
				reply = -1
				msgs = append(msgs, model.NewUserMessage(p.Text))
			}
			if hasBreakpoint && i == bm && j == bp {
				stable = len(msgs) - 1
			}
			k++
		}
	}
	if len(msgs) > 0 && msgs[0].Role == model.RoleAssistant {
		msgs = append([]model.Message{model.NewUserMessage(Opening)}, msgs...)
		if stable >= 0 {
			stable++
		}
	}
	return msgs, stable
}
