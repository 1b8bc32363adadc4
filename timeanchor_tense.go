package byheart

import "strings"

// tense is what the verbs of a sentence say about when it happens. English
// leaves the direction of "on Saturday", "on the 15th" or "over the weekend"
// to the verb, so the grammar asks the sentence.
type tense uint8

const (
	tPast    tense = 1 << iota // a verb in the past tense: "went", "fixed"
	tFuture                    // will, 'll, going to, a present progressive, plan to
	tPresent                   // a present form of "be": "the party is on the 15th"
	tEnglish                   // a common English function word: see englishCue
)

// sentenceTense reads the tense of the current sentence once.
func (s *scanner) sentenceTense() tense {
	if !s.tensed {
		s.tense, s.tensed = s.readTense(), true
	}
	return s.tense
}

func (s *scanner) readTense() tense {
	var t tense
	for k := range s.toks {
		if s.toks[k].aside {
			// A note's words ("week of", "since") are not the speaker's.
			continue
		}
		w := s.str(&s.toks[k])
		if englishCue(w) {
			t |= tEnglish
		}
		switch {
		case s.futureAt(k, w):
			t |= tFuture
		case s.pastAt(k, w):
			t |= tPast
		case w == "am" || w == "is" || w == "are" || hasAnySuffix(w, "'m", "\u2019m", "'re", "\u2019re") ||
			s.toks[k].poss && pronounIs(w):
			t |= tPresent
		}
	}
	return t
}

// english reports whether the sentence holds a common English function
// word. Numbers and month names are shared with other languages ("am 3
// April", "op 3 april"), so the families made of nothing else ask for one.
func (s *scanner) english() bool { return s.sentenceTense()&tEnglish != 0 }

// englishCue lists common English function words that other languages
// written in Latin letters rarely use as words ("am" and "in" are German
// too, so they are not on it).
func englishCue(w string) bool {
	switch w {
	case "the", "is", "was", "were", "are", "i", "you", "we", "they", "he", "she", "it", "my", "our",
		"your", "and", "to", "of", "will", "be", "been", "have", "has", "had", "with", "for", "at",
		"this", "that", "on", "by", "from", "since", "until", "me", "got", "just", "see", "due":
		return true
	}
	return hasAnySuffix(w, "'m", "'ll", "'ve", "'re", "\u2019m", "\u2019ll", "\u2019ve", "\u2019re")
}

// direction says which way a recurring date the words name lies from today:
// -1 behind, +1 ahead, 0 when the sentence does not say. "since" always
// looks back; "until" and "by" look ahead unless the verb is past. With weak
// set, a present "is" counts as looking ahead ("the party is on the 15th").
func (s *scanner) direction(prep string, weak bool) int {
	if prep == "since" {
		return -1
	}
	t := s.sentenceTense()
	past := t&tPast != 0
	future := t&tFuture != 0 || weak && t&tPresent != 0
	switch {
	case past && !future:
		return -1
	case future && !past:
		return 1
	case !past && (prep == "until" || prep == "till" || prep == "til" || prep == "by"):
		return 1
	}
	return 0
}

// pastAt reports a past-tense verb at word k: a common irregular one, or a
// word ending in -ed that is not an adjective after "be" ("I'm excited").
func (s *scanner) pastAt(k int, w string) bool {
	if irregularPast(w) {
		return true
	}
	if len(w) <= 4 || !strings.HasSuffix(w, "ed") || notPast(w) || s.alone(k) {
		return false
	}
	if k > 0 && s.toks[k].glued {
		p := &s.toks[k-1]
		if copula(s.str(p)) || p.poss && pronounIs(s.str(p)) {
			return false
		}
	}
	return true
}

// alone reports a word that is a clause of its own, set off by punctuation
// on both sides: "Noted", "Confirmed:", "Booked!" acknowledge what was said
// and tell nothing of when its dates are.
func (s *scanner) alone(k int) bool {
	return (k == 0 || !s.toks[k].glued) && (k+1 == len(s.toks) || !s.toks[k+1].glued)
}

// futureAt reports a marker of the future at word k: will, shall, 'll,
// gonna, going to, a present progressive ("I'm flying"), or a plan ("plan
// to", "can't wait", "see you").
func (s *scanner) futureAt(k int, w string) bool {
	switch w {
	case "will", "shall", "gonna", "won't", "won\u2019t", "wanna":
		return true
	case "going", "plan", "plans", "planning", "hope", "hoping", "want", "wants", "about":
		return s.is(k+1, "to")
	case "can't", "can\u2019t", "cannot":
		return s.is(k+1, "wait")
	case "forward":
		return s.is(k-1, "look") || s.is(k-1, "looking")
	case "see":
		return s.is(k+1, "you")
	case "let's", "let\u2019s":
		return true
	}
	if hasAnySuffix(w, "'ll", "\u2019ll") {
		return true
	}
	if w == "am" || w == "is" || w == "are" || hasAnySuffix(w, "'m", "\u2019m", "'re", "\u2019re") ||
		s.toks[k].poss && pronounIs(w) {
		return s.progressive(k)
	}
	return false
}

// progressive reports a verb in -ing within two words after the form of
// "be" at word k ("is flying", "I'm really looking").
func (s *scanner) progressive(k int) bool {
	for j := k + 1; j <= k+2; j++ {
		v := s.at(j)
		if s.tok(j) == nil {
			return false
		}
		if len(v) > 4 && strings.HasSuffix(v, "ing") && !ingAdjective(v) {
			return true
		}
	}
	return false
}

// ingAdjective lists words in -ing that follow "be" without being a verb.
func ingAdjective(w string) bool {
	switch w {
	case "amazing", "interesting", "exciting", "boring", "annoying", "relaxing", "inspiring", "charming",
		"stunning", "rewarding", "challenging", "touching", "amusing", "surprising", "disappointing",
		"frustrating", "refreshing", "fascinating", "encouraging", "heartwarming", "loving", "caring",
		"willing", "nothing", "something", "anything", "everything", "morning", "evening", "during",
		"outstanding", "overwhelming", "exhausting", "thrilling", "satisfying", "calming", "humbling",
		"terrifying", "embarrassing", "confusing", "missing", "thing", "things", "spring":
		return true
	}
	return false
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

// pastPerfect reports "had" or "'d" followed by a participle: the sentence
// counts from a moment it narrates, not from now.
func (s *scanner) pastPerfect() bool {
	if !s.perfected {
		s.perfect, s.perfected = s.readPastPerfect(), true
	}
	return s.perfect
}

func (s *scanner) readPastPerfect() bool {
	for k := range s.toks {
		w := s.str(&s.toks[k])
		if w == "had" || hasAnySuffix(w, "'d", "\u2019d") {
			if v := s.at(k + 1); lasting(v) || strings.HasSuffix(v, "ed") || adverb(v) {
				return true
			}
		}
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
