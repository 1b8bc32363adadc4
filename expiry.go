package byheart

import (
	"slices"
	"strings"
	"time"
)

// Expiry: a turn whose Turn.Expires has come is kept verbatim but sent as
// expiredText wherever it would stand, so its place, its role and its
// pairing with a call or a result stay as they were and no index shifts.
// Whether it has come is judged at each call by the call's clock (see
// clock), so it is a function of the turns and the call alone: a restored
// memory judges as the original would.

// expiredText is what an expired turn says in every context.
const expiredText = "[expired]"

// setExpiry records turn i's expiry; a zero one is none.
func (c *conversation) setExpiry(i int, at time.Time) {
	if at.IsZero() {
		return
	}
	if c.expiries == nil {
		c.expiries = map[int]time.Time{}
	}
	c.expiries[i] = at
}

// clock is the time a call judges expiry by: when its query was asked
// (ComposeAt), or the newest turn's time if that is later or the call did
// not say; zero, which expires nothing, when neither is known.
func (m *state) clock() time.Time {
	now := m.asked
	if n := len(m.turns); n > 0 && m.turns[n-1].Time.After(now) {
		now = m.turns[n-1].Time
	}
	return now
}

// lastSaved is the latest time ToJSON can write.
var lastSaved = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)

// savedClock is the clock a kept log was composed by as ToJSON writes it:
// in UTC, whatever zone ComposeAt was given it in, and a clock past what
// a save holds as the last time it does, which judges every expiry as it
// did; nil for none, or for one before year 0, which expires nothing a
// save can hold either.
func savedClock(now time.Time) *savedTime {
	now = now.UTC()
	switch {
	case now.IsZero() || now.Year() < 0:
		return nil
	case now.After(lastSaved):
		now = lastSaved
	}
	return (*savedTime)(&now)
}

// expire brings every turn with an expiry in line with now: a turn whose
// expiry is at or before now is shown as expired, any other as said (a
// call with an earlier clock than the last one's may show a turn again).
// A kept log that showed a turn it changed no longer says what the turn
// says, so it is dropped, for the next rebuild to report
// RebuildTurnExpired. A redacted turn has no words left to expire.
func (m *state) expire(now time.Time) {
	m.judged = now
	if len(m.expiries) == 0 {
		return
	}
	turns := make([]int, 0, len(m.expiries))
	for i := range m.expiries {
		turns = append(turns, i)
	}
	slices.Sort(turns) // so the index takes its changes in one order
	for _, i := range turns {
		tt := &m.turns[i]
		if tt.Redacted {
			continue
		}
		expired := !now.IsZero() && !m.expiries[i].After(now)
		if expired == tt.expired {
			continue
		}
		m.replaceTurn(i, m.derive(tt.public(), tt.waiting, expired))
		if m.sel != nil && m.sel.covers(i) {
			m.drop(RebuildTurnExpired)
		}
	}
}

// withoutExpired drops the outside items that quote an expired turn's
// words whole (a source that indexes the conversation would bring them
// back), reusing items' storage.
func (m *state) withoutExpired(items []Item) []Item {
	var gone []string
	for i := range m.expiries {
		if tt := &m.turns[i]; tt.expired {
			gone = append(gone, tt.Text)
		}
	}
	if len(gone) == 0 {
		return items
	}
	return slices.DeleteFunc(items, func(it Item) bool {
		return slices.ContainsFunc(gone, func(text string) bool { return strings.Contains(it.Text, text) })
	})
}
