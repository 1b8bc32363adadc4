package byheart

import (
	"strings"
	"time"
)

// Annotate returns text with the resolved date written beside each relative
// expression it recognises, resolved against when, the moment the text was
// said. It is what byheart indexes and renders for a turn; the turn itself
// keeps the words exactly as they were appended. When when is the zero time,
// or nothing in text is a relative date, Annotate returns text itself and
// allocates nothing (short of refilling an internal pool of scanners that the
// garbage collector emptied). It is safe for concurrent use. It reads
// English only; text in other languages comes back unchanged.
//
// A note is a space, then the date in square brackets, inserted right after
// the words it resolves, so the words stay and the reading follows them:
//
//	I ran the race last Saturday [20 May 2023] and rested on Sunday.
//
// The bracket holds one of these forms, as precise as the words and never
// more (a day for "three days ago", a week for "last week", a month for
// "three months ago"):
//
//	[20 May 2023]               a day: yesterday, last Saturday, 3 days ago
//	[week of 15 May 2023]       a week, named by its Monday: last week, 2 weeks ago
//	[weekend of 20 May 2023]    a weekend, named by its Saturday: last weekend
//	[June 2023]                 a month: next month, last August, 4 months ago
//	[2022]                      a year: last year, 5 years ago
//	[summer 2022]               a season: last summer, two summers ago
//	[winter 2022-2023]          a winter, which straddles the new year
//
// A vague count ("a few days ago", "a couple of weeks ago", "several years
// ago", "a decade ago") prefixes the form with "about" (and "the" before
// week or weekend): [about 22 May 2023]. A span that runs up to the moment of
// speech is written as its start, one that runs on from it as its end:
// "I've lived here for three years [since 2020]", "in the past week [since
// 18 May 2023]", "within the next 3 days [until 28 May 2023]". Where English
// is split between two readings, both are written, earlier first, rather
// than a guess: "next Saturday [27 May or 3 June 2023]". Months are English
// names, days carry no leading zero, years are written in full.
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
// month" said on 31 March is February. Weeks run Monday to Sunday (ISO
// 8601); said on a Sunday, where the ISO week and the US one (Sunday to
// Saturday) part ways, a week counted from today has both readings ("last
// week [week of 15 or 22 May 2023]"). Seasons are the northern hemisphere's
// meteorological ones (winter is December to February). A result outside
// the years 1 to 9999 is not written. Matching ignores case, except for
// month names that are also common words (May, March, August) and for
// holidays whose name opens with one ("New Year's Eve", "Labor Day"), which
// must be capitalised.
//
// English leaves the direction of many expressions ("on Saturday", "on the
// 15th", "over the weekend", "at Christmas") to the verb. Annotate reads the
// sentence: a future marker (will, 'll, shall, gonna, going to, won't, a
// present progressive such as "is flying", "plan to", "can't wait", "see
// you") points ahead, a past-tense verb (an -ed form that is not an
// adjective after "be", or a common irregular one) points back. A sentence
// with both, or neither, is left alone, except where noted below.
//
// What is resolved, and how:
//
//   - today, tonight, this morning/afternoon/evening: the day itself;
//     yesterday, last night, last evening: the day before; the day before
//     yesterday: two days before; tomorrow: the day after; the day after
//     tomorrow: two days after. A following morning/afternoon/evening/night
//     joins the expression ("yesterday morning [7 May 2023]").
//   - last <weekday>: the most recent such day strictly before today, as
//     established date parsers read it (said on a Saturday, "last Friday" is
//     yesterday). "this past <weekday>" means the same.
//   - this <weekday>: that day of the current week when it is today or yet
//     to come; when it has passed, the verb picks that day or next week's,
//     and with no verb that says, both are written. "this coming
//     <weekday>": the first such day strictly after today.
//   - next <weekday>: the day in the following week when that is also the
//     first such day ahead; when the day still falls later in this week
//     (said on a Wednesday, "next Friday" may mean in two days or in nine),
//     or today is Sunday, both readings are written.
//   - a weekday alone or after on, by, until, since ("I saw her Tuesday",
//     "I'll call you on Saturday"): the most recent such day before today
//     when the verb is past (always after since), the first after today
//     when it speaks of the future (also after until and by). Said on that
//     very weekday, or with no verb that says, it is left alone.
//     "<weekday> last/this/next week" is that day of that week.
//   - last/this/next weekend: the Saturday and Sunday of the previous,
//     current or following week (said on a Sunday, "last weekend" is the one
//     before this one); "this past weekend" is last weekend, "this coming
//     weekend" the first one not yet begun. "over/on/at the weekend": the
//     latest weekend begun before today when the verb is past, the next one
//     not yet over when it is future.
//   - last/this/next week, month, year: the previous, current or following
//     calendar week, month or year; "the week/weekend/month/year before
//     last" and "... after next" go two back or two ahead.
//   - last/this/next <month name>: the most recent such month before the
//     current one, the nearest one (none when both are six months away), the
//     first one after the current one. "back in <month>": the most recent
//     such month before the current one (both years when it is the current
//     one); "since <month>": the most recent one not after the current
//     month; "until/by <month>": the first one not before it, or the most
//     recent one when the verb is past.
//   - last/this/next summer, winter, spring, fall or autumn: the most recent
//     such season already ended, the current or nearest one (none on a tie),
//     the first one not yet begun.
//   - days of the month: "June 3rd", "3 June", "the 3rd of June", "the
//     third of June", and "on the 15th" (after a preposition, with no month:
//     this month's, the last one's or the next one's). Without a year, the
//     verb picks the latest such day on or before today or the first on or
//     after it (a present "is" counts as ahead: "the party is on the 15th");
//     with no verb that says, the nearer one when it is at least one and a
//     half times nearer, else both, so a day reads one way however it is
//     spelled and whoever says it. A lone "noted" or "confirmed" says nothing
//     of the day's tense, nor does a past verb before "for" or "about"
//     ("booked for 3 March", "told them about 3 March"): it tells when the
//     booking or the telling was. A date that carries its year is already
//     whole and gets no note.
//   - numeric dates: ISO 8601 (2023-05-20) always; a day and month with a
//     slash and a year (20/5/2023, 5/20/23) with the order read from the
//     numbers (a number above 12 is the day), both readings when either
//     order works (5/6/2023 is [6 May or 5 June 2023]); without a year only
//     after "on" and only when the order is certain ("on 5/20", "on 3/3"). Two-digit
//     years are the nearest to when.
//   - holidays, after a preposition ("at Christmas", "for Halloween") or
//     last/this/next: Christmas (Eve, Day), Xmas, Boxing Day, New Year's Eve,
//     New Year's Day, Halloween, Valentine's Day, St Patrick's Day, April
//     Fools' Day, Independence Day and the Fourth of July, Juneteenth,
//     Bonfire Night, Veterans Day, Easter (Western), and the US rules for
//     Thanksgiving, Memorial Day, Labor Day, Mother's Day and Father's Day.
//     The verb picks the year; on the day itself it is today.
//   - N units ago (or back), N units from now (or from today), in N units'
//     time, and "in N units" when the sentence speaks of the future or says
//     "is" ("the exam is in two weeks"): units are day, night, week,
//     weekend, fortnight, month, year, decade, a season's name ("two summers
//     ago") and a weekday's ("two Saturdays ago"). N is digits, a number
//     word up to ninety-nine ("twenty-five"), "a"/"an", or, marked "about",
//     "a couple (of)" (2), "a few" and "several" (3). N weeks ago is the week
//     holding the day 7×N days back; months and years move by calendar
//     units; a decade is ten years, always "about".
//   - spans: "in/over/during/for/within the past/last/previous N units"
//     (since today less N units), "the next/coming/upcoming N units" and
//     "within N units" (until today plus N units), with N optional ("in the
//     past week"); a plural with no N is a few, marked "about" ("the coming
//     weeks"). An exact span is told to the day (a span of years to the
//     month), a vague one to its unit. "this past week" and "this coming
//     month" are such spans. With no preposition before it: "the past",
//     "the coming" and "the upcoming" always ("the past week was long");
//     "the next" when the sentence speaks of now or later ("the next three
//     months are busy", not "the next day we left"); "the last" with a count
//     or a plural in a sentence told from now ("the last few days have been
//     hectic", not "the last week", as often a final one); "the previous"
//     unless something before it in the turn dates another moment (a note,
//     a year, a month or weekday, a clause of time), which it then counts
//     from. "the following week" follows something told elsewhere.
//   - for N units, when the sentence is in the present perfect ("I've owned
//     it for 3 years"), and N units now: the start of the duration.
//   - just and a past verb after its subject ("I just launched it", "we've
//     just moved"): about the day itself, unless the sentence is in the past
//     perfect, the verb is one of feeling or wanting ("I just wanted to
//     say"), "and just" follows a past verb ("we sat down and just relaxed":
//     "simply"), or anything else in the turn is dated.
//   - currently, at the moment: the day itself, unless the sentence is told
//     in the past ("he was currently away" is the moment the story is at).
//
// Left alone on purpose: anything preceded by a determiner or possessive
// ("the last week", "my next year", "the following day", "every Saturday": these
// count from something other than the moment of speech, unless a span word
// opens them as above), a period followed by "of" ("last week of June"),
// spans ahead in a past-tense sentence and spans back in a past-perfect one
// (they count from the moment the story is at), counts hedged by over,
// under, more/less than, at least, about, nearly, within, "or" or "to"
// ("two or three weeks ago"), bare "ago" ("long ago", "years ago"), hours
// and minutes, idiomatic possessives ("today's world", "yesterday's news"),
// the bare "the week before" (it counts from an event told elsewhere), a
// month alone or after "in" ("I was born in March" does not say which
// March), ordinals that count something else ("the 15th floor"), weekday
// abbreviations that are words ("sat", "sun", "wed"), and names and titles
// such as "Good Friday" and "Saturday Night Live".
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
	// speech marks a note from words that may not be about time ("just");
	// see resolved.speech.
	speech bool
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
	for from := 0; from < len(text); {
		to, head := nextSentence(text, from)
		if head {
			if s == nil {
				y, m, d := when.Date()
				s = scanners.Get().(*scanner)
				s.text, s.today = text, civil{y, int(m), d}
			}
			s.tokenize(from, to)
			notes = s.match(notes)
		}
		from = to
	}
	if s != nil {
		if s.anchored {
			notes = dropSpeech(notes)
		}
		s.release()
	}
	return notes
}

