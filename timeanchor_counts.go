package byheart

import "strings"

// The families that count: "three days ago", "in two weeks", "for 3 years",
// "in the past week", "over the next few months".

// maxCount bounds counts so that arithmetic stays far from overflow; the
// years check in note drops whatever still lands out of range.
const maxCount = 100000

// quantity is a count read from the words.
type quantity struct {
	n      int
	approx bool // "a few", "a couple of", "several": an honest "about"
	next   int  // the word after the count, where the unit must be
}

// quantity reads a count at word i: digits, a number word ("two",
// "twenty-five"), "a" or "an", "a couple (of)", "a few", "several".
func (s *scanner) quantity(i int) (quantity, bool) {
	if i < 0 || i >= len(s.toks) {
		return quantity{}, false // the phrase ends before its count
	}
	t := &s.toks[i]
	if t.poss || !t.free || s.after(i) && hedge(s.str(&s.toks[i-1])) {
		return quantity{}, false
	}
	switch w := s.str(t); w {
	case "a", "an":
		switch {
		case s.is(i+1, "couple") && s.is(i+2, "of"):
			return quantity{2, true, i + 3}, true
		case s.is(i+1, "couple"):
			return quantity{2, true, i + 2}, true
		case s.is(i+1, "few"):
			return quantity{3, true, i + 2}, true
		}
		return quantity{1, false, i + 1}, true
	case "couple":
		if s.is(i+1, "of") {
			return quantity{2, true, i + 2}, true
		}
	case "few", "several":
		return quantity{3, true, i + 1}, true
	default:
		if n := s.numberAt(i, w); n > 0 && n <= maxCount {
			return quantity{n, false, i + 1}, true
		}
	}
	return quantity{}, false
}

// numberAt reads digits or a number word at word i, joining "twenty-five".
func (s *scanner) numberAt(i int, w string) int {
	if n := digits(w, 6); n >= 0 {
		return n
	}
	n := numberWord(w)
	if n < 20 || n%10 != 0 || i+1 >= len(s.toks) {
		return n
	}
	u := &s.toks[i+1]
	if u.start == s.toks[i].end+1 && s.text[s.toks[i].end] == '-' {
		if k := numberWord(s.str(u)); k > 0 && k < 10 {
			return -1 // a hyphenated count reads only as a whole; see countUnit
		}
	}
	return n
}

// countUnit reads a count and its unit starting at word i. A hyphenated
// count ("twenty-five") spans two words, so the unit is looked for after both.
func (s *scanner) countUnit(i int) (q quantity, u unit, k int, ok bool) {
	q, ok = s.quantity(i)
	if !ok && numberWord(s.at(i)) >= 20 {
		q, ok = s.hyphenated(i)
	}
	if !ok || s.tok(q.next) == nil {
		return q, uNone, 0, false
	}
	q.approx = q.approx || s.after(i) && rough(s.str(&s.toks[i-1]))
	u, plural := unitOf(s.at(q.next))
	if u == uNone || (u == uSeason || u == uWeekday) && !plural {
		return q, uNone, 0, false
	}
	return q, u, q.next, true
}

// hyphenated reads "twenty-five" as one count.
func (s *scanner) hyphenated(i int) (quantity, bool) {
	t := &s.toks[i]
	tensValue := numberWord(s.str(t))
	if !t.free || t.poss || tensValue < 20 || tensValue%10 != 0 || i+1 >= len(s.toks) || s.hedged(i) {
		return quantity{}, false
	}
	u := &s.toks[i+1]
	if u.start != t.end+1 || s.text[t.end] != '-' || u.poss {
		return quantity{}, false
	}
	k := numberWord(s.str(u))
	if k <= 0 || k >= 10 {
		return quantity{}, false
	}
	return quantity{tensValue + k, false, i + 2}, true
}

// hedged reports whether the word before word i is a hedge ("over two
// years ago", "two or three weeks ago").
func (s *scanner) hedged(i int) bool { return s.after(i) && hedge(s.str(&s.toks[i-1])) }

// count handles "N <units> ago" (or "back"), "N <units> from now" (or
// "from today") and "N <units> now", a duration up to now.
func (s *scanner) count(i int) (int, resolved, bool) {
	q, u, k, ok := s.countUnit(i)
	if !ok || s.toks[k].poss {
		return fail()
	}
	switch {
	case s.is(k+1, "ago") || s.is(k+1, "back"):
		r, ok := s.counted(u, k, -q.n, q.approx)
		return k + 1, r, ok
	case s.is(k+1, "from") && (s.is(k+2, "now") || s.is(k+2, "today")):
		r, ok := s.counted(u, k, q.n, q.approx)
		return k + 2, r, ok
	case s.is(k+1, "now"):
		return s.since(u, q, k+1)
	}
	return fail()
}

