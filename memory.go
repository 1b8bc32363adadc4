// Package byheart gives an LLM application conversation memory that keeps
// the dialogue verbatim: nothing is extracted, summarised or rewritten, no
// model is called and nothing runs beside your program. What reaches the
// model are the conversation's own words, chosen to fit a budget and laid
// out so the provider's prompt cache keeps working.
//
// An agent appends every turn and, before each model call, composes the
// context for the user's newest message:
//
//	mem := byheart.New(byheart.Options{}) // 20,000 characters, sticky
//	mem.AppendAt(byheart.User, "we settled on 55 euro a month", when)
//	mem.Append(byheart.Assistant, "Noted: 55 a month.")
//	res, err := mem.Compose(ctx, "what did we decide about pricing?")
//	// send res.Messages; put the cache breakpoint at part res.StableUpto
//
// Compose follows four rules:
//
//  1. Below the budget, send everything: each turn as its own message part.
//     A full history on a warm cache is cheaper than any clever assembly.
//  2. Above it, select whole stretches by relevance. Turns are grouped into
//     stretches of about Options.Chunk characters (a pause of an hour also
//     ends one), ranked against the query with BM25, and the best that fit
//     are quoted chronologically in one memory block, each turn labelled
//     with its speaker and each stretch with its date. The newest exchange
//     (the two newest turns) follows as native messages.
//  3. Keep the context still: it is a log that only grows at its end. The
//     turns appended since the block follow it natively; when a query finds
//     that the context lacks stretches a rebuild would show for it, those
//     that match enough of the query to be worth a cache write (a share
//     Options.Stability of its weight) are recalled, best first while they
//     fit, in a new memory part after everything already sent
//     (Result.Recalled). Every part up to Result.StableUpto repeats byte
//     for byte on the next call, so the provider's prompt cache holds,
//     until the log would overrun the budget: it then drops recalled parts
//     the cache still allows it to, or is rebuilt with room to grow
//     (Result.Reselected), the rest of what the query needs recalled at
//     once after the new block, past the breakpoint. It is rebuilt too on the first call after a
//     pause of five minutes, before the newest turn or before the query
//     (ComposeAt says when it was asked): the provider's cache is gone, and
//     a rebuild writes less. A stretch too long for the room is quoted in
//     part, the turns that match the query and those around them, marked
//     as part of a longer stretch.
//  4. Outside knowledge (Options.External) arrives last, and only when it
//     beats the conversation: its best item must outscore the best stretch
//     on one index. It sits after the breakpoint, framed as reference
//     material that is not instructions.
//
// Relative dates are resolved at ingest: "I ran the race last Saturday",
// said on Thursday 25 May 2023, is indexed and shown as "I ran the race last
// Saturday [20 May 2023]" (see Annotate), while the turn keeps its words.
//
// An agent appends its tool calls and what they returned with AppendTurn,
// each result naming its source and whether that source is authenticated,
// and composes each step with Continue. Tool results and notes reach the
// model only framed as material from their source, marked unverified when
// it is not authenticated, never in the user's voice; Options.Unverified
// can keep unverified material out of the context altogether. A call and
// its result always travel together.
//
// Everything but the final query never exceeds the budget, framing
// included: characters by default, or tokens with Options.Measure (see
// ApproxTokens). Result.Spent says what each kind of part cost and
// Result.Rebuild why a call rebuilt; Options.Logger logs both.
//
// No line byheart quotes (a turn, natively or in the memory block, or
// outside material) can pass for one of its markers, a speaker label or a
// date line, however it is spelled (lookalike letters of other scripts,
// full width, case, zero-width or bidi characters): such a line is opened
// with "[quoted] " and the text is otherwise sent verbatim (adapters that
// render a transcript of their own use GuardLabels and Indent). Redact
// removes a turn's words from everything the memory holds or writes.
// ToJSON and FromJSON persist a memory, its kept selection included,
// between requests; Since, Apply and Restore let a store keep it as rows
// and save only what a request added (see the store packages).
package byheart

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"
	"unicode/utf8"
)

// Role says who spoke a turn, or, for the turns of an agent, what kind of
// material it is. User and Assistant turns are the conversation's own
// voices; ToolCall, ToolResult and Note turns hold what an agent asked of
// its tools and what it read, and reach the model only framed as material
// from their source (see Turn and AppendTurn). A system prompt belongs to
// the caller's request, not to the conversation's memory.
type Role string

