package main

import (
	"unicode"
	"unicode/utf8"
)

// This file is byheart's tokenizer as it was before it learned languages
// other than English (the core's stem.go at commit 11dee58), kept frozen
// here as the baseline the multilingual section measures the new one
// against. It is not maintained: it is what "today's tokenizer" means.

// legacyTerms returns the terms the old tokenizer gives for text:
// lower-cased words and numbers with English stop words removed and a light
// English stem applied, and each Han, Hiragana, Katakana or Hangul character
// as a term of its own.
func legacyTerms(text string) []string {
	var out []string
	var tk legacyTokenizer
	tk.each(text, func(term []byte) { out = append(out, string(term)) })
	return out
}

// legacyTokenizer splits text into terms without allocating per word: each term is
// built in buf and handed to the callback, which must copy it if it keeps it.
type legacyTokenizer struct {
	buf []byte
}

func (tk *legacyTokenizer) each(text string, fn func(term []byte)) {
	tk.buf = tk.buf[:0]
	flush := func() {
		if len(tk.buf) == 0 {
			return
		}
		term := tk.buf
		tk.buf = tk.buf[:0]
		if len(term) == 1 && term[0] < utf8.RuneSelf && !legacyIsDigit(term[0]) {
			return // lone letters carry no topic
		}
		if _, stop := legacyStopWords[string(term)]; stop {
			return
		}
		fn(legacyStem(term))
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				tk.buf = append(tk.buf, c)
			case 'A' <= c && c <= 'Z':
				tk.buf = append(tk.buf, c+'a'-'A')
			case c == '\'' && len(tk.buf) > 0:
				i += tk.apostrophe(text, i+1)
				continue
			default:
				flush()
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '’' && len(tk.buf) > 0:
			i += size + tk.apostrophe(text, i+size) - 1
			continue
		case legacyIsIdeographic(r):
			flush()
			tk.buf = utf8.AppendRune(tk.buf, r)
			flush()
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			tk.buf = utf8.AppendRune(tk.buf, unicode.ToLower(r))
		default:
			flush()
		}
		i += size
	}
	flush()
}

// apostrophe handles an apostrophe inside a word, with rest starting just
// after it, and returns how many bytes of text it consumed including the
// apostrophe itself. A possessive "'s" is dropped ("Ada's" is about
// Ada); elsewhere the apostrophe is skipped so "don't" becomes "dont",
// which the stop list knows.
func (tk *legacyTokenizer) apostrophe(text string, rest int) int {
	if rest < len(text) && (text[rest] == 's' || text[rest] == 'S') &&
		(rest+1 == len(text) || !legacyIsWordByte(text[rest+1])) {
		return 2
	}
	return 1
}

func legacyIsWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || legacyIsDigit(c) || c >= utf8.RuneSelf
}

func legacyIsDigit(c byte) bool { return '0' <= c && c <= '9' }

func legacyIsIdeographic(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// legacyStem strips common English inflections in place. It is deliberately light:
// it merges the forms a speaker varies between ("moving", "moved", "movers",
// "move"; "houses", "house"; "quickly", "quick") and leaves alone short words,
// numbers and words with non-ASCII letters, where a wrong cut costs more than
// a missed merge.
func legacyStem(w []byte) []byte {
	if len(w) <= 3 {
		return w
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return w
		}
	}
	w = legacyPlural(w)
	switch {
	case legacyHasSuffix(w, "ing") && len(w) >= 6 && legacyHasVowel(w[:len(w)-3]):
		w = legacyUndouble(w[:len(w)-3])
	case legacyHasSuffix(w, "ed") && len(w) >= 5 && legacyHasVowel(w[:len(w)-2]):
		w = legacyUndouble(w[:len(w)-2])
	}
	// A second step, so "volunteering" meets "volunteer" and "volunteers".
	switch {
	case legacyHasSuffix(w, "er") && len(w) >= 5 && legacyHasVowel(w[:len(w)-2]):
		w = legacyUndouble(w[:len(w)-2])
	case legacyHasSuffix(w, "ly") && len(w) >= 6:
		w = w[:len(w)-2]
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

func legacyPlural(w []byte) []byte {
	switch {
	case legacyHasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-2]
		w[len(w)-1] = 'y'
	case legacyHasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case legacyHasSuffix(w, "ches") || legacyHasSuffix(w, "shes") || legacyHasSuffix(w, "xes") || legacyHasSuffix(w, "zzes"):
		w = w[:len(w)-2]
	case w[len(w)-1] == 's' && !legacyHasSuffix(w, "ss") && !legacyHasSuffix(w, "us") && !legacyHasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	return w
}

func legacyUndouble(w []byte) []byte {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !legacyIsVowel(w[n-1]) && w[n-1] != 'l' && w[n-1] != 's' && w[n-1] != 'z' {
		return w[:n-1]
	}
	return w
}

func legacyHasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

func legacyIsVowel(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y'
}

func legacyHasVowel(w []byte) bool {
	for _, c := range w {
		if legacyIsVowel(c) {
			return true
		}
	}
	return false
}

// legacyStopWords are the English function words, question words and chat fillers
// that say nothing about a conversation's subject, including contractions
// with the apostrophe removed as the tokenizer leaves them.
var legacyStopWords = func() map[string]struct{} {
	words := []string{
		"about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
		"are", "aren", "arent", "as", "at", "be", "because", "been", "before", "being", "below",
		"between", "both", "but", "by", "can", "cant", "cannot", "could", "couldnt", "did", "didnt",
		"do", "does", "doesnt", "doing", "dont", "down", "during", "each", "either", "else", "even",
		"ever", "few", "for", "from", "further", "get", "gets", "got", "had", "hadnt", "has",
		"hasnt", "have", "havent", "having", "he", "hed", "hell", "her", "here", "heres", "hers",
		"herself", "hes", "hey", "hi", "him", "himself", "his", "how", "hows", "however", "id",
		"if", "im", "in", "into", "is", "isnt", "it", "its", "itself", "ive", "just", "let",
		"lets", "like", "ll", "lot", "me", "might", "more", "most", "much", "must", "mustnt",
		"my", "myself", "no", "nor", "not", "now", "of", "off", "oh", "ok", "okay", "on", "once",
		"only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own", "quite",
		"re", "really", "said", "same", "say", "says", "shall", "shant", "she", "shed", "shell",
		"shes", "should", "shouldnt", "so", "some", "such", "than", "that", "thats", "the",
		"their", "theirs", "them", "themselves", "then", "there", "theres", "these", "they",
		"theyd", "theyll", "theyre", "theyve", "this", "those", "though", "through", "to", "too",
		"under", "until", "up", "us", "ve", "very", "was", "wasnt", "we", "wed", "well", "were",
		"werent", "weve", "what", "whats", "when", "whens", "where", "wheres", "which", "while",
		"who", "whom", "whos", "why", "whys", "will", "with", "wont", "would", "wouldnt", "yeah",
		"yes", "yet", "you", "youd", "youll", "your", "youre", "yours", "yourself", "yourselves",
		"youve", "wow", "lol", "hmm", "thanks", "thank",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()
