package byheart

import (
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"
)

//go:generate sh -c "cd internal/foldgen && GOWORK=off go run . -o ../../stem_fold.go"

// Terms returns the index terms the built-in BM25 sees in text, in order.
//
// Letters are folded the way a reader searching would fold them: to lower
// case, without diacritics ("Café" and "cafe", "Ёлка" and "елка" meet), with
// full-width forms made ordinary and half-width katakana made full. Words in
// Latin script lose the stop words and take the light stem of the language
// the text is in (English, German, French, Spanish, Portuguese or Italian,
// guessed from its stop words); when a text does not say which (a terse
// query, a short reply), each word is indexed under the stem of every
// language it could be in, so the same word meets itself whatever the guess.
// (The built-in BM25 reads a question against the memory: a question with
// no stop words takes the stems of the languages whose stems of its words
// the memory's vocabulary holds most of, every language's when it holds
// none; and a German question's words are also searched as the memory's
// compounds, split where its own vocabulary knows the parts: "Zahnarzt"
// finds "beim Arzt", "Arzt" finds "beim Zahnarzt", "Großeltern" finds "mein
// Großvater". Terms gives a compound whole, as it is indexed.)
// Cyrillic words take a light Russian stem. Chinese, Japanese and Korean,
// which do not separate words with spaces, are indexed as overlapping pairs
// of characters within a run of one script, a run of one character as
// itself, so that 北京 matches 北京 and not every text holding 北; kana
// written right after kanji (the endings in 食べた, the particle in 京都で)
// are left out, so the forms of one verb meet, and a Korean word loses its
// particle (학교에서 is about 학교). Other scripts are split at spaces and
// punctuation.
//
// A custom Retriever or a baseline that wants to tokenize exactly as byheart
// does can call it.
func Terms(text string) []string {
	var out []string
	var tk tokenizer
	tk.each(text, func(term []byte) { out = append(out, string(term)) })
	return out
}

// tokenizer splits text into terms without allocating per word once its
// buffers have grown: each term is handed to the callback in a scratch
// buffer, which the callback must copy if it keeps it.
//
// A text is read in two passes: the first folds its words into arena and
// counts the stop words of each language, the second stems each word by the
// language that count points to. Only the text itself decides the terms it
// is indexed under, so a turn and a re-encoded stretch tokenize alike
// whatever was said before them; a query's are narrowed by the memory it
// searches (see eachIn and spoken).
type tokenizer struct {
	arena   []byte // the text's words, folded, end to end
	words   []word
	start   int         // where the word being read starts in arena
	hits    [nLangs]int // stop words seen per language
	scratch []byte      // a word copied for one of several stems
	done    []byte      // the stems of one word handed out so far
	cjk     cjkRun

	// A query's German words and the memory's compounds related to them
	// (see relatedCompounds), kept for their capacity, and, in the index's
	// own tokenizer, its vocabulary ordered for that search.
	cand      langSet // the languages the last text was stemmed in
	qwords    []queryWord
	qbuf      []byte
	qfound    []uint32
	compounds compoundIndex
}

// hitWeight is what a stop word adds to its languages' counts, shared among
// them: divisible by every number of languages a word can be shared by.
const hitWeight = 420

// word is one word of the text, as a span of the tokenizer's arena.
type word struct {
	start, end int32
	kind       wordKind
	stop       langSet // the languages in which it is a stop word
}

type wordKind uint8

const (
	latinWord    wordKind = iota // only the letters a to z: a Latin stemmer applies
	cyrillicWord                 // only Cyrillic letters: the Russian stemmer applies
	otherWord                    // numbers, mixed and other scripts: kept as they are
	finalTerm                    // a CJK term, already final
)

// each hands fn the terms of text, in order.
func (tk *tokenizer) each(text string, fn func(term []byte)) { tk.eachIn(text, nil, fn) }

// eachIn is each, with the languages a text without stop words is stemmed
// in narrowed by narrow when it is given.
func (tk *tokenizer) eachIn(text string, narrow func(tk *tokenizer) langSet, fn func(term []byte)) {
	tk.read(text)
	cand := tk.candidates()
	if cand == allLatin && narrow != nil {
		cand = narrow(tk)
	}
	tk.cand = cand
	for _, w := range tk.words {
		term := tk.arena[w.start:w.end]
		switch {
		case w.kind == finalTerm:
			fn(term)
		case w.stop&(cand|langSet(1)<<russian) != 0:
		case w.kind == cyrillicWord:
			fn(stemRussian(term))
		case w.kind == latinWord:
			tk.stems(term, cand, fn)
		default:
			fn(term)
		}
	}
}

