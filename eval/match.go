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
	// parts are every part of every message in order; the last is the query.
	parts []part
	// breakpoint is the index of the last part of the cacheable prefix (the
	// provider's cache breakpoint), or -1 when nothing is marked cacheable.
	breakpoint int
	// reselected reports a rebuild of byheart's selection.
	reselected bool
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
// lines, so the fallback compares with every white space run collapsed to one
// space on both sides; the plain substring test first is only a shortcut,
// since a text found verbatim is also found collapsed.
type sent struct {
	parts []part
	flat  string // the collapsed context, built on first need
}

func newSent(c call) *sent { return &sent{parts: c.context()} }

// has reports whether t reached the context.
func (s *sent) has(t *turn) bool {
	for _, p := range s.parts {
		if strings.Contains(p.text, t.Text) || strings.Contains(p.text, t.Annotated) {
			return true
		}
	}
	s.collapseOnce()
	return strings.Contains(s.flat, t.flat) || strings.Contains(s.flat, t.flatAnnotated)
}

// hasText reports whether an arbitrary text (an external item) reached the
// context.
func (s *sent) hasText(text string) bool {
	for _, p := range s.parts {
		if strings.Contains(p.text, text) {
			return true
		}
	}
	s.collapseOnce()
	return strings.Contains(s.flat, collapse(text))
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

// collapse makes every run of white space one space and trims the ends.
func collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
