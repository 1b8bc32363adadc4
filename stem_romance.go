package byheart

// The stemmers of the Romance languages byheart reads. Each takes a folded
// word of the letters a to z (accents are gone: "perdió" arrives as
// "perdio") and cuts in place: first the plural, then the longest of its
// inflectional endings that leaves a stem of three letters. They are light
// on purpose: number, gender and the regular verb endings meet ("médicos",
// "médica"; "perdí", "perdiste", "perdido"), derivation is left alone.

// cutLongest cuts the first of endings (listed longest first) that w ends
// with and that leaves at least three letters.
func cutLongest(w []byte, endings []string) []byte {
	for _, e := range endings {
		if len(w)-len(e) >= 3 && hasSuffix(w, e) {
			return w[:len(w)-len(e)]
		}
	}
	return w
}

var frenchEndings = []string{
	"aient", "ieres", "iere", "iers", "ions", "ier", "iez", "ait", "ais", "ant", "ent",
	"ons", "ee", "er", "ez", "ie", "ir", "e", "i",
}

// stemFrench also undoes the plural in -aux ("chevaux", "cheval") and the
// doubled consonant of a feminine ("chienne", "chien").
func stemFrench(w []byte) []byte {
	n := len(w)
	if n <= 3 {
		return w
	}
	switch {
	case hasSuffix(w, "aux") && n > 4:
		w = w[:n-1]
		w[n-2] = 'l'
	case (w[n-1] == 's' || w[n-1] == 'x') && w[n-2] != 's':
		w = w[:n-1]
	}
	w = cutLongest(w, frenchEndings)
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !isVowel(w[n-1]) {
		w = w[:n-1]
	}
	return w
}

var spanishEndings = []string{
	"abamos", "ieron", "iendo", "aron", "aban", "ando", "aste", "iste", "amos", "emos", "imos",
	"ados", "adas", "idos", "idas", "aba", "ado", "ada", "ido", "ida", "ar", "er", "ir", "io",
	"o", "a", "e", "i",
}

// stemSpanish: plurals in -ces are -z ("luces", "luz").
func stemSpanish(w []byte) []byte {
	n := len(w)
	if n <= 3 {
		return w
	}
	switch {
	case n > 4 && hasSuffix(w, "ces"):
		w = w[:n-2]
		w[n-3] = 'z'
	case n > 4 && hasSuffix(w, "es") && !isVowel(w[n-3]):
		w = w[:n-2]
	case w[n-1] == 's' && isVowel(w[n-2]):
		w = w[:n-1]
	}
	return cutLongest(w, spanishEndings)
}

var portugueseEndings = []string{
	"aram", "eram", "iram", "avam", "ando", "endo", "indo", "amos", "emos", "imos", "ados",
	"adas", "idos", "idas", "ava", "ado", "ada", "ido", "ida", "ar", "er", "ir", "ou", "eu",
	"iu", "ei", "o", "a", "e", "i",
}

// stemPortuguese: the plurals that change the word's end come first
// ("canções", "canção"; "animais", "animal"; "viagens", "viagem").
func stemPortuguese(w []byte) []byte {
	n := len(w)
	if n <= 3 {
		return w
	}
	switch {
	case n > 4 && (hasSuffix(w, "oes") || hasSuffix(w, "aes")):
		w = w[:n-1]
		w[n-3], w[n-2] = 'a', 'o'
	case n > 4 && (hasSuffix(w, "ais") || hasSuffix(w, "eis")):
		w = w[:n-1]
		w[n-2] = 'l'
	case n > 4 && hasSuffix(w, "ns"):
		w = w[:n-1]
		w[n-2] = 'm'
	case n > 4 && (hasSuffix(w, "res") || hasSuffix(w, "zes") || hasSuffix(w, "ses")):
		w = w[:n-2]
	case w[n-1] == 's' && isVowel(w[n-2]):
		w = w[:n-1]
	}
	return cutLongest(w, portugueseEndings)
}

var italianEndings = []string{
	"avano", "evano", "ivano", "iamo", "iare", "iato", "iata", "ando", "endo", "ava", "eva",
	"iva", "ato", "ata", "ati", "ate", "ito", "ita", "iti", "ite", "uto", "uta", "uti", "ute",
	"are", "ere", "ire", "ano", "ono", "io", "o", "a", "e", "i",
}

// stemItalian: the h that keeps a hard c or g before e and i goes too
// ("amiche", "amico"; "laghi", "lago").
func stemItalian(w []byte) []byte {
	if len(w) <= 3 {
		return w
	}
	w = cutLongest(w, italianEndings)
	if hasSuffix(w, "ch") || hasSuffix(w, "gh") {
		w = w[:len(w)-1]
	}
	return w
}
