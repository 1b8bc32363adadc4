package byheart

import (
	"fmt"
	"sort"
	"strings"
)

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
// The turns that were ever marked or recognized are kept in a list that
// grows with the turns (a turn never comes to stand later), so a call
// reads the few that stand rather than every turn.
func (c *conversation) standingTurns() []int {
	for ; c.standScan < len(c.turns); c.standScan++ {
		if c.turns[c.standScan].standing() {
			c.stand = append(c.stand, int32(c.standScan))
		}
	}
	var out []int
	for _, i := range c.stand {
		if tt := &c.turns[i]; tt.standing() && !tt.redacted() && !tt.expired() {
			out = append(out, int(i))
		}
	}
	return out
}

// standingShown returns the standing turns said before turn upto that a
// memory block shows in its section of standing turns, and how many older
// ones it leaves out: the newest that fit the share tuning.standing of the
// budget, framing included, and what the native turns from upto leave of
// the budget besides the block's own framing.
func (m *state) standingShown(upto int) (shown []int, left int) {
	all := m.standingTurns()
	all = all[:sort.SearchInts(all, upto)]
	if len(all) == 0 {
		return nil, 0
	}
	room := min(int(m.tune.standing*float64(m.opt.Budget)), m.opt.Budget-m.tailCost(upto)-m.meter.memory) - m.meter.standing
	first := len(all)
	for ; first > 0; first-- {
		t := all[first-1]
		cost := m.turns[t].lineLen() + m.turns[t].dateSize()
		if cost > room {
			break
		}
		room -= cost
	}
	return all[first:], first
}

// standingSize is what the section of standing turns takes in a block
// whose native turns start at upto: 0 when it shows none.
func (m *state) standingSize(upto int) int {
	shown, _ := m.standingShown(upto)
	return m.sectionSize(shown)
}

// sectionSize is what a section showing the standing turns shown takes,
// framing included: 0 for none.
func (m *state) sectionSize(shown []int) int {
	if len(shown) == 0 {
		return 0
	}
	size := m.meter.standing
	for i, t := range shown {
		size += m.turns[t].lineLen()
		if i == 0 || m.newDayAfter(shown[i-1], t) {
			size += m.turns[t].dateSize()
		}
	}
	return size
}

// writeStanding writes the section of standing turns shown, the newest
// last, so that a later one changes what an earlier one said, each under
// its day and its speaker as the block quotes a turn, and returns what it
// took.
func (m *state) writeStanding(b *strings.Builder, shown []int) int {
	if len(shown) == 0 {
		return 0
	}
	b.WriteString(standingHeader)
	for i, t := range shown {
		tt := &m.turns[t]
		if i == 0 || m.newDayAfter(shown[i-1], t) {
			b.WriteString(dateLine(m.timeOf(tt)))
		}
		m.writeLine(b, tt)
	}
	b.WriteString(standingFooter)
	return m.sectionSize(shown)
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
