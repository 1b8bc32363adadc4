package byheart

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rules for Japanese, Korean and Chinese, which read a sentence's text
// (its quotations left out) rather than its words. Japanese and Korean mark
// a request at a sentence's end ("…てください", "…해 주세요"): a sentence
// stands when it ends with one and says how long it holds ("これからは",
// "앞으로", "always", "whenever I ask"), when it asks to be remembered
// ("覚えておいて", "기억해 주세요"), or when it states the user's preference
// ("…の方が好きです", "…을 선호해요") and is neither a choice of the moment
// nor about someone else. Chinese marks an instruction at its start ("以后",
// "从现在开始", "请总是", "永远不要"), a condition on what the user asks
// ("我问…时，"), a preference ("我更喜欢") or a wish to be remembered ("请记住我…").

// judge reports whether the sentence read so far stands.
func (s *sentence) judge() bool {
	if s.spacedStands() {
		return true
	}
	if s.long || !s.kana && !s.hangul && !s.han {
		return false
	}
	text := strings.TrimRightFunc(string(s.raw[:s.nRaw]), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) || r == '~' || r == '〜' || r == 'ー' || r == '♪'
	})
	switch {
	case s.kana:
		return !s.question && japanese(text)
	case s.hangul:
		return !s.question && korean(text)
	}
	return !s.question && chinese(text)
}

// hasAny reports whether text holds any of the parts.
func hasAny(text string, parts []string) bool {
	return slices.ContainsFunc(parts, func(p string) bool { return strings.Contains(text, p) })
}

// endsAny reports whether text ends with any of the endings.
func endsAny(text string, endings []string) bool {
	return slices.ContainsFunc(endings, func(e string) bool { return strings.HasSuffix(text, e) })
}

// startsAny returns the length of the first of the openings text starts
// with, or 0.
func startsAny(text string, openings []string) int {
	for _, o := range openings {
		if strings.HasPrefix(text, o) {
			return len(o)
		}
	}
	return 0
}

var (
	jaRequest = []string{"ください", "下さい", "なさい", "てね", "でね", "ないで", "てほしい", "でほしい", "ほしいです",
		"欲しいです", "ほしい", "欲しい", "お願いします", "お願いいたします", "お願い", "頼みます", "頼む", "てくれ",
		"でくれ", "ように", "こと", "て"}
	jaLasting = []string{"これから", "今後", "以後", "以降", "今から", "次から", "今度から", "常に", "いつも", "毎回",
		"必ず", "絶対", "二度と", "ずっと", "なるべく", "できるだけ", "出来るだけ", "基本的に", "原則", "ときは", "時は",
		"ときには", "時には", "場合は", "際は", "たびに", "度に"}
	jaRemember = []string{"覚えておいて", "覚えといて", "覚えておいてください", "覚えておいてね", "忘れないで",
		"忘れないでください", "念頭に置いてください", "頭に入れておいてください", "心に留めておいてください"}
	jaPrefer = []string{"方が好きです", "ほうが好きです", "方が好き", "ほうが好き", "方がいいです", "ほうがいいです",
		"方が良いです", "方がいい", "ほうがいい", "を好みます", "を好む", "が好みです", "が好み", "方がありがたいです",
		"方が助かります", "方が嬉しいです", "方がうれしいです"}
	jaOneOff = []string{"今夜", "今晩", "今日", "明日", "今回", "この", "その", "あの", "番目", "選択肢", "どっち", "オプション"}
	jaOthers = []string{"妻", "夫", "妹", "弟", "兄", "姉", "母", "父", "彼", "友達", "友人", "上司", "同僚", "息子", "娘",
		"子供", "家族", "祖母", "祖父", "主人", "嫁", "旦那", "みんな", "皆"}
	jaMine = []string{"私の", "僕の", "俺の", "うちの"}
)