// The roles a turn may have.
const (
	User      Role = "user"
	Assistant Role = "assistant"
	// ToolCall is the assistant asking a tool: Turn.Tool names the tool,
	// Turn.CallID identifies the call, and Text holds its arguments
	// verbatim (JSON for the usual providers; "{}" when there are none).
	ToolCall Role = "tool_call"
	// ToolResult is what a tool returned for a call of the same step (see
	// AppendTurn), with where it came from in Turn.Source.
	ToolResult Role = "tool_result"
	// Note is material the application adds to the conversation without a
	// tool call: a document the user uploaded, an e-mail that arrived. It
	// is framed like a tool result, with its Turn.Source.
	Note Role = "note"
)

// Errors returned by Memory. Each is a sentinel to test with errors.Is; the
// returned error may wrap it with detail.
var (
	// ErrRole: a role other than the five constants.
	ErrRole = errors.New("byheart: role must be \"user\", \"assistant\", \"tool_call\", \"tool_result\" or \"note\"")
	// ErrEmpty: a turn with no text.
	ErrEmpty = errors.New("byheart: turn text is empty")
	// ErrUTF8: text or query that is not valid UTF-8.
	ErrUTF8 = errors.New("byheart: text is not valid UTF-8")
	// ErrTime: a turn time ToJSON could not write. Times are saved as
	// RFC 3339, which holds years 0 to 9999, with zone offsets under a day
	// (an offset with seconds keeps them).
	ErrTime = errors.New("byheart: turn time cannot be saved")
	// ErrIndex: a turn index outside the conversation.
	ErrIndex = errors.New("byheart: turn index out of range")
	// ErrBoundaries: the Boundaries hook panicked, timed out or returned
	// split points that are not strictly increasing inside the stretch.
	ErrBoundaries = errors.New("byheart: boundaries hook failed")
	// ErrRetriever: the Retriever failed, panicked or returned scores that
	// are not one finite number per document.
	ErrRetriever = errors.New("byheart: retriever failed")
	// ErrExternal: the External source failed; see Result.ExternalErr.
	ErrExternal = errors.New("byheart: external source failed")
	// ErrFormat: FromJSON was given data it cannot read as a memory.
	ErrFormat = errors.New("byheart: malformed memory data")
)

// errGoexit is the cause reported when a hook or collaborator ends its
// goroutine (runtime.Goexit, as t.FailNow does) instead of returning: no
// answer would ever come, so waiting for one would hang.
var errGoexit = errors.New("exited its goroutine without returning")

// guarded runs a collaborator's call (a hook, a Retriever, an External
// source) in a goroutine of its own, so that a panic, a runtime.Goexit or a
// call that outlives ctx comes back as an error rather than taking the
// caller down or holding it, and the Memory's lock with it.
func guarded[T any](ctx context.Context, call func() (T, error)) (T, error) {
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1)
	go func() {
		returned := false
		defer func() {
			if p := recover(); p != nil {
				done <- answer{err: fmt.Errorf("panic: %v", p)}
			} else if !returned {
				done <- answer{err: errGoexit}
			}
		}()
		v, err := call()
		returned = true
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		return a.v, a.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}

// Defaults that the zero Options stand for.
const (
	// DefaultBudget is the context budget in characters (about 5,000 tokens).
	DefaultBudget = 20_000
	// DefaultChunk is the size at which a stretch closes, in characters.
	DefaultChunk = 1000
	// DefaultStability recalls into a kept context the stretches a
	// rebuild would show that match at least a fifth of the query's weight
	// (see Options.Stability); chosen by leave-one-conversation-out on the
	// LoCoMo dev conversations (eval/README.md).
	DefaultStability = 0.2
)