// counted resolves n units from today, units named by a season ("two
// summers ago") or a weekday ("two Saturdays ago") included: the first of
// those is the latest one before today (or the first after it), and each
// further one a year or a week beyond.
func (s *scanner) counted(u unit, k, n int, approx bool) (resolved, bool) {
	dir := 1
	if n < 0 {
		dir = -1
	}
	var r resolved
	switch u {
	case uSeason:
		idx, _ := cyclic(seasonIndex(s.today), season(s.at(k)), 4, dir)
		r = seasonAt(idx + 4*(n-dir))
	case uWeekday:
		c := s.today.mondayIndex()
		wd := weekday(s.at(k)[:len(s.at(k))-1])
		step := floorMod(dir*(wd-c), 7)
		if step == 0 {
			step = 7
		}
		r = dayAt(s.today.addDays(dir*step + 7*(n-dir)))
	default:
		var ok bool
		if r, ok = s.shift(u, n); !ok {
			return r, false
		}
	}
	if approx {
		// "About" already hedges the week; a second reading adds nothing.
		r.approx, r.two, r.alt = true, false, civil{}
	}
	return r, true
}

// since resolves a duration of q units running up to the moment of speech
// by its start.
func (s *scanner) since(u unit, q quantity, end int) (int, resolved, bool) {
	if u == uWeekend || u == uSeason || u == uWeekday {
		return fail()
	}
	r, ok := s.counted(u, end, -q.n, q.approx)
	r.rel = relSince
	return end, r, ok
}

// inCount handles "in N <units> time" and, when the sentence speaks of the
// future, "in N <units>" ("I'll be back in three days", "the exam is in two
// weeks"): with a past verb, or none, "in two days" is as often a duration
// ("I read it in two days") as a date. "within N <units>" is a span ahead.
func (s *scanner) inCount(i int) (int, resolved, bool) {
	if s.tok(i+1) == nil {
		return fail()
	}
	q, u, k, ok := s.countUnit(i + 1)
	if !ok {
		return fail()
	}
	t := s.sentenceTense()
	ahead := t&(tFuture|tPresent) != 0 && t&tPast == 0 && !s.is(k+1, "or")
	if s.at(i) == "within" {
		if !ahead || s.toks[k].poss {
			return fail()
		}
		return s.rolling(u, q, 1, k)
	}
	end := k
	switch {
	case s.is(k+1, "time"):
		end = k + 1
	case s.toks[k].poss || !ahead:
		return fail()
	}
	r, ok := s.counted(u, k, q.n, q.approx)
	return end, r, ok
}

// forCount handles "for N <units>" in a present-perfect sentence ("I've owned
// it for 3 years"), resolved as the start of the duration. "for N <units>
// now" is left to count, which sees the "now".
func (s *scanner) forCount(i int) (int, resolved, bool) {
	if s.tok(i+1) == nil {
		return fail()
	}
	q, u, k, ok := s.countUnit(i + 1)
	if !ok || s.toks[k].poss || s.is(k+1, "now") || !s.presentPerfect(i) {
		return fail()
	}
	return s.since(u, q, k)
}

// span handles a span that runs up to now or on from it, after a word that
// opens one: "in the past week", "over the last three years", "within the
// next few days", "in the coming month". Some open one on their own, where
// the sentence leaves no other reading: "past", "coming" and "upcoming"
// always ("the past week was long", "I spent the coming days packing");
// "next" when the sentence speaks of now or later ("the next three months
// are busy"), since in a story "the next day" counts from the story's day;
// "last" with a count or a plural in a sentence told from now ("the last
// few days have been hectic"), since "the last day" or "the last week" is
// as often a final one. "Previous" counts back from the day said unless
// something before it in the turn dates another moment the story is at
// ("in 2019 I moved; the previous month ..."). A sentence in the past
// perfect counts from a moment it narrates, so a span back is left alone
// there. A plural unit with no count ("the coming weeks", "over the past
// months") is a few of them, about three.
func (s *scanner) span(i int) (int, resolved, bool) {
	if s.tok(i+1) == nil || s.toks[i+1].poss {
		return fail()
	}
	t := s.sentenceTense()
	past := t&tPast != 0
	opened := spanPreposition(s.prev(i))
	dir := 0
	switch s.at(i + 1) {
	case "past":
		dir = -1
	case "last":
		if opened || !past {
			dir = -1
		}
	case "previous":
		if !s.storyBefore(i) {
			dir = -1
		}
	case "coming", "upcoming":
		if !past {
			dir = 1
		}
	case "next":
		if !past && (opened || t&(tPresent|tFuture) != 0) {
			dir = 1
		}
	}
	if dir == 0 || dir < 0 && s.pastPerfect() {
		return fail()
	}
	q, u, k, ok := s.countUnit(i + 2)
	if !ok {
		var plural bool
		u, plural = unitOf(s.at(i + 2))
		if s.tok(i+2) == nil || u == uNone || u == uSeason || u == uWeekday {
			return fail()
		}
		q, k = quantity{n: 1, next: i + 2}, i+2
		if plural {
			q.n, q.approx = 3, true
		}
	}
	if !opened && s.at(i+1) == "last" && k == i+2 && q.n == 1 {
		return fail() // "the last week": as often the final one
	}
	if s.toks[k].poss || s.is(k+1, "of") || s.is(k+1, "or") || s.is(k+1, "and") {
		return fail()
	}
	if u == uWeekend && q.n == 1 && k == i+2 {
		r, ok := s.shift(uWeekend, dir)
		if dir > 0 && s.today.mondayIndex() < 5 {
			r, ok = s.shift(uWeekend, 0)
		}
		return k, r, ok
	}
	return s.rolling(u, q, dir, k)
}