// candidates returns the languages a text's Latin words are stemmed in:
// those with the most stop words in it, or all of them when it has none.
func (tk *tokenizer) candidates() langSet {
	best, set := 0, langSet(0)
	for l := range latinLangs {
		switch n := tk.hits[l]; {
		case n > best:
			best, set = n, langSet(1)<<l
		case n == best && n > 0:
			set |= langSet(1) << l
		}
	}
	if set == 0 {
		return allLatin
	}
	return set
}

// stems hands fn the word's stem in each candidate language, each distinct
// stem once.
func (tk *tokenizer) stems(w []byte, cand langSet, fn func(term []byte)) {
	if cand&(cand-1) == 0 { // one language: stem in place
		fn(stemmers[bits.TrailingZeros8(uint8(cand))](w))
		return
	}
	// Several: each stemmer cuts a copy of its own, and the stems handed
	// out so far are kept end to end in done.
	done := tk.done[:0]
	var ends [latinLangs]int
	n := 0
	for l := range latinLangs {
		if cand&(langSet(1)<<l) == 0 {
			continue
		}
		tk.scratch = append(tk.scratch[:0], w...)
		st := stemmers[l](tk.scratch)
		if seen(done, ends[:n], st) {
			continue
		}
		done = append(done, st...)
		ends[n] = len(done)
		n++
		fn(st)
	}
	tk.done = done
}

// seen reports whether st is one of the strings kept end to end in done,
// ending at ends.
func seen(done []byte, ends []int, st []byte) bool {
	from := 0
	for _, e := range ends {
		if string(done[from:e]) == string(st) {
			return true
		}
		from = e
	}
	return false
}

// read is the first pass: it folds text's words into the arena.
func (tk *tokenizer) read(text string) {
	tk.arena, tk.words, tk.hits = tk.arena[:0], tk.words[:0], [nLangs]int{}
	tk.start = 0
	tk.cjk = cjkRun{runes: tk.cjk.runes[:0]}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if j := tk.asciiWord(text, i); j > i {
				i = j
				continue
			}
			i++
			i += tk.ascii(c, text, i)
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case 0xFF01 <= r && r <= 0xFF5E: // full-width ASCII
			i += tk.ascii(byte(r-0xFEE0), text, i)
		case isApostrophe(r):
			i += tk.apostrophe(text, i)
		case isKana(r) || 0xFF66 <= r && r <= 0xFF9D:
			r, size = kana(r, text[i:])
			i += size
			tk.addCJK(r, scriptOf(r))
		case r >= 0x2E80 && unicode.Is(unicode.Han, r):
			tk.addCJK(r, han)
		case 0xAC00 <= r && r <= 0xD7A3:
			tk.addCJK(r, hangul)
		case isDiacritic(r):
			// dropped: "cafe\u0301" reads as "cafe"
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			tk.cjk.end(tk)
			tk.arena = appendFolded(tk.arena, r)
		case r == 0x00AD || r == 0x200C || r == 0x200D || r == 0x2060 || 0x3099 <= r && r <= 0x309C:
			// soft hyphens, joiners and stray kana voicing marks sit
			// inside words
		default:
			tk.flush()
			tk.cjk.end(tk)
		}
	}
	tk.flush()
	tk.cjk.end(tk)
}

// asciiWord appends the run of ASCII letters and digits at text[i:],
// lower-cased, and returns where it ends: the common case, read without a
// call per character.
func (tk *tokenizer) asciiWord(text string, i int) int {
	j := i
	for j < len(text) && asciiLower[text[j]] != 0 {
		j++
	}
	if j == i {
		return j
	}
	if len(tk.cjk.runes) > 0 {
		tk.cjk.end(tk)
	}
	// The arena in a local, so the loop keeps it in registers rather than
	// storing it back to the tokenizer on every byte.
	a := slices.Grow(tk.arena, j-i)
	for _, c := range []byte(text[i:j]) {
		a = append(a, asciiLower[c])
	}
	tk.arena = a
	return j
}

// asciiLower is an ASCII letter or digit lower-cased, 0 for any other byte:
// asciiWord reads a word's bytes through it, one load a byte.
var asciiLower = func() (t [256]byte) {
	for c := range 256 {
		if isASCIIWordByte(byte(c)) {
			t[c] = byte(unicode.ToLower(rune(c)))
		}
	}
	return t
}()

func isASCIIWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// ascii reads the ASCII character c (or one folded from its full-width
// form), with rest the index in text just after it, and returns how many
// bytes after it it consumed.
func (tk *tokenizer) ascii(c byte, text string, rest int) int {
	switch {
	case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		tk.cjk.end(tk)
		tk.arena = append(tk.arena, c)
	case 'A' <= c && c <= 'Z':
		tk.cjk.end(tk)
		tk.arena = append(tk.arena, c+'a'-'A')
	case c == '\'':
		return tk.apostrophe(text, rest)
	default:
		tk.flush()
		tk.cjk.end(tk)
	}
	return 0
}

