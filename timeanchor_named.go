package byheart

// The families that name: last/this/next with a period, weekdays, months,
// seasons, days of the month, numeric dates and holidays.

// modified handles last/this/next (and "this past", "this coming") followed
// by a period, a part of the day, a weekday, a month, a season or a holiday.
func (s *scanner) modified(i int) (int, resolved, bool) {
	if s.toks[i].poss || s.owned(i) {
		return fail()
	}
	mod, j := s.at(i), i+1
	if mod == "this" && (s.is(j, "past") || s.is(j, "coming")) {
		mod = "coming"
		if s.at(j) == "past" {
			mod = "last"
		}
		j++
	}
	t := s.tok(j)
	if t == nil || s.is(j+1, "of") {
		return fail()
	}
	dir := modDirection(mod)
	w := s.str(t)
	switch w {
	case "week", "month", "year", "weekend":
		return s.modifiedPeriod(w, mod, dir, j, j > i+1)
	case "night", "evening", "morning", "afternoon":
		switch {
		case mod == "last" && (w == "night" || w == "evening"):
			return j, dayAt(s.today.addDays(-1)), true
		case mod == "this" && w != "night":
			return j, dayAt(s.today), true
		}
		return fail()
	}
	if wd := weekday(w); wd >= 0 {
		if s.nameAround(j) {
			return fail()
		}
		r, ok := s.weekdayDate(mod, wd)
		if !ok {
			return fail()
		}
		return s.extendDay(j, r)
	}
	if m := monthName(w); m > 0 {
		if mod == "coming" || needsCapital(w) && !t.upper {
			return fail()
		}
		idx, ok := cyclic(s.today.monthIndex(), m-1, 12, dir)
		return j, resolved{p: pMonth, c: monthAt(idx)}, ok
	}
	if sn := season(w); sn >= 0 && !t.poss && w[len(w)-1] != 's' {
		idx, ok := cyclic(seasonIndex(s.today), sn, 4, dir)
		return j, seasonAt(idx), ok && mod != "coming"
	}
	if end, on, ok := s.holidayName(j); ok {
		return s.holidayDate(end, on, mod, dir)
	}
	return fail()
}

// modDirection is -1 for last, +1 for next and coming, 0 for this.
func modDirection(mod string) int {
	switch mod {
	case "last":
		return -1
	case "next", "coming":
		return 1
	}
	return 0
}

// modifiedPeriod resolves last/this/next week, month, year or weekend.
// "this past week" and "this coming month" (spelled with past or coming)
// are the seven or thirty days before or after today, not a calendar period.
func (s *scanner) modifiedPeriod(w, mod string, dir, j int, spelled bool) (int, resolved, bool) {
	u, _ := unitOf(w)
	if spelled && u != uWeekend {
		return s.rolling(u, quantity{n: 1}, dir, j)
	}
	if mod == "coming" {
		dir = 0
		if s.today.mondayIndex() >= 5 {
			dir = 1
		}
	}
	r, ok := s.shift(u, dir)
	return j, r, ok
}

// weekdayDate resolves last/this/next/coming <weekday>, with Annotate's rules.
func (s *scanner) weekdayDate(mod string, wd int) (resolved, bool) {
	c := s.today.mondayIndex()
	back := floorMod(c-wd, 7)
	if back == 0 {
		back = 7
	}
	ahead := floorMod(wd-c, 7)
	if ahead == 0 {
		ahead = 7
	}
	switch mod {
	case "last":
		return dayAt(s.today.addDays(-back)), true
	case "coming":
		return dayAt(s.today.addDays(ahead)), true
	case "this":
		if wd >= c {
			return dayAt(s.today.addDays(wd - c)), true
		}
		// The day has passed this week: the verb decides, or both are written.
		past := s.today.addDays(wd - c)
		switch s.direction("", false) {
		case -1:
			return dayAt(past), true
		case 1:
			return dayAt(past.addDays(7)), true
		}
		return either(pDay, past, past.addDays(7)), true
	}
	first := s.today.addDays(ahead)
	if wd > c || c == 6 && wd != 6 {
		return either(pDay, first, first.addDays(7)), true
	}
	return dayAt(first), true
}

// nameAround spots a weekday inside a name or a title: a capitalised word
// right before it that does not open the sentence ("Good Friday", "Black
// Friday") or right after it ("Saturday Night Live", "Wednesday Addams").
func (s *scanner) nameAround(j int) bool {
	if t := s.tok(j + 1); t != nil && t.upper && s.str(t) != "i" {
		return true
	}
	return j > 1 && s.after(j) && s.toks[j-1].upper && s.at(j-1) != "i" && weekday(s.at(j-1)) < 0
}

