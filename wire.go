package byheart

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// The values of the JSON form that encoding/json does not read or write the
// way ToJSON and FromJSON need: turn times, which must come back exactly as
// they were, and the lists of a save, which must cost memory in proportion
// to their size in the input, whatever they hold.

// Turn times are written as RFC 3339 with nanoseconds, as time.Time writes
// them, except that a zone offset with seconds (the local mean times of
// history: Amsterdam was 00:19:32 ahead of UTC until 1937) keeps its
// seconds ("+00:19:32") instead of losing them. The offset is all that is
// kept of the zone; it is all the memory uses (dates are read at it).
const (
	timeLayout        = "2006-01-02T15:04:05.999999999Z07:00"
	timeLayoutSeconds = "2006-01-02T15:04:05.999999999Z07:00:00"
)

// appendTime appends t as ToJSON writes it, or fails with ErrTime for a
// time it cannot write: a year outside 0-9999 at its offset, or an offset
// of a day or more.
func appendTime(dst []byte, t time.Time) ([]byte, error) {
	_, off := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 {
		return dst, fmt.Errorf("%w: year %d is outside 0-9999", ErrTime, y)
	}
	if off <= -86400 || off >= 86400 {
		return dst, fmt.Errorf("%w: zone offset %ds is a day or more", ErrTime, off)
	}
	if off%60 != 0 {
		return t.AppendFormat(dst, timeLayoutSeconds), nil
	}
	return t.AppendFormat(dst, timeLayout), nil
}

// savedTime writes a turn time as ToJSON does.
type savedTime time.Time

// MarshalJSON writes t as a JSON string.
func (t *savedTime) MarshalJSON() ([]byte, error) {
	b := make([]byte, 1, len(timeLayoutSeconds)+2)
	b[0] = '"'
	b, err := appendTime(b, time.Time(*t))
	return append(b, '"'), err
}

// wireTime is a turn time as FromJSON reads it, without its zone: the
// seconds since the start of year 1 UTC (so the zero value is the zero
// time, which stands for no time), the nanoseconds, and the zone offset.
// FromJSON gives each offset one *time.Location.
type wireTime struct {
	sec  int64
	nsec int32
	off  int32
}

// sinceYear1 is the Unix time of 0001-01-01T00:00:00Z, negated.
const sinceYear1 = 62135596800

var errTimeSyntax = errors.New("want YYYY-MM-DDThh:mm:ss[.fraction] and Z, ±hh:mm or ±hh:mm:ss")

// UnmarshalJSON reads a time as ToJSON writes it, and nothing else: the
// fields in range, at most nine digits of fraction, an offset under a day.
// null is no time.
func (w *wireTime) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*w = wireTime{}
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return fmt.Errorf("time %.40s: %w", data, errTimeSyntax)
	}
	t, err := parseTime(data[1 : len(data)-1])
	if err != nil {
		return fmt.Errorf("time %.40s: %w", data, err)
	}
	*w = t
	return nil
}

// parseTime reads s, the text of a time as appendTime writes it.
func parseTime(s []byte) (wireTime, error) {
	p := timeParser{s: s}
	year := p.num(4, 0, 9999, "")
	month := p.num(2, 1, 12, "-")
	day := p.num(2, 1, 31, "-")
	hour := p.num(2, 0, 23, "T")
	minute := p.num(2, 0, 59, ":")
	second := p.num(2, 0, 59, ":")
	nsec := p.fraction()
	off := p.offset()
	if p.err != nil {
		return wireTime{}, p.err
	}
	local := time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC)
	if local.Day() != day {
		return wireTime{}, fmt.Errorf("day %d is not in month %d of %d", day, month, year)
	}
	return wireTime{sec: local.Unix() - int64(off) + sinceYear1, nsec: int32(nsec), off: int32(off)}, nil
}

// timeParser reads the fields of a time in order; the first error sticks.
type timeParser struct {
	s   []byte
	i   int
	err error
}

