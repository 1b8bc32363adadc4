package byheart

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// token is one word of the text.
type token struct {
	start  int  // where the word starts in the text
	end    int  // where the word ends in the text, a possessive included
	ws, we int  // the word in scanner.low: lower case, possessive removed ("week's" -> "week")
	poss   bool // the word carried 's or a trailing apostrophe
	upper  bool // the word starts with a capital letter
	glued  bool // only white space separates it from the previous word
	free   bool // not glued to a number or word on its left ("1.5", "2,000", "twenty-five")
	aside  bool // inside square brackets: a note, or an aside the tense does not read
}

// scanners recycles scanners: a fresh one costs more than the matching.
var scanners = sync.Pool{New: func() any { return new(scanner) }}

// scanner holds one sentence's words while they are matched.
type scanner struct {
	text    string
	from    int    // where the current sentence starts in text
	low     []byte // the current sentence, ASCII lowered, same byte offsets
	today   civil
	toks    []token
	matched int   // the last word of the latest expression matched, or -1
	tense   tense // the sentence's tense, worked out on first use
	tensed  bool
	// What the sentence's words tell once read, worked out on first use,
	// so that a long sentence of many expressions reads them once: whether
	// it is told in the past perfect, and its first word that dates a
	// moment (see storyBefore), len(toks) when none does.
	perfect, perfected bool
	story              int
	storied            bool
	// Whether the text before datedUpto, a sentence's start, names a
	// year, month or weekday: read once across the turn, a sentence at a
	// time, not again for every expression.
	datedUpto int
	dated     bool
	// anchored is set once the text holds an expression that is not the
	// moment of speech; see resolved.speech.
	anchored bool
}

// release clears the scanner before it goes back to the pool, so no turn's
// text stays reachable from it (a redacted turn must not linger anywhere),
// and lets go of a token buffer grown by one huge sentence.
func (s *scanner) release() {
	toks, low := s.toks[:0], s.low[:0]
	if cap(toks) > 4096 {
		toks, low = nil, nil
	}
	clear(low[:cap(low)])
	*s = scanner{toks: toks, low: low}
	scanners.Put(s)
}

// tokenize splits the sentence text[from:to] into words. Letters and digits
// of any script make words; an apostrophe (straight or curly) between
// letters stays inside one; everything else separates. ASCII takes a table
// lookup; only other bytes pay for UTF-8 decoding.
func (s *scanner) tokenize(from, to int) {
	text := s.text[:to]
	s.from, s.tensed, s.perfected, s.storied = from, false, false, false
	s.low = append(s.low[:0], text[from:]...)
	for k, c := range s.low {
		if 'A' <= c && c <= 'Z' {
			s.low[k] = c + 'a' - 'A'
		}
	}
	s.toks = s.toks[:0]
	gapStart, gapPlain, depth := from, true, 0
	for i := from; i < len(text); {
		class, size := classAt(text, i)
		if class != cWord {
			gapPlain = gapPlain && class == cSpace
			switch text[i] {
			case '[':
				depth++
			case ']':
				depth = max(depth-1, 0)
			}
			i += size
			continue
		}
		t := s.word(text, i)
		t.aside = depth > 0
		t.glued = len(s.toks) > 0 && gapPlain && gapStart < i
		s.toks = append(s.toks, t)
		i = t.end
		gapStart, gapPlain = i, true
	}
}

// word reads the word starting at text[start].
func (s *scanner) word(text string, start int) token {
	t := token{start: start, end: wordEnd(text, start)}
	t.upper = 'A' <= text[start] && text[start] <= 'Z'
	if text[start] >= utf8.RuneSelf {
		r, _ := utf8.DecodeRuneInString(text[start:])
		t.upper = unicode.IsUpper(r)
	}
	t.free = true
	if start > 0 {
		switch text[start-1] {
		case '-', '.', ',', '/', ':':
			t.free = false
		}
	}
	w := text[start:t.end]
	switch w[len(w)-1] {
	case 's', 'S', '\'', 0x99: // 0x99 ends the curly apostrophe
		for _, suffix := range [...]string{"'s", "'S", "\u2019s", "\u2019S", "'", "\u2019"} {
			if strings.HasSuffix(w, suffix) {
				w, t.poss = w[:len(w)-len(suffix)], true
				break
			}
		}
	}
	t.ws, t.we = start-s.from, start-s.from+len(w)
	return t
}

// wordEnd finds where the word starting at text[i] ends: after its letters
// and digits, an apostrophe joining letters ("don't"), and a possessive one.
func wordEnd(text string, i int) int {
	for i < len(text) {
		class, size := classAt(text, i)
		if class == cWord {
			i += size
			continue
		}
		if n := apostrophe(text, i); n > 0 {
			if next := i + n; next < len(text) {
				if c, _ := classAt(text, next); c == cWord && text[next] > '9' {
					i = next
					continue
				}
			}
			if text[i-1] == 's' || text[i-1] == 'S' {
				i += n
			}
		}
		break
	}
	return i
}

// Byte classes for tokenize.
const (
	cSpace = iota
	cWord
	cPunct
)

// asciiClass classifies every ASCII byte once, so tokenize does one lookup
// per byte on the common path.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			t[c] = cWord
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			t[c] = cSpace
		default:
			t[c] = cPunct
		}
	}
	return t
}()

// classAt classifies the character at text[i] and returns its size in
// bytes. Invalid UTF-8 is punctuation, one byte at a time.
func classAt(text string, i int) (uint8, int) {
	if text[i] < utf8.RuneSelf {
		return asciiClass[text[i]], 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	switch {
	case r == utf8.RuneError:
		return cPunct, size
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return cWord, size
	case unicode.IsSpace(r):
		return cSpace, size
	}
	return cPunct, size
}

// apostrophe returns the size of a straight or curly apostrophe at text[i], 0
// when there is none.
func apostrophe(text string, i int) int {
	if text[i] == '\'' {
		return 1
	}
	if strings.HasPrefix(text[i:], "\u2019") {
		return len("\u2019")
	}
	return 0
}

// str is the word of t: lower case, possessive removed. Words longer than
// any the matcher compares read as "", so the conversion, which never
// escapes the callers it is inlined into, stays in a stack buffer.
func (s *scanner) str(t *token) string {
	if t.we-t.ws > maxWord {
		return ""
	}
	return string(s.low[t.ws:t.we])
}

// maxWord is the longest word str converts; the longest the matcher ever
// compares is "independence".
const maxWord = 16

// tok returns word i when it exists and continues the phrase (glued to the
// previous word with nothing but white space), or nil.
func (s *scanner) tok(i int) *token {
	if i < 0 || i >= len(s.toks) || !s.toks[i].glued {
		return nil
	}
	return &s.toks[i]
}

// is reports whether word i continues the phrase as w without a possessive.
func (s *scanner) is(i int, w string) bool {
	t := s.tok(i)
	return t != nil && !t.poss && s.str(t) == w
}

// at is the word i as a string, "" when there is none.
func (s *scanner) at(i int) string {
	if i < 0 || i >= len(s.toks) {
		return ""
	}
	return s.str(&s.toks[i])
}

// after reports whether word i directly follows a word that can qualify it.
// A word that ended an expression cannot: its note will stand between the
// two, and the text must read the same once annotated.
func (s *scanner) after(i int) bool { return i > 0 && s.toks[i].glued && s.matched != i-1 }

// prev is the word before word i when it qualifies it (see after), else "".
func (s *scanner) prev(i int) string {
	if !s.after(i) {
		return ""
	}
	return s.str(&s.toks[i-1])
}
