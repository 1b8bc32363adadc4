package byheart

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"
)

// The rules for the languages written with spaces (English, German,
// French, Spanish, Portuguese, Italian, Russian). A sentence stands when,
// after openers ("Also,", "Please", "Oh and one more thing:"), it opens
//
//   - with a phrase that asks to remember something for later ("Please
//     remember that", "Keep in mind that", "For future reference");
//   - with a phrase that makes what follows hold from then on ("From now
//     on", "Going forward") and a clause that is an instruction (an
//     imperative, "please", "don't", "I want…"), not a statement ("From
//     now on, the office opens at 9");
//   - with a condition on what the user asks ("Whenever I ask for a query,",
//     "When you suggest a book,") and a clause that is an instruction;
//   - with "always" or "never" (or "don't ever", the French "ne … jamais")
//     and an imperative, not a past or habitual form ("Never been there",
//     "Always wanted to");
//   - with the user's preference ("I prefer", "I'd rather"), unless it is a
//     choice of the moment ("I'd prefer the second option", "tonight");
//   - with an imperative and, anywhere after it, a phrase that makes it
//     last ("Use metric units from now on"), or with a wish ("I want you
//     to…", "Make sure you…") that holds such a phrase;
//   - with an imperative or a liking ("I like", "Mi piace") said of every
//     answer: a habit of the exchange and a word of what the assistant
//     gives ("Use metric units whenever you give measurements"), "every"
//     before an answer's noun ("…at the end of every plan"), or the
//     answers in general ("Keep your answers short");
//   - or, after a comma, with a clause that makes an instruction last
//     ("I have WSL now, so from now on give me bash").
//
// A sentence that is a question stands only as a polite request that says
// how long it holds ("Could you please always reply in Spanish from now
// on?"); one that speaks of the past ("used to", "as a child") never does.
// An imperative is recognized by what it is not: a function word, an
// auxiliary, a pronoun, or a form that marks a person or a tense in the
// language (standing_words.go lists them).

// phraseKind is what a phrase of the tables does in a sentence.
type phraseKind uint8

const (
	kindNote   phraseKind = iota // stands whatever follows: "please remember that"
	kindLead                     // stands before an instruction: "from now on"
	kindCond                     // stands before a condition on a request and an instruction: "whenever"
	kindCondIf                   // kindCond that may be said once: "when", "if"
	kindAdverb                   // stands before an imperative: "always", "never"
	kindNeg                      // stands before an imperative and a never-word: "ne", "no", "non"
	kindPref                     // stands unless a choice of the moment follows: "i prefer"
	kindPrefIf                   // kindPref in a sentence that says "rather": "mir ist … lieber"
	kindWant                     // stands when the sentence says how long it holds: "i want you to"
	kindLike                     // stands when what follows holds for every answer: "i like"
	kindBare                     // stands when the sentence says please or how long: "no more"
	kindStop                     // stands before what to stop doing: "stop …ing", "deja de"
	kindDirect                   // opens an instruction after a lead: "don't", "let's"
	kindPolite                   // opens a request asked as a question: "could you"
	kindOpener                   // passed over at the start: "also", "please"
	kindThen                     // opens a clause after a comma: "so", "and"
	// Markers, looked for anywhere in a sentence.
	kindLasting // how long it holds: "from now on", "going forward"
	kindAlways  // "always", "never"
	kindPlease  // "please"
	kindRather  // "rather", in the languages that say it apart from the verb: "lieber"
	kindOneOff  // a choice of the moment: "tonight", "this time", "option"
	kindPast    // the past: "used to", "as a child"
	kindNever   // what makes a negated imperative last: "jamais", "nunca", "mai"
	kindScope   // a habit of the exchange: "whenever", "every time"
	kindEvery   // "every", "each"
	nKinds
)

// maxOpeners bounds the openers passed over at a sentence's start.
const maxOpeners = 4

// phrase is a phrase of the tables, found by its first word.
type phrase struct {
	rest  []string // the words after the first
	comma []bool   // which words must be followed by a comma
	lang  uint8
	kind  phraseKind
}

