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
//	// send res.Messages; put the cache breakpoint at res.Breakpoint()
//	mem.Append(byheart.User, "what did we decide about pricing?")
//	mem.Append(byheart.Assistant, answer)
//
// The SDK adapters (modules github.com/byheart/byheart/anthropic, .../openai,
// .../langchaingo) turn a Result into an SDK's messages with the cache
// breakpoints placed; the stores (.../store, .../store/sqlite,
// .../store/postgres) keep conversations between requests.
//
// Compose follows four rules:
//
//  1. Below the budget, send everything: each turn as its own message part.
//     A full history on a warm cache is cheaper than any clever assembly.
//  2. Above it, select whole stretches by relevance. Turns are grouped into
//     stretches of about Options.Chunk characters (a pause of an hour also
//     ends one, and a turn that long, an answer of pages, is a stretch of
//     its own), ranked against the query with BM25, and taken by what they
//     are worth for the room they take (score per character, a stretch
//     counted as at least Chunk characters), so a short statement is not
//     passed over for a long answer. They are quoted chronologically in one
//     memory block, each turn labelled with its speaker and each stretch
//     with its date. The newest exchange (the two newest turns) follows as
//     native messages.
//  3. Keep the context still: it is a log that only grows at its end. The
//     turns appended since the block follow it natively, and every part up
//     to Result.StableUpto repeats byte for byte on the next call, so the
//     provider's prompt cache holds. When a query finds that the context
//     lacks stretches a fresh selection would show for it, those that
//     match enough of the query to be worth their place (beyond what any
//     stretch matches by chance, a share Options.Stability of the rest of
//     its weight; a short turn beside a long one, in proportion to its
//     size) are recalled, best first, in a memory part past the
//     breakpoint, for that call alone (Result.Recalled): one query's needs
//     cost one uncached read, not a cache write and a cached read on every
//     call after. A log that shows the query's best stretch, or has room
//     for what decides its answer (its three best by value, and any worth
//     a third of the best), recalls what fits beside it; when one that lacks
//     them has no room for them, or the log would overrun the budget, it is rebuilt with room to grow (Result.Reselected), the
//     rest of what the query needs recalled past the new block. It is rebuilt too on the first call after a pause of
//     five minutes, before the newest turn or before the query (ComposeAt
//     says when it was asked): the provider's cache is gone, and a rebuild
//     writes less. A stretch too long for the room is quoted in part, the
//     turns that match the query and those around them, marked as part of
//     a longer stretch.
//  4. Outside knowledge (Options.External) arrives last, and an item is
//     admitted when it adds what the composed context lacks, compared like
//     with like: by default it must outscore the conversation's best
//     stretch for the query on one index, or hold more of the query's
//     weight than the heaviest query word the composed context holds, the
//     better items admitted before it counted as context (see Comparison
//     for the other forms, and Result.Outside for what each item met). It
//     sits after the breakpoint, framed as reference material that is not
//     instructions.
//
// Relative dates are resolved at ingest: "I ran the race last Saturday",
// said on Thursday 25 May 2023, is indexed and shown as "I ran the race last
// Saturday [20 May 2023]" (see Annotate), while the turn keeps its words.
//
// What the user asked for always stays in view. A user's turn that says how
// later answers should be ("From now on, always include version numbers",
// "I'd rather see tables") is recognised as it is appended, or marked by
// the application (Turn.Standing). Above the budget the memory block opens,
// whatever the query, with a section that quotes those said before its
// native turns, oldest first under their dates, so a later one follows the
// one it changes: in the cached prefix, at most 0.15 of the budget (past
// it the newest win), never quoted twice (Result.Standing,
// Result.StandingLeft). Only the user's own words stand: an instruction in
// a tool result, a note, outside material or an assistant's turn never
// does. Redact and expiry take a standing turn out as any other.
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
// Result.Rebuild what a call rebuilt and why; Options.Logger logs both.
//
// A turn may expire (Turn.Expires: a one-time code, a price or a hold a
// tool reported, a file shared for the week). Each call judges expiry by
// its clock: the time ComposeAt or ContinueAt gives, or the newest turn's
// time if that is later or the call gives none; a memory that knows no
// time expires nothing. An agent whose turns carry no time of their own
// composes each step with ContinueAt and the time, so that its clock
// moves with the run (the langchaingo, adk and Eino adapters judge each
// call by the time it is made or its turns came).
// A turn appended between calls is shown as the last call's clock has it,
// which a save keeps, so a copy restored from a save or a store composes
// its next call exactly as the original would. From its expiry on, a
// turn's words reach no context: not the
// memory block, a recall or the native turns, where the turn keeps its
// place and role but says "[expired]" (an expired tool result stays a
// result of its call, which keeps its arguments, so the pair stays valid
// for the provider; an expired call keeps its id and tool but no
// arguments), and not outside material either (an item that quotes the
// turn's text whole is dropped). A kept context that showed the turn is
// rebuilt (RebuildTurnExpired). The turn stays stored verbatim, with its
// expiry, in ToJSON, Since and the stores' rows, until Redact erases it;
// a call with an earlier clock shows it again, since expiry is judged
// afresh each call.
//
// A user's or an assistant's turn sent as its own message goes out as it
// was said (its dates resolved beside it), markdown and code included, but
// for a line that could pass for one of byheart's markers; quoted in a
// memory block, its lines stand off the margin under its speaker's label,
// and a line that could pass for a marker or a date line is opened too.
// Tool material and outside items have every line that could pass for
// framing (a marker, a date line, a speaker label) opened, however it is
// spelled (lookalike letters of other scripts, full width, case,
// zero-width or bidi characters). An opened line starts with "[quoted] "
// and is otherwise verbatim. Redact removes a turn's words from everything
// the memory holds or writes.
// ToJSON and FromJSON persist a memory, its kept selection included,
// between requests.
//
// # For store and adapter authors
//
// A user of the library needs none of what follows; the stores and the
// adapters are built on it.
//
//   - Stores keep a memory as rows and save only what a request added:
//     Memory.Since returns the Changes since a point, Memory.Apply brings a
//     copy up to date with them, and Restore rebuilds a memory from its
//     rows; Memory.Bounds lists the stretches' first turns.
//   - Adapters place cache breakpoints with Result.Breakpoint (the message
//     and part at Result.StableUpto), send each tool call with its result
//     by Result.Pairs, and, when they render a transcript of their own,
//     guard its lines with GuardLabels and Indent.
//   - A Retriever or an External source that wants to match byheart's
//     BM25 uses Terms, the index terms it sees in a text.
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
	// DefaultStability recalls past a kept context the stretches a fresh
	// selection would show that match, beyond what any stretch matches by
	// chance, at least 0.15 of the rest of the query's weight (see
	// Options.Stability): the value leave-one-conversation-out on the
	// LoCoMo dev conversations chooses, in most folds, from a grid of step
	// 0.0125, as the best recall on the live chat with questions among the
	// settings whose bill stays within 0.30× plain RAG's (eval/README.md).
	DefaultStability = 0.15
)

