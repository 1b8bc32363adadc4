package byheart

// Numeric dates and holidays.

// numericDate handles dates written in digits: ISO 8601 (2023-05-20), and
// day and month with a slash, with a year (20/5/2023, 5/20/23) or, after
// "on", without one (on 5/20). The order of day and month is read from the
// numbers: one above 12 is the day; when both could be either, a date with
// a year gets both readings and one without is left alone.
func (s *scanner) numericDate(i int) (int, resolved, bool) {
	t := &s.toks[i]
	if !t.free || t.poss || !s.english() {
		return fail()
	}
	var f, n [3]int // the fields and their digit counts
	var sep byte
	k, end := 0, t.start
	for ; k < 3; k++ {
		if k > 0 {
			if end >= len(s.text) || s.text[end] != '-' && s.text[end] != '/' || k == 2 && s.text[end] != sep {
				break
			}
			sep = s.text[end]
			end++
		}
		start := end
		for end < len(s.text) && end-start < 5 && isASCIIDigit(s.text[end]) {
			f[k] = f[k]*10 + int(s.text[end]-'0')
			end++
		}
		if n[k] = end - start; n[k] == 0 {
			return fail()
		}
	}
	if k < 2 || end < len(s.text) && (isASCIIDigit(s.text[end]) || s.text[end] == sep && end+1 < len(s.text) && isASCIIDigit(s.text[end+1])) {
		return fail()
	}
	last := i + k - 1
	if last >= len(s.toks) || s.toks[last].end != end {
		return fail()
	}
	r, ok := s.readNumeric(i, f, n, k, sep)
	return last, r, ok
}

// readNumeric turns the k fields of the numeric date at word i, with their
// digit counts, into its reading.
func (s *scanner) readNumeric(i int, f, n [3]int, k int, sep byte) (resolved, bool) {
	if sep == '-' {
		if n[0] != 4 || k != 3 || n[1] != 2 || n[2] != 2 {
			return resolved{}, false
		}
		return dayIf(f[0], f[1], f[2])
	}
	if n[0] > 2 || n[1] > 2 || k == 3 && n[2] != 2 && n[2] != 4 {
		return resolved{}, false
	}
	a, b := f[0], f[1]
	if k == 2 {
		m, d := a, b
		if a > 12 {
			m, d = b, a
		}
		if s.prev(i) != "on" || a <= 12 && b <= 12 && a != b || m < 1 || m > 12 || d > 31 {
			return resolved{}, false
		}
		past, next, ok := yearly(s.today, fixedDay(m, d))
		return s.choose(past, next, s.direction("", true)), ok
	}
	y := f[2]
	if n[2] == 2 {
		y = nearestCentury(s.today.y, y)
	}
	us, usOK := dayIf(y, a, b)
	eu, euOK := dayIf(y, b, a)
	switch {
	case usOK && euOK:
		return either(pDay, us.c, eu.c), true
	case usOK:
		return us, true
	}
	return eu, euOK
}

// dayIf is the day y-m-d when the calendar has it.
func dayIf(y, m, d int) (resolved, bool) {
	if y < 1 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return resolved{}, false
	}
	return dayAt(civil{y, m, d}), true
}

// nearestCentury reads a two-digit year as the one nearest to this year.
func nearestCentury(this, yy int) int {
	y := this - floorMod(this, 100) + yy
	switch {
	case y-this > 50:
		return y - 100
	case this-y > 50:
		return y + 100
	}
	return y
}

// holidayName reads a holiday's name starting at word i and returns its
// last word and its rule. Names whose first word is a common word ("New
// Year's Eve", "Labor Day") need their capital.
func (s *scanner) holidayName(i int) (int, func(int) (civil, bool), bool) {
	t := &s.toks[i]
	if !holidayHead(s.str(t)) {
		return 0, nil, false
	}
	for _, h := range holidays {
		if s.str(t) != h.words[0] {
			continue
		}
		k := 1
		for ; k < len(h.words) && s.tok(i+k) != nil && s.str(&s.toks[i+k]) == h.words[k]; k++ {
		}
		if k < len(h.words) || !t.upper && capitalised(h.words[0]) {
			continue
		}
		return i + k - 1, h.on, true
	}
	return 0, nil, false
}

// capitalised lists holiday names that open with a common word.
func capitalised(w string) bool {
	switch w {
	case "christmas", "xmas", "halloween", "valentine", "patrick", "juneteenth", "easter", "thanksgiving":
		return false
	}
	return true
}

// holidayAt handles a holiday after a preposition: "at Christmas", "for
// Halloween", "since Easter", "until Thanksgiving". The verb decides the
// year, as for a weekday.
func (s *scanner) holidayAt(i int) (int, resolved, bool) {
	prev := s.prev(i)
	if !datePreposition(prev) || prev == "of" {
		return fail()
	}
	end, on, ok := s.holidayName(i)
	if !ok {
		return fail()
	}
	return s.holidayDate(end, on, "", s.direction(prev, false))
}

// holidayDate resolves a holiday named with mod (last, this, next, coming
// or none) in direction dir: "last Christmas" is the latest one strictly
// before today, "next Christmas" the first strictly after, "this Christmas"
// this year's; with no modifier the verb's direction picks, and on the day
// itself it is today.
func (s *scanner) holidayDate(end int, on func(int) (civil, bool), mod string, dir int) (int, resolved, bool) {
	from := s.today
	switch mod {
	case "this":
		c, ok := on(s.today.y)
		return end, dayAt(c), ok
	case "last":
		from = s.today.addDays(-1)
	case "next", "coming":
		from = s.today.addDays(1)
	}
	past, next, ok := yearly(from, on)
	switch {
	case !ok:
		return fail()
	case past == next || dir < 0:
		return end, dayAt(past), true
	case dir > 0:
		return end, dayAt(next), true
	}
	return fail()
}