// matches reports whether p, whose first word is s's i-th, is at i.
func (p *phrase) matches(s *sentence, i int) bool {
	if i+len(p.rest) >= s.nWords {
		return false
	}
	for k, w := range p.rest {
		if string(s.word(i+1+k)) != w {
			return false
		}
	}
	for k, c := range p.comma {
		if c && !s.words[i+k].comma {
			return false
		}
	}
	return true
}

// end is the index of the word after p at i.
func (p *phrase) end(i int) int { return i + 1 + len(p.rest) }

// sentenceMarks are the markers a sentence holds, by kind and language,
// and the languages it is likeliest to be in.
type sentenceMarks struct {
	kinds [nKinds]langSet
	// langs are the languages most of the sentence's words are function
	// words or phrase words of, all of them when none is: the rules of
	// one language would read another's words as imperatives ("Minha irmã
	// nunca…" is no Spanish instruction).
	langs langSet
}

// has reports whether the sentence holds a marker of kind k in language l.
func (m *sentenceMarks) has(l uint8, k phraseKind) bool { return m.kinds[k]&(1<<l) != 0 }

// in reports whether the sentence may be in language l.
func (m *sentenceMarks) in(l uint8) bool { return m.langs&(1<<l) != 0 }

// mark returns what the sentence's words mark, found once.
func (s *sentence) mark() *sentenceMarks {
	if s.marked {
		return &s.marks
	}
	s.marked, s.marks = true, sentenceMarks{}
	var counts uint64 // a byte per language: a sentence holds under 256 words
	for i := range s.nWords {
		e := s.lexAt(i)
		counts += spread[e.langs]
		for _, p := range e.markers {
			if p.matches(s, i) {
				s.marks.kinds[p.kind] |= 1 << p.lang
			}
		}
	}
	best := uint64(0)
	for l := range nLangs {
		best = max(best, counts>>(8*l)&0xff)
	}
	for l := range nLangs {
		if counts>>(8*l)&0xff == best {
			s.marks.langs |= 1 << l
		}
	}
	return &s.marks
}

// spread[set] has a 1 in the byte of each language of set, so that adding
// it counts a word for each of its languages at once.
var spread = func() (t [1 << nLangs]uint64) {
	for set := range t {
		for l := range nLangs {
			if set>>l&1 != 0 {
				t[set] |= 1 << (8 * l)
			}
		}
	}
	return t
}()

// spacedStands reports whether the sentence's words open with a standing
// instruction or preference.
func (s *sentence) spacedStands() bool {
	if s.nWords == 0 || !s.mayStand() || s.mark().kinds[kindPast] != 0 {
		return false
	}
	for i := range s.starts {
		if s.standsAt(i) {
			return true
		}
	}
	for k := 1; k < s.nWords; k++ {
		if s.words[k-1].comma && s.clauseStands(k) {
			return true
		}
	}
	return false
}

// clauseStands reports whether the clause that opens at word k, after a
// comma, makes an instruction last from then on: "…, so from now on give
// me bash", "…; in future, keep it short", "…, also gib mir ab jetzt…".
// What comes before it is the reason the user gives.
func (s *sentence) clauseStands(k int) bool {
	m := s.mark()
	if s.question {
		return false
	}
	for _, p := range s.phrasesAt(k) {
		if !m.in(p.lang) || !p.matches(s, k) {
			continue
		}
		switch c := p.end(k); p.kind {
		case kindLead:
			if s.directive(p.lang, c) {
				return true
			}
		case kindThen:
			if m.has(p.lang, kindLasting) && s.imperative(p.lang, c) {
				return true
			}
			for _, q := range s.phrasesAt(c) {
				if q.kind == kindLead && q.lang == p.lang && q.matches(s, c) && s.directive(q.lang, q.end(c)) {
					return true
				}
			}
		}
	}
	return false
}

// starts yields the words a standing sentence may open at: the first, and
// each after the openers before it ("Also,", "Oh and one more thing:"), or
// after a word set apart by a comma ("Seriously, never…", "Enfant,
// j'allais…").
func (s *sentence) starts(yield func(int) bool) {
	i, fronted := 0, false
	for range maxOpeners {
		if !yield(i) {
			return
		}
		n := 0
		for _, p := range s.phrasesAt(i) {
			if p.kind == kindOpener && p.matches(s, i) {
				n = max(n, p.end(i)-i)
			}
		}
		if n == 0 && !fronted && s.words[i].comma {
			n, fronted = 1, true
		}
		if i += n; n == 0 || i >= s.nWords {
			return
		}
	}
}

