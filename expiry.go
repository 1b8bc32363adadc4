package byheart

import (
	"index/suffixarray"
	"slices"
	"sort"
	"time"
)

// Expiry: a turn whose Turn.Expires has come is kept verbatim but sent as
// expiredText wherever it would stand, so its place, its role and its
// pairing with a call or a result stay as they were and no index shifts.
// Whether it has come is judged at each call by the call's clock (see
// clock), and a turn appended between calls by the last call's, which a
// save keeps with its kept selection: every turn is always shown as the
// last clock has it, so a restored memory is in the state of the original
// and its next call changes the same turns, for the same reasons.

// expiredText is what an expired turn says in every context.
const expiredText = "[expired]"

// expiries are the turns that have an expiry: by turn, for the turn's
// own fields, and in order of expiry, so that a call judges only the
// turns its clock has moved past since the last call's, not every one.
type expiries struct {
	at    map[int]time.Time
	order []expiry // by time, then turn, unless unsorted
	// lapsed is how many of order the clock last judged by has expired.
	lapsed int
	// fresh are the turns added since, judged one by one; unsorted says
	// one came out of order, so the next call sorts and judges them all.
	fresh    []int
	unsorted bool
}

// expiry is one turn's expiry.
type expiry struct {
	at   time.Time
	turn int
}

// before orders expiries by time, then turn.
func (e expiry) before(f expiry) bool {
	return e.at.Before(f.at) || e.at.Equal(f.at) && e.turn < f.turn
}

// setExpiry records turn i's expiry; a zero one is none.
func (c *conversation) setExpiry(i int, at time.Time) {
	if at.IsZero() {
		return
	}
	if c.exp == nil {
		c.exp = &expiries{at: map[int]time.Time{}}
	}
	x := c.exp
	x.at[i] = at
	e := expiry{at, i}
	if n := len(x.order); n > 0 && e.before(x.order[n-1]) {
		x.unsorted = true
	}
	x.order = append(x.order, e)
	x.fresh = append(x.fresh, i)
}

// expiryOf is turn i's expiry; zero for none.
func (c *conversation) expiryOf(i int) time.Time {
	if c.exp == nil {
		return time.Time{}
	}
	return c.exp.at[i]
}

// forgetExpiries forgets the expiries of turns from on, which a failed
// Apply takes back.
func (c *conversation) forgetExpiries(from int) {
	x := c.exp
	if x == nil {
		return
	}
	for i := range x.at {
		if i >= from {
			delete(x.at, i)
		}
	}
	if len(x.at) == 0 {
		c.exp = nil
		return
	}
	for _, e := range x.order[:x.lapsed] {
		if e.turn >= from {
			x.lapsed--
		}
	}
	x.order = slices.DeleteFunc(x.order, func(e expiry) bool { return e.turn >= from })
	x.fresh = slices.DeleteFunc(x.fresh, func(i int) bool { return i >= from })
}

// clock is the time a call judges expiry by: when, the time ComposeAt or
// ContinueAt was given, or the newest turn's time if that is later or the
// call gave none; zero, which expires nothing, when neither is known.
func (m *state) clock(when time.Time) time.Time {
	if n := len(m.turns); n > 0 && m.when(n-1).After(when) {
		return m.when(n - 1)
	}
	return when
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
// RebuildTurnExpired. A redacted turn has no words left to expire. It
// costs the turns that change, a search of the expiries in order, and
// indexing each stretch that holds one of them again, once.
func (m *state) expire(now time.Time) {
	m.judged = now
	x := m.exp
	if x == nil {
		return
	}
	var changed []int
	judge := func(i int, expired bool) {
		if m.judge(i, expired) {
			changed = append(changed, i)
		}
	}
	k := 0
	if !now.IsZero() {
		k = sort.Search(len(x.order), func(j int) bool { return x.order[j].at.After(now) })
	}
	if x.unsorted {
		slices.SortFunc(x.order, func(e, f expiry) int {
			if e.before(f) {
				return -1
			}
			return 1
		})
		k = sort.Search(len(x.order), func(j int) bool { return now.IsZero() || x.order[j].at.After(now) })
		for j, e := range x.order {
			judge(e.turn, j < k)
		}
		x.unsorted = false
	} else {
		for j := min(k, x.lapsed); j < max(k, x.lapsed); j++ {
			judge(x.order[j].turn, j < k)
		}
		for _, i := range x.fresh {
			judge(i, expiredBy(x.at[i], now))
		}
	}
	x.lapsed, x.fresh = k, x.fresh[:0]
	slices.Sort(changed)
	last := -1
	var gone []int32
	for _, i := range changed {
		if s := m.stretchOf(i); s != last {
			gone = m.rederive(s, gone)
			last = s
		}
		if m.sel != nil && m.sel.covers(i) {
			m.drop(RebuildTurnExpired)
		}
	}
	m.ix.sweep(gone)
}

// expiredBy reports whether a turn that expires at expires has expired by
// the clock now: at or after it, when neither is zero.
func expiredBy(expires, now time.Time) bool {
	return !expires.IsZero() && !now.IsZero() && !expires.After(now)
}

// judge shows turn i as expired or as said, and reports whether that
// changed it; its stretch is the caller's to rederive.
func (m *state) judge(i int, expired bool) bool {
	tt := &m.turns[i]
	if tt.redacted() || expired == tt.expired() {
		return false
	}
	m.putTurn(i, m.derive(m.bare(tt), tt.waiting, expired))
	return true
}

// withoutExpired drops the outside items that quote an expired turn's
// words whole (a source that indexes the conversation would bring them
// back), with their indices in from, so that every Admission still names
// its item as the source gave it; it reuses the storage of both. The items
// are indexed once, end to end, and each expired text looked up in them,
// so the work grows with the items' length plus the expired turns', times
// a logarithm, rather than with their product.
func (m *state) withoutExpired(items []Item, from []int) ([]Item, []int) {
	if len(items) == 0 || m.exp == nil || m.exp.lapsed == 0 {
		return items, from
	}
	// Each item ends in a byte no UTF-8 text holds, so no turn's text
	// (valid UTF-8, as AppendTurn checks) matches across two of them.
	size := 0
	for _, it := range items {
		size += len(it.Text) + 1
	}
	all := make([]byte, 0, size)
	starts := make([]int, len(items))
	for i, it := range items {
		starts[i] = len(all)
		all = append(append(all, it.Text...), 0xff)
	}
	ix := suffixarray.New(all)
	drop := make([]bool, len(items))
	looked := map[string]bool{}
	var text []byte
	for _, e := range m.exp.order[:m.exp.lapsed] {
		tt := &m.turns[e.turn]
		if !tt.expired() || looked[tt.Text] {
			continue
		}
		looked[tt.Text] = true
		text = append(text[:0], tt.Text...)
		for _, at := range ix.Lookup(text, -1) {
			drop[sort.SearchInts(starts, at+1)-1] = true
		}
	}
	k := 0
	for i, it := range items {
		if !drop[i] {
			items[k], from[k] = it, from[i]
			k++
		}
	}
	return items[:k], from[:k]
}
