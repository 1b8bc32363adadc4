package byheart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// FormatVersion is the version ToJSON writes. FromJSON reads this version
// and earlier ones and refuses later ones with ErrVersion. Version 2 added
// the stretches recalled into a kept context (a log that keeps them, from an
// earlier rule 3, is dropped on reading), version 3 the agent turns:
// their roles, tools, call ids and sources, version 4 a turn's expiry
// (Turn.Expires), version 5 the application's standing mark (Turn.Standing):
// a library that reads version 4 would read a save with marks as one
// without them and, saving it again, lose them. A save may also say what the next call's Result.Rebuild
// depends on beside the kept selection (why one was dropped, when the
// previous call was asked), so a restored memory gives the reason the live
// one would; a save without it reads as one that says neither.
const FormatVersion = 5

// MaxJSON is the most bytes FromJSON reads; larger input is refused with
// ErrTooLarge before it is parsed.
const MaxJSON = 256 << 20

// Errors returned by FromJSON, besides ErrFormat for malformed data.
var (
	ErrVersion  = errors.New("byheart: memory data from a newer format version")
	ErrTooLarge = fmt.Errorf("byheart: memory data larger than %d bytes", MaxJSON)
)

// wire is the JSON form of a Memory.
type wire struct {
	Version   int        `json:"version"`
	Turns     []wireTurn `json:"turns"`
	Bounds    []int      `json:"bounds"`
	Selection any        `json:"selection,omitempty"` // a *wireKept, or a *wireWhy when none is kept
}

type wireTurn struct {
	Role     Role       `json:"role"`
	Text     string     `json:"text"`
	Time     *savedTime `json:"time,omitempty"`
	Redacted bool       `json:"redacted,omitempty"`
	Agent    *wireAgent `json:"agent,omitempty"`
	Expires  *savedTime `json:"expires,omitempty"`
	// Standing is the application's mark, absent when it left the turn to
	// byheart, which recognizes the turn again on reading.
	Standing *bool `json:"standing,omitempty"`
}

// wireAgent is what an agent turn holds beside its text: an object of its
// own, so a turn without it costs a reader nothing for it.
type wireAgent struct {
	Tool          string `json:"tool,omitempty"`
	CallID        string `json:"call_id,omitempty"`
	Source        string `json:"source,omitempty"`
	Authenticated bool   `json:"authenticated,omitempty"`
}

type wireKept struct {
	Keys []int `json:"keys"`
	Ends []int `json:"ends"`
	Upto int   `json:"upto"`
	// Made is how many turns there were when the block was made; 0, as
	// saves before it was written read, when it is not known.
	Made    int          `json:"made,omitempty"`
	Recalls []wireRecall `json:"recalls,omitempty"`
	// Clock is the time the last call judged expiry by (see expire), when
	// a turn has an expiry: the quotes show the turns as at that time.
	Clock *savedTime `json:"clock,omitempty"`
	wireWhy
}

// wireWhy is what the next rebuild's reason depends on beside the kept
// selection, saved so that a restored memory gives the reason the live one
// would (a redaction, a lapse since the previous call): why the selection
// was dropped, when there is none, and when the previous call was asked
// (ComposeAt). Saves before it read as neither.
type wireWhy struct {
	Dropped Rebuild    `json:"dropped,omitempty"`
	Called  *savedTime `json:"called,omitempty"`
}

type wireRecall struct {
	At   int   `json:"at"`
	Keys []int `json:"keys"`
	Ends []int `json:"ends"`
}