// dropSpeech removes the notes of the moment of speech that words such as
// "just" gave: beside another date they are as likely "simply" or count
// from that other moment.
func dropSpeech(notes []dateNote) []dateNote {
	kept := notes[:0]
	for _, n := range notes {
		if !n.speech {
			kept = append(kept, n)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// nextSentence finds where the sentence starting at text[from] ends, after
// its closing punctuation, and whether it holds a head word: a word every
// expression needs (see headWord), or a number that opens a date ("15th",
// "5/20", "2023-05-20").
func nextSentence(text string, from int) (to int, head bool) {
	i := from
scan:
	for i < len(text) {
		switch k := sentenceClass[text[i]]; k {
		case sentenceLetter, sentenceCapital:
			// A word is read as a run, its letters compared in place; a
			// sentence whose head word is found only needs its end.
			j, caps := i+1, k
			for j < len(text) {
				k := sentenceClass[text[j]]
				if k != sentenceLetter && k != sentenceCapital {
					break
				}
				caps |= k
				j++
			}
			if !head && j-i >= 3 && j-i <= maxHeadWord {
				head = headWordFolded(text[i:j], caps == sentenceCapital)
			}
			i = j
			if head {
				for i < len(text) && !sentenceEnd(text[i]) {
					i++
				}
				break scan
			}
			continue
		case sentenceDigit:
			if !head && (i == from || !isASCIIDigit(text[i-1])) {
				head = dateDigits(text, i)
			}
		case sentenceStop:
			break scan
		}
		i++
	}
	for i < len(text) && sentenceEnd(text[i]) {
		i++
	}
	return i, head
}

// maxHeadWord is the longest word headWord may accept ("thanksgiving").
const maxHeadWord = 12

// headWordFolded is headWord of an ASCII word, which holds a capital when
// caps says so.
func headWordFolded(w string, caps bool) bool {
	if caps {
		var buf [maxHeadWord]byte
		for k := range len(w) {
			buf[k] = w[k] | 0x20 // ASCII letters only: sets the lower-case bit
		}
		return headWord(string(buf[:len(w)]))
	}
	return headWord(w)
}

// The classes of byte nextSentence tells apart, 0 for any other byte
// (space, punctuation, a byte of a multi-byte character), which ends a
// word. A capital's
// class holds a small letter's bits, so the classes of a word's letters
// OR to sentenceCapital when one of them is a capital.
const (
	sentenceLetter  = 1
	sentenceCapital = 3
	sentenceDigit   = 4
	sentenceStop    = 8
)

var sentenceClass = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		switch {
		case 'a' <= b && b <= 'z':
			t[c] = sentenceLetter
		case 'A' <= b && b <= 'Z':
			t[c] = sentenceCapital
		case isASCIIDigit(b):
			t[c] = sentenceDigit
		case sentenceEnd(b):
			t[c] = sentenceStop
		}
	}
	return t
}()

// dateDigits reports whether the run of digits at text[i] opens a date: an
// ordinal suffix, or a dash or slash followed by another digit.
func dateDigits(text string, i int) bool {
	for i < len(text) && isASCIIDigit(text[i]) {
		i++
	}
	if i+1 >= len(text) {
		return false
	}
	switch text[i] {
	case '-', '/':
		return isASCIIDigit(text[i+1])
	}
	suffix := strings.ToLower(text[i : i+2])
	return suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th"
}

func sentenceEnd(c byte) bool { return c == '.' || c == '!' || c == '?' || c == ';' || c == '\n' }

// headWord is the vocabulary a sentence must hold for dateNotes to look at
// it closely: every expression has a unit, a weekday, a month, a season, a
// day word or a holiday. Holidays named with a unit ("Labor Day") are found
// by the unit.
func headWord(w string) bool {
	switch w {
	case "today", "tonight", "yesterday", "tomorrow", "morning", "afternoon", "evening", "just", "currently", "moment",
		"christmas", "xmas", "halloween", "valentine", "easter", "thanksgiving", "juneteenth":
		return true
	}
	u, _ := unitOf(w)
	return u != uNone || weekday(w) >= 0 || monthName(w) > 0 || monthAbbrev(w) > 0 || season(w) >= 0
}

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