// mayStand reports, from the few words it looks up, whether a rule could
// hold for the sentence: a phrase that opens one where a sentence may open,
// or a word that could make an imperative last ("from now on", "always").
// Most sentences have neither, and are passed by without looking up the
// rest of their words.
func (s *sentence) mayStand() bool {
	for i := range s.starts {
		for _, p := range s.phrasesAt(i) {
			if p.kind < kindOpener && p.matches(s, i) {
				return true
			}
		}
	}
	for k := range s.nWords {
		if e := lastingWords.find(s.word(k)); e != nil && (e.sets[wordAnswer] != 0 || slices.ContainsFunc(e.markers, func(p *phrase) bool {
			return (p.kind == kindLasting || p.kind == kindAlways || p.kind == kindScope) && p.matches(s, k)
		})) {
			return true
		}
	}
	return false
}

// standsAt reports whether a standing instruction or preference opens at
// word i.
func (s *sentence) standsAt(i int) bool {
	m := s.mark()
	for _, p := range s.phrasesAt(i) {
		if m.in(p.lang) && p.matches(s, i) && s.holds(p, i) {
			return true
		}
	}
	if s.question || s.words[i].comma {
		return false
	}
	for l := range uint8(nLangs) {
		if m.in(l) && (m.has(l, kindLasting) || spaced[l].postVerb && s.alwaysAfter(l, i) ||
			s.habitual(l, i+1) || s.yourAnswers(l, i)) && s.imperative(l, i) {
			return true
		}
	}
	return false
}

// habitual reports whether the words from j say that what is asked holds
// for every answer: a habit of the exchange ("whenever", "every time") and
// a word of what the assistant gives ("Use metric units whenever you…",
// "…every time you compare products"), or "every" after a preposition
// and before an answer's noun ("at the end of every plan", "in each
// reply"). The habit is said in the clause the words open, or opens the
// next ("Verwende …, wann immer du…"); further on it is another's
// ("Quick update: …, and I'm trying recipes whenever I can").
// "Call me whenever you want" or "Explain each step" hold once.
func (s *sentence) habitual(l uint8, j int) bool {
	m := s.mark()
	if !m.has(l, kindScope) && !m.has(l, kindEvery) {
		return false
	}
	scope, output, clause := false, false, true // clause: no comma before word k-1
	for k := j; k < s.nWords; k++ {
		output = output || s.is(k, wordOutput, l) || s.is(k, wordAnswer, l)
		for _, p := range s.phrasesAt(k) {
			if p.lang != l || !p.matches(s, k) {
				continue
			}
			scope = scope || p.kind == kindScope && clause
			if p.kind == kindEvery && s.everyAnswer(l, k, p.end(k)) {
				return true
			}
		}
		clause = clause && (k == j || !s.words[k-1].comma)
	}
	return scope && output
}

// everyAnswer reports whether "every" at word k, whose phrase ends at e,
// follows a preposition closely and comes before an answer's noun.
func (s *sentence) everyAnswer(l uint8, k, e int) bool {
	prep := false
	for b := max(0, k-3); b < k; b++ {
		prep = prep || s.is(b, wordPrep, l)
	}
	for a := e; prep && a < e+3; a++ {
		if s.is(a, wordAnswer, l) {
			return true
		}
	}
	return false
}

// yourAnswers reports whether the imperative at word i is said of the
// assistant's answers in general ("Keep your answers short", "Mantieni le
// tue risposte…"); "your answer" is the next one only.
func (s *sentence) yourAnswers(l uint8, i int) bool {
	m := s.mark()
	if m.has(l, kindOneOff) {
		return false
	}
	for k := i + 1; k <= i+3; k++ {
		if s.is(k, wordYours, l) && s.is(k+1, wordAnswers, l) {
			return true
		}
	}
	return false
}

