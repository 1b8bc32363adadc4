package byheart

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// asksAboutAnswers reports whether query asks about something the one
// being asked (the assistant: "you") said, wrote, suggested or gave
// earlier: "What command did you suggest?", "Remind me what you told me
// about retries", "your suggestion for the pool size?", "the example you
// showed me", "Was hast du mir empfohlen?", "¿Qué me dijiste?", "Qu'est-ce
// que tu m'as conseillé ?", "Что ты посоветовал?", "あなたが提案したコマンド",
// "추천해 준 패키지", "你之前推荐的命令". The evidence for such a question is
// in the assistant's own answers, however long they are.
//
// It is conservative: the asker's own words ("What did I tell you?"), a
// request for new advice ("Can you suggest…", "What do you recommend
// now?", "What is your advice?"), what someone else said, "Did you know…"
// and anything inside quotation marks are not. It reads English, German,
// Spanish, French, Italian, Portuguese and Russian a clause at a time,
// Japanese, Korean and Chinese by their phrases, in one pass over the
// query without allocating.
func asksAboutAnswers(query string) bool {
	a := askReader{t: loadAskTables()}
	return a.read(query)
}

const (
	askEntryMax = 40 // bytes of a folded word kept; a longer word plays no role
	askWindow   = 16 // words of a clause a rule can look back over (a power of two)
)

// askReader reads a query word by word; it lives on the caller's stack.
type askReader struct {
	t *askTables

	// the word being read: folded, and lower-cased only
	fold, low     [askEntryMax]byte
	nf, nl        int
	inWord        bool
	long, marked  bool // too long to be a known word; has a non-ASCII letter
	upper         bool // begins with a capital
	sentenceWords int  // words read in the sentence before this one
	recall        bool // the sentence has a word like "again" or "remind"
	clauseWords   int
	win           [askWindow]askEntry // the clause's last words
	clause        askClass            // the roles seen in the clause
	fired         uint64              // the sequence rules matched in the clause
	cjk           cjkState
}

