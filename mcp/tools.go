package mcp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// errArgument marks a tool call refused for its arguments, before anything
// was read or written.
var errArgument = errors.New("invalid argument")

// rememberIn is what remember takes.
type rememberIn struct {
	Conversation string `json:"conversation,omitempty" jsonschema:"the conversation to add the turn to; the server's default one when omitted"`
	Role         string `json:"role" jsonschema:"who said it: user or assistant"`
	Text         string `json:"text" jsonschema:"what was said, verbatim"`
	Time         string `json:"time,omitempty" jsonschema:"when it was said, in RFC 3339 (2024-05-25T18:04:00+02:00); now when omitted. Relative dates in the text (last Saturday) are resolved against it"`
	RequestID    string `json:"request_id,omitempty" jsonschema:"an id for this call, sent again when it is retried, so that the turn is stored once however often it is sent"`
}

// turnOut is what remember and forget return: the turn they stored or
// erased.
type turnOut struct {
	Conversation string `json:"conversation"`
	Turn         int    `json:"turn" jsonschema:"the turn's index, which forget takes"`
	Turns        int    `json:"turns" jsonschema:"how many turns the conversation held once the turn was stored, or holds"`
}

// recallIn is what recall takes.
type recallIn struct {
	Conversation string `json:"conversation,omitempty" jsonschema:"the conversation to recall from; the server's default one when omitted"`
	Query        string `json:"query" jsonschema:"the user's newest message, or what to recall"`
}

// recallOut is recall's accounting; its text content is the context.
type recallOut struct {
	Conversation string `json:"conversation"`
	Turns        int    `json:"turns" jsonschema:"how many turns the conversation holds"`
	Budget       int    `json:"budget" jsonschema:"the most the context may hold, in characters unless the server measures otherwise"`
	Spent        spent  `json:"spent"`
	Rebuild      string `json:"rebuild,omitempty" jsonschema:"why the selection was made afresh, when it was"`
	Included     []int  `json:"included" jsonschema:"the first turn of each stretch the context holds"`
	Recalled     []int  `json:"recalled,omitempty" jsonschema:"the first turn of each stretch recalled past a kept context"`
	Standing     []int  `json:"standing,omitempty" jsonschema:"the user's standing instructions and preferences the context opens with, whatever the query"`
}

// spent is byheart.Spend with its total.
type spent struct {
	byheart.Spend
	Total int `json:"total" jsonschema:"what counts against the budget: everything but the query"`
}

// listOut is what list_conversations returns.
type listOut struct {
	Conversations []listed `json:"conversations"`
}

// listed is one conversation of a list.
type listed struct {
	Conversation string    `json:"conversation"`
	URI          string    `json:"uri" jsonschema:"the resource of its recent turns"`
	Turns        int       `json:"turns"`
	Updated      time.Time `json:"updated" jsonschema:"when it last changed"`
}

// forgetIn is what forget takes.
type forgetIn struct {
	Conversation string `json:"conversation,omitempty" jsonschema:"the conversation holding the turn; the server's default one when omitted"`
	Turn         *int   `json:"turn" jsonschema:"the index of the turn to erase, as remember returned it"`
}

// auditOut is what audit returns.
type auditOut struct {
	Events []event `json:"events"`
}

// event is a store.Event without the tenant and user, which are the
// caller's.
type event struct {
	At           time.Time `json:"at"`
	Conversation string    `json:"conversation"`
	Action       string    `json:"action" jsonschema:"append, redact, delete or expires"`
	Turn         int       `json:"turn"`
	Count        int       `json:"count"`
	Version      int64     `json:"version"`
	Expires      time.Time `json:"expires,omitzero"`
}

// empty is the input of a tool that takes no arguments.
type empty struct{}

func boolPtr(b bool) *bool { return &b }

