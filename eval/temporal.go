package main

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The temporal section asks how often the date a temporal question wants is
// written in or beside one of its evidence turns, which is what byheart's
// ingest annotation ("last Saturday [20 May 2023]") is for. It counts only
// gold answers that name one day, one month or one year; the rest (weeks,
// weekends, durations, ranges, hedged or misspelt dates) are listed as
// skipped rather than guessed at.

// span is a calendar range of whole days, both ends included.
type span struct{ first, last time.Time }

// within reports whether s lies inside o: a day inside a month answer's
// month names that month, but a month does not name a day.
func (s span) within(o span) bool { return !s.first.Before(o.first) && !s.last.After(o.last) }

// precision is how much of a date an answer names.
type precision int

const (
	dayPrecision precision = iota
	monthPrecision
	yearPrecision
)

var precisionNames = []string{"a day", "a month", "a year"}

func daySpan(d time.Time) span { return span{d, d} }

func monthSpan(y int, m time.Month) span {
	first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	return span{first, first.AddDate(0, 1, -1)}
}

func yearSpan(y int) span {
	return span{time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC)}
}

var months = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

// dateWords splits text into lowercase words and numbers for date reading:
// punctuation separates, digits glued to letters come apart ("3June"), and
// ordinal suffixes go ("13th").
func dateWords(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := string(cur)
		cur = cur[:0]
		if n := len(words); n > 0 && isNumber(words[n-1]) && (w == "st" || w == "nd" || w == "rd" || w == "th") {
			return
		}
		words = append(words, w)
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(cur) > 0 && unicode.IsDigit(cur[len(cur)-1]) != unicode.IsDigit(r) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return words
}

func isNumber(w string) bool {
	_, err := strconv.Atoi(w)
	return err == nil
}

// number reads w as an integer in [lo, hi].
func number(w string, lo, hi int) (int, bool) {
	n, err := strconv.Atoi(w)
	return n, err == nil && n >= lo && n <= hi
}

// year reads a four-digit year.
func year(w string) (int, bool) {
	if len(w) != 4 {
		return 0, false
	}
	return number(w, 1900, 2100)
}

// date builds a day, refusing days the month does not have.
func date(y int, m time.Month, d int) (time.Time, bool) {
	t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return t, t.Day() == d && t.Month() == m
}

// dayAt reads a full date starting at words[i] ("7 may 2023", "may 7 2023",
// or ISO "2023 05 07" once dashes are gone) and says how many words it took.
func dayAt(words []string, i int) (time.Time, int, bool) {
	if i+2 >= len(words) {
		return time.Time{}, 0, false
	}
	a, b, c := words[i], words[i+1], words[i+2]
	if d, ok := number(a, 1, 31); ok {
		if m, ok := months[b]; ok {
			if y, ok := year(c); ok {
				t, ok := date(y, m, d)
				return t, 3, ok
			}
		}
	}
	if m, ok := months[a]; ok {
		if d, ok := number(b, 1, 31); ok {
			if y, ok := year(c); ok {
				t, ok := date(y, m, d)
				return t, 3, ok
			}
		}
	}
	if y, ok := year(a); ok {
		if m, ok := number(b, 1, 12); ok {
			if d, ok := number(c, 1, 31); ok {
				t, ok := date(y, time.Month(m), d)
				return t, 3, ok
			}
		}
	}
	return time.Time{}, 0, false
}

// dateMentions returns every day, month and year text names. A day also
// yields its month and its year, which is right: "12 June 2023" names June
// 2023 and names 2023.
func dateMentions(text string) []span {
	words := dateWords(text)
	var out []span
	for i, w := range words {
		if d, _, ok := dayAt(words, i); ok {
			out = append(out, daySpan(d))
		}
		if m, ok := months[w]; ok && i+1 < len(words) {
			if y, ok := year(words[i+1]); ok {
				out = append(out, monthSpan(y, m))
			}
		}
		if y, ok := year(w); ok {
			out = append(out, yearSpan(y))
		}
	}
	return out
}

// Reasons an answer is not counted.
const (
	skipWeek  = "a week or weekend"
	skipOther = "not one day, month or year"
)

// parseAnswerDate reads a gold answer that names one day ("7 May 2023",
// "May 7, 2022", "The sunday before 25 May 2023"), one month ("June, 2023")
// or one year ("2022", "In 2021"). Anything else returns the reason it is
// skipped.
func parseAnswerDate(answer string) (span, precision, string) {
	words := dateWords(answer)
	for len(words) > 0 && (words[0] == "the" || words[0] == "in" || words[0] == "on") {
		words = words[1:]
	}
	if wd, ok := weekdays[firstWord(words)]; ok && len(words) == 5 && words[1] == "before" {
		if d, n, ok := dayAt(words, 2); ok && n == 3 {
			return daySpan(weekdayBefore(d, wd)), dayPrecision, ""
		}
	}
	switch len(words) {
	case 3:
		if d, _, ok := dayAt(words, 0); ok {
			return daySpan(d), dayPrecision, ""
		}
	case 2:
		if m, ok := months[words[0]]; ok {
			if y, ok := year(words[1]); ok {
				return monthSpan(y, m), monthPrecision, ""
			}
		}
	case 1:
		if y, ok := year(words[0]); ok {
			return yearSpan(y), yearPrecision, ""
		}
	}
	for _, w := range words {
		if strings.HasPrefix(w, "week") {
			return span{}, 0, skipWeek
		}
	}
	return span{}, 0, skipOther
}