// tuning is every number behind the rules that is a choice rather than a
// consequence, in one place. Each Memory carries its own copy, so a test can
// change one Memory's without touching any other's. The values in defaults
// were chosen by measurement on the LoCoMo dev conversations; eval/README.md
// gives the figures.
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
	// standing is the share of the budget the section of standing turns
	// may take (see standingShown): past it the newest win.
	standing float64
	// exchange is the share two neighbours in one sitting borrow of each
	// other's score when one of them is a long turn alone (see share): a
	// question and its answer, an answer and the reply it got.
	exchange float64
	// headroom is the share of what a sticky rebuild may spend that it
	// leaves free, so the turns that follow can join the log, and the
	// stretches later queries recall fit beside it, for a while before the
	// budget forces the next rebuild.
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
	exchange:          0.5,
	standing:          0.15,
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
// that recalls past itself what a query lacks.
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

	// Stability says how readily a kept context is left as it is. Of the
	// stretches a fresh selection would show for a new query, those the
	// context lacks that match, beyond what a stretch drawn at random
	// matches, at least the share Stability of the rest of the query's
	// weight are recalled past it, best first, for that call (see Recall).
	// So the kept context stays still, and a query gets what it needs when
	// that is worth its place. Zero means DefaultStability; values in
	// (0, 1] are stickier as they grow (1 recalls only a stretch that holds
	// every word of the query); a negative value reselects the whole
	// context on every query, which suits one-shot questions with no prompt
	// cache to keep warm. At any
	// value, a kept context is worth keeping only while a provider still
	// caches it: on the first call after the newest turn came five minutes
	// or more after the one before it, or after a query asked (ComposeAt)
	// that long after the newest turn, the provider's entries are gone, so
	// it is rebuilt (RebuildExpired).
	Stability float64

	// Recall bounds how many stretches one query may recall beyond a kept
	// context (see Stability): they are quoted in a memory part past the
	// cache breakpoint, for that call alone, so the cached prefix holds and
	// does not grow with what one query needed. Zero sets no count: what the
	// query needs and the budget leaves room for. When what decides the
	// query's answer (its three best by value, and any worth a third of the best)
	// does not fit beside a context that lacks its best stretch, it is
	// rebuilt, to half of what it may spend (or
	// the query's three best stretches, if more), leaving room for the turns
	// to come and later recalls, and the rest of what the query needs is
	// recalled past the new block, within the same count; so it is after a
	// pause that outlives the provider's cache (see Stability). A negative
	// value never recalls: a context is kept while its three best stretches
	// score at least (1 − Stability) of a rebuild's, and otherwise rebuilt
	// whole, as byheart did before queries could recall.
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

	// ExternalMargin is a head start given to each outside item when it is
	// weighed against the conversation, in the comparison's unit (see
	// Admission): under the default, CompareEither, and CompareEitherQuery
	// a share of what the item meets (0.1 admits an item reaching nine
	// tenths of the best stretch's score or of the heaviest term's
	// weight); BM25 score under CompareStretch and the window forms; a
	// share of the query's weight (0 to 1) under CompareCoverage,
	// CompareGain, CompareHeaviestTerm and CompareContextTerm;
	// the Retriever's score with one. Zero admits an item only when it
	// outscores what it is compared against; a negative margin asks more
	// of it, and +Inf admits every item that matches the query at all,
	// but for those the either forms hold back as Covered
	// (Admission.Covered).
	ExternalMargin float64

	// ExternalCompare is what an outside item is compared against; the
	// zero value, CompareEither, is the default. With a Retriever, items
	// are always compared against the best stretch.
	ExternalCompare Comparison

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
	if o.ExternalCompare < CompareEither || o.ExternalCompare > lastComparison {
		o.ExternalCompare = CompareEither
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
	// the previous turn. Zero when never known. A Memory keeps the wall
	// clock and the location, not a monotonic clock reading, as ToJSON
	// does.
	Time time.Time
	// Redacted is set on the placeholder Redact leaves.
	Redacted bool
	// Standing marks a user's turn as a standing instruction or preference,
	// or keeps it from being one; the zero value lets byheart recognize it
	// (see Standing). Turn returns it as it was given.
	Standing Standing
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
	// Expires, when not zero, is when the turn stops being true (a
	// one-time code, a price a tool reported, a hold on a booking): from
	// then on its words reach no context (see the package comment). Zero
	// means never. It is kept, saved and returned as given.
	Expires time.Time
}