// ToJSON returns the memory as JSON: its turns (a redacted turn only as its
// placeholder), the stretch boundaries and the kept selection, with a format
// version. Options are not saved; pass them again to FromJSON.
func (m *Memory) ToJSON() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := wire{Version: FormatVersion, Turns: make([]wireTurn, len(m.turns)), Bounds: make([]int, len(m.str))}
	var times []time.Time
	for i := range m.turns {
		t := &m.turns[i]
		w.Turns[i] = wireTurn{Role: t.Role(), Text: t.Text, Redacted: t.redacted(), Standing: markWire(t.mark())}
		if a := t.agent(); a != nil && (*a != agentFields{}) {
			w.Turns[i].Agent = &wireAgent{Tool: a.Tool, CallID: a.CallID, Source: a.Source.Name, Authenticated: a.Source.Authenticated}
		}
		if t.timed() {
			if times == nil {
				times = make([]time.Time, len(m.turns)) // what the saved times point at
			}
			times[i] = m.timeOf(t)
			w.Turns[i].Time = (*savedTime)(&times[i])
		}
		if at := m.expiryOf(i); !at.IsZero() {
			w.Turns[i].Expires = (*savedTime)(&at)
		}
	}
	for i, s := range m.str {
		w.Bounds[i] = s.start
	}
	w.Selection = m.keptWire()
	return json.Marshal(w)
}

// keptWire is the kept selection as ToJSON writes it, or only why the next
// call rebuilds when there is none; nil when there is nothing to say.
func (m *state) keptWire() any {
	why := wireWhy{Dropped: m.dropped}
	// Only the instant of the call matters, so it is saved in UTC.
	// ComposeAt takes any time; one outside the years a save holds
	// (0-9999) is left out, and a restored copy judges a lapse from the
	// newest turn alone.
	if called := m.called.UTC(); !called.IsZero() {
		var buf [len(timeLayoutSeconds)]byte
		if _, err := appendTime(buf[:0], called); err == nil {
			why.Called = (*savedTime)(&called)
		}
	}
	sel := m.sel
	if sel == nil {
		if why == (wireWhy{}) {
			return nil
		}
		return &why
	}
	why.Dropped = "" // a kept selection is not dropped
	w := &wireKept{Keys: orEmpty(sel.block.keys), Ends: orEmpty(sel.block.ends), Upto: sel.upto, Made: sel.made, wireWhy: why}
	if m.exp != nil {
		w.Clock = savedClock(m.judged)
	}
	return w
}

// FromJSON restores a Memory written by ToJSON, configured by opts. Turns
// are checked as AppendTurn checks them, and a time must be one ToJSON
// writes (RFC 3339, a year in 0-9999, an offset under a day, which may have
// seconds); boundaries that are out of range (however large), not
// integers, unsorted, repeated or between a tool call and its result are
// dropped, and a kept selection the library could not have made is dropped
// too (the next Compose rebuilds, with Result.Rebuild RebuildRestored),
// since both are derived state that can be repaired: one whose numbers are
// out of range or no longer match the boundaries, whose cut leaves out the
// newest exchange or falls between a call and its result, whose quotes end
// inside a stretch or overlap, or that holds recalls (an earlier version
// kept them in the log). Anything else malformed, including boundaries or a selection
// that are not lists of numbers, is an error wrapping ErrFormat, ErrVersion
// or ErrTooLarge; FromJSON never panics on its input. Its memory and time
// grow in proportion to the input's size, however many tool calls one
// agent step holds.
func FromJSON(data []byte, opts Options) (*Memory, error) {
	if len(data) > MaxJSON {
		return nil, fmt.Errorf("%w: got %d", ErrTooLarge, len(data))
	}
	// Whitespace is skipped here, where it is cheap, rather than by the JSON
	// scanner; json.Unmarshal then reads data in place without buffering a
	// copy, and refuses anything after the object. A save of the shape
	// ToJSON writes is read by readSave instead, the same way but faster.
	data = bytes.Trim(data, " \t\r\n")
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: the data is empty or only whitespace", ErrFormat)
	}
	var w wireIn
	read, err := readSave(data, &w)
	if !read {
		err = json.Unmarshal(data, &w)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	switch {
	case w.Version > FormatVersion:
		return nil, fmt.Errorf("%w: version %d, this library reads up to %d", ErrVersion, w.Version, FormatVersion)
	case w.Version < 1:
		return nil, fmt.Errorf("%w: missing or invalid version %d", ErrFormat, w.Version)
	}
	m := New(opts)
	m.turns = make([]turn, 0, len(w.Turns))
	m.judged = w.Selection.clock()
	z := zones{}
	for i, wt := range w.Turns {
		t := Turn{Role: wt.Role, Text: wt.Text, Time: z.time(wt.Time), Expires: z.time(wt.Expires), Standing: markRead(wt.Standing)}
		if a := wt.Agent; a != nil {
			t.Tool, t.CallID, t.Source = a.Tool, a.CallID, Source{Name: a.Source, Authenticated: a.Authenticated}
		}
		if err := checkTurn(t.Role, t.Text); err != nil {
			return nil, fmt.Errorf("%w: turn %d: %w", ErrFormat, i, err)
		}
		if err := checkFields(t); err != nil {
			return nil, fmt.Errorf("%w: turn %d: %w", ErrFormat, i, err)
		}
		if wt.Redacted {
			t.Text, t.Redacted, t.Source, t.Standing = redactedText, true, Source{}, StandingAuto
		}
		x, err := m.accept(t)
		if err != nil {
			return nil, fmt.Errorf("%w: turn %d: %w", ErrFormat, i, err)
		}
		m.turns = append(m.turns, x)
		m.long = m.long || x.runeCount() >= m.opt.Chunk
		m.total += x.nativeSize()
		m.setExpiry(i, t.Expires)
	}
	w.Turns = nil // read: let the collector have them while the index is built
	bounds := cleanBounds(w.Bounds, len(m.turns))
	m.restretch(slices.DeleteFunc(bounds, func(b int) bool { return !m.splittable(b) }))
	s, err := w.Selection.read(len(m.turns))
	if err != nil {
		return nil, fmt.Errorf("%w: selection: %w", ErrFormat, err)
	}
	m.restoreKept(s, w.Selection.why())
	return m, nil
}