// alwaysAfter reports whether "always" or "never" follows word i closely,
// in its clause ("Responde siempre…", "Verwende in meinem Code niemals…"),
// as it follows an imperative it qualifies; further on, or past a comma,
// it qualifies something else ("Dos veces al mes, casi siempre en tren").
func (s *sentence) alwaysAfter(l uint8, i int) bool {
	for k := i + 1; k <= i+4 && k < s.nWords && !s.words[k-1].comma; k++ {
		if slices.ContainsFunc(s.phrasesAt(k), func(p *phrase) bool {
			return p.kind == kindAlways && p.lang == l && p.matches(s, k)
		}) {
			return true
		}
	}
	return false
}

// holds reports whether the phrase p at word i opens a standing sentence.
func (s *sentence) holds(p *phrase, i int) bool {
	l, j, m := p.lang, p.end(i), s.mark()
	if s.question {
		return p.kind == kindPolite && (m.has(l, kindLasting) || m.has(l, kindPlease) && m.has(l, kindAlways))
	}
	switch p.kind {
	case kindNote:
		return s.aboutUser(l, j)
	case kindLead:
		return s.directive(l, j)
	case kindCond, kindCondIf:
		return s.condition(l, j)
	case kindAdverb:
		return s.afterAdverb(l, j)
	case kindNeg:
		return s.negated(l, j)
	case kindPref:
		return !s.is(j, wordNotPref, l) && !m.has(l, kindOneOff) && !(l == russian && singular(s.word(j)))
	case kindPrefIf:
		return m.has(l, kindRather) && !m.has(l, kindOneOff)
	case kindStop:
		return l != english || endsWith(s.word(j), "ing")
	case kindWant:
		return !m.has(l, kindOneOff) && (m.has(l, kindLasting) || m.has(l, kindAlways) || s.habitual(l, j))
	case kindLike:
		return !m.has(l, kindOneOff) && s.habitual(l, j)
	case kindBare:
		return m.has(l, kindLasting) || m.has(l, kindPlease)
	}
	return false
}

// singular reports whether the Russian word w, folded, has a singular
// adjective's ending: what one prefers that is one thing ("утренний
// рейс") is a choice of the moment more often than a taste, as "the" says
// in English.
func singular(w []byte) bool {
	return endsWith(w, "ыи", "ии", "ои", "ую", "юю", "ое", "ее", "ая", "яя")
}

// directive reports whether the clause at word j is an instruction in
// language l: it opens with an imperative, "please", "always", "don't",
// "I want…" and the like.
func (s *sentence) directive(l uint8, j int) bool {
	for range 3 {
		for _, p := range s.phrasesAt(j) {
			if p.lang != l || !p.matches(s, j) {
				continue
			}
			switch p.kind {
			case kindPlease, kindAdverb, kindDirect, kindPref, kindWant, kindBare, kindStop:
				return true
			case kindNeg:
				if s.negated(l, p.end(j)) {
					return true
				}
			}
		}
		if s.imperative(l, j) {
			return true
		}
		if !s.is(j, wordSkip, l) { // "just", "also"
			return false
		}
		j++
	}
	return false
}

// condition reports whether the words from j are a condition ended by a
// comma and an instruction follows: a condition on what the user asks or
// sends ("Whenever I ask for a query, use…"), or on what the assistant does
// for the user ("Whenever you write SQL for me, …"). One on what the other
// does alone ("If you need help, let me know") is a turn of phrase, unless
// what follows says always or never ("When you suggest a book, always
// mention…").
func (s *sentence) condition(l uint8, j int) bool {
	asked, you, mine := false, false, false
	for k := j; k < s.nWords && k < j+16; k++ {
		asked = asked || s.is(k, wordAsk, l)
		you = you || s.is(k, wordYou, l)
		mine = mine || s.is(k, wordMine, l)
		if !s.words[k].comma {
			continue
		}
		// Where the subject goes unsaid (Spanish, Italian, Portuguese), the
		// request's verb says whose it is.
		if asked && (mine || spaced[l].proDrop) || you && mine {
			return s.directive(l, k+1)
		}
		return you && slices.ContainsFunc(s.phrasesAt(k+1), func(p *phrase) bool {
			return p.kind == kindAdverb && p.lang == l && p.matches(s, k+1) && s.afterAdverb(l, p.end(k+1))
		})
	}
	return false
}

