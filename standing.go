package byheart

import "fmt"

// Standing says whether a turn is one of the user's standing instructions or
// preferences: words that say how later answers should be ("Always include
// version numbers when I ask about libraries", "I prefer minimal
// dependencies"), not only the next one. A question about something else
// hundreds of turns later shares no word with them, so relevance alone
// would never bring them back.
//
// The zero value, StandingAuto, leaves it to byheart: a user's turn stands
// when one of its sentences opens with such an instruction or preference,
// in any of the languages the tokenizer reads, recognized at append time
// with no model call and conservatively (a question, a report of the past,
// or an instruction quoted, reported, or pasted from code or a log is not
// one). Only the user's own turns are ever recognized: an instruction in a
// tool result, a note or an assistant's turn never stands, since whoever
// wrote it is not the user. An application that knows better says so with
// StandingYes or StandingNo, which hold whatever the turn says.
//
// Turn returns the mark as it was given; what byheart recognized is derived
// from the text, again on every load, as a turn's index terms are.
type Standing int8

// The marks a turn may carry.
const (
	// StandingAuto lets byheart recognize a user's standing instruction or
	// preference from the turn's words.
	StandingAuto Standing = iota
	// StandingYes makes a user's turn standing, whatever it says.
	StandingYes
	// StandingNo keeps a turn from standing, whatever it says: a user's
	// message that quotes an instruction meant for someone else, say.
	StandingNo
)

// checkStanding refuses a mark no turn can carry: one outside the three,
// or StandingYes on a turn that is not the user's.
func checkStanding(t Turn) error {
	switch {
	case t.Standing < StandingAuto || t.Standing > StandingNo:
		return fmt.Errorf("%w: standing mark %d", ErrRole, t.Standing)
	case t.Standing == StandingYes && t.Role != User:
		return fmt.Errorf("%w: only a user's turn can be standing, not a %s turn", ErrRole, t.Role)
	}
	return nil
}

// markStanding records on x whether the turn t stands: as the application
// marked it, or, for a user's turn it left to byheart, as recognized. A
// redacted turn has no words to stand by.
func (x *turn) markStanding(t Turn) {
	switch {
	case t.Redacted:
	case t.Standing != StandingAuto:
		x.set(flagMarked, true)
		x.set(flagStanding, t.Standing == StandingYes)
	case t.Role == User:
		x.set(flagStanding, recognizeStanding(t.Text))
	}
}

// standing reports whether the turn stands, as marked or recognized.
func (tt *turn) standing() bool { return tt.flags&flagStanding != 0 }

// mark returns the turn's Standing as the application gave it.
func (tt *turn) mark() Standing {
	switch {
	case tt.flags&flagMarked == 0:
		return StandingAuto
	case tt.standing():
		return StandingYes
	}
	return StandingNo
}

// standingTurns returns the turns that stand, oldest first, leaving out
// those redacted and those expired by the clock expiry was last judged by
// (see expire): the user's instructions and preferences as they hold now.
func (c *conversation) standingTurns() []int {
	var out []int
	for i := range c.turns {
		if tt := &c.turns[i]; tt.standing() && !tt.redacted() && !tt.expired() {
			out = append(out, i)
		}
	}
	return out
}

// markWire is a mark as ToJSON writes it: nil for StandingAuto.
func markWire(s Standing) *bool {
	if s == StandingAuto {
		return nil
	}
	on := s == StandingYes
	return &on
}

// markRead is a mark as FromJSON reads it.
func markRead(on *bool) Standing {
	switch {
	case on == nil:
		return StandingAuto
	case *on:
		return StandingYes
	}
	return StandingNo
}