// restoreKept makes a saved selection the kept one if it is one the library
// could have made, and otherwise drops it: the next Compose rebuilds. why is
// what the next rebuild's reason depends on, as saved. The turns are shown
// as at the clock the save was last judged by (m.judged), as the saved log
// showed them.
func (m *state) restoreKept(s *wireKept, why savedWhy) {
	m.sel, m.dropped, m.called = nil, why.dropped, why.called
	m.expire(m.judged)
	if s != nil && !m.validKept(s) {
		m.dropped = RebuildRestored
	}
	if s != nil && m.validKept(s) {
		m.sel = &kept{block: m.quote(s.Keys, s.Ends, s.Upto, memoryHeader), upto: s.Upto, made: s.Made}
	}
}

// orEmpty writes an empty list as [] rather than null, so a memory and its
// restored copy write the same bytes.
func orEmpty(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}

// wireIn is what FromJSON reads: wire with the derived state's numbers
// read as written, so that one too large for an int is dropped as garbage,
// like any other out-of-range boundary, rather than costing the turns.
type wireIn struct {
	Version   int         `json:"version"`
	Turns     turnList    `json:"turns"`
	Bounds    boundList   `json:"bounds"`
	Selection *wireKeptIn `json:"selection"`
}

type wireKeptIn struct {
	Keys  savedInts   `json:"keys"`
	Ends  savedInts   `json:"ends"`
	Upto  savedNumber `json:"upto"`
	Made  savedNumber `json:"made"`
	Clock wireTime    `json:"clock"`
	// Recalls are read once the turns are known: each quotes at least one
	// turn no other quote holds, so a save with more recalls than turns is
	// one the library could not have written, and is dropped unread.
	Recalls json.RawMessage `json:"recalls"`
	Dropped Rebuild         `json:"dropped"`
	Called  json.RawMessage `json:"called"`
}

// clock is the time the saved memory's turns were last judged by: its
// kept selection's Clock, or zero, which expires nothing, when it has
// none. It is derived state, like the selection: a time ToJSON does not
// write reads as none. A memory that keeps no selection shows no turn
// but in a call, which judges them all again, so its clock does not
// matter.
func (s *wireKeptIn) clock() time.Time {
	if s == nil {
		return time.Time{}
	}
	return zones{}.time(s.Clock)
}