// weekdayBefore is the given weekday strictly before d: what "last
// Saturday" said on d means, and what LoCoMo's "The Saturday before d" means.
func weekdayBefore(d time.Time, wd time.Weekday) time.Time {
	return d.AddDate(0, 0, -((int(d.Weekday())-int(wd)+6)%7 + 1))
}

func firstWord(words []string) string {
	if len(words) == 0 {
		return ""
	}
	return words[0]
}

// names reports whether text names a date inside want.
func names(text string, want span) bool {
	for _, m := range dateMentions(text) {
		if m.within(want) {
			return true
		}
	}
	return false
}

// temporalRow counts one precision of answer.
type temporalRow struct {
	Names     string `json:"answer_names"`
	Questions int    `json:"questions"`
	Annotated int    `json:"in_or_beside_evidence"`
	Raw       int    `json:"in_raw_evidence"`
	// Dated also counts the date line the memory block writes above the
	// turn (the day it was said), which a model reads beside it.
	Dated int `json:"with_block_date"`
}

// skippedAnswer is a temporal answer the section does not count, and why.
type skippedAnswer struct {
	Conversation string `json:"conversation"`
	Answer       string `json:"answer"`
	Reason       string `json:"reason"`
}

// wrongNote is a counted question whose evidence carries notes, none of
// which agrees with the gold answer.
type wrongNote struct {
	Conversation string   `json:"conversation"`
	Answer       string   `json:"answer"`
	Notes        []string `json:"notes"`
	// Vouched is set when every note's own words vouch for it (see
	// vouched): the text agrees with the notes, and the gold answer is what
	// disagrees with the text.
	Vouched bool `json:"vouched_by_text"`
}

// temporalResult is the temporal section.
type temporalResult struct {
	// Temporal is the number of category-2 questions with evidence.
	Temporal int             `json:"temporal_questions"`
	Rows     []temporalRow   `json:"rows"` // a day, a month, a year, then all
	Skipped  []skippedAnswer `json:"skipped"`
	// Noted counts the counted questions whose evidence carries a note, and
	// Wrong those of them whose notes all disagree with the answer while the
	// answer is not the day the evidence was said.
	Noted int         `json:"questions_with_notes"`
	Wrong []wrongNote `json:"wrong_notes"`
	// Contradicted counts the questions of Wrong whose notes the text does
	// not vouch for: the notes the text contradicts, as far as can be told.
	Contradicted int `json:"contradicted_by_text"`
}

// measureTemporal scores every temporal question against its evidence turns,
// annotated (what byheart indexes and renders) and raw (what was said).
func measureTemporal(ds *dataset) *temporalResult {
	res := &temporalResult{}
	rows := make([]temporalRow, len(precisionNames)+1)
	for i, n := range precisionNames {
		rows[i].Names = n
	}
	rows[len(rows)-1].Names = "all counted"
	for _, conv := range ds.Convs {
		for _, q := range conv.Questions {
			if q.Category != 2 {
				continue
			}
			res.Temporal++
			want, prec, reason := parseAnswerDate(q.Answer)
			if reason != "" {
				res.Skipped = append(res.Skipped, skippedAnswer{conv.ID, q.Answer, reason})
				continue
			}
			var annotated, raw, dated bool
			for _, e := range q.Evidence {
				t := &conv.Turns[e]
				annotated = annotated || names(definite(t.Text, t.Annotated), want)
				raw = raw || names(t.Text, want)
				dated = dated || !t.When.IsZero() && daySpan(dayOf(t.When)).within(want)
			}
			res.checkNotes(conv, q, want, dated || raw)
			dated = dated || annotated
			for _, r := range []*temporalRow{&rows[prec], &rows[len(rows)-1]} {
				r.Questions++
				if annotated {
					r.Annotated++
				}
				if raw {
					r.Raw++
				}
				if dated {
					r.Dated++
				}
			}
		}
	}
	res.Rows = rows
	return res
}

// checkNotes counts question q among those with notes when its evidence
// carries any, and as wrong when none of them overlaps the answer want and
// the answer is not already given by the text or the day it was said.
func (res *temporalResult) checkNotes(conv *conversation, q question, want span, given bool) {
	var notes []string
	agrees, vouch := false, true
	for _, e := range q.Evidence {
		t := &conv.Turns[e]
		for _, n := range insertedNotes(t.Text, t.Annotated) {
			notes = append(notes, n)
			vouch = vouch && vouched(t.Annotated, n, t.When)
			for _, s := range noteSpans(n, t.When) {
				agrees = agrees || s.overlaps(want)
			}
		}
	}
	if len(notes) == 0 {
		return
	}
	res.Noted++
	if !agrees && !given {
		res.Wrong = append(res.Wrong, wrongNote{conv.ID, q.Answer, notes, vouch})
		if !vouch {
			res.Contradicted++
		}
	}
}