// turnsGrowFrom is how many turns a conversation holds before its turns
// grow by an eighth at a time (see AppendTurn); below it, append's doubling
// costs little.
const turnsGrowFrom = 4096

// redactedText is what a redacted turn says from then on.
const redactedText = "[redacted]"

// turn is a Turn with what the Memory derives from it at ingest. A long
// conversation is mostly its turns, so the record is packed into 56 bytes:
// the role and the flags in a byte each, sizes in ten, the time in sixteen,
// and behind one pointer, nil for most turns, what few need: an agent
// turn's own fields, the text with its dates resolved, sizes too large for
// the record and a time whose location the conversation has no room left
// to number. The user's and the assistant's turns, which have none of
// them, pay eight bytes for them.
type turn struct {
	Text string
	// sec and nsec are the turn's time as seconds since the start of year
	// 1 and nanoseconds, both 0 for none, and zone its location in the
	// conversation's zones: 16 bytes where a time.Time takes 24 (see
	// conversation.timeOf). A turn whose location the table has no room
	// for has flagBigTime set and keeps its time in more.
	sec  int64
	more *turnMore // nil unless the turn is an agent's, has dates resolved or sizes or a zone too large for the record
	// The turn's sizes in the budget's unit, as its own message part and
	// as a line of the memory block, guarded, and of the date line that
	// may stand above it; runes counts the characters of shown. native
	// and line are kept as their differences from runes, which are small
	// (a guard, a role's label, a token count a little under the
	// characters): a turn whose sizes do not fit has flagBigSizes set and
	// keeps them in more (see setSizes).
	runes        uint32
	native, line int16
	date         uint16
	role         roleCode
	flags        turnFlags
	// waiting counts the tool calls of the current step, up to and
	// including this turn, that no result has answered yet (see
	// AppendTurn): a stretch may start after a turn only when it is zero.
	waiting int32
	nsec    int32
	zone    uint16
}