// aboutUser reports whether the words from j speak of the user: what to
// remember for later is about them ("Remember that I'm vegetarian"), where
// "Remember that staying positive is important" is advice. Spanish,
// Italian and Portuguese say the first person in the verb ("uso", "soy").
func (s *sentence) aboutUser(l uint8, j int) bool {
	for k := j; k < s.nWords; k++ {
		w := s.word(k)
		if s.is(k, wordMine, l) || spaced[l].proDrop && len(w) >= 3 &&
			endsWith(w, "o") && !s.is(k, wordNonImp, l) {
			return true
		}
	}
	return false
}

// afterAdverb reports whether the words from j, after "always" or "never",
// are an instruction: an imperative, past "ever" or "just"; in German an
// infinitive at the end ("Immer Tabs verwenden"); or, in a sentence that
// says please, a preposition ("Always in French, please").
func (s *sentence) afterAdverb(l uint8, j int) bool {
	for n := 0; n < 2 && s.is(j, wordSkip, l); n++ {
		j++
	}
	for n := 0; n < 2 && (s.is(j, wordYou, l) || s.is(j, wordMine, l)); n++ {
		j++ // "Nunca me des…": a pronoun, not an article ("Sempre la solita storia")
	}
	if j >= s.nWords {
		return false
	}
	if s.imperative(l, j) {
		return true
	}
	if last := s.word(s.nWords - 1); l == german && s.words[j].upper && !s.is(j, wordNonImp, l) &&
		!s.words[s.nWords-1].upper && endsWith(last, "en") {
		return true
	}
	return s.mark().has(l, kindPlease) && s.is(j, wordPrep, l)
}

// negated reports whether the words from j, after a negation that opens the
// sentence ("ne", "no", "non", "não"), are an imperative and a word that
// makes it last ("N'utilise jamais…", "No me sugieras nunca…", "Ne jamais
// utiliser…").
func (s *sentence) negated(l uint8, j int) bool {
	for n := 0; n < 3 && s.is(j, wordClitic, l); n++ {
		j++
	}
	if s.never(l, j) {
		return s.imperative(l, j+1)
	}
	return s.imperative(l, j) && (s.never(l, j+1) || s.never(l, j+2) && s.is(j+1, wordClitic, l))
}

// never reports whether word j is a word that makes a negated imperative
// last in language l.
func (s *sentence) never(l uint8, j int) bool {
	return slices.ContainsFunc(s.phrasesAt(j), func(p *phrase) bool {
		return p.kind == kindNever && p.lang == l && p.matches(s, j)
	})
}

// imperative reports whether word j can be an imperative (or, where the
// language says so, an infinitive given as an instruction) in language l:
// not a function word, an auxiliary or a pronoun, not a form that marks a
// person or a tense, and not followed by an auxiliary that would make it a
// subject ("Cars will…").
func (s *sentence) imperative(l uint8, j int) bool {
	if l == portuguese && ptProclitic[string(s.word(j))] {
		j++ // "me dê", "me mostre": Brazilian Portuguese puts the pronoun first
	}
	w := s.word(j)
	if l == portuguese && string(w) == "de" && s.words[j].last == 'ê' {
		return true // "dê", give, folded as the preposition "de" is
	}
	if len(w) < 2 || w[0] == quotedWord[0] || isDigit(w[0]) ||
		s.is(j, wordNonImp, l) || s.is(j+1, wordAux, l) {
		return false
	}
	return s.shape(l, j, w)
}

// shape reports whether word j, w, has the form of an imperative in
// language l (or of an instruction's infinitive) rather than of a person or
// a tense. It switches rather than calling through the table so that the
// sentence, which the caller keeps on its stack, stays there.
func (s *sentence) shape(l uint8, j int, w []byte) bool {
	switch l {
	case english:
		return englishShape(s, j, w)
	case german:
		return germanShape(s, j, w)
	case spanish:
		return spanishShape(s, j, w)
	case french:
		return frenchShape(s, j, w)
	case italian:
		return italianShape(s, j, w)
	case portuguese:
		return portugueseShape(s, j, w)
	}
	return russianShape(s, j, w)
}

// ptProclitic are the pronouns a Portuguese imperative may follow.
var ptProclitic = map[string]bool{"me": true, "te": true, "lhe": true, "nos": true, "se": true}

// setKind is a set of words the rules ask about, by language.
type setKind uint8