// tuning is every number behind the rules that is a choice rather than a
// consequence, in one place. Each Memory carries its own copy, so a test can
// change one Memory's without touching any other's. The values in defaults
// were chosen by measurement on the LoCoMo dev conversations; the README's
// measured section gives the figures.
type tuning struct {
	// sessionGap is the pause after which a turn starts a new stretch,
	// whatever the open one's size: talk resumed after a break is a new
	// subject more often than not.
	sessionGap time.Duration
	// boundariesTimeout bounds how long Append waits for the Boundaries hook.
	boundariesTimeout time.Duration
	// neighbour is the share of the better adjacent stretch's score a
	// stretch borrows when both belong to one sitting: a subject runs on
	// across the size-made boundary between two stretches, so the talk
	// beside a strong match is likelier to hold what the query needs.
	neighbour float64
	// headroom is the share of what a sticky rebuild may spend that it
	// leaves free, so the turns that follow and the stretches later queries
	// recall can join the context for a while before the budget forces the
	// next rebuild.
	headroom float64
	// lastTurns is how many of the newest turns follow a rebuilt memory
	// block as native messages: the last exchange, so the dialogue keeps
	// its thread.
	lastTurns int
	// judged is how many of a selection's best stretches decide whether it
	// still serves: a model needs the few stretches that hold the answer,
	// so the many weak matches a speaker's name brings must not prop up a
	// stale one. At most maxJudged.
	judged int
	// smallQuery is the most postings a query may have for a fill to score
	// them all at once rather than search: below it a pass over every
	// posting costs less than the bookkeeping of pruning.
	smallQuery int
	// firstK is the size of the first pruned search: enough to cover a fill
	// of the budget in stretches of the default size with room to pass over
	// some. maxK is the deepest pruned search; past it a fill scores every
	// posting.
	firstK, maxK int
}

// defaults is the tuning every Memory starts with.
var defaults = tuning{
	sessionGap:        time.Hour,
	boundariesTimeout: 2 * time.Second,
	neighbour:         0.2,
	headroom:          0.5,
	lastTurns:         2,
	judged:            3,
	smallQuery:        4096,
	firstK:            48,
	maxK:              4096,
}

// maxJudged bounds tuning.judged, so the strength of a selection is summed
// without allocating.
const maxJudged = 8

// Options configures a Memory. The zero value is the recommended setup: a
// 20,000-character budget, 1,000-character stretches and a sticky context
// that grows by recall.
type Options struct {
	// Budget is the most the composed context may hold, framing included,
	// not counting the final query: characters (Unicode code points), or
	// the unit of Measure when it is set. Zero or less means DefaultBudget,
	// which is characters: set a budget with a measure.
	Budget int

	// Measure, when set, sizes text in the unit the budget counts, tokens
	// for instance (see ApproxTokens); nil counts characters. Every part
	// but the query is sized with it: each turn, natively and as a line of
	// the memory block, each date line, byheart's framing, outside material
	// and a turn cut to fit. A memory block or outside material is sized as
	// the sum of its lines, so the guarantee that the parts never measure
	// more than Budget in all holds for a measure that
	//   - gives the same number for the same text every time, never a
	//     negative one, and 0 for no text (it is not asked about "");
	//   - does not count two texts joined at a line break as more than the
	//     two apart: Measure(a+b) <= Measure(a)+Measure(b) whenever a ends
	//     with "\n" and b starts with a character that is not a space.
	// Characters, bytes and words meet it, and so do the OpenAI tokenizers
	// at such joins (they split text at line breaks before anything else),
	// and ApproxTokens for any join. Sizes are measured once, when a turn is
	// appended or restored, so a slow measure slows Append, not Compose. A
	// measure that panics or returns a negative number makes the call that
	// met it fail with ErrMeasure. Like Budget, the measure is configuration:
	// ToJSON does not save it, and FromJSON measures with the one it is given.
	Measure func(text string) int

	// Chunk is the size in characters at which the open stretch closes and
	// the next turn starts a new one. A pause of an hour or more between two
	// turns' times closes it too. Zero or less means DefaultChunk. It stays
	// in characters whatever Measure is: a stretch is about how much talk it
	// holds, not what it costs, so a conversation is cut the same way for
	// every model and its saved boundaries stay meaningful.
	Chunk int

	// Stability says how readily a kept context is left as it is. A new
	// query leaves it alone while one of the three best stretches a rebuild
	// would bring is among the turns since its block (the query carries on
	// the talk of the moment); otherwise, of the stretches a rebuild would
	// show, those the context lacks that match at least the share
	// Stability of the query's weight are recalled into it, best first,
	// while they fit (see Recall). So it grows by what the query needs, and
	// stays still when nothing it lacks is worth a cache write. Zero means
	// DefaultStability; values in (0, 1] are stickier as they grow (1
	// recalls only a stretch that holds every word of the query); a
	// negative value reselects the whole context on every query, which
	// suits one-shot questions with no prompt cache to keep warm. At any
	// value, a kept context is worth keeping only while a provider still
	// caches it: on the first call after the newest turn came five minutes
	// or more after the one before it, or after a query asked (ComposeAt)
	// that long after the newest turn, the provider's entries are gone, so
	// it is rebuilt (RebuildExpired).
	Stability float64

	// Recall bounds how many stretches one query may add to a kept
	// context (see Stability): they are quoted in a new memory part after
	// everything already sent, so the cached prefix holds and the next call
	// finds them cached too. Zero sets no count: what the query needs and
	// the budget leaves room for. When the best of them does not fit, the
	// context drops recalled parts (compaction) or is rebuilt, to half of
	// what it may spend (or the query's three best stretches, if more),
	// leaving room to grow, and recalls at once the rest of what the query
	// needs, within the same count; so it is after a pause that
	// outlives the provider's cache (see Stability). A negative value never
	// recalls: a context is kept while its three best stretches score at
	// least (1 − Stability) of a rebuild's, and otherwise rebuilt whole, as
	// byheart did before its contexts could grow.
	Recall int

	// Boundaries, when set, is asked for split points inside a stretch that
	// is about to close. It sees only that stretch's turns, is called once
	// per stretch rather than on every append, and returns strictly
	// increasing indices in [1, len(tail)) at which new stretches start.
	// It runs while the Memory is locked and must return within two
	// seconds; if it panics, times out or returns anything else, Append
	// fails with ErrBoundaries and records nothing. A split point between a
	// tool call and its result is passed over: they stay in one stretch.
	Boundaries func(tail []Turn) []int

	// Retriever replaces the built-in BM25 ranking of stretches.
	Retriever Retriever

	// External supplies outside material; see Compose for when it is used.
	External External

	// ExternalMargin is a head start, in score units, given to outside
	// material when it is weighed against the conversation. Zero admits it
	// only when its best item outscores the conversation's best stretch.
	ExternalMargin float64

	// Logger, when set, gets one Debug line for each Compose and Continue:
	// what the context spent by kind of part, whether and why it was
	// rebuilt, and how long the call took. Nil logs nothing and costs
	// nothing.
	Logger *slog.Logger

	// Unverified says what becomes of tool results and notes whose source
	// is not authenticated: Quote (the zero value) frames them with their
	// source, marked unverified; Quarantine stores them verbatim but never
	// indexes, selects or shows their text.
	Unverified Unverified
}