// bareWeekday handles a weekday with no last/this/next: "on Saturday",
// "Saturday", "since Monday", "by Friday", and "Friday last week". The verb
// decides between the latest such day before today and the first after it;
// with neither (or said on that weekday) it is left alone.
func (s *scanner) bareWeekday(i int) (int, resolved, bool) {
	t := &s.toks[i]
	w := s.str(t)
	wd, prev := weekday(w), s.prev(i)
	full := len(w) >= 6
	// An abbreviation stands alone only capitalised and in an English
	// sentence: "Mon" opens many a French one ("Mon voisin ...").
	if s.owned(i) || prev == "one" || prev == "last" || prev == "this" || prev == "next" || prev == "past" ||
		prev == "coming" || !full && (!t.upper || !s.english()) || s.nameAround(i) {
		return fail()
	}
	if s.is(i+1, "last") || s.is(i+1, "this") || s.is(i+1, "next") {
		if s.is(i+2, "week") {
			return i + 2, dayAt(s.today.monday().addDays(7*modDirection(s.at(i+1)) + wd)), true
		}
	}
	c := s.today.mondayIndex()
	if wd == c {
		return fail()
	}
	switch s.direction(prev, false) {
	case -1:
		return s.extendDay(i, dayAt(s.today.addDays(-floorMod(c-wd, 7))))
	case 1:
		return s.extendDay(i, dayAt(s.today.addDays(floorMod(wd-c, 7))))
	}
	return fail()
}

// monthFirst handles a month name that opens an expression: "June 3rd",
// "June the 3rd", "May 5" after a preposition, and a bare month after
// "since", "back in", "until" or "by".
func (s *scanner) monthFirst(i int) (int, resolved, bool) {
	t := &s.toks[i]
	w := s.str(t)
	m := monthName(w)
	if needsCapital(w) && !t.upper || t.poss {
		return fail()
	}
	if d, end := s.dayAfterMonth(i); d > 0 && s.english() {
		if m == 0 {
			m = monthAbbrev(w)
		}
		return s.calendarDay(m, d, i, end)
	}
	if m == 0 || s.yearFollows(i) {
		return fail()
	}
	cur, prev := s.today.monthIndex(), s.prev(i)
	latest := cur - floorMod(cur-(m-1), 12)
	switch {
	case prev == "in" && i > 1 && s.toks[i-1].glued && s.at(i-2) == "back":
		if latest == cur {
			return i, either(pMonth, monthAt(cur-12), monthAt(cur)), true
		}
		return i, resolved{p: pMonth, c: monthAt(latest)}, true
	case prev == "since":
		return i, resolved{p: pMonth, c: monthAt(latest), rel: relSince}, true
	case prev == "until" || prev == "till" || prev == "til" || prev == "by":
		if s.direction(prev, false) < 0 {
			return i, resolved{p: pMonth, c: monthAt(latest)}, true
		}
		return i, resolved{p: pMonth, c: monthAt(cur + floorMod(m-1-cur, 12))}, true
	}
	return fail()
}

// dayAfterMonth reads the day that follows a month name at word i: "3",
// "3rd", "the 3rd", "third". A bare number after a month that is also a
// word ("May 5") counts only after a preposition ("on May 5").
func (s *scanner) dayAfterMonth(i int) (d, end int) {
	j := i + 1
	if s.is(j, "the") {
		j++
	}
	t := s.tok(j)
	if t == nil || t.poss {
		return 0, 0
	}
	w := s.str(t)
	if d = ordinal(w); d == 0 {
		d = ordinalWord(w)
	}
	if d == 0 && j == i+1 && t.free {
		if n := digits(w, 2); n >= 1 && n <= 31 && (!needsCapital(s.at(i)) || datePreposition(s.prev(i))) {
			d = n
		}
	}
	if d == 0 || s.yearFollows(j) || s.is(j+1, "of") {
		return 0, 0
	}
	return d, j
}

// dayFirst handles a day before its month: "15th of June", "15 June",
// "the fifth of June", and a day with no month after a preposition ("on
// the 15th", "by 3rd").
func (s *scanner) dayFirst(i int) (int, resolved, bool) {
	t := &s.toks[i]
	if t.poss {
		return fail()
	}
	w := s.str(t)
	d := ordinal(w)
	if d == 0 && t.free {
		if n := digits(w, 2); n >= 1 && n <= 31 {
			d = n
		}
	}
	j := i + 1
	if s.is(j, "of") {
		j++
	}
	if d == 0 && j == i+2 {
		d = ordinalWord(w)
	}
	if d == 0 {
		return fail()
	}
	start := i
	if s.at(i-1) == "the" && s.after(i) {
		start = i - 1
	}
	if m := s.monthAt(j); m > 0 {
		if s.yearFollows(j) || !s.english() {
			return fail()
		}
		return s.calendarDay(m, d, start, j)
	}
	if ordinal(w) > 0 && dayPreposition(s.prev(start)) && !s.ordinalNoun(i) {
		return s.calendarDay(0, d, start, i)
	}
	return fail()
}