const (
	wordNonImp  setKind = iota // never an imperative: function words, auxiliaries, pronouns, adverbs
	wordAux                    // after a word, make it a subject: "will", "is"
	wordAsk                    // in a condition, say it is on the user's request: "ask", "paste"
	wordYou                    // the second person
	wordMine                   // the first person
	wordNotPref                // after "I prefer", make it a choice of the moment: "the", "this"
	wordClitic                 // pronouns between a negation and its verb: "me", "le"
	wordSkip                   // passed over after "always": "ever", "just"
	wordPrep                   // prepositions
	wordSubject                // subject pronouns: after a verb, make it a statement (German)
	wordOutput                 // what an assistant gives, and its giving: "answers", "units", "write"
	wordAnswer                 // an assistant's answer as a whole: "answer", "reply", "plan"
	wordAnswers                // those in the plural: "answers", "replies"
	wordYours                  // the second person's possessives: "your"
	nSetKinds
)

// is reports whether word j is in the set k of language l.
func (s *sentence) is(j int, k setKind, l uint8) bool {
	return j >= 0 && j < s.nWords && s.lexAt(j).sets[k]&(1<<l) != 0
}

// phrasesAt returns the phrases word j opens.
func (s *sentence) phrasesAt(j int) []*phrase {
	if j < 0 || j >= s.nWords {
		return nil
	}
	return s.lexAt(j).phrases
}

// endsWith reports whether w ends with any of the endings.
func endsWith(w []byte, endings ...string) bool {
	for _, e := range endings {
		if len(w) >= len(e) && string(w[len(w)-len(e):]) == e {
			return true
		}
	}
	return false
}

// edVerbs are English verbs whose base form ends in "ed", which a past
// tense does too.
var edVerbs = map[string]bool{"embed": true, "feed": true, "need": true, "heed": true, "seed": true, "shed": true,
	"speed": true, "proceed": true, "exceed": true, "succeed": true, "breed": true, "bleed": true, "weed": true, "shred": true}

// ingVerbs are English verbs whose base form ends in "ing", which a
// gerund does too.
var ingVerbs = map[string]bool{"bring": true, "sing": true, "ring": true, "sting": true, "swing": true, "string": true,
	"wring": true, "cling": true, "fling": true, "sling": true, "ping": true}

// englishShape: an English imperative is a verb's base form, which takes
// no past "-ed", no "-ing" and no "-s" of a plural or a third person.
func englishShape(_ *sentence, _ int, w []byte) bool {
	switch {
	case bytes.IndexByte(w, '\'') >= 0:
		return false
	case endsWith(w, "ed"):
		return edVerbs[string(w)]
	case endsWith(w, "ing"):
		return ingVerbs[string(w)]
	case endsWith(w, "s"):
		return endsWith(w, "ss", "us")
	}
	return true
}

// germanShape: a German imperative ends neither in "-t" nor "-st" (a
// person's present, a participle), takes "-en" only before the formal
// "Sie", and is followed neither by a subject pronoun nor by a plural verb
// in lower case: after a subject, a statement's verb comes second ("Züge
// kommen immer…").
func germanShape(s *sentence, j int, w []byte) bool {
	next := s.word(j + 1)
	switch {
	case endsWith(w, "en", "ern", "eln"):
		return string(next) == "sie"
	case endsWith(w, "t"):
		return false
	case s.is(j+1, wordSubject, german) || s.is(j+2, wordSubject, german):
		return false
	}
	return j+1 >= s.nWords || s.words[j+1].upper || len(next) < 4 || s.is(j+1, wordNonImp, german) ||
		!endsWith(next, "en", "ern", "eln")
}

// spanishShape: a Spanish imperative (tú or usted) does not end like a
// first person ("-o"), a preterite ("-é", "-ó"), an imperfect ("-aba",
// "-ía…") or a third person plural ("-an", "-en"). A pronoun it takes at
// its end ("escríbelo") is set aside first.
func spanishShape(s *sentence, j int, w []byte) bool {
	last := s.words[j].last
	if v, ok := enclitic(w, spanishEnclitics); ok {
		w, last = v, 0
	}
	return last != 'é' && last != 'ó' && !endsWith(w, "o", "aba", "abas", "aban", "ian", "ias") &&
		(len(w) < 5 || !endsWith(w, "an", "en"))
}