// num reads sep and then n digits making a number in [lo, hi].
func (p *timeParser) num(n, lo, hi int, sep string) int {
	if p.err != nil {
		return 0
	}
	if sep != "" {
		if p.i >= len(p.s) || p.s[p.i] != sep[0] {
			p.err = errTimeSyntax
			return 0
		}
		p.i++
	}
	v := 0
	for k := 0; k < n; k++ {
		if p.i >= len(p.s) || p.s[p.i] < '0' || p.s[p.i] > '9' {
			p.err = errTimeSyntax
			return 0
		}
		v = 10*v + int(p.s[p.i]-'0')
		p.i++
	}
	if v < lo || v > hi {
		p.err = fmt.Errorf("%d is out of range [%d, %d]", v, lo, hi)
	}
	return v
}

// fraction reads an optional fraction of a second, as nanoseconds.
func (p *timeParser) fraction() int {
	if p.err != nil || p.i >= len(p.s) || p.s[p.i] != '.' {
		return 0
	}
	p.i++
	ns, digits := 0, 0
	for ; p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9'; p.i++ {
		ns = 10*ns + int(p.s[p.i]-'0')
		digits++
	}
	if digits == 0 || digits > 9 {
		p.err = errTimeSyntax
		return 0
	}
	for ; digits < 9; digits++ {
		ns *= 10
	}
	return ns
}

// offset reads the zone offset, which must end the text, in seconds east.
func (p *timeParser) offset() int {
	if p.err != nil {
		return 0
	}
	if p.i < len(p.s) && p.s[p.i] == 'Z' {
		p.i++
		p.end()
		return 0
	}
	sign := 1
	switch {
	case p.i < len(p.s) && p.s[p.i] == '-':
		sign = -1
	case p.i >= len(p.s) || p.s[p.i] != '+':
		p.err = errTimeSyntax
		return 0
	}
	p.i++
	off := 3600*p.num(2, 0, 23, "") + 60*p.num(2, 0, 59, ":")
	if p.i < len(p.s) {
		off += p.num(2, 0, 59, ":")
	}
	p.end()
	return sign * off
}

func (p *timeParser) end() {
	if p.err == nil && p.i != len(p.s) {
		p.err = errTimeSyntax
	}
}

// zones gives each zone offset met in one FromJSON call one location.
type zones map[int32]*time.Location

// time returns w in the zone of its offset.
func (z zones) time(w wireTime) time.Time {
	if w == (wireTime{}) {
		return time.Time{}
	}
	t := time.Unix(w.sec-sinceYear1, int64(w.nsec))
	if w.off == 0 {
		return t.UTC()
	}
	loc, ok := z[w.off]
	if !ok {
		loc = time.FixedZone("", int(w.off))
		z[w.off] = loc
	}
	return t.In(loc)
}

// turnList is the saved turns as FromJSON reads them, into a list of exactly
// their number rather than one that grows as they come.
type turnList []wireTurnIn

// wireTurnIn is a turn as FromJSON reads it.
type wireTurnIn struct {
	Role     Role       `json:"role"`
	Text     string     `json:"text"`
	Time     wireTime   `json:"time"`
	Redacted bool       `json:"redacted"`
	Agent    *wireAgent `json:"agent"`
	Expires  wireTime   `json:"expires"`
	Standing *bool      `json:"standing"`
}

// minTurnJSON is the fewest bytes a turn FromJSON accepts can take:
// {"role":"user","text":"a"}.
const minTurnJSON = 26

// UnmarshalJSON reads the list; data has been checked to be valid JSON.
//
// A list of entries too short to be turns ([null,null,...], [{},{},...])
// would cost a reader far more than its size in decoded turns before any
// could be refused, so the list is read only up to its first such entry,
// which is certain to be refused: the error is the same, the cost that of
// the entries before it.
func (l *turnList) UnmarshalJSON(data []byte) error {
	if data[0] != '[' {
		return json.Unmarshal(data, (*[]wireTurnIn)(l))
	}
	n, cut := 0, -1
	elements(data, func(start, end int) {
		if cut < 0 {
			n++
			if end-start < minTurnJSON {
				cut = end
			}
		}
	})
	if cut >= 0 {
		data = append(data[:cut:cut], ']')
	}
	*l = make(turnList, 0, n)
	return json.Unmarshal(data, (*[]wireTurnIn)(l))
}

