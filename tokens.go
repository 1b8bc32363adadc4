package byheart

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Tokenizer is a family of model tokenizers that ApproxTokens imitates.
type Tokenizer uint8

// The tokenizer families ApproxTokens knows. Each estimate was compared
// with the real tokenizer where one could be run offline; docs/budgets.md
// gives the measured error.
const (
	// O200k is OpenAI's o200k_base: GPT-4o, GPT-4.1, o-series and later.
	O200k Tokenizer = iota
	// Cl100k is OpenAI's cl100k_base (GPT-4, GPT-3.5), and close to the
	// tiktoken-derived vocabulary of Llama 3.
	Cl100k
	// Claude is Anthropic's models. Their tokenizer is not published, so
	// this is Cl100k's estimate with a fifth more, on the side of
	// Anthropic's own rule of thumb of about 3.5 English characters a token.
	Claude
	// Gemini is Google's Gemini and Gemma (SentencePiece, digits one by
	// one): Cl100k's estimate for words, with every digit a token, and a
	// tenth more. Not compared with the real tokenizer.
	Gemini
)

// String returns the family's name.
func (t Tokenizer) String() string {
	switch t {
	case O200k:
		return "o200k"
	case Cl100k:
		return "cl100k"
	case Claude:
		return "claude"
	case Gemini:
		return "gemini"
	}
	return fmt.Sprintf("Tokenizer(%d)", uint8(t))
}

// ApproxTokens returns a measure (see Options.Measure) that estimates how
// many tokens a text is for models of the family t, with no vocabulary to
// load: it is fast (a table lookup per character) and leans towards
// counting too many, the safe side for a budget. A word of letters costs
// about a token and a part of a token for each letter past the first few,
// digits go in threes (one by one for Gemini), each punctuation mark and
// line break is about a token, and each character of Chinese, Japanese or
// Korean about one. It meets the contract Options.Measure states for
// every pair of texts, not only at line breaks: the estimate of a + b is
// never more than the estimates of a and b added. An unknown family is
// counted as Claude, the most generous.
func ApproxTokens(t Tokenizer) func(text string) int {
	w := approxWeights(t)
	return func(text string) int { return w.count(text) }
}

// A character class for ApproxTokens: what a character is, as far as how
// tokenizers split text goes.
const (
	clStart  = iota // before the first character: no class
	clLatin         // a letter of the Latin script
	clLetter        // a letter of another alphabet: Cyrillic, Greek, Arabic, Indic...
	clIdeo          // Han and kana: nearly a token a character
	clHangul        // Hangul, dearer than Han in the OpenAI vocabularies
	clUpper         // a capital letter of the Latin script
	clAccent        // a Latin letter outside ASCII: it often splits a word
	clDigit         // a decimal digit
	clMark          // a combining mark: it goes with the letter before it
	clSpace         // a space or a tab
	clBreak         // a line break
	clPunct         // anything else: punctuation, symbols, emoji
	clCount
)

// tokenUnit is what one token is worth in a weight: weights are whole numbers
// of 1/tokenUnit of a token, so a count is exact and its rounding up is done
// once, at the end.
const tokenUnit = 60

// weights is the cost, in 1/tokenUnit of a token, of a character of class cur
// after one of class prev: cost[prev][cur]. The cost after clStart is the
// highest in its column, which is what makes the estimate subadditive: a
// text's first character can only get cheaper when another text comes
// before it, and its other characters keep their costs.
type weights struct {
	cost [clCount][clCount]int32
}

// approxWeights builds the table for family t.
func approxWeights(t Tokenizer) *weights {
	var w weights
	c := &w.cost
	set := func(cur int, first, next int32) {
		for p := range clCount {
			c[p][cur] = first
		}
		c[cur][cur] = next
	}
	latinNext, letterNext, ideo, hangul, digitNext := int32(6), int32(34), int32(75), int32(85), int32(20)
	if t == O200k {
		latinNext, letterNext, ideo, hangul = 3, 15, 50, 56
	}
	if t == Gemini {
		digitNext = tokenUnit
	}
	set(clLatin, tokenUnit, latinNext)
	set(clLetter, tokenUnit, letterNext)
	set(clIdeo, ideo, ideo)
	set(clHangul, hangul, hangul)
	// A capital starts a token after a small letter (camelCase) and runs
	// of capitals split finely; a small letter after a capital goes on
	// its word.
	set(clUpper, tokenUnit, 20)
	c[clUpper][clLatin] = latinNext
	// Vocabularies learnt mostly from English split words at the letters
	// English lacks.
	set(clAccent, tokenUnit, 30)
	c[clLatin][clAccent], c[clUpper][clAccent] = 30, 30
	c[clAccent][clLatin] = 20
	set(clDigit, tokenUnit, digitNext)
	set(clPunct, tokenUnit, 30)
	set(clBreak, tokenUnit, 30)
	// A space or a mark belongs to the word it precedes or follows, so it
	// costs little after one; at the start of a text it costs what its
	// dearest use does.
	set(clSpace, 15, 15)
	for _, p := range []int{clLatin, clUpper, clAccent, clLetter, clIdeo, clHangul, clDigit, clPunct, clMark} {
		c[p][clSpace] = 0
	}
	set(clMark, 20, 20)
	for _, p := range []int{clLatin, clUpper, clAccent, clLetter, clIdeo, clHangul} {
		c[p][clMark] = 10
	}
	for cur := range clCount {
		top := int32(0)
		for p := 1; p < clCount; p++ {
			top = max(top, c[p][cur])
		}
		c[clStart][cur] = max(c[clStart][cur], top)
	}
	scale := map[Tokenizer]int32{Claude: 120, Gemini: 110}[t]
	if t > Gemini {
		scale = 120
	}
	if scale > 0 {
		for p := range c {
			for q := range c[p] {
				c[p][q] = (c[p][q]*scale + 99) / 100
			}
		}
	}
	return &w
}

// asciiTokenClass is the class of each ASCII character.
var asciiTokenClass = func() (cl [utf8.RuneSelf]uint8) {
	for r := range cl {
		cl[r] = classOf(rune(r))
	}
	return cl
}()

// classOf is the class of r.
func classOf(r rune) uint8 {
	switch {
	case r == ' ' || r == '\t':
		return clSpace
	case isBreak(r):
		return clBreak
	case r >= '0' && r <= '9':
		return clDigit
	case r < utf8.RuneSelf:
		if r >= 'a' && r <= 'z' {
			return clLatin
		}
		if r >= 'A' && r <= 'Z' {
			return clUpper
		}
		return clPunct
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
		return clIdeo
	case unicode.Is(unicode.Hangul, r):
		return clHangul
	case unicode.Is(unicode.Latin, r):
		return clAccent
	case unicode.IsLetter(r):
		return clLetter
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc):
		return clMark
	case unicode.IsDigit(r):
		return clDigit
	case unicode.IsSpace(r):
		return clSpace
	}
	return clPunct
}

// count is the estimate of text's tokens: its characters' costs added,
// rounded up to a whole token.
func (w *weights) count(text string) int {
	sum, prev := 0, uint8(clStart)
	for i := 0; i < len(text); {
		c := text[i]
		var cur uint8
		if c < utf8.RuneSelf {
			cur = asciiTokenClass[c]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			cur = classOf(r)
			i += size
		}
		sum += int(w.cost[prev][cur])
		prev = cur
	}
	return (sum + tokenUnit - 1) / tokenUnit
}
