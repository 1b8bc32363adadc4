package byheart

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The guard. byheart frames what it quotes with lines of its own: markers
// («byheart memory», «end of byheart memory», «byheart outside material»
// ...), speaker labels ("user: ", "assistant: ") and date lines
// ("--- 2 January 2006 ---"). A model reads a line, not the bytes behind it,
// so a quoted text must not hold a line that a reader could take for one of
// them where byheart writes them: not spelled with a Cyrillic or full-width
// letter, in capitals, or with zero-width and bidi characters between the
// letters. Such a line is opened with quoteGuard; nothing else of the text
// changes. How much counts as framing depends on where the text stands:
//
//   - A user's or an assistant's turn sent as its own part is its own
//     message, so only a line that could pass for a marker is opened: no
//     part can then pass for a memory block. Everything else, markdown
//     rules, headings, tables and code that prints "user:" lines among
//     it, goes byte for byte.
//   - The same turn in a memory block stands under its speaker's label,
//     every line after its first indented, while the block's labels, date
//     lines and marks stand at the margin: no line of a turn can stand
//     where those do. A marker is recognised anywhere, so a line that
//     could pass for one is opened, and so is a line that reads as a date
//     line naming a day ("--- 3 May ---"); a markdown rule ("---") is not.
//   - Tool material and outside items, the channel a prompt injection
//     comes by, have every line that could pass for any framing opened:
//     markers, date lines and rules, and the speaker labels of the usual
//     transcripts, wherever the line stands.

// quoteGuard opens every line of quoted text that could pass for framing;
// the line follows it verbatim.
const quoteGuard = "[quoted] "

// defaultLabels are the speaker labels guarded in tool material and
// outside items: byheart's own two, and those of the usual chat
// transcripts, langchaingo's Human and AI among them, so an adapter that
// renders parts under those needs nothing more.
var defaultLabels = compileLabels([]string{"user", "assistant", "system", "developer", "human", "ai", "tool"})

// The guards Compose applies (see the top of this file).
var (
	// framingGuard guards tool material and outside items.
	framingGuard = guardRules{labels: defaultLabels, markers: true, dates: anyDateLine}
	// blockGuard guards a user's or an assistant's turn in a memory block.
	blockGuard = guardRules{markers: true, dates: datedLine}
	// nativeGuard guards a user's or an assistant's turn sent as its own
	// part.
	nativeGuard = guardRules{markers: true}
)

// GuardLabels returns text with "[quoted] " opening every line that could
// read as one of the given speaker labels followed by a colon ("Customer:"),
// after folding case, widths, lookalike letters (Cyrillic, Greek,
// mathematical and enclosed alphanumerics) and dropping zero-width, bidi
// and other invisible characters; the text is otherwise unchanged.
//
// It is for adapters that render byheart's parts as a transcript under
// labels of their own, such as langchaingo's memory.WithHumanPrefix: pass
// every part through it with those labels (and Indent each turn, so its
// lines after the first stand off the margin, as the memory block's do).
// Compose has already guarded tool material and outside items against the
// labels user, assistant, system, developer, human, ai and tool; a user's
// or an assistant's own turn goes out as it was said, but for a line that
// could pass for one of byheart's markers.
func GuardLabels(text string, labels ...string) string {
	g := guardRules{labels: compileLabels(labels)}
	return g.apply(text)
}

// guard returns tool material or an outside item as byheart quotes it.
func guard(text string) string { return framingGuard.apply(text) }

// guardNative returns a user's or an assistant's turn as byheart sends it
// as its own part.
func guardNative(shown string) string { return nativeGuard.apply(shown) }

// guardBlock returns a user's or an assistant's turn as the memory block
// quotes it, before its lines are indented.
func guardBlock(shown string) string { return blockGuard.apply(shown) }

// guardRules says what lines a guard neutralises: those that read as one
// of labels, as a marker with markers set, and as a date line as dates
// says.
type guardRules struct {
	labels  [][]glyph
	markers bool
	dates   dateRule
}

// dateRule says which lines of dashes a guard opens.
type dateRule uint8

const (
	noDateLine  dateRule = iota
	datedLine            // three dashes, something else, three dashes: "--- 3 May ---"
	anyDateLine          // those, and a line of dashes only: "---"
)