// turnFlags are a turn's yes-or-no facts, a bit each.
type turnFlags uint8

const (
	// flagRedacted is set on the placeholder Redact leaves.
	flagRedacted turnFlags = 1 << iota
	// flagQuoted: a guard opens some line of shown, natively or in the
	// memory block (see guardNative and guardBlock).
	flagQuoted
	// flagHidden is set on a quarantined turn (see Options.Unverified):
	// kept verbatim, but neither indexed nor shown.
	flagHidden
	// flagExpired is set on a turn past its Turn.Expires by the clock of
	// the latest call (see expire): kept verbatim, but indexed and shown
	// as expiredText.
	flagExpired
	// flagBigSizes: the turn's sizes are in more.big.
	flagBigSizes
	// flagBigTime: the turn's time is in more.at.
	flagBigTime
	// flagStanding is set on a turn that stands (see Standing): one the
	// application marked StandingYes, or a user's turn it left to byheart
	// that holds a standing instruction or preference.
	flagStanding
	// flagMarked: the application marked the turn (StandingYes or
	// StandingNo), and flagStanding says which.
	flagMarked
)

func (tt *turn) redacted() bool { return tt.flags&flagRedacted != 0 }
func (tt *turn) quoted() bool   { return tt.flags&flagQuoted != 0 }
func (tt *turn) hidden() bool   { return tt.flags&flagHidden != 0 }
func (tt *turn) expired() bool  { return tt.flags&flagExpired != 0 }

// set sets or clears flag f.
func (tt *turn) set(f turnFlags, on bool) {
	if on {
		tt.flags |= f
	} else {
		tt.flags &^= f
	}
}

// turnMore is what only some turns hold.
type turnMore struct {
	agentFields        // an agent turn's; zero for the others
	dated       string // Text with resolved dates beside it; "" when it has none
	big         *bigSizes
	at          time.Time // the turn's time, when flagBigTime is set
}

// bigSizes are a turn's sizes when they do not fit its record.
type bigSizes struct{ native, line, runes, date int }

// agent returns an agent turn's own fields; nil for a turn that holds
// none.
func (tt *turn) agent() *agentFields {
	if tt.more == nil {
		return nil
	}
	return &tt.more.agentFields
}

// extra returns tt.more, made first if the turn has none.
func (tt *turn) extra() *turnMore {
	if tt.more == nil {
		tt.more = &turnMore{}
	}
	return tt.more
}