// frenchShape: a French imperative (or an infinitive given as one) does
// not end like a participle ("-é", "-ée"), an imperfect ("-ais", "-ait"),
// a plural person ("-ons", "-ent") or the second person's present ("-es").
func frenchShape(s *sentence, j int, w []byte) bool {
	return s.words[j].last != 'é' && !endsWith(w, "aient", "ions", "iez", "ons", "ee", "ees", "es") &&
		(len(w) < 5 || !endsWith(w, "ent", "ais", "ait")) // but "fais", "tais"
}

// italianShape: an Italian imperative (or a negated infinitive) does not
// end like a first person or a participle ("-o"), a past with an accent
// ("-ò", "-ì") or an imperfect ("-ava", "-eva"). A pronoun it takes at its
// end ("scrivilo") is set aside first.
func italianShape(s *sentence, j int, w []byte) bool {
	last := s.words[j].last
	if v, ok := enclitic(w, italianEnclitics); ok {
		w, last = v, 0
	}
	return last != 'ò' && last != 'ì' && last != 'ù' && !endsWith(w, "o", "ava", "eva", "iva")
}

// spanishEnclitics and italianEnclitics are the pronouns an imperative
// takes at its end, longer ones first.
var (
	spanishEnclitics = []string{"selo", "sela", "melo", "mela", "telo", "los", "las", "les", "nos", "lo", "la", "le", "me", "te", "se"}
	italianEnclitics = []string{"glielo", "gliela", "melo", "mela", "telo", "gli", "lo", "la", "li", "le", "mi", "ti", "ci", "vi", "ne"}
)

// enclitic returns w without the pronoun it ends with, when what is left
// ends as an imperative does: in a vowel (four letters or more), or in "z"
// or "n" (three): "escribe" of "escríbelo", "haz" of "hazlo", "scrivi" of
// "scrivilo", but not "hab" of "hablo".
func enclitic(w []byte, pronouns []string) ([]byte, bool) {
	for _, p := range pronouns {
		if !endsWith(w, p) || len(w)-len(p) < 3 {
			continue
		}
		v := w[:len(w)-len(p)]
		if c := v[len(v)-1]; len(v) >= 4 && strings.IndexByte("aeiou", c) >= 0 || len(v) == 3 && (c == 'z' || c == 'n') {
			return v, true
		}
	}
	return w, false
}

// portugueseShape: a Portuguese imperative does not end like a first
// person ("-o"), a preterite ("-ei", "-ou", "-eu", "-iu"), an imperfect
// ("-ava", "-iam") or a plural person ("-am", "-em").
func portugueseShape(s *sentence, j int, w []byte) bool {
	last := s.words[j].last
	return last != 'é' && last != 'ó' && !endsWith(w, "o", "ei", "ou", "eu", "iu", "ava", "avam", "iam") &&
		(len(w) < 4 || !endsWith(w, "am", "em"))
}

// russianImperative are the endings of Russian imperatives and
// infinitives (which Russian gives as instructions too), folded as words
// are ("й" as "и").
var russianImperative = []string{"и", "ите", "ь", "ьте", "ися", "итесь", "ись", "ься", "ьтесь"}

// russianFinite are the endings of a Russian verb's present and past.
var russianFinite = []string{"ют", "ят", "ут", "ат", "ет", "ит", "ешь", "ишь", "ем", "им", "ю", "л", "ла", "ло", "ли"}

// russianShape: a Russian imperative takes an imperative's (or an
// infinitive's) ending, not an adjective's ("-ый", "-ий", folded "-ыи",
// "-ии") nor a past plural's ("-ли"), and no verb that says a person or a
// tense follows it closely: it was a subject then ("Дети всегда шумят").
func russianShape(s *sentence, j int, w []byte) bool {
	if !endsWith(w, russianImperative...) || endsWith(w, "ыи", "ии", "лись") ||
		endsWith(w, "ли") && utf8.RuneCount(w) > 3 {
		return false
	}
	for k := j + 1; k <= j+2; k++ {
		if next := s.word(k); utf8.RuneCount(next) > 3 && !s.is(k, wordNonImp, russian) &&
			endsWith(next, russianFinite...) && !endsWith(next, russianImperative...) {
			return false
		}
	}
	return true
}