// read reads s, and reports as soon as a clause or sentence asks about an
// answer.
func (a *askReader) read(s string) bool {
	var quote, prev rune // the quotation mark of the span being skipped; the last rune
	lineStart := true    // only spaces since the line began
	for i := 0; i < len(s); {
		if c := asciiLower[s[i]]; c != 0 && quote == 0 { // the common case
			a.asciiLetter(c, s[i])
			prev, lineStart = rune(s[i]), false
			i++
			continue
		}
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if 0xFF01 <= r && r <= 0xFF5E { // full-width ASCII
			r -= 0xFEE0
		}
		next := i + size
		switch {
		case quote != 0:
			if r == '\n' && quote != quoteFence || closesQuote(quote, r, s[next:]) {
				quote = 0
			}
		case opensQuote(r, prev, s[next:], lineStart) != 0:
			// What is quoted was said by whoever the quote is of; the
			// quoted span stands between the words around it.
			a.endWord()
			a.push(askEntry{})
			quote = opensQuote(r, prev, s[next:], lineStart)
		case isCJK(r):
			a.endWord()
			if a.cjkAt(s, i, next, r, prev) {
				return true
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			a.letter(r)
		default:
			a.endWord()
			switch askBreak(r) {
			case sentenceBreak:
				if a.endClause() || a.endSentence() {
					return true
				}
			case clauseBreak:
				if a.endClause() {
					return true
				}
			}
		}
		prev, i = r, next
		lineStart = r == '\n' || lineStart && (r == ' ' || r == '\t')
	}
	a.endWord()
	return a.endClause() || a.endSentence()
}

type breakKind uint8

const (
	wordBreak breakKind = iota
	clauseBreak
	sentenceBreak
)

// askBreak says what the non-letter r ends.
func askBreak(r rune) breakKind {
	switch r {
	case '.', '!', '?', '\n', '…', '¿', '¡', '。', '！', '？':
		return sentenceBreak
	case ',', ';', ':', '(', ')', '[', ']', '{', '}', '|', '，', '、', '；', '：':
		return clauseBreak
	}
	return wordBreak
}

// Quotations that no one quotation mark opens.
const (
	quoteFence rune = -1 // a block of code between lines of ```
	quoteLine  rune = -2 // a line quoted as in e-mail, after a >
)

// opensQuote returns the quotation mark r opens, with prev the rune before
// it and rest the text after it, lineStart whether only spaces come
// before it on its line; 0 when r opens none. An apostrophe opens one only
// before a word and not inside one ("don't", "l'été").
func opensQuote(r, prev rune, rest string, lineStart bool) rune {
	switch r {
	case '"', '“', '„', '«', '»', '‹', '「', '『', '《':
		return r
	case '`':
		if strings.HasPrefix(rest, "``") {
			return quoteFence
		}
		return r
	case '>':
		if lineStart {
			return quoteLine
		}
	case '\'', '‘':
		next, _ := utf8.DecodeRuneInString(rest)
		if !isWordRune(prev) && unicode.IsLetter(next) {
			return r
		}
	}
	return 0
}

// closesQuote reports whether r ends the quotation open opened. An
// apostrophe inside a word ("it's") does not end one; only a line's end
// ends a quoted line.
func closesQuote(open, r rune, rest string) bool {
	switch open {
	case quoteFence:
		return r == '`' && strings.HasPrefix(rest, "``")
	case quoteLine:
		return false
	case '“':
		return r == '”'
	case '„':
		return r == '“' || r == '”'
	case '«':
		return r == '»'
	case '»':
		return r == '«'
	case '‹':
		return r == '›'
	case '「':
		return r == '」'
	case '『':
		return r == '』'
	case '《':
		return r == '》'
	case '\'', '‘':
		if r != '\'' && r != '’' {
			return false
		}
		next, _ := utf8.DecodeRuneInString(rest)
		return !unicode.IsLetter(next)
	}
	return r == open
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isCJK reports whether r is read by the phrases of Chinese, Japanese or
// Korean rather than as a letter of a word.
func isCJK(r rune) bool {
	return isKana(r) || 0xFF66 <= r && r <= 0xFF9D || 0xAC00 <= r && r <= 0xD7A3 ||
		r >= 0x2E80 && unicode.Is(unicode.Han, r)
}

// asciiLetter adds the ASCII letter or digit orig, lower-cased c, to the
// word being read.
func (a *askReader) asciiLetter(c, orig byte) {
	if !a.inWord {
		a.inWord, a.nf, a.nl, a.long, a.marked = true, 0, 0, false, false
		a.upper = 'A' <= orig && orig <= 'Z'
	}
	if a.long || a.nf == askEntryMax || a.nl == askEntryMax {
		a.long = true
		return
	}
	a.fold[a.nf], a.low[a.nl] = c, c
	a.nf++
	a.nl++
}

// letter adds r to the word being read, folded as the index folds it and
// lower-cased only.
func (a *askReader) letter(r rune) {
	if r < utf8.RuneSelf {
		a.asciiLetter(asciiLower[r], byte(r))
		return
	}
	if !a.inWord {
		a.inWord, a.nf, a.nl, a.long, a.marked = true, 0, 0, false, false
		a.upper = unicode.IsUpper(r)
	}
	if a.long || isDiacritic(r) {
		return
	}
	if a.nf+2*utf8.UTFMax > askEntryMax || a.nl+utf8.UTFMax > askEntryMax {
		a.long = true
		return
	}
	a.marked = true
	a.nf = len(appendFolded(a.fold[:a.nf], r))
	a.nl = len(utf8.AppendRune(a.low[:a.nl], unicode.ToLower(r)))
}

// endWord looks the word just read up and adds it to the clause.
func (a *askReader) endWord() {
	if !a.inWord {
		return
	}
	a.inWord = false
	var e askEntry
	if !a.long && a.t.shapes[a.fold[0]]&(1<<a.nf) != 0 {
		ok := false
		if a.marked {
			e, ok = a.t.exact[string(a.low[:a.nl])]
		}
		if !ok {
			e = a.t.words[string(a.fold[:a.nf])]
		}
	}
	// "Sie", "Ihr", "Lei" address the one asked only capitalised, and a
	// capital at the start of a sentence says nothing.
	const capsOnly = cDeSie | cItLei | cPossCaps
	if e.class&capsOnly != 0 {
		if a.upper && a.sentenceWords > 0 && e.class&cPossCaps != 0 {
			e.class |= cPoss
		}
		if !a.upper || a.sentenceWords == 0 {
			e.class &^= capsOnly
		}
	}
	a.sentenceWords++
	a.push(e)
}

// push adds a word to the clause and matches the rules that end in it.
func (a *askReader) push(w askEntry) {
	a.win[a.clauseWords%askWindow] = w
	a.clauseWords++
	a.clause |= w.class
	if w.class&cRecall != 0 {
		a.recall = true
	}
	if w.class&(cNoun|cNounAdv|cNounRu) != 0 {
		a.clause |= a.possessed(w)
	}
	for i, r := range a.t.rules {
		if len(r.steps) > 0 && w.class&r.steps[len(r.steps)-1].class != 0 && a.matches(r) {
			a.fired |= 1 << i
		}
	}
}

// back returns the word k words before the last one of the clause, and
// whether there is one.
func (a *askReader) back(k int) (askEntry, bool) {
	if k >= a.clauseWords || k >= askWindow {
		return askEntry{}, false
	}
	return a.win[(a.clauseWords-1-k)%askWindow], true
}

// matches reports whether the clause, ending in a word that has the last
// step's role, ends in the whole sequence.
func (a *askReader) matches(r askRule) bool {
	k := 0
	for s := len(r.steps) - 2; s >= 0; s-- {
		found := false
		for range r.steps[s+1].gap + 1 {
			k++
			w, ok := a.back(k)
			if !ok {
				return false
			}
			if w.class&r.steps[s].class != 0 {
				found = true
				break
			}
			if w.class&cFill == 0 {
				return false
			}
		}
		if !found {
			return false
		}
	}
	w, _ := a.back(k + 1)
	return w.class&r.pre == 0
}

// possessed returns the role a noun of an answer takes from a "your"
// before it ("your suggestion", "your earlier answer"): none without one,
// cPossHit for what only an answer holds, cPossPres for advice after a
// present ("what is your advice" asks for new advice), cPossPast for a
// Russian noun of advice, which needs a past to tell.
func (a *askReader) possessed(noun askEntry) askClass {
	k := 1
	w, _ := a.back(k)
	if w.class&cMod != 0 {
		k++
		w, _ = a.back(k)
	}
	if w.class&cPoss == 0 || w.langs&noun.langs == 0 {
		return 0
	}
	switch {
	case noun.class&cNoun != 0:
		return cPossHit
	case noun.class&cNounRu != 0:
		return cPossPast
	}
	for range 2 {
		k++
		w, _ = a.back(k)
		if w.class&cSkip == 0 {
			break
		}
	}
	if w.class&cPresent != 0 {
		return cPossPres
	}
	return cPossHit
}

// endClause reports whether the clause just read asks about an answer, and
// starts the next.
func (a *askReader) endClause() bool {
	seen := a.clause
	if a.recall {
		seen |= cRecall
	}
	hit := false
	for i, r := range a.t.rules {
		if len(r.steps) > 0 && a.fired&(1<<i) == 0 || seen&r.all != r.all || seen&r.veto != 0 {
			continue
		}
		hit = true
		break
	}
	a.clauseWords, a.clause, a.fired = 0, 0, 0
	return hit
}

// endSentence reports whether the sentence just read asks about an answer
// by its phrases, and starts the next.
func (a *askReader) endSentence() bool {
	a.sentenceWords, a.recall = 0, false
	hit := a.cjk.poss && a.cjk.past || a.cjk.zhPoss && a.cjk.laizhe
	a.cjk = cjkState{}
	return hit
}