// shown is the turn's text with resolved dates beside it, or expiredText
// once it has expired: what is indexed and rendered.
func (tt *turn) shown() string {
	if tt.expired() {
		return expiredText
	}
	if tt.more != nil && tt.more.dated != "" {
		return tt.more.dated
	}
	return tt.Text
}

// setSizes records the turn's sizes (see turn.runes).
func (tt *turn) setSizes(native, line, runes, date int) {
	dn, dl := native-runes, line-runes
	if runes > math.MaxUint32 || date > math.MaxUint16 || dn != int(int16(dn)) || dl != int(int16(dl)) {
		tt.extra().big = &bigSizes{native, line, runes, date}
		tt.set(flagBigSizes, true)
		return
	}
	tt.runes, tt.native, tt.line, tt.date = uint32(runes), int16(dn), int16(dl), uint16(date)
}

// nativeSize is the size of the turn as its own message part.
func (tt *turn) nativeSize() int {
	if tt.flags&flagBigSizes != 0 {
		return tt.more.big.native
	}
	return int(tt.runes) + int(tt.native)
}

// lineLen is the size of the turn as a line of the memory block.
func (tt *turn) lineLen() int {
	if tt.flags&flagBigSizes != 0 {
		return tt.more.big.line
	}
	return int(tt.runes) + int(tt.line)
}

// runeCount is the characters of shown.
func (tt *turn) runeCount() int {
	if tt.flags&flagBigSizes != 0 {
		return tt.more.big.runes
	}
	return int(tt.runes)
}

// dateSize is the size of the date line that may stand above the turn.
func (tt *turn) dateSize() int {
	if tt.flags&flagBigSizes != 0 {
		return tt.more.big.date
	}
	return int(tt.date)
}

// Role is who said the turn.
func (tt *turn) Role() Role { return roles[tt.role] }

// maxZones is how many locations a conversation's zones hold: a turn keeps
// its index in 16 bits, and 0 stands for UTC.
const maxZones = math.MaxUint16

// turnZones are the locations of a conversation's turn times, each once, so
// that a turn keeps its time's in two bytes. A conversation's turns are
// nearly always in one or two.
type turnZones struct {
	mu   sync.Mutex                // a load derives turns on several goroutines
	locs []*time.Location          // by index less one
	of   map[*time.Location]uint16 // the index of each
}

// setTime records when as the turn's time (see turn.sec).
func (c *conversation) setTime(tt *turn, when time.Time) {
	tt.sec, tt.nsec = when.Unix()+sinceYear1, int32(when.Nanosecond())
	loc := when.Location()
	if loc == time.UTC {
		return
	}
	if c.zones == nil {
		c.zones = &turnZones{of: map[*time.Location]uint16{}}
	}
	z := c.zones
	z.mu.Lock()
	defer z.mu.Unlock()
	k, ok := z.of[loc]
	if !ok && len(z.locs) < maxZones {
		z.locs = append(z.locs, loc)
		k, ok = uint16(len(z.locs)), true
		z.of[loc] = k
	}
	if !ok {
		tt.extra().at = when
		tt.set(flagBigTime, true)
		return
	}
	tt.zone = k
}

// timeOf returns the turn's time, in its location.
func (c *conversation) timeOf(tt *turn) time.Time {
	if tt.flags&flagBigTime != 0 {
		return tt.more.at
	}
	t := time.Unix(tt.sec-sinceYear1, int64(tt.nsec))
	if tt.zone == 0 {
		return t.UTC()
	}
	return t.In(c.zones.locs[tt.zone-1])
}

// timed reports whether the turn has a time.
func (tt *turn) timed() bool {
	if tt.flags&flagBigTime != 0 {
		return !tt.more.at.IsZero()
	}
	return tt.sec != 0 || tt.nsec != 0
}