// boundList is the saved boundaries as FromJSON reads them: the integers an
// int holds, in order. Other numbers, null and strings that hold a number
// are left out, as garbage boundaries are; anything else is an error.
type boundList []int

// UnmarshalJSON reads the list; data has been checked to be valid JSON.
func (l *boundList) UnmarshalJSON(data []byte) error {
	switch data[0] {
	case 'n':
		*l = nil
		return nil
	case '[':
	default:
		return &json.UnmarshalTypeError{Value: kindOf(data[0]), Type: reflect.TypeFor[[]int]()}
	}
	out := make(boundList, 0, elements(data, nil)+1) // and room for the 0 cleanBounds adds
	var buf []byte
	var err error
	elements(data, func(start, end int) {
		var n int
		var ok bool
		if n, ok, buf, err = savedInt(data[start:end], buf, err); ok {
			out = append(out, n)
		}
	})
	*l = out
	return err
}

// savedInt reads one saved number, v: ok when it is an integer an int holds,
// written as a number or as a string holding one (as a json.Number may be);
// null and other numbers are not ok; anything else is an error, and the
// first error is kept. buf is scratch space, returned for reuse.
func savedInt(v, buf []byte, err error) (int, bool, []byte, error) {
	switch v[0] {
	case 'n':
		return 0, false, buf, err
	case '"':
		buf, err = numberIn(v, buf[:0], err)
		n, ok := integer(buf)
		return n, ok && err == nil, buf, err
	case '[', '{', 't', 'f':
		if err == nil {
			err = &json.UnmarshalTypeError{Value: kindOf(v[0]), Type: reflect.TypeFor[int]()}
		}
		return 0, false, buf, err
	}
	n, ok := integer(v)
	return n, ok, buf, err
}

// savedInts is a list of numbers of a saved selection, read in place like
// the boundaries. Unlike a boundary, a number the library could not have
// written spoils the whole selection, so partial records that one was left
// out.
type savedInts struct {
	ints    []int
	partial bool
}

// UnmarshalJSON reads the list; data has been checked to be valid JSON.
func (l *savedInts) UnmarshalJSON(data []byte) error {
	switch data[0] {
	case 'n':
		*l = savedInts{}
		return nil
	case '[':
	default:
		return &json.UnmarshalTypeError{Value: kindOf(data[0]), Type: reflect.TypeFor[[]int]()}
	}
	out := savedInts{ints: make([]int, 0, elements(data, nil))}
	var buf []byte
	var err error
	elements(data, func(start, end int) {
		var n int
		var ok bool
		if n, ok, buf, err = savedInt(data[start:end], buf, err); ok {
			out.ints = append(out.ints, n)
		} else {
			out.partial = true
		}
	})
	*l = out
	return err
}

// savedNumber is one number of a saved selection; ok is false when it is
// missing or not an integer an int holds.
type savedNumber struct {
	n  int
	ok bool
}

// UnmarshalJSON reads the number; data has been checked to be valid JSON.
func (v *savedNumber) UnmarshalJSON(data []byte) error {
	n, ok, _, err := savedInt(data, nil, nil)
	*v = savedNumber{n, ok}
	return err
}

