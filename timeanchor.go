package byheart

import (
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Annotate returns text with the resolved date written beside each relative
// expression it recognises, resolved against when, the moment the text was
// said. It is what byheart indexes and renders for a turn; the turn itself
// keeps the words exactly as they were appended. When when is the zero time,
// or nothing in text is a relative date, Annotate returns text itself and
// allocates nothing (short of refilling an internal pool of scanners that the
// garbage collector emptied). It is safe for concurrent use.
//
// A note is a space, then the date in square brackets, inserted right after
// the words it resolves, so the words stay and the reading follows them:
//
//	I ran the race last Saturday [20 May 2023] and rested on Sunday.
//
// The bracket holds exactly one of these forms, chosen by what the words
// name (the precision follows the expression, never finer):
//
//	[20 May 2023]               a day: yesterday, last Saturday, 3 days ago
//	[week of 15 May 2023]       a week, named by its Monday: last week, 2 weeks ago
//	[weekend of 20 May 2023]    a weekend, named by its Saturday: last weekend
//	[June 2023]                 a month: next month, last August, 4 months ago
//	[2022]                      a year: last year, 5 years ago
//	[summer 2022]               a season: last summer
//	[winter 2022-2023]          a winter, which straddles the new year
//
// A vague count ("a few days ago", "a couple of weeks ago") prefixes the form
// with "about" (and "the" before week or weekend): [about 22 May 2023]. A
// duration that runs up to the moment of speech ("I've lived here for three
// years", "two months now") is written as its start: [since 2020]. Months are
// English names, days carry no leading zero, years are written in full.
//
// Why brackets: they read as an editor's insertion, which is what a note is,
// and they cost a model nothing to understand. A user can type the same
// characters, so a note is never recognised by its look. byheart keeps the
// positions of the notes it inserted, removes exactly those (never a bracket
// the user typed), and always puts its own note immediately after the words,
// so a bracket the user wrote after an anchor ("yesterday [1 Jan 1999]") ends
// up after byheart's reading instead of passing for it: "yesterday
// [7 May 2023] [1 Jan 1999]". The one exception is a bracket that already
// says exactly what byheart would write there: then nothing is added, because
// the text already says it; this also makes annotating annotated text a no-op.
//
// Dates are calendar arithmetic in when's own location (when.Location()):
// the time of day plays no part, so "last night" is always the evening of
// the day before. Months and years move by whole calendar units, so "last
// month" said on 31 March is February. Weeks run Monday to Sunday (ISO 8601),
// seasons are the northern hemisphere's meteorological ones (winter is
// December to February), and a result outside the years 1 to 9999 is not
// written. Matching ignores case, except for month names that are also
// common words (May, March, August), which must be capitalised.
//
// What is resolved, and how:
//
//   - today, tonight, this morning/afternoon/evening: the day itself;
//     yesterday, last night, last evening: the day before; the day before
//     yesterday: two days before; tomorrow: the day after; the day after
//     tomorrow: two days after. A following morning/afternoon/evening/night
//     joins the expression ("yesterday morning [7 May 2023]").
//   - last <weekday>: the most recent such day strictly before today (said
//     on a Saturday, "last Friday" is yesterday; said on a Friday, it is a
//     week ago). "this past <weekday>" means the same.
//   - this <weekday>: that day of the current Monday-to-Sunday week, past or
//     coming. "this coming <weekday>": the first such day strictly after today.
//   - next <weekday>: the day in the following week. When that day also falls
//     later in the current week (said on a Monday, "next Friday" may mean in
//     four days or in eleven), English is split and no note is written.
//   - on <weekday>: English leaves the direction to the verb. When the
//     sentence carries a future marker (will, 'll, shall, gonna, going to,
//     won't) or a present progressive ("is flying in on Friday"), it is the
//     first such day after today; when it has a past-tense verb (an -ed
//     form or a common irregular one), the most recent such day before
//     today. With neither ("see you on Friday"), said on that same weekday,
//     or inside a question, it is left alone.
//   - last/this/next weekend: the Saturday and Sunday of the previous, current
//     or following Monday-to-Sunday week (said on a Sunday, "last weekend" is
//     the one before this one); "this past weekend" is last weekend, "this
//     coming weekend" the first one not yet begun.
//   - last/this/next week, month, year: the previous, current or following
//     calendar week, month or year; "the week/weekend/month/year before last"
//     and "... after next" go two back or two ahead.
//   - last/this/next <month name>: the most recent such month before the
//     current one, the nearest one (none when both are six months away), the
//     first one after the current one.
//   - last/this/next summer, winter, spring, fall or autumn: the most recent
//     such season already ended, the current or nearest one (none on a tie),
//     the first one not yet begun.
//   - N days/nights/weeks/weekends/months/years ago, N ... from now, in N ...
//     time, and "in N ..." when the sentence carries a future marker: N is
//     digits, one to twenty, thirty to ninety, "a", "a couple (of)" (2, about)
//     or "a few" (3, about). N weeks ago is the week holding the day 7×N days
//     back; months and years move by calendar units.
//   - for N <units>, when the sentence is in the present perfect ("I've owned
//     it for 3 years"), and N <units> now: the start of the duration.
//
// Left alone on purpose: anything preceded by a determiner or possessive
// ("the last week", "my next year", "the next day": these count from
// something other than the moment of speech), a period followed by "of"
// ("last week of June"), counts hedged by over, under, more/less than, at
// least, within, "or" or "to" ("two or three weeks ago"), bare "ago" ("long
// ago", "years ago"), hours and minutes, idiomatic possessives ("today's
// world", "yesterday's news"), the bare "the week before" (it counts from an
// event told elsewhere, not from the moment of speech), "this past week" and
// "this coming month" (the seven or thirty days around today, not a calendar
// period), days of the month ("on the 15th": whether it is this month's or
// another's depends on tense, which byheart does not parse), weekday
// abbreviations that are words ("sat", "sun", "wed") and titles such as
// "Saturday Night Live".
func Annotate(text string, when time.Time) string {
	notes := dateNotes(text, when)
	if len(notes) == 0 {
		return text
	}
	return applyNotes(text, notes)
}

// dateNote is one resolved date to insert into a text.
type dateNote struct {
	At   int    // byte offset in the original text, just after the expression
	Text string // what is inserted there, e.g. " [20 May 2023]"
}

// dateNotes finds the relative expressions of text and resolves them against
// when. The notes are sorted by At and never overlap; nil when there are none.
//
// No expression spans a sentence break, so the text is cut into sentences
// (at runs of . ! ? ; and line breaks) and only those holding a head word
// are tokenized: most turns stop at the cheap scan, and a long turn with one
// anchor pays for one sentence.
func dateNotes(text string, when time.Time) []dateNote {
	if when.IsZero() {
		return nil
	}
	var s *scanner
	var notes []dateNote
	var buf [9]byte
	n, long, head, from := 0, false, false, 0
	for i := 0; i <= len(text); i++ {
		var c byte
		if i < len(text) {
			c = text[i]
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' {
			if n < len(buf) {
				buf[n] = c
				n++
			} else {
				long = true
			}
			continue
		}
		if !long && n >= 3 && !head {
			head = headWord(string(buf[:n]))
		}
		n, long = 0, false
		if i < len(text) && !sentenceEnd(c) {
			continue
		}
		to := i
		for to < len(text) && sentenceEnd(text[to]) {
			to++
		}
		if head {
			if s == nil {
				y, m, d := when.Date()
				s = scanners.Get().(*scanner)
				s.text, s.today = text, civil{y, int(m), d}
			}
			s.tokenize(from, to)
			notes = s.match(notes)
		}
		if to == len(text) {
			break
		}
		from, head, i = to, false, to-1
	}
	if s != nil {
		s.release()
	}
	return notes
}

func sentenceEnd(c byte) bool { return c == '.' || c == '!' || c == '?' || c == ';' || c == '\n' }

// applyNotes inserts notes into text. Notes out of order or past the end of
// text are skipped, the same way stripNotes skips them, so the pair stays
// inverse even for notes that did not come from dateNotes.
func applyNotes(text string, notes []dateNote) string {
	n := len(text)
	for _, nt := range notes {
		n += len(nt.Text)
	}
	var b strings.Builder
	b.Grow(n)
	last := 0
	for _, nt := range notes {
		if nt.At < last || nt.At > len(text) {
			continue
		}
		b.WriteString(text[last:nt.At])
		b.WriteString(nt.Text)
		last = nt.At
	}
	b.WriteString(text[last:])
	return b.String()
}

// stripNotes removes from annotated the notes that applyNotes inserted and
// gives back the original text. It works from the positions, not from the
// look of a bracket, so a bracket the user typed is never removed.
func stripNotes(annotated string, notes []dateNote) string {
	var b strings.Builder
	b.Grow(len(annotated))
	shift, last, from := 0, 0, 0
	for _, nt := range notes {
		pos := nt.At + shift
		if nt.At < last || pos < from || pos+len(nt.Text) > len(annotated) ||
			annotated[pos:pos+len(nt.Text)] != nt.Text {
			continue
		}
		b.WriteString(annotated[from:pos])
		from = pos + len(nt.Text)
		shift += len(nt.Text)
		last = nt.At
	}
	b.WriteString(annotated[from:])
	return b.String()
}

// headWord is the vocabulary a sentence must hold for dateNotes to look at
// it closely: every expression has a unit, a weekday, a month, a season or a
// day word. Plurals are included.
func headWord(w string) bool {
	switch w {
	case "today", "tonight", "yesterday", "tomorrow",
		"day", "days", "night", "nights", "week", "weeks", "weekend", "weekends",
		"month", "months", "year", "years", "morning", "afternoon", "evening",
		"spring", "summer", "fall", "autumn", "winter":
		return true
	}
	return weekday(w) >= 0 || monthName(w) > 0
}

// civil is a calendar date with no time zone: all arithmetic is on dates.
type civil struct{ y, m, d int }

func (c civil) time() time.Time { return time.Date(c.y, time.Month(c.m), c.d, 12, 0, 0, 0, time.UTC) }

func (c civil) addDays(n int) civil {
	y, m, d := c.time().AddDate(0, 0, n).Date()
	return civil{y, int(m), d}
}

// mondayIndex numbers the days of the week from Monday (0) to Sunday (6).
func (c civil) mondayIndex() int { return (int(c.time().Weekday()) + 6) % 7 }

func (c civil) monday() civil { return c.addDays(-c.mondayIndex()) }

// floorDiv and floorMod keep month and season arithmetic right before year 0.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int) int { return a - floorDiv(a, b)*b }

// precision is what a note names.
type precision uint8

const (
	pDay precision = iota
	pWeek
	pWeekend
	pMonth
	pYear
	pSeason
)

// resolved is a resolved expression: a day (the first day of a week or a
// weekend), a month (y, m), a year (y) or a season (y is the year holding its
// start, except winter, which carries the year of its January; m is the
// season: 0 winter, 1 spring, 2 summer, 3 autumn).
type resolved struct {
	p      precision
	c      civil
	approx bool
	since  bool
}

var monthNames = [...]string{"", "January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December"}

var seasonNames = [...]string{"winter", "spring", "summer", "autumn"}

// note renders r as the text to insert, or "" when it falls outside the
// years 1 to 9999.
func (r resolved) note() string {
	lo, hi := r.c.y, r.c.y
	if r.p == pSeason && r.c.m == 0 {
		lo = r.c.y - 1
	}
	if lo < 1 || hi > 9999 {
		return ""
	}
	var buf [48]byte
	b := append(buf[:0], " ["...)
	if r.since {
		b = append(b, "since "...)
	}
	if r.approx {
		b = append(b, "about "...)
	}
	day := func(c civil) {
		b = strconv.AppendInt(b, int64(c.d), 10)
		b = append(b, ' ')
		b = append(b, monthNames[c.m]...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(c.y), 10)
	}
	switch r.p {
	case pDay:
		day(r.c)
	case pWeek, pWeekend:
		if r.approx || r.since {
			b = append(b, "the "...)
		}
		if r.p == pWeek {
			b = append(b, "week of "...)
		} else {
			b = append(b, "weekend of "...)
		}
		day(r.c)
	case pMonth:
		b = append(b, monthNames[r.c.m]...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(r.c.y), 10)
	case pYear:
		b = strconv.AppendInt(b, int64(r.c.y), 10)
	case pSeason:
		b = append(b, seasonNames[r.c.m]...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(lo), 10)
		if lo != hi {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(hi), 10)
		}
	}
	b = append(b, ']')
	return string(b)
}

