package main

import (
	"strings"
	"time"
)

// Notes that contradict the gold answer: the issue asks not only how often
// the right date is written but how often a written one is wrong. A note
// counts as wrong for a question when no note beside its evidence agrees
// with the answer (none overlaps it) and the answer is not simply the day
// the evidence was said (then the notes were about something else).

// vouched reports whether the words a note follows vouch for it, so that
// a gold answer it disagrees with disagrees with the text: a note after a
// weekday's name ("last Saturday [20 May 2023]") that names one day, that
// weekday, within two weeks of the day said. Only weekdays are checked;
// any other disagreeing note counts as one the text contradicts.
func vouched(annotated, note string, said time.Time) bool {
	at := strings.Index(annotated, " ["+note+"]")
	if at < 0 {
		return false
	}
	words := dateWords(annotated[:at])
	if len(words) == 0 {
		return false
	}
	wd, ok := weekdays[words[len(words)-1]]
	spans := noteSpans(note, said)
	if !ok || len(spans) != 1 || !spans[0].first.Equal(spans[0].last) {
		return false
	}
	d := spans[0].first
	gap := d.Sub(dayOf(said)).Hours() / 24
	return d.Weekday() == wd && gap >= -14 && gap <= 14
}

// insertedNotes returns the notes (without their brackets) that Annotate
// inserted into text to make annotated, in order. The caption brackets a
// turn already carries ("[shares a photo: ...]") are text, not notes.
func insertedNotes(text, annotated string) []string {
	var notes []string
	i, j := 0, 0
	for j < len(annotated) {
		if strings.HasPrefix(annotated[j:], " [") {
			end := strings.IndexByte(annotated[j:], ']')
			if end < 0 {
				return notes
			}
			note := annotated[j : j+end+1]
			if !strings.HasPrefix(text[i:], note) {
				notes = append(notes, note[2:len(note)-1])
				j += len(note)
				continue
			}
		}
		if i >= len(text) || text[i] != annotated[j] {
			return notes
		}
		i++
		j++
	}
	return notes
}

// noteSpans reads a note as the calendar spans it names: one, or two when
// it gives two readings ("15 or 22 May 2023"). A span since a date runs to
// the day the turn was said, one until a date from it.
func noteSpans(note string, said time.Time) []span {
	rel := ""
	for _, p := range []string{"since ", "until ", "about ", "the "} {
		if strings.HasPrefix(note, p) {
			note = note[len(p):]
			if p == "since " || p == "until " {
				rel = p
			}
		}
	}
	days := 1
	switch {
	case strings.HasPrefix(note, "week of "):
		note, days = note[len("week of "):], 7
	case strings.HasPrefix(note, "weekend of "):
		note, days = note[len("weekend of "):], 2
	}
	parts := strings.Split(note, " or ")
	last := dateWords(parts[len(parts)-1])
	var out []span
	for _, p := range parts {
		w := dateWords(p)
		if len(w) < len(last) {
			w = append(w, last[len(w):]...)
		}
		if s, ok := wordsSpan(w, days); ok {
			out = append(out, stretch(s, rel, dayOf(said)))
		}
	}
	return out
}

// wordsSpan reads "20 may 2023", "may 2023", "2023", "summer 2022" or
// "winter 2022 2023" as a span, a day widened to days days.
func wordsSpan(w []string, days int) (span, bool) {
	switch {
	case len(w) == 3 && w[0] == "winter":
		if y, ok := year(w[2]); ok {
			return span{time.Date(y-1, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(y, 3, 0, 0, 0, 0, 0, time.UTC)}, true
		}
	case len(w) == 3:
		if d, _, ok := dayAt(w, 0); ok {
			return span{d, d.AddDate(0, 0, days-1)}, true
		}
	case len(w) == 2:
		y, ok := year(w[1])
		if m, isMonth := months[w[0]]; isMonth && ok {
			return monthSpan(y, m), true
		}
		if first, isSeason := seasons[w[0]]; isSeason && ok {
			start := time.Date(y, first, 1, 0, 0, 0, 0, time.UTC)
			return span{start, start.AddDate(0, 3, -1)}, true
		}
	case len(w) == 1:
		if y, ok := year(w[0]); ok {
			return yearSpan(y), true
		}
	}
	return span{}, false
}

// seasons gives the first month of each season a note names.
var seasons = map[string]time.Month{"winter": 0, "spring": 3, "summer": 6, "autumn": 9}

// stretch widens a span to run up to the day said ("since") or from it
// ("until").
func stretch(s span, rel string, said time.Time) span {
	switch rel {
	case "since ":
		return span{s.first, said}
	case "until ":
		return span{said, s.last}
	}
	return s
}

// dayOf is the calendar day of t in its own location.
func dayOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func (s span) overlaps(o span) bool { return !s.last.Before(o.first) && !o.last.Before(s.first) }

// definite is annotated without the notes that give two readings: a note
// that says "15 or 22 May" has not resolved the date, so it names neither.
func definite(text, annotated string) string {
	for _, n := range insertedNotes(text, annotated) {
		if strings.Contains(n, " or ") {
			annotated = strings.Replace(annotated, " ["+n+"]", "", 1)
		}
	}
	return annotated
}