func (o Options) normalized() Options {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.Chunk <= 0 {
		o.Chunk = DefaultChunk
	}
	if o.Stability == 0 || math.IsNaN(o.Stability) {
		o.Stability = DefaultStability
	}
	if o.Stability > 1 {
		o.Stability = 1
	}
	if math.IsNaN(o.ExternalMargin) {
		o.ExternalMargin = 0
	}
	return o
}

// Turn is one message of the conversation as it was appended.
type Turn struct {
	Role Role
	// Text is verbatim: the resolved dates written beside relative
	// expressions live only in what is indexed and rendered.
	Text string
	// Time is when the turn was said: given to AppendAt, or inherited from
	// the previous turn. Zero when never known.
	Time time.Time
	// Redacted is set on the placeholder Redact leaves.
	Redacted bool
	// Tool names the tool of a ToolCall turn, and of a ToolResult turn,
	// which takes its call's when it is left empty.
	Tool string
	// CallID identifies a ToolCall (the provider's tool call id, such as
	// Anthropic's tool_use id) and pairs a ToolResult with it. It may be
	// empty: a result then answers the first waiting call with no id.
	CallID string
	// Source says where a ToolResult's or a Note's text came from; other
	// turns carry none.
	Source Source
}

// redactedText is what a redacted turn says from then on.
const redactedText = "[redacted]"

// turn is a Turn with what the Memory derives from it at ingest. An agent
// turn's own fields sit behind a pointer, so the user's and the assistant's
// turns, which have none, do not pay for them.
type turn struct {
	said
	agent    *agentFields // nil unless Role.agent()
	shown    string       // Text with resolved dates beside it: what is indexed and rendered
	native   int          // size of the turn as its own message part, guarded, in the budget's unit
	line     int          // size of the turn as a line of the memory block, guarded
	runes    int          // characters of shown
	date     int32        // size of the date line that may stand above the turn
	Redacted bool         // set on the placeholder Redact leaves
	quoted   bool         // the guard opens some line of shown
	// hidden is set on a quarantined turn (see Options.Unverified): kept
	// verbatim, but neither indexed nor shown.
	hidden bool
	// waiting counts the tool calls of the current step, up to and
	// including this turn, that no result has answered yet (see
	// AppendTurn): a stretch may start after a turn only when it is zero.
	waiting int32
}