// apply opens each line of text that g flags with quoteGuard.
func (g *guardRules) apply(text string) string {
	var b strings.Builder
	done := 0 // bytes of text written to b
	for start := 0; ; {
		end, n := lineEnd(text, start)
		if g.flags(text[start:end]) {
			if b.Len() == 0 {
				b.Grow(len(text) + 4*len(quoteGuard))
			}
			b.WriteString(text[done:start])
			b.WriteString(quoteGuard)
			done = start
		}
		if n == 0 {
			break
		}
		start = end + n
	}
	if b.Len() == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

// lineEnd returns where the line of text that starts at i ends, and the
// length of the break that ends it, 0 at the end of the text.
func lineEnd(text string, i int) (int, int) {
	// No break starts with a printable ASCII byte, so a line's plain run
	// is passed over eight bytes a step.
	for i+8 <= len(text) && printable8(load64(text, i)) {
		i += 8
	}
	for ; i < len(text); i++ {
		if mayBreak[text[i]] {
			if n := breakAt(text, i); n > 0 {
				return i, n
			}
		}
	}
	return len(text), 0
}

// mayBreak marks the bytes a line break can start with (see breakAt), so
// a long line is passed over without a call per byte.
var mayBreak = [256]bool{'\n': true, '\v': true, '\f': true, '\r': true, 0x1c: true, 0x1d: true, 0x1e: true, 0xC2: true, 0xE2: true}

// flags reports whether line (no break in it) could be read as framing.
func (g *guardRules) flags(line string) bool {
	s := lineScan{g: g}
	if len(g.labels) == 0 {
		s.labelPhase = labelDone
	}
	for i := 0; i < len(line); {
		if !g.markers && g.dates == noDateLine && s.labelPhase == labelDone {
			return false // a label opens a line or not at all
		}
		// Past a line's opening, only a word that follows punctuation (and
		// may be a marker's) changes what a line can read as, so the ASCII
		// letters, digits and spaces up to the next punctuation are passed
		// over.
		if s.prevWord && s.idle() {
			for i < len(line) && plain[line[i]] {
				i++
			}
			if i == len(line) {
				break
			}
		}
		r, n := utf8.DecodeRuneInString(line[i:])
		i += n
		gl, ok := glyphOf(r)
		if ok && s.feed(gl) {
			return true
		}
	}
	return s.end()
}

// plain marks the ASCII letters, digits, space and tab.
var plain = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ' || c == '\t'
	}
	return t
}()

// idle reports whether the line's reading is settled but for markers, and
// no marker is under way: no label can follow, no date line, no candidate.
func (s *lineScan) idle() bool {
	return s.labelPhase == labelDone && s.ncand == 0 && (s.g.dates == noDateLine || s.seen >= 3 && !s.dashes)
}

// Glyph classes, as bits of glyph.mask beside the 26 letters.
const (
	bitColon = 26 + iota
	bitDash
	bitSpace
	bitDigit
	bitLetter // any letter, lookalike of an ASCII one or not
)

const letterBits = 1<<26 - 1

// glyph is what a character may pass for: the ASCII letters it looks like
// (bits 0-25, a for bit 0), and its class.
type glyph struct {
	mask uint32
	r    rune // the character lower-cased, for labels in other scripts
}

func (g glyph) has(bit int) bool { return g.mask&(1<<bit) != 0 }

// word reports whether g is part of a word: a letter, a digit or a
// character that passes for a letter.
func (g glyph) word() bool { return g.mask&(letterBits|1<<bitLetter|1<<bitDigit) != 0 }

// matches reports whether g can be read as pattern glyph p.
func (g glyph) matches(p glyph) bool {
	if p.mask&letterBits != 0 {
		return g.mask&p.mask&letterBits != 0
	}
	return g.r == p.r
}

