package byheart

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Chinese, Japanese and Korean do not mark word boundaries with spaces, and
// byheart carries no dictionary to find them. Pairs of adjacent characters
// stand in for words instead: most words are one or two characters long, so
// a two-character word is one of a text's pairs, and a longer one a run of
// them. Splitting runs where the script changes does the rest for Japanese:
// kanji carry the stem and the kana after them the inflection, so 食べた and
// 食べます share 食.

// script is the writing system of a run of CJK characters.
type script uint8

const (
	noScript script = iota
	han
	hiragana
	katakana
	hangul
)

// cjkRun is the run of characters of one script being read.
type cjkRun struct {
	script script
	runes  []rune
	// after is the script of the run that ended right before this one
	// began, with nothing between them.
	after script
}

// addCJK adds r, of script s, to the run being read.
func (tk *tokenizer) addCJK(r rune, s script) {
	tk.flush()
	if s == han && strings.ContainsRune(hanParticles, r) {
		tk.cjk.end(tk)
		return
	}
	if tk.cjk.script != s {
		prev := tk.cjk.script
		tk.cjk.end(tk)
		tk.cjk.script, tk.cjk.after = s, prev
	}
	tk.cjk.runes = append(tk.cjk.runes, r)
}

// end ends the run, adding its terms to the tokenizer's words.
func (run *cjkRun) end(tk *tokenizer) {
	if len(run.runes) > 0 {
		run.emit(tk)
	}
}

func (run *cjkRun) emit(tk *tokenizer) {
	rs, s, after := run.runes, run.script, run.after
	run.script, run.after, run.runes = noScript, noScript, rs[:0]
	switch {
	case s == hiragana && (after == han || after == katakana || len(rs) == 1):
		// Okurigana and particles ("食べた", "京都で", "を"): grammar, not
		// topic.
		return
	case s == hangul:
		rs = stripParticle(rs)
	}
	if len(rs) == 1 {
		tk.addTerm(rs)
		return
	}
	for i := 1; i < len(rs); i++ {
		tk.addTerm(rs[i-1 : i+1])
	}
}

// stripParticle cuts the particle off a Korean word ("학교에서" is about
// "학교"), keeping at least two syllables so that a word that merely ends
// like a particle ("아이", a child) stays whole.
func stripParticle(rs []rune) []rune {
	for _, p := range koreanParticles {
		if n := len(rs) - len(p); n >= 2 && slices.Equal(rs[n:], p) {
			return rs[:n]
		}
	}
	return rs
}

// hanParticles are the Chinese characters of grammar, pronouns and degree
// that are seldom half of a content word: a run is cut at them, so that
// 我在北京 and 我在北海 do not meet on 我在, and what stands between two of
// them alone ("我的猫了") is taken as a one-character word.
const hanParticles = "的了吗呢吧啊呀嘛哦很也在是和我你他她它们这那嗎這們"

// koreanParticles are the case and topic particles, longest first.
var koreanParticles = [][]rune{
	[]rune("에서는"), []rune("에게서"), []rune("으로는"), []rune("까지는"), []rune("부터는"),
	[]rune("에서"), []rune("에게"), []rune("한테"), []rune("까지"), []rune("부터"), []rune("으로"),
	[]rune("처럼"), []rune("보다"), []rune("하고"), []rune("이랑"), []rune("이나"),
	[]rune("은"), []rune("는"), []rune("이"), []rune("가"), []rune("을"), []rune("를"),
	[]rune("에"), []rune("의"), []rune("도"), []rune("로"), []rune("와"), []rune("과"), []rune("만"),
}

func isKana(r rune) bool {
	return 0x3041 <= r && r <= 0x3096 || r == 0x309D || r == 0x309E ||
		0x30A1 <= r && r <= 0x30FA || 0x30FC <= r && r <= 0x30FE || 0x31F0 <= r && r <= 0x31FF
}

// scriptOf tells hiragana from katakana; the prolonged sound mark ー goes
// with katakana, where it is written.
func scriptOf(kana rune) script {
	if kana < 0x30A0 {
		return hiragana
	}
	return katakana
}