// said is what every turn holds: who said what, and when.
type said struct {
	Role Role
	Text string
	Time time.Time
}

// agentFields are what only an agent turn holds.
type agentFields struct {
	Tool, CallID string
	Source       Source
}

// public returns the turn as Turn gives it.
func (tt *turn) public() Turn {
	t := Turn{Role: tt.Role, Text: tt.Text, Time: tt.Time, Redacted: tt.Redacted}
	if a := tt.agent; a != nil {
		t.Tool, t.CallID, t.Source = a.Tool, a.CallID, a.Source
	}
	return t
}

// stretch is a run of consecutive turns that is selected or left out whole.
type stretch struct {
	start int   // first turn
	size  int   // characters the whole stretch takes in the memory block
	slot  int32 // index slot of a closed stretch; -1 while open
}

// conversation is the turns as appended and their grouping into stretches:
// the state everything else in a Memory is derived from.
type conversation struct {
	turns []turn
	str   []stretch
	open  int // characters of the open stretch, for the chunk counter
	total int // characters of all turns as native parts
}

// Memory is one conversation's memory: the turns verbatim, grouped into
// stretches, indexed for the query, and the selection currently kept.
//
// A Memory is safe for concurrent use by multiple goroutines; each method
// holds an internal lock for its duration (Compose releases it while an
// External source is consulted).
type Memory struct {
	mu    sync.Mutex
	state // everything else: the locked methods call its methods
}

// state is a Memory without its lock, as golang-lru's simplelru is its
// Cache without one: the conversation, what is derived from it and the
// kept selection, and every method that works on them. Its methods expect
// the Memory's lock to be held; only composeCall, which releases it while an
// External source is consulted, belongs to Memory.
type state struct {
	opt          Options
	tune         tuning
	ranker       ranker     // the Retriever or the built-in BM25, chosen once
	meter        meter      // sizes in the budget's unit
	broken       error      // the measure failed on byheart's own framing: nothing can be sized
	conversation            // the turns and their stretches
	ix           *index     // derived: the closed stretches' terms, and the open one's
	sizes        sizeRanges // derived: stretch sizes by block
	texts        []string   // derived: stretch texts for a Retriever, by stretch; "" until built
	sel          *kept      // rule 3: the selection kept between calls
	dropped      Rebuild    // why sel was dropped, if it was, for the next rebuild to report
	called       time.Time  // when the last call was asked (ComposeAt), zero if it did not say
	scratch                 // working space for one call
}

// scratch is a Memory's working space for one call: buffers kept only for
// their capacity.
type scratch struct {
	heap   []hit     // ordering hits
	mark   []bool    // spreading scores, by stretch
	spread []int     // candidates of bestSpread
	rk     ranking   // the built-in ranking of the current query
	from   int       // the newest turn the native tail should hold: a Continue's user turn, or len(turns)
	asked  time.Time // when ComposeAt's query was asked; zero for Compose and Continue
	cap    stepCap   // how the newest step's turns are cut, if it is over the budget
}

// New returns an empty Memory configured by opts.
func New(opts Options) *Memory {
	m := &Memory{state: state{opt: opts.normalized(), tune: defaults, ix: newIndex(), ranker: newRanker(opts.Retriever)}}
	m.meter = newMeter(opts.Measure)
	m.broken = m.meter.take()
	return m
}

// Len returns the number of turns appended so far.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.turns)
}

// Turn returns the i-th turn, or ErrIndex.
func (m *Memory) Turn(i int) (Turn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i < 0 || i >= len(m.turns) {
		return Turn{}, fmt.Errorf("%w: %d of %d", ErrIndex, i, len(m.turns))
	}
	return m.turns[i].public(), nil
}

// Bounds returns the first turn of each stretch, ascending.
func (m *Memory) Bounds() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := make([]int, len(m.str))
	for i, s := range m.str {
		b[i] = s.start
	}
	return b
}