// kindOf names the kind of JSON value that starts with c.
func kindOf(c byte) string {
	switch c {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// numberIn appends the text of the JSON string v to buf if it is a JSON
// number, as a string may hold one for a json.Number, and keeps the first
// error.
func numberIn(v, buf []byte, err error) ([]byte, error) {
	for i := 1; i < len(v)-1; i++ {
		c := v[i]
		if c == '\\' && i+5 < len(v) && v[i+1] == 'u' {
			// A number's characters are ASCII, so only \u00XX can stand
			// for one; anything else makes the string no number.
			var r rune
			for _, h := range v[i+2 : i+6] {
				r = r<<4 | rune(hexVal(h))
			}
			c, i = byte(r), i+5
			if r >= 0x80 {
				c = 'x'
			}
		}
		buf = append(buf, c)
	}
	if err == nil && !validNumber(buf) {
		err = &json.UnmarshalTypeError{Value: "string " + string(v), Type: reflect.TypeFor[int]()}
	}
	return buf, err
}

func hexVal(h byte) byte {
	switch {
	case h >= 'a':
		return h - 'a' + 10
	case h >= 'A':
		return h - 'A' + 10
	}
	return h - '0'
}

// validNumber reports whether s is a JSON number.
func validNumber(s []byte) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// integer returns the JSON number s as an int if it is written as an
// integer (no fraction, no exponent) that an int holds.
func integer(s []byte) (int, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, false
	}
	n := uint64(0)
	for _, c := range s {
		if c < '0' || c > '9' || n > (math.MaxUint64-9)/10 {
			return 0, false
		}
		n = 10*n + uint64(c-'0')
	}
	switch {
	case !neg && n <= math.MaxInt:
		return int(n), true
	case neg && n <= -math.MinInt:
		return int(-n), true
	}
	return 0, false
}

// elements walks the JSON array data, valid JSON, calling fn (if not nil)
// with where each element's text starts and ends, and returns how many
// there are.
func elements(data []byte, fn func(start, end int)) int {
	n, depth, start := 0, 0, -1
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			if start < 0 {
				start = i
			}
			for i++; data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth == 2 && start < 0 {
				start = i
			}
		case ']', '}', ',':
			if c != ',' {
				depth--
			}
			if depth > 1 || (depth == 1 && c != ',') {
				continue
			}
			if start >= 0 {
				n++
				if fn != nil {
					fn(start, start+len(trimSpace(data[start:i])))
				}
			}
			start = -1
		case ' ', '\t', '\r', '\n':
		default:
			if start < 0 && depth == 1 {
				start = i
			}
		}
	}
	return n
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// A save of the shape ToJSON writes is read by a scanner of its own rather
// than by encoding/json, which reads the turns four times over (it checks
// the whole input, finds the end of the turns' list, which turnList then
// splits into entries, and checks and decodes that again) through a
// state machine that takes a call per byte: a third of a cold start's
// instructions went to it. readSave is exact where it answers at all: it
// answers only for a save whose every key and type it knows, and any other
// is read by json.Unmarshal as before.

// saveShape is what readSave's first pass found: where the values of the
// four keys a save has are (end 0 when absent), and how many turns there
// are.
type saveShape struct {
	version, turns, bounds, selection span
	count                             int
}

// span is where a value starts and ends in the input.
type span struct{ start, end int }

// readSave decodes data, a save with its outer whitespace trimmed, into w
// as json.Unmarshal would, and reports true, when the save has the shape
// ToJSON writes: an object whose keys are version, turns, bounds and
// selection (and any other that does not fold to one of them), each once,
// the turns a list of objects with ToJSON's keys, each once, of ToJSON's
// types, strings in valid UTF-8 with no escaped surrogate. Otherwise, and
// whenever decoding the version, boundaries or selection fails, it reports
// false and json.Unmarshal is left to read data (and say what is wrong
// with it). The first pass checks data whole, as json.Unmarshal does,
// before anything is decoded, and the turns are decoded last, so nothing
// they allocate is thrown away: the one failure left, a time FromJSON does
// not read, is the error json.Unmarshal returns, returned here.
func readSave(data []byte, w *wireIn) (bool, error) {
	sc := saveScan{data: data}
	shape, ok := sc.shape()
	if !ok {
		return false, nil
	}
	var in wireIn
	if v := shape.version; v.end > 0 && json.Unmarshal(data[v.start:v.end], &in.Version) != nil {
		return false, nil
	}
	if v := shape.bounds; v.end > 0 && in.Bounds.UnmarshalJSON(data[v.start:v.end]) != nil {
		return false, nil
	}
	if v := shape.selection; v.end > 0 && json.Unmarshal(data[v.start:v.end], &in.Selection) != nil {
		return false, nil
	}
	if v := shape.turns; v.end > 0 {
		in.Turns = make(turnList, 0, shape.count)
		sc.i = v.start + 1
		for range shape.count {
			t, err := sc.turn()
			if err != nil {
				return true, err
			}
			in.Turns = append(in.Turns, t)
			sc.space()
			sc.take(',')
		}
	}
	*w = in
	return true, nil
}