// elapsed returns the time from turn a's to turn b's, as time.Sub gives
// it, and whether both have a time. It reads the packed times, without
// making either: a ranking asks it of every stretch it weighs.
func (c *conversation) elapsed(a, b int) (time.Duration, bool) {
	ps, pn := c.turns[a].instant()
	qs, qn := c.turns[b].instant()
	if ps == 0 && pn == 0 || qs == 0 && qn == 0 {
		return 0, false
	}
	const lim = math.MaxInt64/int64(time.Second) - 1
	switch ds := qs - ps; {
	case ds > lim:
		return math.MaxInt64, true
	case ds < -lim:
		return math.MinInt64, true
	default:
		return time.Duration(ds)*time.Second + time.Duration(qn-pn), true
	}
}

// instant is the turn's time as seconds since the start of year 1 and
// nanoseconds, both 0 for none.
func (tt *turn) instant() (int64, int32) {
	if tt.flags&flagBigTime != 0 {
		if at := tt.more.at; !at.IsZero() {
			return at.Unix() + sinceYear1, int32(at.Nanosecond())
		}
		return 0, 0
	}
	return tt.sec, tt.nsec
}

// when returns turn i's time.
func (c *conversation) when(i int) time.Time { return c.timeOf(&c.turns[i]) }

// roleCode is a Role in a byte: its place in roles.
type roleCode uint8

// roles are the roles by code; code 0 is no role.
var roles = [...]Role{"", User, Assistant, ToolCall, ToolResult, Note}

// codeOf returns r's code, 0 for a role that is not one of the five.
func codeOf(r Role) roleCode {
	for i, x := range roles[1:] {
		if x == r {
			return roleCode(i + 1)
		}
	}
	return 0
}

// agentFields are what only an agent turn holds.
type agentFields struct {
	Tool, CallID string
	Source       Source
}

// public returns turn i as Turn gives it.
func (c *conversation) public(i int) Turn {
	t := c.bare(&c.turns[i])
	t.Expires = c.expiryOf(i)
	return t
}