// Append records a turn with no time of its own: it inherits the previous
// turn's. It returns the turn's index. A role other than User, Assistant or
// Note (tool turns need AppendTurn), empty text or invalid UTF-8 is an error
// and records nothing.
func (m *Memory) Append(role Role, text string) (int, error) {
	return m.AppendTurn(Turn{Role: role, Text: text})
}

// AppendAt records a turn said at when, resolving relative dates in it
// against that time (see Annotate). A zero when inherits the previous
// turn's time; a time ToJSON could not save (a year outside 0–9999, a zone
// offset of a day or more) is ErrTime. It returns the turn's index; on error
// nothing is recorded.
func (m *Memory) AppendAt(role Role, text string, when time.Time) (int, error) {
	return m.AppendTurn(Turn{Role: role, Text: text, Time: when})
}

// AppendTurn records t, which may be any kind of turn, with its time as
// AppendAt takes it. An agent appends each step as it happened: the
// assistant's text, then its tool calls, then their results, each result
// naming its call by CallID:
//
//	mem.Append(byheart.User, "when is my dentist appointment?")
//	mem.AppendTurn(byheart.Turn{Role: byheart.ToolCall, Tool: "calendar", CallID: "c1", Text: `{"q":"dentist"}`})
//	mem.AppendTurn(byheart.Turn{Role: byheart.ToolResult, CallID: "c1", Text: "Dentist, Tue 14:30",
//		Source: byheart.Source{Name: "tool:calendar", Authenticated: true}})
//
// A step is a run of Assistant and ToolCall turns followed by the
// ToolResult turns that answer them, as providers require: a result must
// answer a call of the current step that is still waiting (ErrNoCall
// otherwise), and a User or Note turn, or an Assistant or ToolCall turn
// after a result, starts a new step, leaving any call still waiting
// unanswered. Besides what AppendAt checks, AppendTurn refuses with ErrTool
// a tool turn without a tool (a result takes its call's), a tool name or
// call id that is not one line of printable text, tool fields on other
// turns, a call id already waiting in the step, and a Source on a turn
// other than a ToolResult or a Note; a turn marked Redacted is ErrEmpty.
func (m *Memory) AppendTurn(t Turn) (int, error) {
	if err := checkTurn(t.Role, t.Text); err != nil {
		return -1, err
	}
	if err := checkFields(t); err != nil {
		return -1, err
	}
	when := t.Time
	if !when.IsZero() {
		var buf [len(timeLayoutSeconds)]byte
		if _, err := appendTime(buf[:0], when); err != nil {
			return -1, err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.turns)
	if when.IsZero() && n > 0 {
		t.Time = m.turns[n-1].Time
	}
	x, err := m.accept(t)
	if err != nil {
		return -1, err
	}
	if len(m.str) > 0 && splitsBefore(&m.turns[n-1], t.Role) && (m.open >= m.opt.Chunk || m.pause(when)) {
		splits, err := m.askBoundaries()
		if err != nil {
			return -1, err
		}
		m.closeOpen(splits)
		m.str = append(m.str, stretch{start: n, slot: -1})
		m.open = 0
	}
	if len(m.str) == 0 {
		m.str = append(m.str, stretch{start: 0, slot: -1})
	}
	m.turns = append(m.turns, x)
	last := &m.str[len(m.str)-1]
	m.pieces(n, n+1, last.start)(m.ix.addOpen)
	last.size += m.lineCost(last.start, n)
	m.open += x.runes
	m.total += x.native
	return n, nil
}

// pause reports whether a turn said at when comes after a pause long enough
// to end a sitting: a new sitting starts a new stretch, whatever its size.
func (m *state) pause(when time.Time) bool {
	n := len(m.turns)
	if n == 0 || when.IsZero() || m.turns[n-1].Time.IsZero() {
		return false
	}
	return when.Sub(m.turns[n-1].Time) >= m.tune.sessionGap
}

func checkTurn(role Role, text string) error {
	if !role.valid() {
		return fmt.Errorf("%w, not %q", ErrRole, string(role))
	}
	if text == "" {
		return ErrEmpty
	}
	if !utf8.ValidString(text) {
		return ErrUTF8
	}
	return nil
}

// makeTurn derives what the Memory keeps beside t, which has passed the
// door; waiting is the step's count of unanswered calls after it.
func (m *state) makeTurn(t Turn, waiting int32) turn {
	x := turn{said: said{Role: t.Role, Text: t.Text, Time: t.Time}, Redacted: t.Redacted, shown: t.Text, waiting: waiting}
	if t.Role.agent() {
		x.agent = &agentFields{Tool: t.Tool, CallID: t.CallID, Source: t.Source}
	}
	x.hidden = m.opt.Unverified == Quarantine && !t.Redacted && t.Role.framed() && !t.Source.Authenticated
	if !t.Redacted && !t.Time.IsZero() {
		x.shown = Annotate(t.Text, t.Time)
	}
	x.runes = utf8.RuneCountInString(x.shown)
	z := &m.meter
	switch {
	case t.Role.agent():
		x.native = z.size(nativeTool(&x))
		x.line = z.size(entryOf(&x))
	case z.f != nil:
		quoted := guard(x.shown)
		x.quoted = len(quoted) != len(x.shown)
		x.native = z.size(quoted)
		x.line = z.size(lineText(t.Role, quoted))
	default:
		quoted := guard(x.shown)
		x.quoted = len(quoted) != len(x.shown)
		x.native = x.runes + len(quoted) - len(x.shown) // the guard adds ASCII only
		x.line = lineSize(t.Role, quoted)
	}
	if z.f != nil {
		x.date = int32(min(z.size(dateLine(&x)), unmeasured))
	} else {
		x.date = int32(dateSize(&x))
	}
	return x
}

// askBoundaries consults the Boundaries hook about the open stretch and
// returns absolute turn indices at which new stretches start.
func (m *state) askBoundaries() ([]int, error) {
	hook := m.opt.Boundaries
	if hook == nil {
		return nil, nil
	}
	start := m.str[len(m.str)-1].start
	tail := make([]Turn, len(m.turns)-start)
	for i := range tail {
		tail[i] = m.turns[start+i].public()
	}
	timeout := m.tune.boundariesTimeout
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	points, err := guarded(ctx, func() ([]int, error) { return hook(tail), nil })
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: no answer within %v", ErrBoundaries, timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBoundaries, err)
	}
	prev := 0
	splits := make([]int, 0, len(points))
	for _, p := range points {
		if p <= prev || p >= len(tail) {
			return nil, fmt.Errorf("%w: split points %v are not strictly increasing in [1, %d)",
				ErrBoundaries, points, len(tail))
		}
		prev = p
		if m.splittable(start + p) { // never between a tool call and its result
			splits = append(splits, start+p)
		}
	}
	return splits, nil
}

