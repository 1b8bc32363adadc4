package byheart

import (
	"strconv"
	"time"
)

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

func (c civil) before(o civil) bool {
	if c.y != o.y {
		return c.y < o.y
	}
	if c.m != o.m {
		return c.m < o.m
	}
	return c.d < o.d
}

// daysBetween counts the days from c to o, negative when o comes first.
func (c civil) daysBetween(o civil) int {
	return int(o.time().Sub(c.time()).Hours()+12) / 24
}

func daysIn(y, m int) int { return time.Date(y, time.Month(m)+1, 0, 12, 0, 0, 0, time.UTC).Day() }

// monthIndex numbers months continuously (year*12 + month-1), so month
// arithmetic is addition.
func (c civil) monthIndex() int { return c.y*12 + c.m - 1 }

func monthAt(idx int) civil { return civil{floorDiv(idx, 12), floorMod(idx, 12) + 1, 1} }

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

// relation says how a note relates to its date: the date itself, a span
// that began then and runs up to now, or one that runs from now until then.
type relation uint8

const (
	relAt relation = iota
	relSince
	relUntil
)

// resolved is a resolved expression: a day (the Monday of a week, the
// Saturday of a weekend), a month (y, m), a year (y) or a season (y is the
// year holding its start, except winter, which carries the year of its
// January; m is the season: 0 winter, 1 spring, 2 summer, 3 autumn). When
// English is split between two readings, alt holds the later one and two is
// set: the note names both.
type resolved struct {
	p      precision
	c, alt civil
	two    bool
	approx bool
	rel    relation
	// speech marks a reading of the moment of speech from words that may
	// mean something else ("just"): dateNotes drops it when anything else
	// in the turn is dated.
	speech bool
}

func dayAt(c civil) resolved { return resolved{p: pDay, c: c} }

// either is the note for two readings of the same words, earlier first; one
// reading when they agree.
func either(p precision, a, b civil) resolved {
	if b.before(a) {
		a, b = b, a
	}
	return resolved{p: p, c: a, alt: b, two: a != b}
}

// week is the week holding day c, named by its Monday. On a Sunday the ISO
// week (Monday to Sunday) and the US one (Sunday to Saturday) part ways, so
// a week counted from a Sunday has two readings.
func week(c civil) resolved {
	r := resolved{p: pWeek, c: c.monday()}
	if c.mondayIndex() == 6 {
		r.alt, r.two = c.addDays(1), true
	}
	return r
}

var monthNames = [...]string{"", "January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December"}

var seasonNames = [...]string{"winter", "spring", "summer", "autumn"}

// years is the span of calendar years a reading touches, for the range check.
func (r resolved) years(c civil) (lo, hi int) {
	if r.p == pSeason && c.m == 0 {
		return c.y - 1, c.y
	}
	return c.y, c.y
}

func (r resolved) inRange(c civil) bool {
	lo, hi := r.years(c)
	return lo >= 1 && hi <= 9999
}

// note renders r as the text to insert, or "" when a reading falls outside
// the years 1 to 9999.
func (r resolved) note() string {
	if !r.inRange(r.c) || r.two && !r.inRange(r.alt) {
		return ""
	}
	var buf [80]byte
	b := append(buf[:0], " ["...)
	switch r.rel {
	case relSince:
		b = append(b, "since "...)
	case relUntil:
		b = append(b, "until "...)
	}
	if r.approx {
		b = append(b, "about "...)
	}
	switch r.p {
	case pWeek, pWeekend:
		if r.approx || r.rel != relAt {
			b = append(b, "the "...)
		}
		if r.p == pWeek {
			b = append(b, "week of "...)
		} else {
			b = append(b, "weekend of "...)
		}
	}
	b = r.appendWhen(b)
	b = append(b, ']')
	return string(b)
}