// japanese reports whether a Japanese sentence that is not a question
// stands.
func japanese(text string) bool {
	if strings.HasSuffix(text, "か") || strings.HasSuffix(text, "かな") {
		return false
	}
	if endsAny(text, jaRemember) {
		return true
	}
	if endsAny(text, jaRequest) && !strings.HasSuffix(text, "って") && hasAny(text, jaLasting) {
		return true
	}
	topic := text[startsAny(text, jaMine):]
	return endsAny(text, jaPrefer) && !hasAny(text, jaOneOff) && startsAny(topic, jaOthers) == 0
}

var (
	koRequest = []string{"주세요", "주십시오", "줘", "줘요", "주라", "마세요", "마십시오", "지 마", "지마", "말아요",
		"말아 줘", "말아줘", "하세요", "하십시오", "해라", "바랍니다", "부탁해요", "부탁합니다", "부탁해", "세요",
		"하자", "합시다"}
	koLasting = []string{"앞으로", "이제부터", "이제부턴", "지금부터", "항상", "언제나", "늘", "매번", "절대", "절대로",
		"다시는", "때마다", "때는", "때엔", "되도록", "가급적", "가능하면", "기본적으로", "무조건", "반드시"}
	koRemember = []string{"기억해 주세요", "기억해주세요", "기억해 줘", "기억해줘", "기억해 두세요", "기억해두세요",
		"기억해 둬", "기억해둬", "기억해 주십시오", "기억하세요", "잊지 마세요", "잊지 마", "잊지 말아 주세요",
		"잊지 말아줘", "염두에 두세요", "염두에 둬", "알아 두세요", "알아두세요", "알아 둬", "알아둬"}
	koPrefer = []string{"선호합니다", "선호해요", "선호해", "선호함", "선호하는 편이에요", "더 좋아요", "더 좋습니다",
		"더 좋아", "더 좋겠어요", "더 좋겠습니다", "더 나아요", "더 낫습니다", "편이 좋아요"}
	koOneOff = []string{"오늘", "내일", "이번", "번째", "옵션", "이거", "그거", "저거", "이걸"}
	koOthers = []string{"아내", "남편", "여동생", "남동생", "동생", "형", "누나", "언니", "오빠", "엄마", "아빠", "어머니",
		"아버지", "친구", "상사", "동료", "그는", "그가", "그녀", "아들", "딸", "할머니", "할아버지"}
)

// korean reports whether a Korean sentence that is not a question stands.
// Korean sets its words apart with spaces, so a marker counts only at a
// word's start ("늘", always, is not the end of "오늘", today).
func korean(text string) bool {
	if endsAny(text, koRemember) {
		return true
	}
	if endsAny(text, koRequest) && slices.ContainsFunc(koLasting, func(m string) bool { return atWord(text, m) }) {
		return true
	}
	return endsAny(text, koPrefer) && !hasAny(text, koOneOff) && startsAny(text, koOthers) == 0
}

// atWord reports whether text holds m at the start of one of its words.
func atWord(text, m string) bool {
	for i := 0; ; {
		k := strings.Index(text[i:], m)
		if k < 0 {
			return false
		}
		if k += i; k == 0 {
			return true
		}
		if r, _ := utf8.DecodeLastRuneInString(text[:k]); unicode.IsSpace(r) || unicode.IsPunct(r) {
			return true
		}
		i = k + len(m)
	}
}