// closeOpen closes the open stretch, first splitting it at the given turns.
func (m *state) closeOpen(splits []int) {
	last := len(m.str) - 1
	start := m.str[last].start
	m.sizes.changed(last)
	if len(splits) == 0 {
		k := m.ix.key(m.pieces(start, len(m.turns), start))
		m.str[last].slot = m.ix.closeOpen(k, int32(last))
		return
	}
	m.ix.resetOpen()
	m.str = m.str[:last]
	ends := append(splits, len(m.turns))
	for _, end := range ends {
		i := int32(len(m.str))
		k := m.ix.key(m.pieces(start, end, start))
		slot := m.ix.acquire(k, i, m.pieces(start, end, start))
		m.str = append(m.str, stretch{start: start, size: m.sizeOf(start, end), slot: slot})
		start = end
	}
}

// pieces yields the text of turns [a, b) of the stretch starting at start as
// the memory block shows it, one piece per turn: the turn's shown text,
// after the date line the block writes above it, if it names a day. A stretch's indexed
// text is its pieces joined by newlines, so a question that names a date
// can find the talk of that day.
func (c *conversation) pieces(a, b, start int) func(yield func(string)) {
	return func(yield func(string)) {
		for t := a; t < b; t++ {
			tt := &c.turns[t]
			if !tt.Time.IsZero() && (t == start || c.newDay(t)) {
				yield(dateLine(tt) + tt.indexed())
				continue
			}
			yield(tt.indexed())
		}
	}
}

// stretchEnd returns the end (exclusive) of stretch i.
func (c *conversation) stretchEnd(i int) int {
	if i+1 < len(c.str) {
		return c.str[i+1].start
	}
	return len(c.turns)
}