// savedWhy is wireWhy as restored.
type savedWhy struct {
	dropped Rebuild
	called  time.Time
}

// why returns what the save says the next rebuild's reason depends on. It
// is derived state, like the selection: a reason this library does not
// give, or a time ToJSON does not write, reads as none.
func (s *wireKeptIn) why() savedWhy {
	var w savedWhy
	if s == nil {
		return w
	}
	switch s.Dropped {
	case RebuildFirst, RebuildRedacted, RebuildRestored, RebuildTurnExpired:
		w.dropped = s.Dropped
	}
	var t wireTime
	if len(s.Called) > 0 && t.UnmarshalJSON(s.Called) == nil {
		w.called = zones{}.time(t)
	}
	return w
}

type wireRecallIn struct {
	At   savedNumber `json:"at"`
	Keys savedInts   `json:"keys"`
	Ends savedInts   `json:"ends"`
}

// read returns the saved selection of a memory of n turns, or nil when
// there is none, it holds more recalls than turns, or one of its numbers is
// not an integer an int holds. Recalls that are not objects of numbers are
// an error.
func (s *wireKeptIn) read(n int) (*wireKept, error) {
	if s == nil || s.Keys.partial || s.Ends.partial || !s.Upto.ok {
		return nil, nil
	}
	var recalls []wireRecallIn
	if len(s.Recalls) > 0 {
		if s.Recalls[0] == '[' {
			count := elements(s.Recalls, nil)
			if count > n {
				return nil, nil
			}
			recalls = make([]wireRecallIn, 0, count)
		}
		if err := json.Unmarshal(s.Recalls, &recalls); err != nil {
			return nil, err
		}
	}
	k := &wireKept{Keys: s.Keys.ints, Ends: s.Ends.ints, Upto: s.Upto.n}
	if s.Made.ok {
		k.Made = s.Made.n // missing from older saves: not known
	}
	for _, r := range recalls {
		if r.Keys.partial || r.Ends.partial || !r.At.ok {
			return nil, nil
		}
		k.Recalls = append(k.Recalls, wireRecall{At: r.At.n, Keys: r.Keys.ints, Ends: r.Ends.ints})
	}
	return k, nil
}

// cleanBounds keeps the boundaries that can be stretch starts of n turns,
// sorted and unique, starting at 0. It reuses the storage of bounds.
func cleanBounds(bounds []int, n int) []int {
	if n == 0 {
		return nil
	}
	out := bounds[:0]
	for _, b := range bounds {
		if b > 0 && b < n {
			out = append(out, b)
		}
	}
	out = append(out, 0)
	slices.Sort(out)
	return slices.Compact(out)
}

