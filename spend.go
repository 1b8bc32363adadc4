package byheart

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// PartKind says what a part of a composition holds, so an adapter can
// treat byheart's own parts apart from the conversation's turns.
type PartKind uint8

// The kinds of part. The zero value is a turn, so a Part built by hand is
// one.
const (
	// PartTurn is a turn of the conversation sent as its own part.
	PartTurn PartKind = iota
	// PartMemory is the memory block: stretches of the conversation
	// quoted when it is over the budget.
	PartMemory
	// PartRecalled is a memory part of what the query needed beyond the
	// kept context, past the breakpoint (see Result.Recalled).
	PartRecalled
	// PartOutside is outside material (see Options.External).
	PartOutside
	// PartQuery is the query given to Compose.
	PartQuery
	partKinds
)

var partKindNames = [partKinds]string{"turn", "memory", "recalled", "outside", "query"}

// String returns the kind's name, as JSON writes it.
func (k PartKind) String() string {
	if k < partKinds {
		return partKindNames[k]
	}
	return fmt.Sprintf("PartKind(%d)", uint8(k))
}

// MarshalText writes the kind's name.
func (k PartKind) MarshalText() ([]byte, error) {
	if k >= partKinds {
		return nil, fmt.Errorf("byheart: unknown part kind %d", uint8(k))
	}
	return []byte(partKindNames[k]), nil
}

// UnmarshalText reads a kind's name.
func (k *PartKind) UnmarshalText(b []byte) error {
	for i, name := range partKindNames {
		if string(b) == name {
			*k = PartKind(i)
			return nil
		}
	}
	return fmt.Errorf("byheart: unknown part kind %q", b)
}

// Spend is what a composition spent, by kind of part, in the budget's unit
// (characters, or Options.Measure's). Each memory part and outside
// material counts its framing. The sizes are those the budget was kept
// with: a turn as it was measured when appended, a memory part as the sum
// of its lines. For characters they are the parts' exact sizes; for a
// measure that meets the contract of Options.Measure, each is at least
// the measure of its part.
type Spend struct {
	Memory   int `json:"memory"`   // the memory block
	Recalled int `json:"recalled"` // the memory part recalled past a kept context
	Turns    int `json:"turns"`    // turns sent as their own parts
	Outside  int `json:"outside"`  // outside material
	Query    int `json:"query"`    // the query, which the budget does not count
}

// Total is what counts against the budget: everything but the query. It
// never exceeds Options.Budget.
func (s Spend) Total() int { return s.Memory + s.Recalled + s.Turns + s.Outside }

// add counts size against kind.
func (s *Spend) add(kind PartKind, size int) {
	switch kind {
	case PartTurn:
		s.Turns += size
	case PartMemory:
		s.Memory += size
	case PartRecalled:
		s.Recalled += size
	case PartOutside:
		s.Outside += size
	case PartQuery:
		s.Query += size
	}
}

// Rebuild says why a composition rebuilt the context the previous call
// sent (see Result.Rebuild); "" when it rebuilt nothing.
type Rebuild string

// The reasons for a rebuild of the selection.
const (
	// RebuildFirst: there was no kept context, because the conversation
	// has just outgrown the budget or no call had composed over it yet.
	RebuildFirst Rebuild = "first"
	// RebuildFresh: Options.Stability is negative, so every call selects
	// afresh.
	RebuildFresh Rebuild = "fresh"
	// RebuildRedacted: a Redact dropped the kept context.
	RebuildRedacted Rebuild = "redacted"
	// RebuildTurnExpired: the kept context showed a turn that has expired
	// since (see Turn.Expires), or one that a call with an earlier clock
	// shows again, so it no longer says what the turn now says.
	RebuildTurnExpired Rebuild = "turn-expired"
	// RebuildRestored: the selection saved with a restored memory (FromJSON,
	// Apply) did not match its turns and boundaries and was dropped.
	RebuildRestored Rebuild = "restored"
	// RebuildStale: the kept context quotes stretches whose boundaries
	// have changed since (a Boundaries hook, a store's changes).
	RebuildStale Rebuild = "stale"
	// RebuildStep: the newest step of an agent is over the budget, so its
	// turns are cut to share it and the context is made afresh each call.
	RebuildStep Rebuild = "step"
	// RebuildOverBudget: the kept context with the turns appended since
	// has outgrown the budget.
	RebuildOverBudget Rebuild = "over-budget"
	// RebuildWeaker: the kept context served the query less well than a
	// fresh selection would (see Options.Stability), and Options.Recall is
	// negative, so nothing is recalled.
	RebuildWeaker Rebuild = "weaker"
	// RebuildNoRoom: the kept context lacked the query's best stretch and
	// the stretches it lacked for the query did not all fit in what it left
	// of the budget to recall them in, or
	// the query's best stretch is too long for that room and the context
	// lacked the part of it that matches.
	RebuildNoRoom Rebuild = "no-room"
	// RebuildExpired: the newest turn came at least five minutes after the
	// one before it, or the query (Memory.ComposeAt) that long after the
	// newest turn and the previous query, so a provider has dropped the
	// kept context from its prompt cache: keeping it would buy nothing and
	// write it whole again, so a rebuild picks for the query at hand and
	// leaves the new sitting room to grow. A conversation without times
	// never causes it.
	RebuildExpired Rebuild = "expired"
)

// logCall writes one Debug line about a composition to lg.
func logCall(ctx context.Context, lg *slog.Logger, cont bool, r *Result, err error, took time.Duration) {
	if !lg.Enabled(ctx, slog.LevelDebug) {
		return
	}
	call := "compose"
	if cont {
		call = "continue"
	}
	parts := 0
	for _, msg := range r.Messages {
		parts += len(msg.Parts)
	}
	attrs := []slog.Attr{
		slog.String("call", call),
		slog.Int("parts", parts),
		slog.Int("spent", r.Spent.Total()),
		slog.Int("memory", r.Spent.Memory),
		slog.Int("recalled", r.Spent.Recalled),
		slog.Int("turns", r.Spent.Turns),
		slog.Int("outside", r.Spent.Outside),
		slog.Int("query", r.Spent.Query),
		slog.Bool("reselected", r.Reselected()),
		slog.Duration("took", took),
	}
	if r.Rebuild != "" {
		attrs = append(attrs, slog.String("rebuild", string(r.Rebuild)))
	}
	if len(r.Recalled) > 0 {
		attrs = append(attrs, slog.Int("stretches_recalled", len(r.Recalled)))
	}
	if r.ExternalErr != nil {
		attrs = append(attrs, slog.String("external_error", r.ExternalErr.Error()))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	lg.LogAttrs(ctx, slog.LevelDebug, "byheart composed", attrs...)
}