// stretchOf returns the stretch holding turn t.
func (c *conversation) stretchOf(t int) int {
	lo, hi := 0, len(c.str)
	for lo < hi {
		mid := (lo + hi) / 2
		if c.str[mid].start <= t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// Redact replaces turn i with a placeholder, keeping its place, role, time
// and the stretch boundaries, and for a tool turn its tool and call id, so
// calls and results stay paired. Its text, and its source, become
// unreachable: they leave the index, the encoding cache, the kept selection
// (the next Compose rebuilds) and everything ToJSON writes from then on.
// It fails only with ErrIndex, or, with the turn redacted all the same,
// with ErrMeasure when Options.Measure fails on the placeholder.
func (m *Memory) Redact(i int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i < 0 || i >= len(m.turns) {
		return fmt.Errorf("%w: %d of %d", ErrIndex, i, len(m.turns))
	}
	old := m.turns[i]
	if old.Redacted {
		return nil
	}
	placeholder := Turn{Role: old.Role, Text: redactedText, Time: old.Time, Redacted: true}
	if old.agent != nil {
		placeholder.Tool, placeholder.CallID = old.agent.Tool, old.agent.CallID
	}
	m.turns[i] = m.makeTurn(placeholder, old.waiting)
	// The words must go even if the measure fails on the placeholder,
	// which is then never sent (see unmeasured): the failure is reported
	// once the redaction is done.
	failed := m.meter.take()
	m.total += m.turns[i].native - old.native
	s := m.stretchOf(i)
	a, b := m.str[s].start, m.stretchEnd(s)
	m.str[s].size = m.sizeOf(a, b)
	m.sizes.changed(s)
	if s == len(m.str)-1 && m.str[s].slot < 0 {
		m.ix.resetOpen()
		m.pieces(a, b, a)(m.ix.addOpen)
		m.open = m.runes(a, b)
	} else {
		k := m.ix.key(m.pieces(a, b, a))
		slot := m.ix.acquire(k, int32(s), m.pieces(a, b, a))
		m.ix.release(m.str[s].slot, int32(s))
		m.str[s].slot = slot
	}
	if m.sel != nil {
		m.sel, m.dropped = nil, RebuildRedacted
	}
	m.texts = nil
	if failed != nil {
		return fmt.Errorf("byheart: turn %d is redacted, but its placeholder could not be measured and is left out of the context: %w", i, failed)
	}
	return nil
}

// restretch replaces the stretch boundaries wholesale (bounds must start at 0,
// ascend strictly and stay below len(m.turns)). Texts that survive keep their
// encodings; the last stretch is the open one.
func (m *state) restretch(bounds []int) {
	old := m.str
	for _, s := range old {
		if s.slot >= 0 {
			m.ix.clearUsers(s.slot)
		}
	}
	m.sizes.changed(0)
	m.str = make([]stretch, 0, len(bounds))
	m.open = 0
	m.ix.resetOpen()
	if len(bounds) > 0 {
		m.cutStretches(bounds, nil)
	}
	for _, s := range old {
		if s.slot >= 0 {
			m.ix.release(s.slot, -1)
		}
	}
	m.texts = nil
}

// cutStretches appends the stretches that start at starts (ascending, after
// every stretch m.str holds) to m.str, the last one open and running to the
// newest turn: the closed ones are indexed, the open one's terms counted,
// from pre when their texts were tokenized ahead (see tokenizeAhead). The
// index holds no open stretch.
func (m *state) cutStretches(starts []int, pre *ahead) {
	for i, a := range starts {
		b := len(m.turns)
		if i+1 < len(starts) {
			b = starts[i+1]
		}
		st := stretch{start: a, size: m.sizeOf(a, b), slot: -1}
		closed := i+1 < len(starts)
		switch {
		case closed && pre != nil:
			st.slot = pre.acquire(m.ix, i, int32(len(m.str)))
		case closed:
			st.slot = m.ix.acquire(m.ix.key(m.pieces(a, b, a)), int32(len(m.str)), m.pieces(a, b, a))
		case pre != nil:
			pre.addOpen(m.ix, i)
		default:
			m.pieces(a, b, a)(m.ix.addOpen)
		}
		if !closed {
			m.open = m.runes(a, b)
		}
		m.str = append(m.str, st)
	}
}

// runes is the characters of turns [a, b) as shown, for the chunk counter.
func (c *conversation) runes(a, b int) int {
	n := 0
	for t := a; t < b; t++ {
		n += c.turns[t].runes
	}
	return n
}
