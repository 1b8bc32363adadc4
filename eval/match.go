package main

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// part is one flattened message part, the unit a provider caches and the
// unit a context is made of.
type part struct {
	role byheart.Role
	text string
}

// call is one composition, flattened: byheart's or a baseline's.
type call struct {
	// outside is byheart's decision on each offered outside item.
	outside []byheart.Admission
	// parts are every part of every message in order; the last is the query.
	parts []part
	// breakpoint is the index of the last part of the cacheable prefix (the
	// provider's cache breakpoint), or -1 when nothing is marked cacheable.
	breakpoint int
	// reselected reports a rebuild of byheart's selection.
	reselected bool
	// standing is the size in characters of the memory block's section of
	// standing turns, 0 when it has none.
	standing int
}

// context returns every part but the query: what the budget rule covers and
// what evidence has to reach.
func (c call) context() []part { return c.parts[:len(c.parts)-1] }

// contextChars is the size the budget rule bounds, in characters.
func (c call) contextChars() int {
	n := 0
	for _, p := range c.context() {
		n += utf8.RuneCountInString(p.text)
	}
	return n
}

// sent answers "did this text reach the model?" for one call's context.
//
// A turn counts when its text, as appended or as annotated, appears in the
// context. byheart's memory block labels speakers and may indent continuation
// lines, so the test compares with every white space run collapsed to one
// space on both sides. Collapsing a whole context is the expensive step, so
// two cheap tests come first: a text found verbatim is found, and a text whose
// longest word appears nowhere verbatim cannot be found either, since
// collapsing only changes white space.
type sent struct {
	parts []part
	flat  string // the collapsed context, built on first need
}

func newSent(c call) *sent { return &sent{parts: c.context()} }

// has reports whether t reached the context.
func (s *sent) has(t *turn) bool {
	return s.holds(t.Text, t.flat) || s.holds(t.Annotated, t.flatAnnotated)
}

// hasText reports whether an arbitrary text (an external item) reached the
// context.
func (s *sent) hasText(text string) bool { return s.holds(text, collapse(text)) }

// holds reports whether the context holds text, whose collapsed form is flat.
func (s *sent) holds(text, flat string) bool {
	word := longestWord(flat)
	maybe := false
	for _, p := range s.parts {
		if strings.Contains(p.text, text) {
			return true
		}
		maybe = maybe || strings.Contains(p.text, word)
	}
	if !maybe {
		return false
	}
	s.collapseOnce()
	return strings.Contains(s.flat, flat)
}

// longestWord returns the longest space-separated word of a collapsed text.
func longestWord(flat string) string {
	longest := ""
	for _, w := range strings.Split(flat, " ") {
		if len(w) > len(longest) {
			longest = w
		}
	}
	return longest
}

func (s *sent) collapseOnce() {
	if s.flat != "" || len(s.parts) == 0 {
		return
	}
	texts := make([]string, len(s.parts))
	for i, p := range s.parts {
		texts[i] = p.text
	}
	s.flat = collapse(strings.Join(texts, "\n"))
}

// collapse makes every run of white space one space and trims the ends. It
// runs over every context a turn was not found in verbatim, so it copies
// whole runs of text and decodes only non-ASCII bytes.
func collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	start := -1 // where the current run of text began
	for i := 0; i < len(s); {
		size, space := 1, false
		if c := s[i]; c < utf8.RuneSelf {
			space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
		}
		switch {
		case space && start >= 0:
			b.WriteString(s[start:i])
			start = -1
		case !space && start < 0:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			start = i
		}
		i += size
	}
	if start >= 0 {
		b.WriteString(s[start:])
	}
	return b.String()
}
