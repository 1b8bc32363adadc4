package byheart

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrMeasure: Options.Measure panicked or returned a negative number. The
// call that met it changed nothing (Redact excepted: see Redact).
var ErrMeasure = errors.New("byheart: measure failed")

// unmeasured is the size given to a text the measure failed on: more than
// any budget, so nothing that could not be measured is ever sent.
const unmeasured = math.MaxInt32

// meter sizes text in the budget's unit: Options.Measure, or characters.
// It keeps the first failure of the measure for the call in progress to
// report, and the sizes of byheart's own framing, measured once.
type meter struct {
	f   func(string) int
	err error
	// memory, recall, external and standing are the header and footer of
	// a memory block, a recalled memory part, outside material and a
	// block's section of standing turns, together.
	memory, recall, external, standing int
	// clipMark is the size of the mark that ends a clipped turn, and part
	// of the line that marks part of a longer stretch.
	clipMark, part int
	// minStretch is a lower bound on any stretch's size, so a fill stops
	// looking once less is left.
	minStretch int
}

// newMeter returns the meter for measure f (nil for characters). A failure
// of f on the framing stays in err.
func newMeter(f func(string) int) meter {
	z := meter{f: f, minStretch: minStretchSize}
	if f != nil {
		z.minStretch = 1
	}
	z.memory = z.size(memoryHeader) + z.size(memoryFooter)
	z.recall = z.size(recallHeader) + z.size(memoryFooter)
	z.external = z.size(externalHeader) + z.size(externalFooter)
	z.standing = z.size(standingHeader) + z.size(standingFooter)
	z.clipMark = z.size(clipMark)
	z.part = z.size(partMark)
	return z
}

// size is the measure of s; unmeasured if the measure fails on it.
func (z *meter) size(s string) int {
	if z.f == nil {
		return countRunes(s)
	}
	if s == "" {
		return 0
	}
	return z.call(s)
}

func (z *meter) call(s string) (n int) {
	defer func() {
		if p := recover(); p != nil {
			z.fail(fmt.Errorf("%w: panic: %v", ErrMeasure, p))
			n = unmeasured
		}
	}()
	n = z.f(s)
	if n < 0 {
		z.fail(fmt.Errorf("%w: %d for a text of %d bytes", ErrMeasure, n, len(s)))
		return unmeasured
	}
	return min(n, unmeasured)
}

func (z *meter) fail(err error) {
	if z.err == nil {
		z.err = err
	}
}

// take returns the failure kept since the last take, and forgets it.
func (z *meter) take() error {
	err := z.err
	z.err = nil
	return err
}

// lineText is a user's or an assistant's turn as a line of the memory
// block, quoted being its shown text, guarded.
func lineText(r Role, quoted string) string {
	var b strings.Builder
	b.Grow(len(quoted) + 16)
	b.WriteString(label(r))
	writeIndented(&b, quoted)
	b.WriteByte('\n')
	return b.String()
}

// dateSize is the characters of dateLine for a turn said at t,
// worked out without formatting the date.
func dateSize(t time.Time) int {
	if t.IsZero() {
		return len("---\n")
	}
	y, mo, d := t.Date()
	n := len("---  ---\n") + 1 + len(mo.String()) + 1 + 4 // a year of 0-9999, as ToJSON keeps it
	for ; y >= 10000; y /= 10 {
		n++
	}
	if d >= 10 {
		return n + 2
	}
	return n + 1
}

// clip cuts text so that it measures at most n, ending with clipMark,
// keeping as much of its start as fits. A budget the mark itself does not
// fit in gets the longest start of the mark that does.
func (m *state) clip(text string, n int) string {
	z := &m.meter
	if z.f == nil {
		return clipChars(text, n)
	}
	if z.size(text) <= n {
		return text
	}
	// The most runes of text that may stay, by bisection: the measure of
	// a longer start is not always larger, so the answer is checked.
	runes := utf8.RuneCountInString(text)
	lo, hi := 0, runes
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if z.size(prefix(text, mid)+clipMark) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if c := prefix(text, lo) + clipMark; z.size(c) <= n {
		return c
	}
	for k := utf8.RuneCountInString(clipMark) - 1; k > 0; k-- {
		if c := prefix(clipMark, k); z.size(c) <= n {
			return c
		}
	}
	return ""
}

// prefix returns the first k runes of s.
func prefix(s string, k int) string {
	i := 0
	for ; k > 0 && i < len(s); k-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// countRunes is utf8.RuneCountInString, which takes a loop turn a byte,
// reading eight bytes at a time while they are ASCII: every turn is sized
// in characters as it comes in or is loaded.
func countRunes(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load64(s, i)&highBits != 0 {
			break
		}
	}
	// s[:i] is ASCII, so s[i:] starts a character.
	return i + utf8.RuneCountInString(s[i:])
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// load64 is the eight bytes of s at i, little-endian: one load once
// compiled.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// printable8 reports whether the eight bytes of w are all printable ASCII
// or DEL (0x20 to 0x7F): none has its top bit set or is below a space, the
// latter exact for "some byte is" (the zero-byte trick of Hacker's Delight).
func printable8(w uint64) bool { return (w|(w-lowBits*' ')&^w)&highBits == 0 }