// apostrophe handles an apostrophe, with rest starting just after it, and
// returns how many bytes after it it consumed. Inside a word: a French or
// Italian elision drops what comes before ("l'hôtel" is about "hôtel"); a
// possessive "'s" is dropped ("Ada's" is about Ada); elsewhere the
// apostrophe is skipped, so "don't" becomes "dont", which the stop list
// knows. Anywhere else it ends the word.
func (tk *tokenizer) apostrophe(text string, rest int) int {
	w := tk.arena[tk.start:]
	if len(w) == 0 {
		tk.cjk.end(tk)
		return 0
	}
	next, _ := utf8.DecodeRuneInString(text[rest:])
	if unicode.IsLetter(next) && elisions[string(w)] {
		tk.arena = tk.arena[:tk.start]
		return 0
	}
	if rest < len(text) && (text[rest] == 's' || text[rest] == 'S') &&
		(rest+1 == len(text) || !isWordByte(text[rest+1])) {
		return 1
	}
	return 0
}

// flush ends the word being read.
func (tk *tokenizer) flush() {
	w := tk.arena[tk.start:]
	if len(w) == 0 {
		return
	}
	if len(w) <= utf8.UTFMax {
		if r, n := utf8.DecodeRune(w); n == len(w) && unicode.IsLetter(r) {
			tk.arena = tk.arena[:tk.start] // lone letters carry no topic
			return
		}
	}
	kind := latinWord
	for _, c := range w {
		if c < 'a' || c > 'z' {
			kind = otherWord
			break
		}
	}
	if kind == otherWord && isCyrillic(w) {
		kind = cyrillicWord
	}
	var stop langSet
	if len(w) < 32 && stopShapes[w[0]]&(1<<len(w)) != 0 {
		stop = stopTable.langs(w)
	}
	if k := bits.OnesCount8(uint8(stop)); k > 0 {
		// A word that is a stop word in one language only ("the", "und")
		// says more than one shared by several ("de", "la").
		for s := stop; s != 0; s &= s - 1 {
			tk.hits[bits.TrailingZeros8(uint8(s))] += hitWeight / k
		}
	}
	tk.words = append(tk.words, word{int32(tk.start), int32(len(tk.arena)), kind, stop})
	tk.start = len(tk.arena)
}

// addTerm appends a final term, spelled by runes, to the text's words.
func (tk *tokenizer) addTerm(runes []rune) {
	for _, r := range runes {
		tk.arena = utf8.AppendRune(tk.arena, r)
	}
	if cjkStop[string(tk.arena[tk.start:])] {
		tk.arena = tk.arena[:tk.start]
		return
	}
	tk.words = append(tk.words, word{int32(tk.start), int32(len(tk.arena)), finalTerm, 0})
	tk.start = len(tk.arena)
}

// appendFolded appends the letter or digit r to w, folded.
func appendFolded(w []byte, r rune) []byte {
	for _, b := range foldBlocks {
		if r < b.lo {
			break
		}
		if int(r-b.lo) < len(b.to) {
			if s := b.to[r-b.lo]; s != "" {
				return append(w, s...)
			}
			break
		}
	}
	return utf8.AppendRune(w, unicode.ToLower(r))
}

func isApostrophe(r rune) bool {
	return r == '’' || r == '‘' || r == 'ʼ' || r == '`' || r == '´'
}

// isDiacritic reports whether r is a combining mark from the blocks that
// carry accents for Latin, Greek and Cyrillic. Marks of other scripts (the
// vowel signs of Devanagari or Thai) are part of their words.
func isDiacritic(r rune) bool {
	return 0x0300 <= r && r <= 0x036F || 0x1AB0 <= r && r <= 0x1AFF ||
		0x1DC0 <= r && r <= 0x1DFF || 0x20D0 <= r && r <= 0x20FF || 0xFE20 <= r && r <= 0xFE2F
}

func isCyrillic(w []byte) bool {
	for _, r := range string(w) {
		if !unicode.Is(unicode.Cyrillic, r) {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c >= utf8.RuneSelf
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// elisions are the French and Italian words that lose their vowel to an
// apostrophe before the next word ("l'été", "qu'il", "dell'anno").
var elisions = map[string]bool{
	"l": true, "d": true, "j": true, "m": true, "n": true, "s": true, "t": true, "c": true,
	"qu": true, "jusqu": true, "lorsqu": true, "puisqu": true, "quoiqu": true,
	"un": true, "dell": true, "all": true, "dall": true, "nell": true, "sull": true,
	"coll": true, "quell": true, "quest": true, "bell": true, "sant": true,
}
