package byheart

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The recognizer reads a user's turn a line and a sentence at a time and
// asks of each sentence whether it opens with a standing instruction or
// preference (standing_rules.go, standing_cjk.go). What the user did not
// say in their own voice is passed over before any rule sees it: a fenced
// or indented code block, a line that reads as code, a log or a quoted
// e-mail, and anything inside quotation marks or backticks. A sentence is
// read as folded words (as the index folds them: lower case, without
// diacritics) and, for the languages written without spaces, as its text.

// Bounds on what one sentence keeps for the rules. A standing instruction
// is said in a few words; a longer sentence is judged on its opening.
const (
	sentenceWords = 48   // words of a sentence the rules read
	sentenceBytes = 1024 // bytes of folded words, and of text, a sentence keeps
	wordBytes     = 40   // bytes of one word: no rule's word is longer
)

// recognizeStanding reports whether text, a user's turn, holds a sentence
// that states how later answers should be (see Standing). It takes time in
// proportion to the text and allocates nothing but, for a sentence in
// Japanese, Korean or Chinese, a copy of its text.
func recognizeStanding(text string) bool {
	var s sentence
	s.reset()
	fenced := false
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		body := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(body, "```") || strings.HasPrefix(body, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ") || pasted(body) {
			continue
		}
		if s.read(listItem(body)) {
			return true
		}
	}
	return false
}

// pasted reports whether a line reads as something the user pasted rather
// than said: a comment or a line of code, a quoted e-mail, a log line, JSON
// or a table.
func pasted(line string) bool {
	for _, p := range pastedPrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	if line != "" && isDigit(line[0]) {
		return listNumber(line) == 0 // a timestamp, a count, a version
	}
	n := 0
	for n < len(line) && 'A' <= line[n] && line[n] <= 'Z' {
		n++
	}
	return n >= 3 && logLevels[line[:n]] && (n == len(line) || !unicode.IsLetter(rune(line[n])))
}

// pastedPrefixes open lines of code, markup, e-mail quotes, diffs and data.
var pastedPrefixes = []string{"//", "/*", "#", "--", "<", ">", "{", "[", "|", "$ ", "%", "=", "@@", "+++", "Traceback", "goroutine ", "panic:", "File \""}

// logLevels are the levels that open a log line.
var logLevels = map[string]bool{"ERROR": true, "ERR": true, "WARN": true, "WARNING": true, "INFO": true,
	"DEBUG": true, "TRACE": true, "FATAL": true, "CRITICAL": true, "PANIC": true, "NOTICE": true}

// listNumber returns the length of the number that opens a numbered list
// item ("2. ", "3) "), or 0.
func listNumber(line string) int {
	n := 0
	for n < len(line) && isDigit(line[n]) {
		n++
	}
	if n == 0 || n > 3 || n+1 >= len(line) || line[n] != '.' && line[n] != ')' || line[n+1] != ' ' {
		return 0
	}
	return n + 2
}

// listItem returns a line without the bullet or number of a list item, whose
// text opens a sentence.
func listItem(line string) string {
	for _, b := range []string{"- ", "* ", "• ", "+ ", "– ", "— "} {
		if strings.HasPrefix(line, b) {
			return strings.TrimLeft(line[len(b):], " ")
		}
	}
	if n := listNumber(line); n > 0 {
		return strings.TrimLeft(line[n:], " ")
	}
	return line
}

// sword is a word of a sentence.
type sword struct {
	a, b  int32   // its folded bytes, in sentence.arena
	comma bool    // a comma, semicolon, colon or dash follows it
	upper bool    // it was written with a capital
	last  rune    // its last letter as written, in lower case
	lex   *lexeme // what the tables know of it, once looked up (see lexAt)
}

// quotedWord stands for a quotation in a sentence's words: it matches no
// rule's word, and keeps the words on either side of it apart.
const quotedWord = "\x00"

// sentence is the sentence being read: its words, its text and what its
// punctuation says. The buffers are arrays, counted rather than sliced, so
// that a sentence holds no pointer into itself and stays on its caller's
// stack.
type sentence struct {
	nWords   int  // words holds the first nWords words
	nArena   int  // arena holds the words' bytes, folded
	nRaw     int  // raw holds the text, quotations left out
	question bool // it ends with a question mark, or opens with ¿
	kana     bool // it holds Japanese kana
	hangul   bool // it holds Korean hangul
	han      bool // it holds Chinese characters
	long     bool // its text overran raw: the rules that read the text pass it by
	inWord   bool
	start    int // the word being built starts at arena[start]
	apos     int // and has an apostrophe at arena[apos], if apos > start
	first    rune
	lastRune rune
	marked   bool // marks holds what the words mark, found when first asked for

	words [sentenceWords]sword
	arena [sentenceBytes]byte
	raw   [sentenceBytes]byte
	marks sentenceMarks
}