// addTools registers the tools.
func (s *Server) addTools() {
	remember := inputSchema[rememberIn]()
	remember.Properties["role"].Enum = []any{string(byheart.User), string(byheart.Assistant)}
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "remember",
		Description: "Store one turn of the conversation, verbatim: what the user said or what you answered.",
		InputSchema: remember,
		Annotations: &sdk.ToolAnnotations{DestructiveHint: boolPtr(false)},
	}, checked(s.remember))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name: "recall",
		Description: "Read what was said before that bears on a query: the whole conversation while it fits the budget, " +
			"and above it the stretches that match the query best, quoted verbatim with their dates.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, checked(s.recall))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "list_conversations",
		Description: "List this user's conversations, the most recently changed first.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, checked(s.list))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "forget",
		Description: "Erase one turn's text from the conversation and the database; its place stays, marked [redacted].",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: boolPtr(true), IdempotentHint: true},
	}, checked(s.forget))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "audit",
		Description: "Export this user's audit log: every append, redaction and deletion, oldest first, without any turn's text.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, checked(s.audit))
}

// inputSchema is the schema the SDK would infer for In, to adjust.
func inputSchema[In any]() *jsonschema.Schema {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // the types above are fixed: a test catches this
	}
	return schema
}

// checked wraps a tool's handler: the raw arguments are refused unless
// they are valid UTF-8 without an unpaired surrogate, which the JSON
// decoder would otherwise turn into U+FFFD and store.
func checked[In, Out any](h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		if err := checkArguments(req.Params.Arguments); err != nil {
			var zero Out
			return nil, zero, err
		}
		return h(ctx, req, in)
	}
}

// text checks a text argument: valid UTF-8 (checkArguments saw the raw
// bytes; this sees what reached the handler) within MaxText.
func (s *Server) text(name, v string) error {
	if len(v) > s.cfg.MaxText {
		return fmt.Errorf("%w: %s: %d bytes, at most %d", errArgument, name, len(v), s.cfg.MaxText)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("%w: %s: not valid UTF-8", errArgument, name)
	}
	return nil
}

// turnOf reads remember's arguments into a turn, or an error.
func (s *Server) turnOf(in rememberIn, now time.Time) (byheart.Turn, error) {
	t := byheart.Turn{Role: byheart.Role(in.Role), Text: in.Text, Time: now}
	if t.Role != byheart.User && t.Role != byheart.Assistant {
		return t, fmt.Errorf("%w: role %q: want %q or %q", errArgument, in.Role, byheart.User, byheart.Assistant)
	}
	if err := s.text("text", in.Text); err != nil {
		return t, err
	}
	if strings.TrimSpace(in.Text) == "" {
		return t, fmt.Errorf("%w: text: empty", errArgument)
	}
	if in.Time != "" {
		when, err := time.Parse(time.RFC3339Nano, in.Time)
		if err != nil {
			return t, fmt.Errorf("%w: time %q: not RFC 3339, such as 2024-05-25T18:04:00+02:00", errArgument, in.Time)
		}
		if _, err := store.TimeText(when); err != nil {
			return t, fmt.Errorf("%w: time %q: %w", errArgument, in.Time, byheart.ErrTime)
		}
		t.Time = when
	}
	if in.RequestID != "" && !store.ID(in.RequestID) {
		return t, fmt.Errorf("%w: request_id %q: not 1 to %d bytes of printable UTF-8", errArgument, in.RequestID, store.MaxID)
	}
	return t, nil
}