// lineScan reads one line glyph by glyph for the three kinds of framing.
type lineScan struct {
	g *guardRules

	// Labels: the line's first letters, read past leading non-letters, and
	// then a colon past closing punctuation.
	labelPhase int    // labelLead, labelWord, labelColon, labelDone
	alive      uint64 // labels still matching, by index
	k          int    // letters matched so far

	// Markers: candidates for a marker word, each started at a letter that
	// opens a word after punctuation or at the line's start.
	prevWord bool          // the last glyph other than a space was part of a word
	cands    [24]candidate // two words, each candidate lives at most 12 letters
	ncand    int

	// Date lines: three dashes first, then dashes only, or anything ending
	// in three dashes.
	seen   int  // glyphs other than spaces
	dashes bool // the first three of them are dashes
	middle bool // something other than a dash came after them
	trail  int  // dashes since the last other glyph
}

const (
	labelLead = iota
	labelWord
	labelColon
	labelDone
)

// candidate is a partial match of a marker word.
type candidate struct {
	word []glyph
	k    int
}

// The words a marker line is known by.
var (
	markerWord = compileWord("byheart")
	markerEnd  = compileWord("endofbyheart")
)

// feed reads the next glyph; it reports true as soon as the line is
// framing whatever follows.
func (s *lineScan) feed(gl glyph) bool {
	if s.g.markers && s.marker(gl) {
		return true
	}
	if s.labelPhase != labelDone && s.label(gl) {
		return true
	}
	if gl.has(bitSpace) {
		return false
	}
	switch s.seen++; {
	case s.seen <= 3:
		s.dashes = gl.has(bitDash) && (s.seen == 1 || s.dashes)
	case gl.has(bitDash):
		s.trail++
	default:
		s.middle, s.trail = true, 0
	}
	return false
}

// end reports whether the whole line, now read, is framing.
func (s *lineScan) end() bool {
	if s.seen < 3 || !s.dashes {
		return false
	}
	switch s.g.dates {
	case datedLine:
		return s.middle && s.trail >= 3
	case anyDateLine:
		return !s.middle || s.trail >= 3
	}
	return false
}

// marker advances the marker candidates over gl.
func (s *lineScan) marker(gl glyph) bool {
	if gl.has(bitSpace) {
		return false
	}
	letter := gl.mask&(letterBits|1<<bitLetter) != 0
	if !letter {
		s.prevWord = gl.word()
		return false
	}
	if !s.prevWord && s.ncand+2 <= len(s.cands) {
		s.cands[s.ncand] = candidate{word: markerWord}
		s.cands[s.ncand+1] = candidate{word: markerEnd}
		s.ncand += 2
	}
	s.prevWord = true
	n := 0
	for _, c := range s.cands[:s.ncand] {
		if !gl.matches(c.word[c.k]) {
			continue
		}
		if c.k++; c.k == len(c.word) {
			return true
		}
		s.cands[n] = c
		n++
	}
	s.ncand = n
	return false
}

// label advances the label match over gl.
func (s *lineScan) label(gl glyph) bool {
	switch s.labelPhase {
	case labelLead:
		if !gl.has(bitLetter) {
			return false // list numbers, quote marks, emphasis: "1. **User**:"
		}
		s.labelPhase, s.alive = labelWord, 1<<len(s.g.labels)-1
		fallthrough
	case labelWord, labelColon:
		switch {
		case gl.word():
			s.step(gl)
		case s.labelPhase == labelColon && gl.has(bitColon):
			return true
		case gl.has(bitSpace) || strings.ContainsRune(labelPunct, gl.r):
		default:
			s.labelPhase = labelDone
		}
	}
	return false
}

// labelPunct may stand between a label's letters ("A.I.") or between a
// label and its colon ("**User**:").
const labelPunct = ".-_*`~)]>\"'»"

// step matches the next letter of the labels still alive against gl.
func (s *lineScan) step(gl glyph) {
	alive := uint64(0)
	done := false
	for i, l := range s.g.labels {
		if s.alive&(1<<i) == 0 || s.k >= len(l) || !gl.matches(l[s.k]) {
			continue
		}
		if s.k+1 == len(l) {
			done = true
		} else {
			alive |= 1 << i
		}
	}
	s.alive, s.k = alive, s.k+1
	switch {
	case done:
		s.labelPhase = labelColon
	case alive != 0:
		s.labelPhase = labelWord
	default:
		s.labelPhase = labelDone
	}
}

// compileLabels turns labels into glyph patterns, letters and digits only;
// at most 64 are kept, and labels with no letter are dropped.
func compileLabels(labels []string) [][]glyph {
	var out [][]glyph
	for _, l := range labels {
		if w := compileWord(l); len(w) > 0 && len(out) < 64 {
			out = append(out, w)
		}
	}
	return out
}