// reset empties s for the next sentence.
func (s *sentence) reset() {
	s.nWords, s.nArena, s.nRaw = 0, 0, 0
	s.question, s.kana, s.hangul, s.han, s.long, s.inWord = false, false, false, false, false, false
	s.marked = false
}

// word returns the i-th word, or nil past the last. The rules look it up
// as string(w), which Go does without copying.
func (s *sentence) word(i int) []byte {
	if i < 0 || i >= s.nWords {
		return nil
	}
	w := s.words[i]
	return s.arena[w.a:w.b]
}

// read reads one line and reports whether a sentence of it stands.
func (s *sentence) read(line string) bool {
	var quotes [4]rune // the closers of the quotations open, innermost last
	depth := 0
	prev := ' '
	for i := 0; i < len(line); {
		if depth == 0 && line[i] == ' ' {
			s.endWord()
			if s.nRaw < sentenceBytes {
				s.raw[s.nRaw] = ' '
				s.nRaw++
			}
			prev, i = ' ', i+1
			continue
		}
		if depth == 0 && asciiAlnum(line[i]) {
			// A run of ASCII letters and digits, most of what is read, is
			// taken whole.
			j := i + 1
			for j < len(line) && asciiAlnum(line[j]) {
				j++
			}
			s.asciiRun(line[i:j])
			prev, i = rune(line[j-1]), j
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		next := ' '
		if i < len(line) {
			next, _ = utf8.DecodeRuneInString(line[i:])
		}
		switch {
		case depth > 0 && closes(r, quotes[depth-1], prev, next):
			if depth--; depth == 0 {
				s.quoted()
			}
		case depth < len(quotes) && closerOf(r, prev, next) != 0:
			if depth == 0 {
				s.endWord()
			}
			quotes[depth] = closerOf(r, prev, next)
			depth++
		case depth > 0:
		case ends(r, next):
			s.endWord()
			s.question = s.question || r == '?' || r == '？'
			if s.judge() {
				return true
			}
			s.reset()
		default:
			s.take(r, next)
		}
		prev = r
	}
	stands := s.judge()
	s.reset()
	return stands
}

// ends reports whether r, followed by next, ends a sentence.
func ends(r, next rune) bool {
	switch r {
	case '。', '！', '？':
		return true
	case '.', '!', '?', '…':
		return next == ' ' || next == '\t' || next == '"' || next == ')' || next == '”' || next == '»' || next >= 0x2E80
	}
	return false
}

// closerOf returns the mark that closes a quotation r opens, or 0 when r
// opens none. A straight or curly single quote opens one only before a
// letter and after none: between letters it is an apostrophe.
func closerOf(r, prev, next rune) rune {
	switch r {
	case '"', '`':
		return r
	case '“':
		return '”'
	case '„':
		return '“'
	case '«':
		return '»'
	case '‹':
		return '›'
	case '「':
		return '」'
	case '『':
		return '』'
	case '\'', '‘':
		if !unicode.IsLetter(prev) && !unicode.IsDigit(prev) && unicode.IsLetter(next) {
			if r == '‘' {
				return '’'
			}
			return r
		}
	}
	return 0
}

// closes reports whether r closes a quotation that want closes: an
// apostrophe between letters does not; a German quotation („…“) may also
// close with ”.
func closes(r, want, prev, next rune) bool {
	if want == '\'' || want == '’' {
		return r == want && !(unicode.IsLetter(prev) && unicode.IsLetter(next))
	}
	return r == want || want == '“' && r == '”'
}

// quoted records a quotation in the sentence: one word that matches none.
func (s *sentence) quoted() {
	s.addRaw('"')
	if s.nWords < sentenceWords && s.nArena+1 <= sentenceBytes {
		s.arena[s.nArena] = quotedWord[0]
		s.addWord(sword{a: int32(s.nArena), b: int32(s.nArena) + 1})
		s.nArena++
	}
}

// take reads r, outside any quotation, followed by next.
func (s *sentence) take(r, next rune) {
	s.addRaw(r)
	if r < utf8.RuneSelf {
		s.takeASCII(byte(r), next)
		return
	}
	switch {
	case unicode.Is(unicode.Han, r):
		s.endWord()
		s.han = true
	case unicode.In(r, unicode.Hiragana, unicode.Katakana):
		s.endWord()
		s.kana = true
	case unicode.Is(unicode.Hangul, r):
		s.endWord()
		s.hangul = true
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		s.letter(r)
	case isDiacritic(r) && s.inWord:
	case (r == '\'' || isApostrophe(r)) && s.inWord && unicode.IsLetter(next):
		s.apostrophe()
	case r == '¿':
		s.question = true
	case strings.ContainsRune(",;:，；：、—–", r) || r == '-' && !s.inWord:
		s.endWord()
		if s.nWords > 0 {
			s.words[s.nWords-1].comma = true
		}
	default:
		s.endWord()
	}
}

// takeASCII is take for an ASCII character, most of what is read, which
// needs no script's tables.
func (s *sentence) takeASCII(c byte, next rune) {
	switch {
	case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c):
		s.letter(rune(c))
	case c == '\'' && s.inWord && unicode.IsLetter(next):
		s.apostrophe()
	case c == ',' || c == ';' || c == ':' || c == '-' && !s.inWord:
		s.endWord()
		if s.nWords > 0 {
			s.words[s.nWords-1].comma = true
		}
	default:
		s.endWord()
	}
}