// validKept reports whether a saved selection is one the library could
// have made, checking every invariant a live one keeps. The cut falls where
// a stretch may start (never between a call and its result) and leaves the
// newest exchange of the call that made the block (the first Made turns,
// all of them when Made is not known) to follow it natively, as a rebuild
// leaves it: the newest turn always, the one before it too unless a rebuild
// would cut after it (the two overrun the budget, say). Every quote names
// existing stretches in ascending order, each quoted from its first turn
// to the end of a stretch or to the cut, whichever came first when it was
// quoted: it ends at a stretch boundary or at the cut (running across
// boundaries only where its stretch was split since, as a kept quote keeps
// its turns then), never past the cut nor into the next quote, so no turn
// is quoted twice; and it keeps no recalls (an earlier rule 3 kept them in
// the log; this one recalls past the breakpoint). A selection that fails
// any of them is dropped, as one that no longer matches the boundaries is:
// it is derived state, and the next call rebuilds it.
func (m *state) validKept(s *wireKept) bool {
	n := len(m.turns)
	if s.Upto < 0 || s.Upto >= n || s.Made != 0 && (s.Made <= s.Upto || s.Made > n) || !m.splittable(s.Upto) {
		return false
	}
	// At the call that made the block (Made turns; all of them when not
	// known), the newest exchange followed it.
	made := n
	if s.Made != 0 {
		made = s.Made
	}
	if s.Upto > made-2 && made >= 2 && m.cutAt(made) < s.Upto {
		return false
	}
	if len(s.Keys) != len(s.Ends) || len(s.Recalls) > 0 {
		// Recalls kept in the log come from a save of an earlier rule 3:
		// this one recalls past the breakpoint and keeps none.
		return false
	}
	parted := map[int]bool{}
	prev := 0
	for i, k := range s.Keys {
		e := s.Ends[i]
		if k < prev || e <= k || e > s.Upto {
			return false
		}
		j := m.stretchOf(k)
		if j < 0 {
			return false
		}
		if m.str[j].start != k || e != s.Upto && m.str[m.stretchOf(e)].start != e {
			// Part of a longer stretch (see piece): it lies inside the one
			// stretch, cut where a stretch could start.
			if !m.splittable(k) || e < s.Upto && !m.splittable(e) || e > m.stretchEnd(j) || parted[j] {
				return false
			}
			parted[j] = true // a rebuild quotes one part of a stretch at most
		}
		prev = e
	}
	return true
}

// cutAt is where a rebuild of a memory of the first n turns would cut:
// the cut, computed on those turns as a call composing a new query would.
func (m *state) cutAt(n int) int {
	turns, from, capped := m.turns, m.from, m.cap
	m.turns, m.from, m.cap = m.turns[:n], n, stepCap{}
	defer func() { m.turns, m.from, m.cap = turns, from, capped }()
	return m.cut()
}

// Changes is what a Memory holds past a point at which a store saved it:
// the turns from From on, the stretch starts after the last one saved, and
// the kept selection. A store that keeps a conversation as rows saves them
// with Since at the cost of the new turns, not of the whole history, and
// brings a copy up to date with Apply; Restore builds a Memory from the
// changes since the start. Changes marshal to JSON as they are.
type Changes struct {
	// From is the index of Turns[0]: the turns the point holds.
	From int `json:"from"`
	// Turns are the turns from From on, redacted ones as placeholders.
	Turns []Turn `json:"turns"`
	// Bounds are the stretch starts after the point's last one, ascending.
	// Only the open stretch grows or splits, so they are never earlier
	// than that one.
	Bounds []int `json:"bounds,omitempty"`
	// Kept is the kept selection in the form ToJSON writes it, or nil when
	// the memory keeps none. It names turns by index and stays small: its
	// size follows the budget, not the history.
	Kept json.RawMessage `json:"kept,omitempty"`
}

// Since returns what m holds past the point at which it held turns turns
// and bound was its last stretch start (0 and 0 for all of it). It fails
// with ErrIndex when turns is outside the conversation.
func (m *Memory) Since(turns, bound int) (Changes, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if turns < 0 || turns > len(m.turns) {
		return Changes{}, fmt.Errorf("%w: changes from turn %d of %d", ErrIndex, turns, len(m.turns))
	}
	c := Changes{From: turns, Turns: make([]Turn, len(m.turns)-turns)}
	for i := range c.Turns {
		c.Turns[i] = m.public(turns + i)
	}
	first, _ := slices.BinarySearchFunc(m.str, bound+1, func(s stretch, b int) int { return s.start - b })
	for _, s := range m.str[first:] {
		c.Bounds = append(c.Bounds, s.start)
	}
	if w := m.keptWire(); w != nil {
		kept, err := json.Marshal(w)
		if err != nil {
			return Changes{}, err
		}
		c.Kept = kept
	}
	return c, nil
}

