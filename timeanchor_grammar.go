package byheart

import "strings"

// The grammar: each family of expression is a function that, given the
// index of a word, returns the index of the expression's last word and its
// resolution, or false. matchAt picks the families by the first word.

// fail is what a family returns when the words are not its expression.
func fail() (int, resolved, bool) { return 0, resolved{}, false }

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
		s.anchored = s.anchored || !r.speech
		at := s.toks[end].end
		txt := r.note()
		switch {
		case txt == "":
		case strings.HasPrefix(s.text[at:], txt):
			// The text already says it (it was annotated before): its
			// words are the note's, not the speaker's, so they are skipped.
			for end+1 < len(s.toks) && s.toks[end+1].start < at+len(txt) {
				end++
			}
		default:
			if notes == nil {
				notes = make([]dateNote, 0, 4)
			}
			notes = append(notes, dateNote{At: at, Text: txt, speech: r.speech})
		}
		i = end
	}
	return notes
}

// matchAt tries the families that can start at word i.
func (s *scanner) matchAt(i int) (int, resolved, bool) {
	w := s.str(&s.toks[i])
	switch w {
	case "the":
		return s.first(i, s.beforeAfter, s.span, s.theWeekend, s.theDayOfMonth)
	case "day":
		return s.beforeAfter(i)
	case "today", "tonight", "yesterday", "tomorrow":
		return s.dayWord(i)
	case "last", "this", "next":
		return s.modified(i)
	case "in", "within":
		return s.inCount(i)
	case "for":
		return s.forCount(i)
	case "just":
		return s.justPast(i)
	case "currently", "at":
		return s.currently(i)
	}
	switch {
	case weekday(w) >= 0:
		return s.bareWeekday(i)
	case monthName(w) > 0 || monthAbbrev(w) > 0:
		return s.monthFirst(i)
	case holidayHead(w):
		return s.holidayAt(i)
	case ordinal(w) > 0:
		return s.dayFirst(i)
	case digits(w, 4) >= 0:
		return s.first(i, s.numericDate, s.count, s.dayFirst)
	case countWord(w):
		return s.count(i)
	}
	return fail()
}

// countWord reports whether w can open a count that is not digits.
func countWord(w string) bool {
	switch w {
	case "a", "an", "couple", "few", "several":
		return true
	}
	return numberWord(w) > 0
}

// first returns the first family that matches at word i.
func (s *scanner) first(i int, families ...func(int) (int, resolved, bool)) (int, resolved, bool) {
	for _, f := range families {
		if end, r, ok := f(i); ok {
			return end, r, ok
		}
	}
	return fail()
}

// beforeAfter handles "(the) day before yesterday", "(the) day after
// tomorrow", and "the week/weekend/month/year before last / after next".
func (s *scanner) beforeAfter(i int) (int, resolved, bool) {
	j := i
	if s.at(i) == "the" {
		j = i + 1
		if s.tok(j) == nil || s.toks[j].poss {
			return fail()
		}
	}
	u, plural := unitOf(s.at(j))
	dir, end := s.tok(j+1), s.tok(j+2)
	if plural || dir == nil || end == nil || dir.poss || end.poss {
		return fail()
	}
	back := s.str(dir) == "before"
	if !back && s.str(dir) != "after" {
		return fail()
	}
	if s.at(j) == "day" {
		switch {
		case back && s.str(end) == "yesterday":
			return s.extendDay(j+2, dayAt(s.today.addDays(-2)))
		case !back && s.str(end) == "tomorrow":
			return s.extendDay(j+2, dayAt(s.today.addDays(2)))
		}
		return fail()
	}
	if i == j || (back && s.str(end) != "last") || (!back && s.str(end) != "next") {
		return fail()
	}
	n := 2
	if back {
		n = -2
	}
	r, ok := s.shift(u, n)
	return j + 2, r, ok
}

// dayWord handles today, tonight, yesterday and tomorrow.
func (s *scanner) dayWord(i int) (int, resolved, bool) {
	t := &s.toks[i]
	if t.poss {
		return fail()
	}
	// "USA Today", "The Tonight Show": a capitalised day word inside a name.
	// The word before must not open the sentence, which capitalises it anyway.
	if t.upper && ((i > 1 && s.after(i) && s.toks[i-1].upper && s.at(i-1) != "i") || s.is(i+1, "show")) {
		return fail()
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

// owned reports whether word i follows a determiner or an owner ("John's
// last week", "my next year"). A contraction such as "it's" or "that's" is
// no owner: "it's next Friday" still counts from today.
func (s *scanner) owned(i int) bool {
	if !s.after(i) {
		return false
	}
	p := &s.toks[i-1]
	switch w := s.str(p); {
	case p.poss:
		return !pronounIs(w)
	case w == "her":
		// "her" owns ("it was her last week") or is an object ("I saw
		// her last week"); after a verb it is the object.
		before := s.prev(i - 1)
		return before == "" || copula(before) || before == "was" || before == "were" ||
			before == "in" || before == "during" || before == "of" || before == "on" || before == "at" || before == "and"
	}
	return determiner(s.str(p))
}

// shift moves today by n units and returns the period holding the result.
func (s *scanner) shift(u unit, n int) (resolved, bool) {
	switch u {
	case uDay:
		return dayAt(s.today.addDays(n)), true
	case uWeek:
		return week(s.today.addDays(7 * n)), true
	case uFortnight:
		return week(s.today.addDays(14 * n)), true
	case uWeekend:
		return resolved{p: pWeekend, c: s.today.monday().addDays(7*n + 5)}, true
	case uMonth:
		return resolved{p: pMonth, c: monthAt(s.today.monthIndex() + n)}, true
	case uYear:
		return resolved{p: pYear, c: civil{s.today.y + n, 1, 1}}, true
	case uDecade:
		return resolved{p: pYear, c: civil{s.today.y + 10*n, 1, 1}, approx: true}, true
	}
	return resolved{}, false
}
