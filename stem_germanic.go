package byheart

// The stemmers of the Germanic languages byheart reads. Each takes a folded
// word of the letters a to z and cuts it in place.

// stemEnglish strips common English inflections in place. It is
// deliberately light: it merges the forms a speaker varies between
// ("moving", "moved", "movers", "move"; "houses", "house"; "quickly",
// "quick") and leaves short words alone, where a wrong cut costs more than a
// missed merge.
func stemEnglish(w []byte) []byte {
	if len(w) <= 3 {
		return w
	}
	w = plural(w)
	switch {
	case hasSuffix(w, "ing") && len(w) >= 6 && hasVowel(w[:len(w)-3]):
		w = undouble(w[:len(w)-3])
	case hasSuffix(w, "ed") && len(w) >= 5 && hasVowel(w[:len(w)-2]):
		w = undouble(w[:len(w)-2])
	}
	// A second step, so "volunteering" meets "volunteer" and "volunteers".
	switch {
	case hasSuffix(w, "er") && len(w) >= 5 && hasVowel(w[:len(w)-2]):
		w = undouble(w[:len(w)-2])
	case hasSuffix(w, "ly") && len(w) >= 6:
		w = w[:len(w)-2]
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

func plural(w []byte) []byte {
	switch {
	case hasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-2]
		w[len(w)-1] = 'y'
	case hasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case hasSuffix(w, "ches") || hasSuffix(w, "shes") || hasSuffix(w, "xes") || hasSuffix(w, "zzes"):
		w = w[:len(w)-2]
	case w[len(w)-1] == 's' && !hasSuffix(w, "ss") && !hasSuffix(w, "us") && !hasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	return w
}

func undouble(w []byte) []byte {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !isVowel(w[n-1]) && w[n-1] != 'l' && w[n-1] != 's' && w[n-1] != 'z' {
		return w[:n-1]
	}
	return w
}

// stemGerman strips German case and number endings ("Schwestern",
// "Schwester"; "Häusern", "Hauses", "Haus", once the umlaut is folded), as
// far as a stem of three letters. A genitive or plural -s after a consonant
// goes first, so the ending it sat on goes too and every form of a noun
// meets one stem ("Gartens", "Garten", "Gärten"; "Vaters", "Vater"); after
// i, u or e it stays ("Preis", "Preise"), as an s there is mostly the
// word's own. Verbs keep their endings: their prefixes and vowel changes are beyond
// a light stemmer anyway.
func stemGerman(w []byte) []byte {
	if n := len(w); n > 4 && w[n-1] == 's' && validSEnding(w[n-2]) {
		w = w[:n-1]
	}
	n := len(w)
	switch {
	case n > 5 && hasSuffix(w, "ern"):
		return w[:n-3]
	case n > 4 && (hasSuffix(w, "em") || hasSuffix(w, "en") || hasSuffix(w, "er") || hasSuffix(w, "es")):
		return w[:n-2]
	case n > 3 && w[n-1] == 'e':
		return w[:n-1]
	case n > 4 && w[n-1] == 's' && (w[n-2] == 'a' || w[n-2] == 'o' || w[n-2] == 'y'):
		return w[:n-1] // the plural of a loanword: "Autos", "Omas", "Handys"
	}
	return w
}

// validSEnding reports whether a German -s after c may be an inflection:
// the consonants Snowball's German stemmer lists for it.
func validSEnding(c byte) bool {
	switch c {
	case 'b', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

func isVowel(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y'
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		if isVowel(c) {
			return true
		}
	}
	return false
}