// Apply brings m up to date with changes another copy of the conversation
// made, as its Since returned them: it appends the turns, cuts the stretch
// open here at the new stretch starts and adopts the kept selection, so m
// composes as that copy does. The turns are checked as FromJSON checks
// them, a Redacted turn standing for its placeholder whatever its text; a
// From other than m.Len() is ErrIndex, and a turn that does not pass wraps
// ErrFormat; on error m is unchanged. Stretch starts that cannot be one
// here and a kept selection that does not match are dropped, as FromJSON
// drops them. Apply costs what appending the new turns costs.
func (m *Memory) Apply(c Changes) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, total, judged := len(m.turns), m.total, m.judged
	if c.From != n {
		return fmt.Errorf("%w: changes from turn %d to a memory of %d", ErrIndex, c.From, n)
	}
	// A store's selection is derived state like a save's, but one it cannot
	// read is dropped rather than refused: the turns are what it must not
	// lose. Its clock judges the turns, the new ones as they come.
	var in *wireKeptIn
	if len(c.Kept) > 0 && json.Unmarshal(c.Kept, &in) != nil {
		in = nil
	}
	m.judged = in.clock()
	prep := m.prepareStored(c.Turns)
	for i, t := range c.Turns {
		var x turn
		var err error
		if prep != nil {
			x, err = prep.accept(&m.state, i)
		} else {
			x, err = m.acceptStored(t)
		}
		if err != nil {
			m.turns, m.total, m.calls, m.judged = m.turns[:n], total, calls{}, judged
			m.forgetExpiries(n)
			return fmt.Errorf("%w: turn %d: %w", ErrFormat, n+i, err)
		}
		m.turns = append(m.turns, x)
		m.long = m.long || x.runeCount() >= m.opt.Chunk
		m.total += x.nativeSize()
		m.setExpiry(n+i, t.Expires)
	}
	if len(c.Turns) > 0 || len(c.Bounds) > 0 {
		m.extend(c.Bounds)
	}
	var s *wireKept
	if k, err := in.read(len(m.turns)); err == nil {
		s = k
	}
	m.restoreKept(s, in.why())
	return nil
}

// Restore builds a Memory, configured by opts, from the changes since the
// start (From 0) that a store kept, as Apply takes them.
func Restore(c Changes, opts Options) (*Memory, error) {
	m := New(opts)
	m.turns = make([]turn, 0, len(c.Turns))
	if err := m.Apply(c); err != nil {
		return nil, err
	}
	return m, nil
}

// acceptStored checks a turn read back from a store, as AppendTurn checks a
// new one, and returns it as the next turn. m is locked.
func (m *state) acceptStored(t Turn) (turn, error) {
	t, err := checkStored(t)
	if err != nil {
		return turn{}, err
	}
	return m.accept(t)
}

// checkStored checks a turn read back from a store by itself, as
// AppendTurn checks a new one, and returns it as accept takes it: a
// Redacted turn as its placeholder.
func checkStored(t Turn) (Turn, error) {
	redacted := t.Redacted
	if redacted {
		t.Text, t.Source, t.Redacted, t.Standing = redactedText, Source{}, false, StandingAuto
	}
	if err := checkTurn(t.Role, t.Text); err != nil {
		return t, err
	}
	if err := checkFields(t); err != nil {
		return t, err
	}
	if err := checkTimes(t); err != nil {
		return t, err
	}
	t.Redacted = redacted
	return t, nil
}

// extend re-cuts the turns from the open stretch's start on at the given
// stretch starts, in any order, after turns were appended without
// stretching them: the stretches before the open one keep their index slots.
func (m *state) extend(bounds []int) {
	if len(m.turns) == 0 {
		return
	}
	from := 0
	if last := len(m.str) - 1; last >= 0 {
		from = m.str[last].start
		m.str = m.str[:last]
		m.sizes.changed(last)
	}
	starts := []int{from}
	for _, b := range slices.Sorted(slices.Values(bounds)) {
		if b > starts[len(starts)-1] && b < len(m.turns) && m.splittable(b) {
			starts = append(starts, b)
		}
	}
	// A store's load is where a long run is cut at once: tokenize it
	// ahead, in parallel.
	m.ix.resetOpen()
	m.cutStretches(starts, m.tokenizeAhead(starts))
}