// remember appends a turn and saves it, again on a fresh copy when
// another writer saved first.
func (s *Server) remember(ctx context.Context, req *sdk.CallToolRequest, in rememberIn) (*sdk.CallToolResult, turnOut, error) {
	var out turnOut
	scope, err := s.scope(req.Extra, in.Conversation)
	if err != nil {
		return nil, out, err
	}
	t, err := s.turnOf(in, time.Now())
	if err != nil {
		return nil, out, err
	}
	for try := 0; ; try++ {
		conv, err := s.cache.Open(ctx, scope)
		if err != nil {
			return nil, out, storeError(err, scope)
		}
		if _, err := conv.Memory.AppendTurn(t); err != nil {
			s.cache.Done(conv)
			return nil, out, fmt.Errorf("%w: %w", errArgument, err)
		}
		err = conv.SaveAs(ctx, in.RequestID)
		if errors.Is(err, store.ErrConflict) && try < maxTries {
			if err := backOff(ctx, try); err != nil {
				return nil, out, err
			}
			continue
		}
		// At is the position of the save that stored the turn: this
		// one's, or an earlier attempt's under the same request id.
		n := conv.At().Turns
		if errors.Is(err, store.ErrSaved) {
			n, err = s.retried(ctx, conv, t, in.RequestID, err)
		}
		if err != nil {
			return nil, out, storeError(err, scope)
		}
		s.cache.Done(conv)
		out = turnOut{Conversation: scope.Conversation, Turn: n - 1, Turns: n}
		return textResult(fmt.Sprintf("Remembered turn %d of conversation %q.", n-1, scope.Conversation)), out, nil
	}
}

// retried takes the turn an earlier remember under the same request id
// stored as this one's when it has the same role and words: the two
// differ in time only when neither call gave one, since each defaults to
// its own now. saved is the store's ErrSaved, returned otherwise; conv
// holds the stored conversation (SaveAs reloaded it). It returns the
// position of the earlier save's turns.
func (s *Server) retried(ctx context.Context, conv *store.Conversation, t byheart.Turn, id string, saved error) (int, error) {
	// A save under a committed id writes nothing and returns that save's
	// position.
	at, err := s.cfg.Store.Save(ctx, conv.Scope(), conv.At(), byheart.Changes{From: conv.At().Turns}, id)
	if !errors.Is(err, store.ErrSaved) {
		return 0, errors.Join(saved, err)
	}
	stored, err := conv.Memory.Turn(at.Turns - 1)
	if err != nil || stored.Role != t.Role || stored.Text != t.Text {
		return 0, saved
	}
	return at.Turns, nil
}

// maxTries bounds the saves remember retries after conflicts.
const maxTries = 16