// appendWhen writes the date or dates, sharing the month and year of two
// readings when they agree: "2 or 9 June 2023", "May or June 2023".
func (r resolved) appendWhen(b []byte) []byte {
	a, z := r.c, r.alt
	switch r.p {
	case pDay, pWeek, pWeekend:
		b = strconv.AppendInt(b, int64(a.d), 10)
		if !r.two {
			return appendMonthYear(b, a)
		}
		if a.y == z.y && a.m == z.m {
			b = append(b, " or "...)
		} else if a.y == z.y {
			b = append(append(append(b, ' '), monthNames[a.m]...), " or "...)
		} else {
			b = append(appendMonthYear(b, a), " or "...)
		}
		b = strconv.AppendInt(b, int64(z.d), 10)
		return appendMonthYear(b, z)
	case pMonth:
		if r.two {
			b = append(b, monthNames[a.m]...)
			if a.y != z.y {
				b = strconv.AppendInt(append(b, ' '), int64(a.y), 10)
			}
			b = append(b, " or "...)
			a = z
		}
		return strconv.AppendInt(append(append(b, monthNames[a.m]...), ' '), int64(a.y), 10)
	case pYear:
		if r.two {
			b = append(strconv.AppendInt(b, int64(a.y), 10), " or "...)
			a = z
		}
		return strconv.AppendInt(b, int64(a.y), 10)
	}
	lo, hi := r.years(a)
	b = append(append(b, seasonNames[a.m]...), ' ')
	b = strconv.AppendInt(b, int64(lo), 10)
	if lo != hi {
		b = strconv.AppendInt(append(b, '-'), int64(hi), 10)
	}
	return b
}

func appendMonthYear(b []byte, c civil) []byte {
	b = append(append(b, ' '), monthNames[c.m]...)
	return strconv.AppendInt(append(b, ' '), int64(c.y), 10)
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

// seasonIndex numbers seasons continuously (year*4 + season) for the season
// today is in; December belongs to the winter of the year after.
func seasonIndex(c civil) int {
	switch {
	case c.m == 12:
		return (c.y + 1) * 4
	case c.m <= 2:
		return c.y * 4
	}
	return c.y*4 + c.m/3
}

func seasonAt(idx int) resolved {
	return resolved{p: pSeason, c: civil{floorDiv(idx, 4), floorMod(idx, 4), 1}}
}

// yearly finds the occurrences of a date that recurs every year (a birthday,
// a holiday) around today: the latest on or before today and the first on or
// after it. on gives the date in a year, ok false when that year has none
// (29 February).
func yearly(today civil, on func(y int) (civil, bool)) (past, next civil, ok bool) {
	var havePast, haveNext bool
	for y := today.y - 8; y <= today.y+8; y++ {
		c, valid := on(y)
		if !valid {
			continue
		}
		if !today.before(c) {
			past, havePast = c, true
		}
		if !haveNext && !c.before(today) {
			next, haveNext = c, true
		}
	}
	return past, next, havePast && haveNext
}

// monthly is yearly for a day of an unnamed month ("on the 15th").
func monthly(today civil, d int) (past, next civil, ok bool) {
	var havePast, haveNext bool
	cur := today.monthIndex()
	for idx := cur - 2; idx <= cur+2; idx++ {
		c := monthAt(idx)
		if d > daysIn(c.y, c.m) {
			continue
		}
		c.d = d
		if !today.before(c) {
			past, havePast = c, true
		}
		if !haveNext && !c.before(today) {
			next, haveNext = c, true
		}
	}
	return past, next, havePast && haveNext
}

// fixedDay is a date that falls on the same day every year.
func fixedDay(m, d int) func(int) (civil, bool) {
	return func(y int) (civil, bool) { return civil{y, m, d}, d <= daysIn(y, m) }
}

// nthWeekday is the nth (from 1; -1 for the last) weekday wd (Monday 0) of
// month m, the rule of the holidays that float.
func nthWeekday(m, wd, n int) func(int) (civil, bool) {
	return func(y int) (civil, bool) {
		if n < 0 {
			last := civil{y, m, daysIn(y, m)}
			return last.addDays(-floorMod(last.mondayIndex()-wd, 7)), true
		}
		first := civil{y, m, 1}
		return first.addDays(floorMod(wd-first.mondayIndex(), 7) + 7*(n-1)), true
	}
}

// easter is Western Easter Sunday by the Gregorian computus.
func easter(y int) (civil, bool) {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return civil{y, month, day}, y > 0
}