// bare returns the turn as Turn gives it, less its expiry, which the
// conversation holds by turn.
func (c *conversation) bare(tt *turn) Turn {
	t := Turn{Role: tt.Role(), Text: tt.Text, Time: c.timeOf(tt), Redacted: tt.redacted(), Standing: tt.mark()}
	if a := tt.agent(); a != nil {
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
	// exp holds Turn.Expires for the few turns that have one, so the
	// many that do not pay nothing for it; nil while none has.
	exp *expiries
	// zones are the turns' locations but UTC; nil while none has one.
	zones *turnZones
	// stand lists the turns marked or recognized standing among the first
	// standScan (see standingTurns).
	stand     []int32
	standScan int
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
	long         bool       // derived: a turn as long as a stretch was ever appended (see floorOf)
	dropped      Rebuild    // why sel was dropped, if it was, for the next rebuild to report
	calls        calls      // derived: the newest step's waiting calls
	called       time.Time  // when the last call was asked (ComposeAt), zero if it did not say
	judged       time.Time  // the clock turns' expiries were last judged by (see expire)
	redactions   []int      // the turns Redact redacted, in order, for a stored copy to erase (Redactions)
	scratch                 // working space for one call
}

// scratch is a Memory's working space for one call: buffers kept only for
// their capacity.
type scratch struct {
	heap   []hit     // ordering hits
	mark   []bool    // spreading scores, by stretch
	spread []int     // candidates of bestSpread
	answer []hit     // bestSpread's last answer (see searched)
	top    []hit     // the best texts of a query scored whole (see bestScored)
	stream []hit     // a fill's candidates (see picker)
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
	return m.public(i), nil
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
// offset of a day or more) is ErrTime, for Turn.Time and Turn.Expires alike. It returns the turn's index; on error
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
	if err := checkTimes(t); err != nil {
		return -1, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.turns)
	if when.IsZero() && n > 0 {
		t.Time = m.when(n - 1)
	}
	x, err := m.accept(t)
	if err != nil {
		return -1, err
	}
	if len(m.str) > 0 && splitsBefore(&m.turns[n-1], t.Role) && (m.open >= m.opt.Chunk || m.pause(when) || m.open > 0 && x.runeCount() >= m.opt.Chunk) {
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
	if n := len(m.turns); n == cap(m.turns) && n >= turnsGrowFrom {
		// A long conversation is mostly its turns, and a server holds many:
		// growing them by an eighth, where append grows a large slice by a
		// quarter, keeps the room they hold unused under an eighth, for a
		// copy of the turns every eighth of their number.
		m.turns = append(make([]turn, 0, n+n/8), m.turns...)
	}
	m.turns = append(m.turns, x)
	m.long = m.long || x.runeCount() >= m.opt.Chunk
	m.setExpiry(n, t.Expires)
	last := &m.str[len(m.str)-1]
	m.pieces(n, n+1, last.start)(m.ix.addOpen)
	last.size += m.lineCost(last.start, n)
	m.open += x.runeCount()
	m.total += x.nativeSize()
	return n, nil
}

// pause reports whether a turn said at when comes after a pause long enough
// to end a sitting: a new sitting starts a new stretch, whatever its size.
func (m *state) pause(when time.Time) bool {
	n := len(m.turns)
	if n == 0 || when.IsZero() || !m.turns[n-1].timed() {
		return false
	}
	return when.Sub(m.when(n-1)) >= m.tune.sessionGap
}

// checkTimes refuses a turn whose time or expiry ToJSON could not save.
func checkTimes(t Turn) error {
	for _, when := range [2]time.Time{t.Time, t.Expires} {
		if when.IsZero() {
			continue
		}
		var buf [len(timeLayoutSeconds)]byte
		if _, err := appendTime(buf[:0], when); err != nil {
			return err
		}
	}
	return nil
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
// door; waiting is the step's count of unanswered calls after it. A turn
// is judged as it comes by the clock the turns were last judged by (see
// expire), so that every turn is always shown as that clock has it: a
// turn appended since the last call and one restored from a save are in
// the same state, and the next call changes the same turns in both.
func (m *state) makeTurn(t Turn, waiting int32) turn {
	return m.derive(t, waiting, !t.Redacted && expiredBy(t.Expires, m.judged))
}

// derive is makeTurn for a turn that may have expired: one that has is
// shown, indexed and sized as expiredText, and keeps its words only as
// they were said.
func (m *state) derive(t Turn, waiting int32, expired bool) turn {
	x := turn{Text: t.Text, role: codeOf(t.Role), waiting: waiting}
	if t.Role.agent() {
		x.more = &turnMore{agentFields: agentFields{Tool: t.Tool, CallID: t.CallID, Source: t.Source}}
	}
	m.setTime(&x, t.Time)
	x.set(flagRedacted, t.Redacted)
	x.set(flagExpired, expired)
	x.set(flagHidden, m.opt.Unverified == Quarantine && !t.Redacted && !expired && t.Role.framed() && !t.Source.Authenticated)
	x.markStanding(t)
	if !expired && !t.Redacted && !t.Time.IsZero() {
		if dated := Annotate(t.Text, t.Time); dated != t.Text {
			x.extra().dated = dated
		}
	}
	runes := countRunes(x.shown())
	var native, line int
	z := &m.meter
	switch {
	case t.Role.agent() && z.f != nil:
		native, line = z.size(nativeTool(&x)), z.size(entryOf(&x))
	case t.Role.agent():
		var n, l runeCount
		writeNative(&n, &x)
		writeEntry(&l, &x)
		native, line = int(n), int(l)
	case z.f != nil:
		alone, inBlock := guardNative(x.shown()), guardBlock(x.shown())
		x.set(flagQuoted, len(alone) != len(x.shown()) || len(inBlock) != len(x.shown()))
		native, line = z.size(alone), z.size(lineText(t.Role, inBlock))
	default:
		alone, inBlock := guardNative(x.shown()), guardBlock(x.shown())
		x.set(flagQuoted, len(alone) != len(x.shown()) || len(inBlock) != len(x.shown()))
		native = runes + len(alone) - len(x.shown()) // the guard adds ASCII only
		line = lineSize(t.Role, inBlock)
	}
	date := dateSize(t.Time)
	if z.f != nil {
		date = min(z.size(dateLine(t.Time)), unmeasured)
	}
	x.setSizes(native, line, runes, date)
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
		tail[i] = m.public(start + i)
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
			if tt.timed() && (t == start || c.newDay(t)) {
				yield(dateLine(c.timeOf(tt)) + tt.indexed())
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
	if old.redacted() {
		return nil
	}
	placeholder := Turn{Role: old.Role(), Text: redactedText, Time: m.when(i), Redacted: true}
	if a := old.agent(); a != nil {
		placeholder.Tool, placeholder.CallID = a.Tool, a.CallID
	}
	m.replaceTurn(i, m.makeTurn(placeholder, old.waiting))
	m.redactions = append(m.redactions, i)
	// The words must go even if the measure fails on the placeholder,
	// which is then never sent (see unmeasured): the failure is reported
	// once the redaction is done.
	failed := m.meter.take()
	if m.sel != nil {
		m.sel, m.dropped = nil, RebuildRedacted
	}
	if failed != nil {
		return fmt.Errorf("byheart: turn %d is redacted, but its placeholder could not be measured and is left out of the context: %w", i, failed)
	}
	return nil
}

// replaceTurn puts x in turn i's place, where a turn with other words
// was, and brings what is derived from the words up to date (see
// rederive). The kept selection is the caller's to drop.
func (m *state) replaceTurn(i int, x turn) {
	m.putTurn(i, x)
	m.ix.sweep(m.rederive(m.stretchOf(i), nil))
}

// putTurn puts x in turn i's place, where a turn with other words was;
// what is derived from its stretch's words is the caller's to bring up to
// date, once for all the turns it changed there.
func (m *state) putTurn(i int, x turn) {
	m.total += x.nativeSize() - m.turns[i].nativeSize()
	m.turns[i] = x
}

// rederive brings what is derived from stretch s's words up to date after
// turns in it changed: its size, its index entry and the texts a
// Retriever sees. It appends to gone the index slot its old text left
// empty, if it did, for the caller to sweep (index.sweep) once for all
// the stretches it rederives.
func (m *state) rederive(s int, gone []int32) []int32 {
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
		if m.ix.unhold(m.str[s].slot, int32(s)) {
			gone = append(gone, m.str[s].slot)
		}
		m.str[s].slot = slot
	}
	m.texts = nil
	return gone
}

// Redactions returns the turns Redact has redacted in m, from the from-th
// redaction on, in the order it redacted them, so that a store's copy of a
// conversation erases at its next save what was redacted on its Memory.
func (m *Memory) Redactions(from int) []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if from < 0 || from >= len(m.redactions) {
		return nil
	}
	return append([]int(nil), m.redactions[from:]...)
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
	var gone []int32
	for _, s := range old {
		if s.slot >= 0 && m.ix.unhold(s.slot, -1) {
			gone = append(gone, s.slot)
		}
	}
	m.ix.sweep(gone)
	m.texts = nil
}

// cutStretches appends the stretches that start at starts (ascending, after
// every stretch m.str holds) to m.str, the last one open and running to the
// newest turn: the closed ones are indexed, the open one's terms counted,
// from pre when their texts were tokenized ahead (see tokenizeAhead). The
// index holds no open stretch.
func (m *state) cutStretches(starts []int, pre *ahead) {
	if len(starts) > 1 {
		// A text holds a distinct term for every eight bytes or so.
		text := 0
		for t := starts[0]; t < len(m.turns); t++ {
			text += len(m.turns[t].shown())
		}
		m.ix.startBulk(len(starts), text/8)
		defer m.ix.endBulk()
	}
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
		n += c.turns[t].runeCount()
	}
	return n
}