// compileWord returns the word glyphs of s, as a line would be read.
func compileWord(s string) []glyph {
	var out []glyph
	for _, r := range s {
		if gl, ok := glyphOf(r); ok && gl.word() {
			out = append(out, gl)
		}
	}
	return out
}

// glyphOf returns what r may pass for; ok is false for characters a reader
// does not see (format, combining and invisible filler characters,
// controls other than line breaks).
func glyphOf(r rune) (glyph, bool) {
	if r < utf8.RuneSelf {
		return asciiGlyph[r], asciiGlyph[r].mask != 0
	}
	if common(r) {
		return glyph{mask: 1 << bitLetter, r: r}, true
	}
	if invisible(r) {
		return glyph{}, false
	}
	r = widen(r)
	lower := unicode.ToLower(r)
	if lower < utf8.RuneSelf {
		return asciiGlyph[lower], true
	}
	gl := glyph{mask: lookalike[lower] | lookalike[r], r: lower}
	switch {
	case unicode.IsLetter(r):
		gl.mask |= 1 << bitLetter
	case unicode.IsDigit(r):
		gl.mask |= 1 << bitDigit
	case unicode.IsSpace(r):
		gl.mask |= 1 << bitSpace
	}
	if gl.mask == 0 {
		gl.mask = 1 << 31 // punctuation or a symbol: seen, but none of the classes
	}
	return gl, true
}

// common reports whether r is in one of the large blocks of letters with no
// lookalike of a Latin letter (CJK ideographs, Hangul syllables), so long
// texts in those scripts are read without a table lookup per character.
func common(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0xAC00 && r <= 0xD7A3
}

// invisible reports whether a reader sees nothing of r.
func invisible(r rune) bool {
	switch r {
	case '\u115f', '\u1160', '\u3164', '\uffa0', '\u2800':
		return true // fillers that are letters or symbols but blank
	}
	return unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Cc)
}

// widen maps the full-width forms, mathematical and enclosed alphanumerics
// onto ASCII.
func widen(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E: // full width
		return r - 0xFF01 + '!'
	case r == 0x3000:
		return ' '
	case r >= 0x1D400 && r <= 0x1D6A3: // mathematical letters, 52 to a style
		if i := (r - 0x1D400) % 52; i < 26 {
			return 'a' + i
		} else {
			return 'a' + i - 26
		}
	case r >= 0x1D6A8 && r <= 0x1D7C9: // mathematical Greek, 58 to a style
		switch i := (r - 0x1D6A8) % 58; {
		case i < 25 && i != 17:
			return 0x391 + i
		case i >= 26 && i < 51:
			return 0x3B1 + i - 26
		}
	case r >= 0x1D7CE && r <= 0x1D7FF: // mathematical digits
		return '0' + (r-0x1D7CE)%10
	}
	for _, a := range alphabets {
		if r >= a.lo && r <= a.hi {
			return a.first + r - a.lo
		}
	}
	return r
}

// alphabets are blocks that spell the letters a to z in order.
var alphabets = []struct{ lo, hi, first rune }{
	{0x24B6, 0x24CF, 'a'},   // circled capitals
	{0x24D0, 0x24E9, 'a'},   // circled small letters
	{0x249C, 0x24B5, 'a'},   // parenthesized small letters
	{0x1F130, 0x1F149, 'a'}, // squared capitals
	{0x1F150, 0x1F169, 'a'}, // negative circled capitals
	{0x1F170, 0x1F189, 'a'}, // negative squared capitals
	{0x1F1E6, 0x1F1FF, 'a'}, // regional indicators
}