// monthAt reads a month name or a short one at word j when it continues the
// phrase; the names that are also words need their capital.
func (s *scanner) monthAt(j int) int {
	t := s.tok(j)
	if t == nil || t.poss {
		return 0
	}
	w := s.str(t)
	if m := monthName(w); m > 0 && (t.upper || !needsCapital(w)) {
		return m
	}
	return monthAbbrev(w)
}

// theDayOfMonth handles "the 15th" and "the fifth of June".
func (s *scanner) theDayOfMonth(i int) (int, resolved, bool) {
	if s.tok(i+1) == nil {
		return fail()
	}
	return s.dayFirst(i + 1)
}

// ordinalNoun reports an ordinal that counts something other than days:
// "on the 15th floor", "for the 2nd time".
func (s *scanner) ordinalNoun(i int) bool {
	if s.tok(i+1) == nil {
		return false
	}
	w := s.at(i + 1)
	switch w {
	case "century", "centuries", "time", "times", "floor", "anniversary", "birthday", "place", "row",
		"grade", "grader", "street", "st", "avenue", "ave", "amendment", "edition", "round", "year", "week",
		"month", "day", "hole", "lap", "inning", "pick", "person", "attempt", "try", "episode", "chapter",
		"book", "season", "game", "match", "race", "step", "level", "page", "note", "minute", "hour",
		"generation", "percentile", "one", "ones", "child", "kid", "baby", "grandchild", "date", "visit",
		"trip", "album", "film", "movie", "novel", "version", "term", "semester", "quarter", "stage",
		"class", "lesson", "session", "wedding", "marathon", "annual", "consecutive", "straight", "overall":
		return true
	}
	return len(w) > 4 && w[len(w)-3:] == "est"
}

// calendarDay resolves a day of a year that is not said (month m, day d),
// or of a month that is not said (m 0), for the words start to end: the
// verb (or a preposition such as "since") picks the latest one on or before
// today or the first on or after it; without one, the nearer (see choose).
// After "for" ("booked for 3 March") a past verb tells when the booking was
// made, not the day, so only a future one decides.
func (s *scanner) calendarDay(m, d, start, end int) (int, resolved, bool) {
	var past, next civil
	var ok bool
	if m > 0 {
		past, next, ok = yearly(s.today, fixedDay(m, d))
	} else {
		past, next, ok = monthly(s.today, d)
	}
	if !ok {
		return fail()
	}
	prep := s.prev(start)
	dir := s.direction(prep, true)
	if (prep == "for" || prep == "about") && dir < 0 {
		dir = 0 // "I booked it for 3 March", "I told them about 3 March"
	}
	return end, s.choose(past, next, dir), true
}

// choose picks between the latest occurrence of a date on or before today
// and the first on or after it, by the direction the words give; when they
// give none, the nearer, so every turn that names a day reads it alike
// whoever says it and however; both only when neither is clearly nearer.
func (s *scanner) choose(past, next civil, dir int) resolved {
	switch {
	case past == next || dir < 0:
		return dayAt(past)
	case dir > 0:
		return dayAt(next)
	}
	back, ahead := past.daysBetween(s.today), s.today.daysBetween(next)
	switch {
	case nearer*float64(back) <= float64(ahead):
		return dayAt(past)
	case nearer*float64(ahead) <= float64(back):
		return dayAt(next)
	}
	return either(pDay, past, next)
}

// nearer is how many times nearer one occurrence of a day must be than the
// other for a sentence that gives no direction to mean it. People name a
// day without its year when it is close; the two readings are left only to
// the days near half a year away, where nearness no longer tells them
// apart. (LoCoMo's evidence has no such day near the boundary: its temporal
// figures are the same from 1.5 to 3.)
const nearer = 1.5

// yearFollows reports whether a year follows word i ("June 3, 2023", "May
// 2022"): the date is then already whole.
func (s *scanner) yearFollows(i int) bool {
	k := i + 1
	if k >= len(s.toks) {
		return false
	}
	switch s.text[s.toks[i].end:s.toks[k].start] {
	case " ", ", ", ",":
		return len(s.at(k)) == 4 && digits(s.at(k), 4) >= 1000
	}
	return false
}