// saveScan reads a save at i.
type saveScan struct {
	data []byte
	i    int
}

// Keys a turn may hold, as bits.
const (
	keyRole = 1 << iota
	keyText
	keyTime
	keyRedacted
	keyAgent
	keyExpires
	keyTool
	keyCallID
	keySource
	keyAuthenticated
	keyStanding
)

// keyOf returns the bit of a key ToJSON writes in a turn, or in its agent
// fields when agent is set; 0 for any other.
func keyOf(key []byte, agent bool) int {
	if agent {
		switch string(key) {
		case "tool":
			return keyTool
		case "call_id":
			return keyCallID
		case "source":
			return keySource
		case "authenticated":
			return keyAuthenticated
		}
		return 0
	}
	switch string(key) {
	case "role":
		return keyRole
	case "text":
		return keyText
	case "time":
		return keyTime
	case "redacted":
		return keyRedacted
	case "agent":
		return keyAgent
	case "expires":
		return keyExpires
	case "standing":
		return keyStanding
	}
	return 0
}

// saveKeys are the keys of a save, in the order of saveShape's spans.
var saveKeys = [...]string{"version", "turns", "bounds", "selection"}

// shape is readSave's first pass: it checks that data is one JSON value,
// an object of the shape readSave reads, and finds its parts.
func (sc *saveScan) shape() (saveShape, bool) {
	var sh saveShape
	spans := [...]*span{&sh.version, &sh.turns, &sh.bounds, &sh.selection}
	ok := sc.members(func(key []byte) bool {
		which := -1
		for i, k := range saveKeys {
			if string(key) == k {
				which = i
			} else if strings.EqualFold(string(key), k) {
				return false // json.Unmarshal matches keys in any case
			}
		}
		for _, c := range key {
			if c == '\\' || c >= utf8.RuneSelf {
				return false // and folds some letters beyond ASCII
			}
		}
		if which < 0 {
			return sc.value(0)
		}
		if spans[which].end > 0 {
			return false // a repeated key
		}
		start := sc.i
		if which == 1 {
			n, ok := sc.turns()
			if !ok {
				return false
			}
			sh.count = n
		} else if !sc.value(0) {
			return false
		}
		*spans[which] = span{start, sc.i}
		return true
	})
	sc.space()
	return sh, ok && sc.i == len(sc.data)
}

// members reads an object at i, calling member at each value with the
// key's raw text; member reads the value and reports whether it may.
func (sc *saveScan) members(member func(key []byte) bool) bool {
	sc.space()
	if !sc.take('{') {
		return false
	}
	sc.space()
	if sc.take('}') {
		return true
	}
	for {
		sc.space()
		start := sc.i
		if !sc.str(false) {
			return false
		}
		key := sc.data[start+1 : sc.i-1]
		sc.space()
		if !sc.take(':') {
			return false
		}
		sc.space()
		if !member(key) {
			return false
		}
		sc.space()
		if sc.take('}') {
			return true
		}
		if !sc.take(',') {
			return false
		}
	}
}