// kana returns the kana r in its full-width form, with a voicing mark that
// follows it in rest composed into it, and how many bytes of rest that mark
// took.
func kana(r rune, rest string) (rune, int) {
	if 0xFF66 <= r && r <= 0xFF9D {
		r = halfKana[r-0xFF66]
	}
	mark, size := utf8.DecodeRuneInString(rest)
	var table map[rune]rune
	switch mark {
	case 0x3099, 0x309B, 0xFF9E:
		table = voiced
	case 0x309A, 0x309C, 0xFF9F:
		table = semiVoiced
	default:
		return r, 0
	}
	if v, ok := table[r]; ok {
		return v, size
	}
	return r, 0
}

// cjkStop are the pronouns, particles and fillers of Chinese, Japanese and
// Korean, as the terms they become: with them gone, two texts that share
// only "我们" or "これ" or "우리" do not match.
var cjkStop = func() map[string]bool {
	terms := []string{
		// Chinese, one character and two, simplified and traditional.
		"的", "了", "是", "在", "我", "你", "他", "她", "它", "和", "与", "就", "不", "也", "都",
		"很", "吗", "呢", "吧", "啊", "呀", "哦", "嗯", "这", "那", "有", "没", "个", "一", "会",
		"要", "说", "对", "好", "还", "又", "把", "被", "给", "让", "跟", "从", "而", "但", "或",
		"么", "哪", "谁", "啦", "嘛", "哈", "们", "得", "地", "着", "过", "嗎", "這", "說", "們",
		"我们", "你们", "他们", "她们", "它们", "咱们", "我的", "你的", "他的", "她的", "这个",
		"那个", "一个", "什么", "怎么", "为什", "没有", "不是", "就是", "可以", "已经", "因为",
		"所以", "但是", "还是", "如果", "自己", "现在", "时候", "知道", "觉得", "真的", "一下",
		"一起", "还有", "这样", "那样", "这么", "那么", "有点", "一点", "应该", "可能", "然后",
		"其实", "而且", "哪里", "哪儿", "是的", "好的", "不过", "的话", "这些", "那些", "之后",
		"我們", "你們", "他們", "這個", "那個", "什麼", "怎麼", "沒有", "還是", "時候", "覺得",
		"這樣", "這麼", "那麼", "應該", "然後", "其實",
		// Japanese: pronouns and the kana words of grammar (kana after
		// kanji are dropped before they get here).
		"私", "僕", "俺", "何", "事", "自分", "本当",
		"これ", "それ", "あれ", "どれ", "この", "その", "あの", "どの", "ここ", "そこ", "どこ",
		"わた", "たし", "ぼく", "おれ", "あな", "なた", "です", "でし", "した", "して", "しま",
		"ます", "まし", "ませ", "ない", "なか", "かっ", "った", "って", "てい", "いる", "いま",
		"ある", "あり", "あっ", "ので", "から", "けど", "けれ", "でも", "だっ", "たら", "なら",
		"よね", "よう", "そう", "こう", "どう", "なに", "なん", "もう", "まだ", "とて", "ても",
		"ちょ", "ょっ", "っと", "とか", "など", "まで", "より", "ほど", "だけ", "しか", "ござ",
		"ざい", "それで", "そし", "して", "ね", "よ",
		// Korean: pronouns, adverbs of degree, and endings.
		"나", "너", "저", "그", "이", "것", "수", "좀", "더", "잘", "또", "안", "못", "네", "예",
		"아", "뭐", "왜", "제", "내", "우리", "저희", "저는", "나는", "너는", "제가", "내가",
		"그냥", "정말", "진짜", "너무", "아주", "많이", "조금", "그래", "그런", "런데", "하지",
		"지만", "그리", "리고", "그럼", "이제", "했어", "어요", "해요", "니다", "습니", "있어",
		"없어", "었어", "았어", "세요", "하는", "했다", "예요", "이야", "거야", "어디", "언제",
		"무엇", "누구", "어떻", "떻게",
	}
	m := make(map[string]bool, len(terms))
	for _, t := range terms {
		m[t] = true
	}
	return m
}()