// token is one word of the text.
type token struct {
	end    int  // where the word ends in the text, a possessive included
	ws, we int  // the word in scanner.low: lower case, possessive removed ("week's" -> "week")
	poss   bool // the word carried 's or a trailing apostrophe
	upper  bool // the word starts with a capital letter
	glued  bool // only white space separates it from the previous word
	free   bool // not glued to a number or word on its left ("1.5", "2,000", "twenty-five")
}

// scanners recycles scanners: a fresh one costs more than the matching.
var scanners = sync.Pool{New: func() any { return new(scanner) }}

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

// scanner holds one sentence's words while they are matched.
type scanner struct {
	text     string
	low      []byte // the current sentence, ASCII lowered, same byte offsets
	today    civil
	toks     []token
	question bool // the sentence ends with a question mark
	matched  int  // the last word of the latest expression matched, or -1
}

// tokenize splits the sentence text[from:to] into words. Letters and digits
// of any script make words; an apostrophe (straight or curly) between
// letters stays inside one; everything else separates. ASCII takes a table
// lookup; only other bytes pay for UTF-8 decoding.
func (s *scanner) tokenize(from, to int) {
	text := s.text[:to]
	s.low = append(s.low[:0], text[from:]...)
	for k, c := range s.low {
		if 'A' <= c && c <= 'Z' {
			s.low[k] = c + 'a' - 'A'
		}
	}
	s.toks = s.toks[:0]
	end := to
	for end > from && sentenceEnd(text[end-1]) {
		end--
	}
	s.question = strings.IndexByte(text[end:], '?') >= 0
	gapStart, gapPlain := from, true
	i := from
	for i < len(text) {
		class, size := asciiClass[text[i]&0x7f], 1
		if text[i] >= utf8.RuneSelf {
			class, size = classRune(text[i:])
		}
		if class != cWord {
			if class != cSpace {
				gapPlain = false
			}
			i += size
			continue
		}
		start := i
		upper := 'A' <= text[i] && text[i] <= 'Z'
		if text[i] >= utf8.RuneSelf {
			r, _ := utf8.DecodeRuneInString(text[i:])
			upper = unicode.IsUpper(r)
		}
		for i < len(text) {
			class, size := asciiClass[text[i]&0x7f], 1
			if text[i] >= utf8.RuneSelf {
				class, size = classRune(text[i:])
			}
			if class == cWord {
				i += size
				continue
			}
			if n := apostrophe(text, i); n > 0 {
				if next := i + n; next < len(text) {
					if c, _ := classRune(text[next:]); c == cWord && text[next] > '9' {
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
		t := token{end: i, upper: upper}
		t.glued = len(s.toks) > 0 && gapPlain && gapStart < start
		if start > 0 {
			switch text[start-1] {
			case '-', '.', ',', '/', ':':
			default:
				t.free = true
			}
		} else {
			t.free = true
		}
		w := text[start:i]
		switch {
		case strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "'S"):
			w, t.poss = w[:len(w)-2], true
		case strings.HasSuffix(w, "\u2019s") || strings.HasSuffix(w, "\u2019S"):
			w, t.poss = w[:len(w)-4], true
		case strings.HasSuffix(w, "'"):
			w, t.poss = w[:len(w)-1], true
		case strings.HasSuffix(w, "\u2019"):
			w, t.poss = w[:len(w)-3], true
		}
		t.ws, t.we = start-from, start-from+len(w)
		s.toks = append(s.toks, t)
		gapStart, gapPlain = i, true
	}
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

// classRune classifies the first character of text and returns its size in
// bytes. Invalid UTF-8 is punctuation, one byte at a time.
func classRune(text string) (uint8, int) {
	if text[0] < utf8.RuneSelf {
		return asciiClass[text[0]], 1
	}
	r, size := utf8.DecodeRuneInString(text)
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

// match walks the words once and resolves the longest expression starting at
// each, left to right; matches never overlap.
func (s *scanner) match(notes []dateNote) []dateNote {
	s.matched = -1
	for i := 0; i < len(s.toks); i++ {
		end, r, ok := s.matchAt(i)
		if !ok {
			continue
		}
		s.matched = end
		at := s.toks[end].end
		if txt := r.note(); txt != "" && !strings.HasPrefix(s.text[at:], txt) {
			if notes == nil {
				notes = make([]dateNote, 0, 4)
			}
			notes = append(notes, dateNote{At: at, Text: txt})
		}
		i = end
	}
	return notes
}

// matchAt tries every family at word i and returns the index of the
// expression's last word.
func (s *scanner) matchAt(i int) (int, resolved, bool) {
	switch s.str(&s.toks[i]) {
	case "the", "day":
		return s.beforeAfter(i)
	case "today", "tonight", "yesterday", "tomorrow":
		return s.dayWord(i)
	case "last", "this", "next":
		return s.modified(i)
	case "in":
		return s.inCount(i)
	case "on":
		return s.onWeekday(i)
	case "for":
		return s.forCount(i)
	}
	return s.count(i)
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
// compares is "volunteered".
const maxWord = 16

// tok returns word i when it exists and continues the phrase (glued to the
// previous word with nothing but white space), or nil.
func (s *scanner) tok(i int) *token {
	if i < 0 || i >= len(s.toks) || !s.toks[i].glued {
		return nil
	}
	return &s.toks[i]
}

// word reports whether word i continues the phrase as w without a possessive.
func (s *scanner) word(i int, w string) bool {
	t := s.tok(i)
	return t != nil && s.str(t) == w && !t.poss
}

// after reports whether word i directly follows a word that can qualify it.
// A word that ended an expression cannot: its note will stand between the
// two, and the text must read the same once annotated.
func (s *scanner) after(i int) bool { return i > 0 && s.toks[i].glued && s.matched != i-1 }

// hedged reports whether the word before word i is a hedge.
func (s *scanner) hedged(i int) bool { return s.after(i) && hedge(s.str(&s.toks[i-1])) }

func dayAt(c civil) resolved { return resolved{p: pDay, c: c} }

// beforeAfter handles "(the) day before yesterday", "(the) day after
// tomorrow", and "the week/weekend/month/year before last / after next".
func (s *scanner) beforeAfter(i int) (int, resolved, bool) {
	j := i
	if s.str(&s.toks[i]) == "the" {
		j = i + 1
		if s.tok(j) == nil || s.toks[j].poss {
			return 0, resolved{}, false
		}
	}
	unit := s.str(&s.toks[j])
	switch unit {
	case "day", "week", "weekend", "month", "year":
	default:
		return 0, resolved{}, false
	}
	dir := s.tok(j + 1)
	end := s.tok(j + 2)
	if dir == nil || end == nil || dir.poss || (s.str(dir) != "before" && s.str(dir) != "after") {
		return 0, resolved{}, false
	}
	back := s.str(dir) == "before"
	if unit == "day" {
		if back && s.str(end) == "yesterday" && !end.poss {
			return s.extendDay(j+2, dayAt(s.today.addDays(-2)))
		}
		if !back && s.str(end) == "tomorrow" && !end.poss {
			return s.extendDay(j+2, dayAt(s.today.addDays(2)))
		}
		return 0, resolved{}, false
	}
	if i == j || (back && s.str(end) != "last") || (!back && s.str(end) != "next") {
		return 0, resolved{}, false
	}
	n := 2
	if back {
		n = -2
	}
	r, ok := s.shift(unit, n, false)
	return j + 2, r, ok
}

// dayWord handles today, tonight, yesterday and tomorrow.
func (s *scanner) dayWord(i int) (int, resolved, bool) {
	t := &s.toks[i]
	if t.poss {
		return 0, resolved{}, false
	}
	// "USA Today", "The Tonight Show": a capitalised day word inside a name.
	// The word before must not open the sentence, which capitalises it anyway.
	if t.upper && ((i > 1 && s.after(i) && s.toks[i-1].upper && s.str(&s.toks[i-1]) != "i") ||
		s.word(i+1, "show")) {
		return 0, resolved{}, false
	}
	off := 0
	switch s.str(t) {
	case "yesterday":
		off = -1
	case "tomorrow":
		off = 1
	}
	return s.extendDay(i, dayAt(s.today.addDays(off)))
}

// extendDay lets a part of the day that follows a day join the expression,
// so the note lands after "yesterday morning" rather than inside it.
func (s *scanner) extendDay(end int, r resolved) (int, resolved, bool) {
	if t := s.tok(end + 1); t != nil && !s.toks[end].poss {
		switch s.str(t) {
		case "morning", "afternoon", "evening", "night":
			if !(t.upper && s.tok(end+2) != nil && s.toks[end+2].upper) {
				return end + 1, r, true
			}
		}
	}
	return end, r, true
}

// determiners make "last", "this" and "next" count from something other than
// the moment of speech: "the last week", "my next year", "the next day".
func determiner(w string) bool {
	switch w {
	case "the", "a", "an", "my", "your", "his", "her", "our", "their", "its",
		"that", "this", "these", "those", "every", "each", "whose", "very":
		return true
	}
	return false
}

// owned reports whether word i follows a determiner or an owner ("John's
// last week", "my next year"). A contraction such as "it's" or "that's" is
// no owner: "it's next Friday" still counts from today.
func (s *scanner) owned(i int) bool {
	if !s.after(i) {
		return false
	}
	p := &s.toks[i-1]
	if !p.poss {
		return determiner(s.str(p))
	}
	switch s.str(p) {
	case "it", "that", "what", "here", "there", "where", "when", "who", "how",
		"he", "she", "let", "everything", "nothing", "something":
		return false
	}
	return true
}

// modified handles last/this/next (and "this past", "this coming") followed
// by a period, a weekday, a month, a season or a part of the day.
func (s *scanner) modified(i int) (int, resolved, bool) {
	if s.toks[i].poss || s.owned(i) {
		return 0, resolved{}, false
	}
	mod := s.str(&s.toks[i])
	j := i + 1
	if mod == "this" && (s.word(j, "past") || s.word(j, "coming")) {
		if s.str(&s.toks[j]) == "past" {
			mod = "last"
		} else {
			mod = "coming"
		}
		j++
	}
	t := s.tok(j)
	if t == nil || s.word(j+1, "of") {
		return 0, resolved{}, false
	}
	dir := 0
	switch mod {
	case "last":
		dir = -1
	case "next", "coming":
		dir = 1
	}
	switch s.str(t) {
	case "week", "month", "year", "weekend":
		// "this past week" and "this coming month" mean the seven days or
		// the thirty days around today, not a calendar period.
		if j > i+1 && s.str(t) != "weekend" {
			return 0, resolved{}, false
		}
		if mod == "coming" {
			dir = 0
			if s.today.mondayIndex() >= 5 {
				dir = 1
			}
		}
		r, ok := s.shift(s.str(t), dir, false)
		return j, r, ok
	case "night", "evening":
		if mod == "last" {
			return j, dayAt(s.today.addDays(-1)), true
		}
		if mod == "this" && s.str(t) == "evening" {
			return j, dayAt(s.today), true
		}
		return 0, resolved{}, false
	case "morning", "afternoon":
		if mod == "this" {
			return j, dayAt(s.today), true
		}
		return 0, resolved{}, false
	}
	if wd := weekday(s.str(t)); wd >= 0 {
		if s.titleAfter(j) {
			return 0, resolved{}, false
		}
		c, ok := s.weekdayDate(mod, wd)
		if !ok {
			return 0, resolved{}, false
		}
		return s.extendDay(j, dayAt(c))
	}
	if m := monthName(s.str(t)); m > 0 {
		if mod == "coming" || (needsCapital(s.str(t)) && !t.upper) {
			return 0, resolved{}, false
		}
		cur := s.today.y*12 + s.today.m - 1
		idx, ok := cyclic(cur, m-1, 12, dir)
		if !ok {
			return 0, resolved{}, false
		}
		return j, resolved{p: pMonth, c: civil{floorDiv(idx, 12), floorMod(idx, 12) + 1, 1}}, true
	}
	if sn := season(s.str(t)); sn >= 0 {
		if mod == "coming" {
			return 0, resolved{}, false
		}
		y, m := s.today.y, s.today.m
		var cur int
		switch {
		case m == 12:
			cur = (y + 1) * 4
		case m <= 2:
			cur = y * 4
		default:
			cur = y*4 + m/3
		}
		idx, ok := cyclic(cur, sn, 4, dir)
		if !ok {
			return 0, resolved{}, false
		}
		return j, resolved{p: pSeason, c: civil{floorDiv(idx, 4), floorMod(idx, 4), 1}}, true
	}
	return 0, resolved{}, false
}

// cyclic picks an occurrence of phase target in a cycle of the given length
// (months of the year, seasons) relative to the current index cur: dir -1 is
// the latest one strictly before cur, +1 the first strictly after, and 0 cur
// itself when it is the target, else the nearer of the two, none on a tie.
func cyclic(cur, target, length, dir int) (int, bool) {
	back := floorMod(cur-target, length)
	if back == 0 {
		back = length
	}
	ahead := floorMod(target-cur, length)
	if ahead == 0 {
		ahead = length
	}
	switch {
	case dir < 0:
		return cur - back, true
	case dir > 0:
		return cur + ahead, true
	case floorMod(cur-target, length) == 0:
		return cur, true
	case back < ahead:
		return cur - back, true
	case ahead < back:
		return cur + ahead, true
	}
	return 0, false
}

// titleAfter spots a weekday that opens a title: a capitalised "Night" or
// "Morning" followed by another capitalised word ("Saturday Night Live").
func (s *scanner) titleAfter(j int) bool {
	t := s.tok(j + 1)
	if t == nil || !t.upper || (s.str(t) != "night" && s.str(t) != "morning") {
		return false
	}
	u := s.tok(j + 2)
	return u != nil && u.upper
}

// weekdayDate resolves last/this/next/coming <weekday>; see Annotate.
func (s *scanner) weekdayDate(mod string, wd int) (civil, bool) {
	c := s.today.mondayIndex()
	switch mod {
	case "last":
		back := (c - wd + 7) % 7
		if back == 0 {
			back = 7
		}
		return s.today.addDays(-back), true
	case "this":
		return s.today.addDays(wd - c), true
	case "coming":
		ahead := (wd - c + 7) % 7
		if ahead == 0 {
			ahead = 7
		}
		return s.today.addDays(ahead), true
	}
	if wd > c {
		return civil{}, false
	}
	return s.today.addDays(7 - c + wd), true
}

// shift moves today by n units and returns the period holding the result.
func (s *scanner) shift(unit string, n int, approx bool) (resolved, bool) {
	switch unit {
	case "day", "days", "night", "nights":
		return resolved{p: pDay, c: s.today.addDays(n), approx: approx}, true
	case "week", "weeks":
		return resolved{p: pWeek, c: s.today.monday().addDays(7 * n), approx: approx}, true
	case "weekend", "weekends":
		return resolved{p: pWeekend, c: s.today.monday().addDays(7*n + 5), approx: approx}, true
	case "month", "months":
		idx := s.today.y*12 + s.today.m - 1 + n
		return resolved{p: pMonth, c: civil{floorDiv(idx, 12), floorMod(idx, 12) + 1, 1}, approx: approx}, true
	case "year", "years":
		return resolved{p: pYear, c: civil{s.today.y + n, 1, 1}, approx: approx}, true
	}
	return resolved{}, false
}

// maxCount bounds counts so that arithmetic stays far from overflow; the
// years check in note drops whatever still lands out of range.
const maxCount = 100000

// hedges are words before a count that turn it into a bound or a range.
func hedge(w string) bool {
	switch w {
	case "than", "over", "under", "least", "most", "within", "or", "to":
		return true
	}
	return false
}

// quantity reads a count at word i: digits, a number word, "a", "a couple
// (of)", "a few". It returns the count, whether it is vague, and the index of
// the unit word that must follow.
func (s *scanner) quantity(i int) (n int, approx bool, unit int, ok bool) {
	t := &s.toks[i]
	if t.poss || !t.free || s.hedged(i) {
		return 0, false, 0, false
	}
	w := s.str(t)
	switch w {
	case "a":
		if s.word(i+1, "couple") {
			if s.word(i+2, "of") {
				return 2, true, i + 3, true
			}
			return 2, true, i + 2, true
		}
		if s.word(i+1, "few") {
			return 3, true, i + 2, true
		}
		return 1, false, i + 1, true
	case "couple":
		if s.word(i+1, "of") {
			return 2, true, i + 2, true
		}
		return 0, false, 0, false
	}
	if n := numberWord(w); n > 0 {
		return n, false, i + 1, true
	}
	if len(w) == 0 || len(w) > 5 {
		return 0, false, 0, false
	}
	for k := 0; k < len(w); k++ {
		if w[k] < '0' || w[k] > '9' {
			return 0, false, 0, false
		}
		n = n*10 + int(w[k]-'0')
	}
	if n == 0 || n > maxCount {
		return 0, false, 0, false
	}
	return n, false, i + 1, true
}

// countUnit reads a count and its unit starting at word i.
func (s *scanner) countUnit(i int) (n int, approx bool, unit int, ok bool) {
	n, approx, unit, ok = s.quantity(i)
	if !ok {
		return 0, false, 0, false
	}
	u := s.tok(unit)
	if u == nil {
		return 0, false, 0, false
	}
	switch s.str(u) {
	case "day", "days", "night", "nights", "week", "weeks", "weekend", "weekends",
		"month", "months", "year", "years":
		return n, approx, unit, true
	}
	return 0, false, 0, false
}

// count handles "N <units> ago", "N <units> from now" and "N <units> now".
func (s *scanner) count(i int) (int, resolved, bool) {
	n, approx, unit, ok := s.countUnit(i)
	if !ok {
		return 0, resolved{}, false
	}
	unitWord := s.str(&s.toks[unit])
	if s.toks[unit].poss {
		return 0, resolved{}, false
	}
	switch {
	case s.word(unit+1, "ago"):
		r, ok := s.shift(unitWord, -n, approx)
		return unit + 1, r, ok
	case s.word(unit+1, "from") && s.word(unit+2, "now"):
		r, ok := s.shift(unitWord, n, approx)
		return unit + 2, r, ok
	case s.word(unit+1, "now"):
		return s.since(unitWord, n, approx, unit+1)
	}
	return 0, resolved{}, false
}

// since resolves a duration running up to the moment of speech by its start.
func (s *scanner) since(unit string, n int, approx bool, end int) (int, resolved, bool) {
	if unit == "weekend" || unit == "weekends" {
		return 0, resolved{}, false
	}
	r, ok := s.shift(unit, -n, approx)
	r.since = true
	return end, r, ok
}

// inCount handles "in N <units> time" and, when the sentence speaks of the
// future, "in N <units>": without either, "in two days" is as often a
// duration ("I read it in two days") as a date.
func (s *scanner) inCount(i int) (int, resolved, bool) {
	if s.tok(i+1) == nil {
		return 0, resolved{}, false
	}
	n, approx, unit, ok := s.countUnit(i + 1)
	if !ok {
		return 0, resolved{}, false
	}
	u := &s.toks[unit]
	end := unit
	switch {
	case s.word(unit+1, "time"):
		end = unit + 1
	case u.poss || s.word(unit+1, "or") || !s.futureSentence(i):
		return 0, resolved{}, false
	}
	r, ok := s.shift(s.str(u), n, approx)
	return end, r, ok
}

// forCount handles "for N <units>" in a present-perfect sentence ("I've owned
// it for 3 years"), resolved as the start of the duration. "for N <units>
// now" is left to count, which sees the "now".
func (s *scanner) forCount(i int) (int, resolved, bool) {
	if s.tok(i+1) == nil {
		return 0, resolved{}, false
	}
	n, approx, unit, ok := s.countUnit(i + 1)
	if !ok || s.toks[unit].poss || s.word(unit+1, "now") || !s.presentPerfect(i) {
		return 0, resolved{}, false
	}
	return s.since(s.str(&s.toks[unit]), n, approx, unit)
}

// presentPerfect reports whether the sentence holds, before word i, a
// present-perfect auxiliary ("have", "has", "'ve", "'s", negated or not,
// with no modal in front) followed by a verb that describes a state lasting
// up to now ("I've had", "she's lived", "haven't seen"). Verbs of arranging
// ("I've booked a room for 3 nights") are not on the list: there "for"
// measures what was arranged, not time already passed.
func (s *scanner) presentPerfect(i int) bool {
	for k := 0; k+1 < i; k++ {
		w := s.str(&s.toks[k])
		aux := w == "have" || w == "has" || s.toks[k].poss ||
			hasAnySuffix(w, "'ve", "\u2019ve") || strings.HasPrefix(w, "haven") || strings.HasPrefix(w, "hasn")
		if !aux || (k > 0 && s.toks[k].glued && modal(s.str(&s.toks[k-1]))) {
			continue
		}
		v := k + 1
		if s.tok(v) != nil && adverb(s.str(&s.toks[v])) {
			v++
		}
		if v < i && s.tok(v) != nil && lasting(s.str(&s.toks[v])) {
			return true
		}
	}
	return false
}

func adverb(w string) bool {
	switch w {
	case "not", "never", "always", "just", "already", "really", "only", "actually", "now":
		return true
	}
	return false
}

// lasting lists past participles of verbs that describe a state or a habit.
func lasting(w string) bool {
	switch w {
	case "been", "had", "known", "lived", "worked", "played", "used", "owned",
		"studied", "stayed", "waited", "practiced", "practised", "loved", "wanted",
		"taught", "done", "kept", "volunteered", "trained", "danced", "painted",
		"collected", "run", "felt", "followed", "dreamed", "dreamt", "struggled",
		"dated", "cooked", "written", "seen", "talked", "spoken", "heard", "met",
		"lost", "missed", "attended", "led", "managed", "helped", "saved", "grown":
		return true
	}
	return false
}

func hasAnySuffix(w string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(w, x) {
			return true
		}
	}
	return false
}

func modal(w string) bool {
	switch w {
	case "will", "would", "could", "should", "might", "must", "may", "shall", "can":
		return true
	}
	return hasAnySuffix(w, "'ll", "\u2019ll", "'d", "\u2019d")
}

// futureSentence reports whether the sentence holding word i speaks of the
// future.
func (s *scanner) futureSentence(i int) bool {
	for k := range s.toks {
		switch w := s.str(&s.toks[k]); w {
		case "will", "shall", "gonna", "won't", "won\u2019t":
			return true
		case "going":
			if s.word(k+1, "to") {
				return true
			}
		default:
			if hasAnySuffix(w, "'ll", "\u2019ll") {
				return true
			}
		}
	}
	return false
}

// onWeekday handles "on <weekday>"; see Annotate for the rule.
func (s *scanner) onWeekday(i int) (int, resolved, bool) {
	t := s.tok(i + 1)
	if t == nil || t.poss || s.question {
		return 0, resolved{}, false
	}
	wd := weekday(s.str(t))
	c := s.today.mondayIndex()
	if wd < 0 || wd == c || s.titleAfter(i+1) {
		return 0, resolved{}, false
	}
	switch {
	case s.futureSentence(i) || s.progressiveSentence():
		return s.extendDay(i+1, dayAt(s.today.addDays((wd-c+7)%7)))
	case s.pastSentence():
		return s.extendDay(i+1, dayAt(s.today.addDays(-((c - wd + 7) % 7))))
	}
	return 0, resolved{}, false
}

// progressiveSentence reports whether the sentence has a present
// progressive ("is flying", "I'm meeting"), which with a weekday speaks of
// a plan.
func (s *scanner) progressiveSentence() bool {
	for k := range s.toks {
		w := s.str(&s.toks[k])
		if w != "am" && w != "is" && w != "are" && !hasAnySuffix(w, "'m", "\u2019m", "'re", "\u2019re") {
			continue
		}
		for j := k + 1; j <= k+2 && j < len(s.toks); j++ {
			if v := s.str(&s.toks[j]); len(v) > 4 && strings.HasSuffix(v, "ing") {
				return true
			}
		}
	}
	return false
}

// pastSentence reports whether the sentence has a verb in the past tense:
// a common irregular one, or a word ending in -ed.
func (s *scanner) pastSentence() bool {
	for k := range s.toks {
		w := s.str(&s.toks[k])
		if irregularPast(w) || len(w) > 4 && strings.HasSuffix(w, "ed") && !notPast(w) {
			return true
		}
	}
	return false
}

func irregularPast(w string) bool {
	switch w {
	case "was", "were", "did", "had", "went", "got", "came", "ran", "saw", "made", "took",
		"met", "told", "said", "gave", "found", "left", "felt", "thought", "bought", "brought",
		"caught", "taught", "won", "lost", "spent", "sent", "built", "kept", "slept", "ate",
		"drank", "wrote", "drove", "flew", "swam", "sang", "began", "heard", "paid", "sat",
		"stood", "held", "led", "fell", "grew", "knew", "threw", "wore", "rode", "broke",
		"chose", "spoke", "woke", "wasn't", "weren't", "didn't", "hadn't":
		return true
	}
	return false
}

// notPast lists words ending in -ed that are not past tenses.
func notPast(w string) bool {
	switch w {
	case "indeed", "speed", "breed", "proceed", "succeed", "exceed", "hundred", "sacred", "naked", "wicked":
		return true
	}
	return false
}

// weekday returns the Monday-based index of a weekday name, -1 otherwise.
// Abbreviations that are also words ("sat", "sun", "wed") are left out.
func weekday(w string) int {
	switch w {
	case "monday", "mon":
		return 0
	case "tuesday", "tue", "tues":
		return 1
	case "wednesday":
		return 2
	case "thursday", "thu", "thur", "thurs":
		return 3
	case "friday", "fri":
		return 4
	case "saturday":
		return 5
	case "sunday":
		return 6
	}
	return -1
}

// monthName returns the month number of a lower-case English month name, 0
// otherwise.
func monthName(w string) int {
	switch w {
	case "january":
		return 1
	case "february":
		return 2
	case "march":
		return 3
	case "april":
		return 4
	case "may":
		return 5
	case "june":
		return 6
	case "july":
		return 7
	case "august":
		return 8
	case "september":
		return 9
	case "october":
		return 10
	case "november":
		return 11
	case "december":
		return 12
	}
	return 0
}

// needsCapital marks month names that are also common words.
func needsCapital(w string) bool { return w == "may" || w == "march" || w == "august" }

// season returns the season index of a season name, -1 otherwise.
func season(w string) int {
	switch w {
	case "winter":
		return 0
	case "spring":
		return 1
	case "summer":
		return 2
	case "fall", "autumn":
		return 3
	}
	return -1
}

// numberWord reads the number words one to twenty and the tens to ninety.
func numberWord(w string) int {
	switch w {
	case "one":
		return 1
	case "two":
		return 2
	case "three":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	case "six":
		return 6
	case "seven":
		return 7
	case "eight":
		return 8
	case "nine":
		return 9
	case "ten":
		return 10
	case "eleven":
		return 11
	case "twelve":
		return 12
	case "thirteen":
		return 13
	case "fourteen":
		return 14
	case "fifteen":
		return 15
	case "sixteen":
		return 16
	case "seventeen":
		return 17
	case "eighteen":
		return 18
	case "nineteen":
		return 19
	case "twenty":
		return 20
	case "thirty":
		return 30
	case "forty":
		return 40
	case "fifty":
		return 50
	case "sixty":
		return 60
	case "seventy":
		return 70
	case "eighty":
		return 80
	case "ninety":
		return 90
	}
	return 0
}