// turns checks the list of turns at i and counts them. An entry too short
// to be a turn is left to turnList, which reads the list only up to it.
func (sc *saveScan) turns() (int, bool) {
	if !sc.take('[') {
		return 0, false
	}
	sc.space()
	if sc.take(']') {
		return 0, true
	}
	n := 0
	for {
		sc.space()
		start := sc.i
		if !sc.fields(false) || sc.i-start < minTurnJSON {
			return 0, false
		}
		n++
		sc.space()
		if sc.take(']') {
			return n, true
		}
		if !sc.take(',') {
			return 0, false
		}
	}
}

// fields checks an object at i holding only the keys ToJSON writes in a
// turn (or its agent fields), each once, each of its type or null.
func (sc *saveScan) fields(agent bool) bool {
	seen := 0
	return sc.members(func(key []byte) bool {
		k := keyOf(key, agent)
		if k == 0 || seen&k != 0 {
			return false
		}
		seen |= k
		switch {
		case sc.literal("null"):
			return true
		case k == keyRedacted || k == keyAuthenticated || k == keyStanding:
			return sc.literal("true") || sc.literal("false")
		case k == keyAgent:
			return sc.fields(true)
		case k == keyTime || k == keyExpires:
			return sc.str(false) // read, in place, by wireTime
		}
		return sc.str(true)
	})
}

// value checks any JSON value at i, nested at most as deep as
// encoding/json reads.
func (sc *saveScan) value(depth int) bool {
	if depth > 10000 || sc.i >= len(sc.data) {
		return false
	}
	switch c := sc.data[sc.i]; {
	case c == '"':
		return sc.str(false)
	case c == '{':
		return sc.members(func([]byte) bool { return sc.value(depth + 1) })
	case c == '[':
		sc.i++
		sc.space()
		if sc.take(']') {
			return true
		}
		for {
			sc.space()
			if !sc.value(depth + 1) {
				return false
			}
			sc.space()
			if sc.take(']') {
				return true
			}
			if !sc.take(',') {
				return false
			}
		}
	case c == 't':
		return sc.literal("true")
	case c == 'f':
		return sc.literal("false")
	case c == 'n':
		return sc.literal("null")
	}
	start := sc.i
	for sc.i < len(sc.data) {
		c := sc.data[sc.i]
		if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			break
		}
		sc.i++
	}
	return sc.i > start && validNumber(sc.data[start:sc.i])
}