// asciiGlyph is glyphOf for ASCII; the zero glyph marks controls.
var asciiGlyph = func() (t [utf8.RuneSelf]glyph) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		g := glyph{r: unicode.ToLower(r)}
		switch {
		case r >= 'a' && r <= 'z':
			g.mask = 1<<(r-'a') | 1<<bitLetter
		case r >= 'A' && r <= 'Z':
			g.mask = 1<<(r-'A') | 1<<bitLetter
		case r == '0':
			g.mask = 1<<bitDigit | 1<<('o'-'a')
		case r == '1':
			g.mask = 1<<bitDigit | 1<<('l'-'a') | 1<<('i'-'a')
		case r >= '2' && r <= '9':
			g.mask = 1 << bitDigit
		case r == ':':
			g.mask = 1 << bitColon
		case r == '-':
			g.mask = 1 << bitDash
		case r == ' ' || r == '\t':
			g.mask = 1 << bitSpace
		case r > ' ' && r < 0x7f:
			g.mask = 1 << 31
		}
		t[r] = g
	}
	return t
}()

// lookalikes lists, for each ASCII letter, the colon and the dash,
// characters of other scripts and blocks that a reader may take for it
// (lower case; capitals are found through their lower case).
var lookalikes = map[rune]string{
	'a': "àáâãäåāăąǎǟǡǻȁȃȧɐɑαάаӑӓᴀạảấầẩẫậắằẳẵặⱥ⍺ᵃₐᎪ",
	'b': "ƀƃƅɓʙвьъβϐᏼᑲᖯḃḅḇᵇᏴ",
	'c': "çćĉċčƈɕсϲᴄḉᶜᏟ",
	'd': "ďđɖɗԁᴅᑯḋḍḏḑḓᵈᎠ",
	'e': "èéêëēĕėęěȅȇȩɇеєёҽεέᴇẹẻẽếềểễệḕḗḙḛḝ℮ℯᵉₑᎬ",
	'f': "ƒꜰḟẝᶠ",
	'g': "ĝğġģǥǧǵɠɡɢԍցḡᵍᏀ",
	'h': "ĥħȟɦʜһнηћђհᏂḣḥḧḩḫẖʰₕᎻ",
	'i': "ìíîïĩīĭįıǐȉȋɨɩɪіїιίϊΐӏḭḯỉịⁱᎥ",
	'j': "ĵǰȷɉʝјϳᴊʲᎫ",
	'k': "ķĸƙǩᴋкκќḱḳḵᵏₖᏦ",
	'l': "ĺļľŀłƚȴɫɬɭʟӏǀⅼℓḷḹḻḽˡₗᏞ",
	'm': "ɱᴍмΜḿṁṃᵐₘᎷ",
	'n': "ñńņňŉŋƞǹȵɲɳɴηΝпոṅṇṉṋⁿₙ",
	'o': "òóôõöøōŏőơǒǫǭǿȍȏȫȭȯȱɵοόσоөӧօᴏọỏốồổỗộớờởỡợᵒₒᎾ",
	'p': "ƥᴘрρϱṕṗᵖₚᏢ",
	'q': "ɋʠԛզ",
	'r': "ŕŗřȑȓɍɼɽɾʀгᴦṙṛṝṟʳᎡ",
	's': "śŝşšșȿʂѕꜱſṡṣṥṧṩˢₛᏚ",
	't': "ţťŧƫƭțȶʈтτᴛṫṭṯṱẗᵗₜᎢ",
	'u': "ùúûüũūŭůűųưǔǖǘǚǜȕȗʉυύϋΰμиսᴜụủứừửữựṳṵṷṹṻᵘ",
	'v': "ʋνѵᴠṽṿᵛᏙ",
	'w': "ŵʍԝѡωᴡẁẃẅẇẉẘʷᎳ",
	'x': "хχҳẋẍˣₓ",
	'y': "ýÿŷƴȳɏʏуўүұγυỳỵỷỹẏẙʸᎩ",
	'z': "źżžƶȥʐʑᴢΖẑẓẕᶻᏃ",
	':': "：﹕︓∶꞉ː˸׃։⁚᠄",
	'-': "‐‑‒–—―−⁃﹘﹣－─━╌╍⎯ー",
}

// lookalike is lookalikes by character, with the capitals of each.
var lookalike = func() map[rune]uint32 {
	t := make(map[rune]uint32)
	for ascii, chars := range lookalikes {
		bit := asciiGlyph[ascii].mask &^ (1<<bitLetter | 1<<31)
		for _, r := range chars {
			t[r] |= bit
			if u := unicode.ToUpper(r); u != r && unicode.ToLower(u) == r {
				t[u] |= bit
			}
		}
	}
	return t
}()