// asciiAlnum reports whether c is an ASCII letter or digit.
func asciiAlnum(c byte) bool { return lowerAlnum[c] != 0 }

// lowerAlnum maps each ASCII letter or digit to itself in lower case, and
// every other byte to 0.
var lowerAlnum = func() (t [256]byte) {
	for c := '0'; c <= 'z'; c++ {
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c) + 'a' - 'A'
		}
	}
	return t
}()

// asciiRun takes a run of ASCII letters and digits: the start of a word,
// or more of the one being built.
func (s *sentence) asciiRun(run string) {
	if s.nRaw+len(run) <= sentenceBytes {
		s.nRaw += copy(s.raw[s.nRaw:], run)
	} else {
		s.long = true
	}
	if !s.inWord {
		s.inWord, s.start, s.apos, s.first = true, s.nArena, 0, rune(run[0])
	}
	s.lastRune = rune(lowerAlnum[run[len(run)-1]])
	if s.nArena+len(run) > sentenceBytes-utf8.UTFMax*2 {
		return
	}
	to := s.arena[s.nArena : s.nArena+len(run)]
	for k := range to {
		to[k] = lowerAlnum[run[k]]
	}
	s.nArena += len(run)
}

// addRaw keeps r in the sentence's text, which the rules for the languages
// written without spaces read.
func (s *sentence) addRaw(r rune) {
	if s.nRaw+utf8.UTFMax > sentenceBytes {
		s.long = true
		return
	}
	if r < utf8.RuneSelf {
		s.raw[s.nRaw] = byte(r)
		s.nRaw++
		return
	}
	s.nRaw += utf8.EncodeRune(s.raw[s.nRaw:], r)
}

// letter adds the letter or digit r to the word being built.
func (s *sentence) letter(r rune) {
	if !s.inWord {
		s.inWord, s.start, s.apos, s.first = true, s.nArena, 0, r
	}
	s.lastRune = unicode.ToLower(r)
	if s.nArena+utf8.UTFMax*2 > sentenceBytes {
		return
	}
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		s.addByte(byte(r))
		return
	}
	s.nArena = len(appendFolded(s.arena[:s.nArena], r))
}

// endWord ends the word being built, if any. A French or Italian article or
// pronoun that lost its vowel to an apostrophe ("l'avenir", "d'ora") is a
// word of its own, the apostrophe kept with it.
func (s *sentence) endWord() {
	if !s.inWord {
		return
	}
	s.inWord = false
	w := s.arena[s.start:s.nArena]
	if len(w) > wordBytes || s.nWords >= sentenceWords {
		s.nArena = s.start
		return
	}
	at := int32(s.start)
	if k := s.apos - s.start; s.apos > s.start && k < len(w)-1 && elisions[string(w[:k])] {
		s.addWord(sword{a: at, b: at + int32(k) + 1, upper: unicode.IsUpper(s.first)})
		at += int32(k) + 1
		if s.nWords == sentenceWords {
			return
		}
	}
	s.addWord(sword{a: at, b: int32(s.nArena), upper: at == int32(s.start) && unicode.IsUpper(s.first), last: s.lastRune})
}

// addWord adds w to the sentence's words; there is room.
func (s *sentence) addWord(w sword) {
	s.words[s.nWords] = w
	s.nWords++
}

// lexAt returns what the tables know of word i, looked up when first asked
// for: most sentences are passed by after a look at their first words (see
// mayStand).
func (s *sentence) lexAt(i int) *lexeme {
	w := &s.words[i]
	if w.lex == nil {
		if w.lex = lexTable.find(s.word(i)); w.lex == nil {
			w.lex = &unknown
		}
	}
	return w.lex
}

// unknown is what the tables know of a word they do not hold.
var unknown lexeme

// apostrophe adds an apostrophe to the word being built, noting where the
// first is: an elided article ends there.
func (s *sentence) apostrophe() {
	if s.nArena >= sentenceBytes {
		return
	}
	if s.apos <= s.start {
		s.apos = s.nArena
	}
	s.addByte('\'')
}

// addByte adds c to the word being built; there is room.
func (s *sentence) addByte(c byte) {
	s.arena[s.nArena] = c
	s.nArena++
}