// storyBefore reports whether the turn dates another moment before word i:
// an expression already resolved that is not the moment of speech, or, in
// this sentence, a word that dates (a unit, weekday, month or year) or a
// clause of time ("when I was a kid"); in the sentences before it, a
// year, a month or a weekday, which a note may not mark. "Previous" then
// counts from it.
func (s *scanner) storyBefore(i int) bool {
	if s.anchored || s.pastPerfect() || s.datedBefore() {
		return true
	}
	if !s.storied {
		s.story, s.storied = s.firstStory(), true
	}
	return s.story < i
}

// datedBefore reports whether the text before the sentence names a year,
// a month or a weekday, reading only what earlier calls have not: a
// sentence starts after a break, never inside a word.
func (s *scanner) datedBefore() bool {
	if !s.dated && s.datedUpto < s.from {
		s.dated = datesIn(s.text[s.datedUpto:s.from])
		s.datedUpto = s.from
	}
	return s.dated
}

// firstStory is the sentence's first word, outside an aside, that dates a
// moment for storyBefore, or len(s.toks).
func (s *scanner) firstStory() int {
	for k := range s.toks {
		t := &s.toks[k]
		if t.aside {
			continue
		}
		w := s.str(t)
		switch w {
		case "just", "currently", "moment":
			continue
		case "when", "then", "while", "ago", "once", "before", "after":
			return k
		}
		if headWord(w) {
			return k
		}
		if y := digits(w, 4); len(w) == 4 && y >= 1900 && y <= 2100 {
			return k
		}
	}
	return len(s.toks)
}

// rolling resolves a span of q units back (dir -1, "since") or ahead (+1,
// "until") from today. An exact count is told to the day (a year's span to
// the month, a decade's to the year); a vague one to its own unit.
func (s *scanner) rolling(u unit, q quantity, dir, end int) (int, resolved, bool) {
	n := dir * q.n
	var r resolved
	switch {
	case u == uWeekend || u == uSeason || u == uWeekday:
		return fail()
	case u == uDay || u == uWeek || u == uFortnight || u == uMonth && !q.approx:
		var c civil
		switch u {
		case uMonth:
			c = addMonths(s.today, n)
		case uWeek:
			c = s.today.addDays(7 * n)
		case uFortnight:
			c = s.today.addDays(14 * n)
		default:
			c = s.today.addDays(n)
		}
		r = dayAt(c)
	case u == uYear && !q.approx:
		r = resolved{p: pMonth, c: monthAt(s.today.monthIndex() + 12*n)}
	default:
		var ok bool
		if r, ok = s.shift(u, n); !ok {
			return fail()
		}
	}
	r.approx = q.approx
	r.rel = relSince
	if dir > 0 {
		r.rel = relUntil
	}
	return end, r, true
}

// addMonths moves c by n calendar months, keeping the day where the month
// has it and taking the month's last day where it does not (31 March less
// one month is 28 February).
func addMonths(c civil, n int) civil {
	m := monthAt(c.monthIndex() + n)
	m.d = min(c.d, daysIn(m.y, m.m))
	return m
}

// theWeekend handles "over the weekend", "on the weekend", "at the weekend":
// the weekend just gone when the verb is past, the coming one when it
// speaks of the future, left alone otherwise ("I work on the weekend").
func (s *scanner) theWeekend(i int) (int, resolved, bool) {
	switch s.prev(i) {
	case "over", "on", "at", "during", "for", "through", "throughout":
	default:
		return fail()
	}
	if !s.is(i+1, "weekend") || s.is(i+2, "of") || s.is(i+2, "before") || s.is(i+2, "after") {
		return fail()
	}
	c := s.today.mondayIndex()
	switch s.direction("", false) {
	case -1:
		back := floorMod(c-5, 7)
		if back == 0 {
			back = 7
		}
		return i + 1, resolved{p: pWeekend, c: s.today.addDays(-back)}, true
	case 1:
		return i + 1, resolved{p: pWeekend, c: s.today.addDays(floorMod(5-c, 7))}, true
	}
	return fail()
}

// datesIn reports whether text names a year (four digits from 1900 to
// 2100), a month or a weekday: a moment a later "previous" may count from.
// A month name that is also a common word ("may", "march") counts only
// capitalised.
func datesIn(text string) bool {
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		w := text[i:j]
		i = j
		if y := digits(w, 4); len(w) == 4 && y >= 1900 && y <= 2100 {
			return true
		}
		if len(w) < 3 || len(w) > 9 {
			continue
		}
		low := strings.ToLower(w)
		if weekday(low) >= 0 || monthName(low) > 0 && (!needsCapital(low) || w[0] != low[0]) {
			return true
		}
	}
	return false
}