// str checks a JSON string at i. A strict one must also decode to the
// same text however it is read: valid UTF-8, no escaped surrogate.
func (sc *saveScan) str(strict bool) bool {
	if !sc.take('"') {
		return false
	}
	for sc.i < len(sc.data) {
		i, d := sc.i, sc.data // kept in registers for the run
		for i+8 <= len(d) && plainJSON8(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		for i < len(d) && inString[d[i]] {
			i++
		}
		if sc.i = i; i == len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			sc.i++
			return true
		case c < ' ':
			return false
		case c == '\\':
			if sc.i+1 >= len(sc.data) {
				return false
			}
			switch sc.data[sc.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.i += 2
			case 'u':
				r, ok := hex4(sc.data[sc.i+2:])
				if !ok || strict && utf16.IsSurrogate(r) {
					return false
				}
				sc.i += 6
			default:
				return false
			}
		case c < utf8.RuneSelf:
			sc.i++
		case strict:
			r, size := utf8.DecodeRune(sc.data[sc.i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			sc.i += size
		default:
			sc.i++
		}
	}
	return false
}

// inString marks the bytes a JSON string holds as they are: ASCII but for
// controls, quotes and backslashes. A run of them is passed over in a
// tight loop.
var inString = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainJSON8 reports whether the eight bytes of w (little-endian) are all
// inString's, so str passes over a text's plain run eight bytes a step:
// printable ASCII (see printable8) with no quote or backslash, each test
// exact for "some byte is" (written out so the compiler inlines it).
func plainJSON8(w uint64) bool {
	q, bs := w^(lowBits*'"'), w^(lowBits*'\\')
	return printable8(w) && ((q-lowBits)&^q|(bs-lowBits)&^bs)&highBits == 0
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func (sc *saveScan) space() {
	for sc.i < len(sc.data) {
		switch sc.data[sc.i] {
		case ' ', '\t', '\r', '\n':
			sc.i++
		default:
			return
		}
	}
}

// take consumes c if it is next.
func (sc *saveScan) take(c byte) bool {
	if sc.i < len(sc.data) && sc.data[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

// literal consumes lit if it is next.
func (sc *saveScan) literal(lit string) bool {
	if len(sc.data)-sc.i >= len(lit) && string(sc.data[sc.i:sc.i+len(lit)]) == lit {
		sc.i += len(lit)
		return true
	}
	return false
}

// turn decodes the turn at i, checked by shape.
func (sc *saveScan) turn() (wireTurnIn, error) {
	var t wireTurnIn
	var err error
	sc.decode(func(key []byte) {
		switch string(key) {
		case "role":
			t.Role = Role(sc.text(true))
		case "text":
			t.Text = sc.text(false)
		case "time", "expires":
			at := &t.Time
			if string(key) == "expires" {
				at = &t.Expires
			}
			start := sc.i
			sc.skip()
			if e := at.UnmarshalJSON(sc.data[start:sc.i]); e != nil && err == nil {
				err = e
			}
		case "redacted":
			t.Redacted = sc.literal("true")
			sc.skip()
		case "standing":
			t.Standing = sc.flag()
		case "agent":
			if sc.literal("null") {
				t.Agent = nil
				return
			}
			a := &wireAgent{}
			sc.decode(func(key []byte) {
				switch string(key) {
				case "authenticated":
					a.Authenticated = sc.literal("true")
					sc.skip()
				case "tool":
					a.Tool = sc.text(false)
				case "call_id":
					a.CallID = sc.text(false)
				case "source":
					a.Source = sc.text(false)
				}
			})
			t.Agent = a
		}
	})
	return t, err
}

// flag decodes the true, false or null at i, checked by shape: nil for
// null, as json.Unmarshal reads it into a *bool.
func (sc *saveScan) flag() *bool {
	if sc.literal("null") {
		return nil
	}
	on := sc.literal("true")
	sc.skip()
	return &on
}

// decode walks an object at i that shape checked, calling member at each
// value with its key's raw text.
func (sc *saveScan) decode(member func(key []byte)) {
	sc.space()
	sc.i++ // {
	for {
		sc.space()
		if sc.take('}') {
			break
		}
		start := sc.i
		sc.skip()
		key := sc.data[start+1 : sc.i-1]
		sc.space()
		sc.i++ // :
		sc.space()
		member(key)
		sc.space()
		sc.take(',')
	}
}

// skip passes the string or literal at i, checked by shape.
func (sc *saveScan) skip() {
	if sc.data[sc.i] != '"' {
		for sc.i < len(sc.data) && sc.data[sc.i] >= 'a' && sc.data[sc.i] <= 'z' {
			sc.i++
		}
		return
	}
	// The checked string ends at the first quote no backslash escapes:
	// both are found by IndexByte, which reads many bytes a step, each
	// backslash searched for only up to the quote, so the pass is linear.
	i, d := sc.i+1, sc.data
	q := -1
	for {
		if q < i {
			q = i + bytes.IndexByte(d[i:], '"')
		}
		e := bytes.IndexByte(d[i:q], '\\')
		if e < 0 {
			sc.i = q + 1
			return
		}
		i += e + 2 // past the escape and the byte it escapes
	}
}

// text decodes the strict string or null at i, checked by shape; a role
// is one of the few the library knows, shared rather than copied.
func (sc *saveScan) text(role bool) string {
	if sc.literal("null") {
		return ""
	}
	start := sc.i
	sc.skip()
	raw := sc.data[start+1 : sc.i-1]
	if role {
		for _, r := range roles[1:] {
			if string(raw) == string(r) {
				return string(r)
			}
		}
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, _ := hex4(raw[i+1:])
			out = utf8.AppendRune(out, r)
			i += 4
		default: // " \ /
			out = append(out, raw[i])
		}
	}
	return string(out)
}
