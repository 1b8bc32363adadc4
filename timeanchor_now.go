package byheart

// The families that mean the moment of speech itself: "I just launched it",
// "I've just moved", "I'm currently reading it". They name the day the
// words were said, which the memory block's date line also tells, but a
// model reading "just launched" does not always join the two; the note does.

// justPast handles "just" and a past verb after a subject ("I just got
// accepted", "we've just moved", "Gina just launched"): an event so recent
// it is told on the day, written [about <that day>] because "just" can
// reach a day or two back. "Just" also means "simply" ("we just relaxed"),
// which tells nothing of when; that reading is told apart by the subject
// before it and by verbs of feeling and wanting after it ("I just wanted to
// say"), and the note is written only when nothing else in the turn dates
// it: beside "last week" or "in 2019", "just" is "simply" or counts from
// that other moment, so the note goes (see dateNotes).
func (s *scanner) justPast(i int) (int, resolved, bool) {
	v := i + 1
	if s.tok(v) == nil || s.toks[v].poss || !s.justSubject(i) {
		return fail()
	}
	w := s.str(&s.toks[v])
	if !s.pastAt(v, w) || notEvent(w) || s.pastPerfect() || s.datedElsewhere() {
		return fail()
	}
	switch next := s.at(v + 1); {
	case s.tok(v+1) == nil:
	case w == "had" && next == "to", w == "did" && next == "not", lesson(w) && object(next):
		// "I just had to tell you", "it just made me smile", "it just
		// showed me": an urge, a feeling or a lesson, not an event.
		return fail()
	case particle(next), w == "got" && len(next) > 4 && next[len(next)-2:] == "ed":
		// "just signed up", "just got accepted": the note follows the
		// whole verb.
		v++
	}
	r := dayAt(s.today)
	r.approx, r.speech = true, true
	return v, r, true
}

// justSubject reports whether "just" at word i follows the subject of its
// verb, or the auxiliary of a present perfect: a personal pronoun ("I
// just"), a name ("Gina just"), a noun after an owner ("my sister just"),
// or have, has, 've, 's ("she's just left").
func (s *scanner) justSubject(i int) bool {
	if !s.after(i) {
		return false
	}
	p := &s.toks[i-1]
	w := s.str(p)
	switch {
	case p.poss:
		return pronounIs(w) || w == "i" || w == "we" || w == "they" || w == "you"
	case w == "have" || w == "has" || hasAnySuffix(w, "'ve", "\u2019ve"):
		return true
	}
	switch w {
	case "i", "we", "you", "he", "she", "they", "it":
		return true
	case "and", "but":
		return s.toldFromNow(i - 1)
	}
	if p.upper && i > 1 && s.toks[i-1].glued {
		return true // a name, not the sentence's first word
	}
	return i > 1 && s.after(i-1) && owner(s.str(&s.toks[i-2]))
}

// toldFromNow reports whether the sentence before word i holds no past verb
// outside a present perfect: "I've been working hard and just teamed up"
// speaks from now, so its "just" is recent, where "we sat down and just
// relaxed" narrates, and its "just" is "simply".
func (s *scanner) toldFromNow(i int) bool {
	for k := 0; k < i; k++ {
		t := &s.toks[k]
		if t.aside || !s.pastAt(k, s.str(t)) {
			continue
		}
		if k == 0 || !t.glued {
			return false
		}
		if a := s.str(&s.toks[k-1]); a != "have" && a != "has" && !hasAnySuffix(a, "'ve", "\u2019ve") {
			return false
		}
	}
	return true
}

// currently handles "currently" and "at the moment" in a sentence that is
// not told in the past: a state that holds on the day said ("I'm currently
// reading it [27 May 2023]").
func (s *scanner) currently(i int) (int, resolved, bool) {
	end := i
	if s.at(i) == "at" {
		if !s.is(i+1, "the") || !s.is(i+2, "moment") || s.toks[i+2].poss {
			return fail()
		}
		end = i + 2
	}
	if s.toks[end].poss {
		return fail()
	}
	if t := s.sentenceTense(); t&tPast != 0 && t&(tPresent|tFuture) == 0 {
		return fail() // "he was currently away": the moment the story is at
	}
	return end, dayAt(s.today), true
}

// datedElsewhere reports whether the sentence holds a word that dates it
// or counts from another moment: a unit, weekday, month, season or day
// word, a year, or a clause of time ("when I was a kid", "back then").
func (s *scanner) datedElsewhere() bool {
	for k := range s.toks {
		t := &s.toks[k]
		if t.aside {
			continue
		}
		w := s.str(t)
		switch w {
		case "just", "currently", "moment":
			continue
		case "when", "then", "while", "ago", "once":
			return true
		}
		if headWord(w) {
			return true
		}
		if y := digits(w, 4); len(w) == 4 && y >= 1900 && y <= 2100 {
			return true
		}
	}
	return false
}

// notEvent lists past verbs that "just" turns into a manner of speaking
// rather than a recent event: "I just wanted to say", "it just felt right",
// "I just didn't", "it just kept going", "like I just said".
func notEvent(w string) bool {
	switch w {
	case "wanted", "wished", "thought", "felt", "needed", "meant", "knew", "loved", "liked", "hated",
		"seemed", "wondered", "hoped", "figured", "guessed", "happened", "kept", "was", "were", "said",
		"told", "enjoyed", "appreciated", "assumed", "supposed", "used", "clicked":
		return true
	}
	return hasAnySuffix(w, "n't", "n\u2019t")
}

// lesson lists the verbs that, before an object, tell what something did to
// the speaker rather than an event: "it just made me smile", "it just
// showed me".
func lesson(w string) bool {
	switch w {
	case "made", "showed", "taught", "reminded", "proved":
		return true
	}
	return false
}

// object lists object pronouns: after a verb of lesson they make a feeling
// or a lesson ("it just made me smile").
func object(w string) bool {
	switch w {
	case "me", "us", "him", "her", "them", "you", "it", "everything":
		return true
	}
	return false
}

// particle lists the adverbs that finish a phrasal verb: "signed up",
// "got back", "moved out".
func particle(w string) bool {
	switch w {
	case "up", "back", "home", "out", "off", "down", "away":
		return true
	}
	return false
}

// owner lists the words that own a noun: "my sister just left".
func owner(w string) bool {
	switch w {
	case "my", "our", "your", "his", "her", "their":
		return true
	}
	return false
}