var (
	zhOpeners  = []string{"另外", "还有", "对了", "顺便说一下", "顺便说一句", "谢谢", "好的", "嗯", "哦", "那么", "还有就是"}
	zhLeads    = []string{"从现在开始", "从现在起", "从今以后", "从今往后", "从今天起", "从今天开始", "从此以后", "今后", "以后", "往后", "此后"}
	zhNotOrder = []string{"我", "你会", "会", "他", "她", "它", "这", "那", "再说", "再", "就", "还", "也", "可能", "可以", "的", "我们"}
	zhWish     = []string{"我希望你", "我想让你", "我要你"}
	zhNever    = []string{"永远不要", "永远别", "永远不许", "千万不要", "千万别", "绝对不要", "绝对别", "再也不要", "再也别",
		"不要再", "别再", "请勿", "以后不要", "以后别", "今后不要", "今后别", "一律不要", "一律不许", "不准再", "永远不准"}
	zhAlways = []string{"请总是", "请始终", "请一律", "请永远", "请务必", "请一直", "请每次都", "请都", "请一定要", "请尽量"}
	zhFirst  = []string{"务必", "一律", "始终", "每次都"}
	zhSaid   = []string{"说", "写着", "告诉", "听", "表示", "规定"}
	zhIf     = []string{"每次我", "每当我", "当我", "如果我", "要是我", "只要我"}
	zhAsk    = []string{"问", "要", "让你", "请你", "发", "贴", "需要", "提问", "请求", "找你", "给你"}
	zhWhen   = []string{"时", "的时候", "时候"}
	zhPrefer = []string{"我更喜欢", "我比较喜欢", "我还是更喜欢", "我更偏好", "我偏好", "我更倾向于", "我倾向于", "我宁愿",
		"我宁可", "我们更喜欢", "我们偏好", "我更愿意", "我比较偏向"}
	zhLasting  = []string{"别", "不要", "少", "尽量", "总是", "始终", "永远", "一直", "都", "以后", "每次"}
	zhOneOff   = []string{"第二个", "第一个", "这个", "那个", "这次", "今晚", "今天", "明天", "方案", "选项"}
	zhRemember = []string{"请记住", "记住", "请记得", "请你记住", "别忘了", "不要忘了", "请不要忘记", "请牢记", "你要记住"}
	zhCommas   = "，,、：: "
)

// chinese reports whether a Chinese sentence that is not a question stands.
func chinese(text string) bool {
	if strings.HasSuffix(text, "吗") || strings.HasSuffix(text, "呢") || strings.HasSuffix(text, "么") {
		return false
	}
	for n := startsAny(text, zhOpeners); n > 0; n = startsAny(text, zhOpeners) {
		text = strings.TrimLeft(text[n:], zhCommas)
	}
	if n := startsAny(text, zhLeads); n > 0 {
		rest := strings.TrimLeft(text[n:], zhCommas)
		return rest != "" && startsAny(rest, zhNotOrder) == 0 || startsAny(rest, zhWish) > 0
	}
	if n := startsAny(text, zhRemember); n > 0 {
		return startsAny(strings.TrimLeft(text[n:], zhCommas), []string{"我"}) > 0
	}
	if n := startsAny(text, zhWish); n > 0 {
		return startsAny(text[n:], zhLasting) > 0
	}
	if strings.HasPrefix(text, "比起") {
		if k := strings.IndexAny(text, "，,"); k > 0 {
			text = strings.TrimLeft(text[k:], zhCommas)
		}
	}
	if startsAny(text, zhPrefer) > 0 {
		return !hasAny(text, zhOneOff)
	}
	return zhCondition(text) || zhInstruction(text)
}

// zhCondition reports whether text opens with a condition on what the
// user asks ("每次我要查询语句时，") and an instruction after it.
func zhCondition(text string) bool {
	n := startsAny(text, zhIf)
	plain := n == 0 && strings.HasPrefix(text, "我")
	if n == 0 && !plain {
		return false
	}
	k := strings.IndexAny(text, "，,")
	if k < 0 {
		return false
	}
	clause, rest := text[:k], strings.TrimLeft(text[k:], zhCommas)
	if plain && !endsAny(clause, zhWhen) || !hasAny(clause, zhAsk) {
		return false
	}
	return rest != "" && startsAny(rest, zhNotOrder) == 0
}

// zhInstruction reports whether text holds an instruction that lasts
// ("永远不要…", "请总是…"), said by the user rather than reported ("他说…"),
// or opens with one ("务必…").
func zhInstruction(text string) bool {
	if startsAny(text, zhFirst) > 0 {
		return true
	}
	for _, m := range append(zhNever[:len(zhNever):len(zhNever)], zhAlways...) {
		k := strings.Index(text, m)
		if k < 0 {
			continue
		}
		before := text[:k]
		r, _ := utf8.DecodeLastRuneInString(before)
		if !hasAny(before, zhSaid) && !strings.ContainsRune("我他她们", r) {
			return true
		}
	}
	return false
}
