package byheart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// FormatVersion is the version ToJSON writes. FromJSON reads this version
// and earlier ones and refuses later ones with ErrVersion. Version 2 added
// the stretches recalled into a kept context, version 3 the agent turns:
// their roles, tools, call ids and sources.
const FormatVersion = 3

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
	Selection *wireKept  `json:"selection,omitempty"`
}

type wireTurn struct {
	Role     Role       `json:"role"`
	Text     string     `json:"text"`
	Time     *savedTime `json:"time,omitempty"`
	Redacted bool       `json:"redacted,omitempty"`
	Agent    *wireAgent `json:"agent,omitempty"`
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
	Keys    []int        `json:"keys"`
	Ends    []int        `json:"ends"`
	Upto    int          `json:"upto"`
	Recalls []wireRecall `json:"recalls,omitempty"`
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
	for i := range m.turns {
		t := &m.turns[i]
		w.Turns[i] = wireTurn{Role: t.Role, Text: t.Text, Redacted: t.Redacted}
		if a := t.agent; a != nil && (*a != agentFields{}) {
			w.Turns[i].Agent = &wireAgent{Tool: a.Tool, CallID: a.CallID, Source: a.Source.Name, Authenticated: a.Source.Authenticated}
		}
		if !t.Time.IsZero() {
			w.Turns[i].Time = (*savedTime)(&t.Time)
		}
	}
	for i, s := range m.str {
		w.Bounds[i] = s.start
	}
	if sel := m.sel; sel != nil {
		w.Selection = &wireKept{Keys: orEmpty(sel.block.keys), Ends: orEmpty(sel.block.ends), Upto: sel.upto}
		for _, r := range sel.recalls {
			w.Selection.Recalls = append(w.Selection.Recalls, wireRecall{At: r.at, Keys: r.keys, Ends: r.ends})
		}
	}
	return json.Marshal(w)
}

// FromJSON restores a Memory written by ToJSON, configured by opts. Turns
// are checked as AppendTurn checks them, and a time must be one ToJSON
// writes (RFC 3339, a year in 0-9999, an offset under a day, which may have
// seconds); boundaries that are out of range (however large), not
// integers, unsorted, repeated or between a tool call and its result are
// dropped, and a kept selection whose numbers are out of range or that no
// longer matches the boundaries is dropped too (the next Compose rebuilds),
// since both are derived state that can be repaired. Anything else
// malformed, including boundaries or a selection that are not lists of
// numbers, is an error wrapping ErrFormat, ErrVersion or ErrTooLarge;
// FromJSON never panics on its input. Its memory and time grow in
// proportion to the input's size.
func FromJSON(data []byte, opts Options) (*Memory, error) {
	if len(data) > MaxJSON {
		return nil, fmt.Errorf("%w: got %d", ErrTooLarge, len(data))
	}
	// Whitespace is skipped here, where it is cheap, rather than by the JSON
	// scanner; json.Unmarshal then reads data in place without buffering a
	// copy, and refuses anything after the object.
	data = bytes.Trim(data, " \t\r\n")
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: the data is empty or only whitespace", ErrFormat)
	}
	var w wireIn
	if err := json.Unmarshal(data, &w); err != nil {
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
	z := zones{}
	for i, wt := range w.Turns {
		t := Turn{Role: wt.Role, Text: wt.Text, Time: z.time(wt.Time)}
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
			t.Text, t.Redacted, t.Source = redactedText, true, Source{}
		}
		x, err := m.accept(t)
		if err != nil {
			return nil, fmt.Errorf("%w: turn %d: %w", ErrFormat, i, err)
		}
		m.turns = append(m.turns, x)
		m.total += x.native
	}
	w.Turns = nil // read: let the collector have them while the index is built
	bounds := cleanBounds(w.Bounds, len(m.turns))
	m.restretch(slices.DeleteFunc(bounds, func(b int) bool { return !m.splittable(b) }))
	s, err := w.Selection.read(len(m.turns))
	if err != nil {
		return nil, fmt.Errorf("%w: selection: %w", ErrFormat, err)
	}
	if s != nil && m.validKept(s) {
		m.sel = &kept{block: m.quote(s.Keys, s.Ends, memoryHeader), upto: s.Upto}
		for _, r := range s.Recalls {
			m.sel.recalls = append(m.sel.recalls, recall{at: r.At, quote: m.quote(r.Keys, r.Ends, recallHeader)})
		}
	}
	return m, nil
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
	Keys savedInts   `json:"keys"`
	Ends savedInts   `json:"ends"`
	Upto savedNumber `json:"upto"`
	// Recalls are read once the turns are known: each quotes at least one
	// turn no other quote holds, so a save with more recalls than turns is
	// one the library could not have written, and is dropped unread.
	Recalls json.RawMessage `json:"recalls"`
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
// have made: every quote names existing stretches in ascending order, each
// quoted from its first turn to an end no later than the next one's start
// or the cut; recalls come in order, between the cut and the last turn; and
// no turn is quoted twice.
func (m *Memory) validKept(s *wireKept) bool {
	if s.Upto < 0 || s.Upto > len(m.turns) {
		return false
	}
	var quoted [][2]int
	check := func(keys, ends []int) bool {
		if len(keys) != len(ends) {
			return false
		}
		prev := 0
		for i, k := range keys {
			if k < prev || ends[i] <= k || ends[i] > s.Upto {
				return false
			}
			if j := m.stretchOf(k); j < 0 || m.str[j].start != k {
				return false
			}
			prev = ends[i]
			quoted = append(quoted, [2]int{k, ends[i]})
		}
		return true
	}
	if !check(s.Keys, s.Ends) {
		return false
	}
	at := s.Upto
	for _, r := range s.Recalls {
		if r.At < at || r.At > len(m.turns) || len(r.Keys) == 0 || !check(r.Keys, r.Ends) {
			return false
		}
		at = r.At
	}
	slices.SortFunc(quoted, func(a, b [2]int) int { return a[0] - b[0] })
	for i := 1; i < len(quoted); i++ {
		if quoted[i][0] < quoted[i-1][1] {
			return false
		}
	}
	return true
}
