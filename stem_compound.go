package byheart

// German writes a compound as one word ("Zahnarzt", "Autoschlüssel"), so a
// question that names the compound shares no term with a turn that names
// its parts ("beim Arzt", "die Schlüssel vom Auto"). A query's compound is
// therefore also searched as its parts where the memory's own vocabulary
// knows both: no dictionary is shipped, and a split the conversation never
// used could not score anyway. A turn's words are indexed as said, so its
// terms depend on nothing but its text; a compound in a turn meets a query
// that names the same compound.

// minHead and minModifier are the shortest parts a compound is split into:
// shorter ones are endings and prefixes more often than words.
const (
	minHead     = 4
	minModifier = 3
)

// eachQueryTerm hands fn the terms of a query: each term the tokenizer
// gives, followed by the parts of a German compound (see compoundParts).
func (ix *index) eachQueryTerm(text string, fn func(term []byte)) {
	ix.tk.each(text, func(term []byte) {
		fn(term)
		if ix.tk.candidates()&(langSet(1)<<german) != 0 {
			compoundParts(term, ix.known, fn)
		}
	})
}

// known reports whether the memory's vocabulary holds term.
func (ix *index) known(term []byte) bool {
	_, ok := ix.lookup(term)
	return ok
}

// compoundParts hands fn the two parts of term when it reads as a German
// compound whose parts are both known: the longest known head first, the
// modifier with or without a linking element ("Geburtstagskuchen" is
// "Geburtstag" and "Kuchen"). It hands nothing for other words.
func compoundParts(term []byte, known func([]byte) bool, fn func([]byte)) {
	if len(term) < minHead+minModifier {
		return
	}
	for _, c := range term {
		if c < 'a' || c > 'z' {
			return
		}
	}
	for p := minModifier; p <= len(term)-minHead; p++ {
		head := term[p:]
		if !known(head) {
			continue
		}
		mod := term[:p]
		for _, link := range [...]string{"", "s", "es", "n", "en", "e", "er"} {
			m := len(mod) - len(link)
			if m < minModifier || string(mod[m:]) != link || !known(mod[:m]) {
				continue
			}
			fn(mod[:m])
			fn(head)
			return
		}
	}
}