// backOff waits before the next try after try conflicts: a random time of
// up to 2^try milliseconds, at most 256, so that writers contending for one
// conversation (sessions of other servers, or other processes on the
// file) stop meeting at the same moment.
func backOff(ctx context.Context, try int) error {
	wait := time.Duration(rand.Int64N(int64(time.Millisecond) << min(try, 8)))
	select {
	case <-time.After(wait):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recall composes the conversation's context for a query.
func (s *Server) recall(ctx context.Context, req *sdk.CallToolRequest, in recallIn) (*sdk.CallToolResult, recallOut, error) {
	var out recallOut
	scope, err := s.scope(req.Extra, in.Conversation)
	if err != nil {
		return nil, out, err
	}
	if err := s.text("query", in.Query); err != nil {
		return nil, out, err
	}
	conv, err := s.cache.Open(ctx, scope)
	if err != nil {
		return nil, out, storeError(err, scope)
	}
	defer s.cache.Done(conv)
	out = recallOut{Conversation: scope.Conversation, Turns: conv.Memory.Len(), Budget: s.budget(), Included: []int{}}
	if out.Turns == 0 {
		return textResult(fmt.Sprintf("Nothing is remembered in conversation %q yet.", scope.Conversation)), out, nil
	}
	// Composed at the time of the call, which judges the turns' expiries:
	// the newest turn's time may be long past.
	res, err := conv.Memory.ComposeAt(ctx, in.Query, time.Now())
	if err != nil {
		return nil, out, err
	}
	out.Spent = spent{Spend: res.Spent, Total: res.Spent.Total()}
	out.Rebuild = string(res.Rebuild)
	out.Included = append(out.Included, res.Included...)
	out.Recalled = res.Recalled
	out.Standing = res.Standing
	return textResult(Render(res)), out, nil
}

// list lists the user's conversations from the audit log: a conversation
// exists from its first append to its deletion, and holds as many turns as
// its appends reached.
func (s *Server) list(ctx context.Context, req *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, listOut, error) {
	out := listOut{Conversations: []listed{}}
	scope, err := s.scope(req.Extra, "")
	if err != nil {
		return nil, out, err
	}
	events, err := s.cfg.Store.Audit(ctx, scope.Tenant, scope.User)
	if err != nil {
		return nil, out, storeError(err, scope)
	}
	byName := map[string]*listed{}
	for _, e := range events {
		c := byName[e.Scope.Conversation]
		switch {
		case e.Action == store.Deleted:
			delete(byName, e.Scope.Conversation)
			continue
		case c == nil && e.Action == store.Appended:
			c = &listed{Conversation: e.Scope.Conversation, URI: conversationURI(e.Scope.Conversation)}
			byName[e.Scope.Conversation] = c
		case c == nil:
			continue
		}
		if e.Action == store.Appended {
			c.Turns = e.Turn + e.Count
		}
		c.Updated = e.At
	}
	for _, c := range byName {
		out.Conversations = append(out.Conversations, *c)
	}
	slices.SortFunc(out.Conversations, func(a, b listed) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.Conversation, b.Conversation)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d conversations.", len(out.Conversations))
	for _, c := range out.Conversations {
		fmt.Fprintf(&b, "\n%q: %d turns, last changed %s", c.Conversation, c.Turns, c.Updated.Format(time.RFC3339))
	}
	return textResult(b.String()), out, nil
}

// forget redacts a turn in the store, erasing its text.
func (s *Server) forget(ctx context.Context, req *sdk.CallToolRequest, in forgetIn) (*sdk.CallToolResult, turnOut, error) {
	var out turnOut
	scope, err := s.scope(req.Extra, in.Conversation)
	if err != nil {
		return nil, out, err
	}
	if in.Turn == nil {
		return nil, out, fmt.Errorf("%w: turn: required", errArgument)
	}
	if *in.Turn < 0 {
		return nil, out, fmt.Errorf("%w: turn %d: negative", errArgument, *in.Turn)
	}
	at, err := s.cfg.Store.Redact(ctx, scope, *in.Turn)
	if err != nil {
		return nil, out, storeError(err, scope)
	}
	out = turnOut{Conversation: scope.Conversation, Turn: *in.Turn, Turns: at.Turns}
	return textResult(fmt.Sprintf("Turn %d of conversation %q is erased.", *in.Turn, scope.Conversation)), out, nil
}

// audit exports the user's audit log.
func (s *Server) audit(ctx context.Context, req *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, auditOut, error) {
	out := auditOut{Events: []event{}}
	scope, err := s.scope(req.Extra, "")
	if err != nil {
		return nil, out, err
	}
	events, err := s.cfg.Store.Audit(ctx, scope.Tenant, scope.User)
	if err != nil {
		return nil, out, storeError(err, scope)
	}
	for _, e := range events {
		out.Events = append(out.Events, event{At: e.At, Conversation: e.Scope.Conversation, Action: string(e.Action),
			Turn: e.Turn, Count: e.Count, Version: e.Version, Expires: e.Expires})
	}
	return nil, out, nil
}

// textResult is a tool result whose content is text; the SDK adds the
// structured output.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// storeError says what a store's error means to a client of scope.
func storeError(err error, scope store.Scope) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("no conversation %q for this user", scope.Conversation)
	case errors.Is(err, byheart.ErrIndex):
		return fmt.Errorf("%w: no such turn in conversation %q", errArgument, scope.Conversation)
	case errors.Is(err, store.ErrSaved):
		return fmt.Errorf("an earlier call with this request_id stored another turn in conversation %q; nothing was written", scope.Conversation)
	case errors.Is(err, store.ErrConflict):
		return fmt.Errorf("conversation %q kept changing under other writers; nothing was written: retry", scope.Conversation)
	case errors.Is(err, store.ErrUnavailable):
		return errors.New("the database is unavailable; the call may or may not have taken effect: retry it (with the same request_id)")
	}
	return err
}
