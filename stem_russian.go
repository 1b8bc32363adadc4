package byheart

import "unicode/utf8"

// russianEndings are the case endings of Russian nouns and adjectives and
// the commonest verb endings, folded as the tokenizer folds them (й is и),
// longest first.
// Each is two bytes a letter in UTF-8.
var russianEndings = []string{
	"иями", "ями", "ами", "иях", "ого", "его", "ому", "ему", "ыми", "ими", "ешь", "ишь",
	"ете", "ите", "ией", "ием", "ах", "ях", "ям", "ам", "ов",
	"ев", "ом", "ем", "ым", "им", "ых", "их", "ую", "юю", "ая", "яя", "ое", "ее", "ые",
	"ие", "ыи", "ии", "ои", "еи", "ия", "ию", "ью", "ье", "ья", "ет", "ит", "ут", "ют",
	"ла", "ло", "ли", "а", "я", "о", "е", "ы", "и", "у", "ю", "ь",
}

// stemRussian strips a Russian word's reflexive particle and then its
// longest inflectional ending, leaving at least two letters: память,
// памяти and памятью meet, as do Москва, Москве and Москвой. It is light
// on purpose; the vowel changes of some stems are beyond it.
func stemRussian(w []byte) []byte {
	if hasSuffix(w, "ся") || hasSuffix(w, "сь") {
		if utf8.RuneCount(w) > 4 {
			w = w[:len(w)-len("ся")]
		}
	}
	n := utf8.RuneCount(w)
	for _, e := range russianEndings {
		if n-len(e)/2 >= 2 && hasSuffix(w, e) {
			return w[:len(w)-len(e)]
		}
	}
	return w
}
