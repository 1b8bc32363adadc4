package byheart

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Japanese and Korean are read by phrases: who the subject is (あなたが,
// 私が, 네가, 내가), and the forms of saying and giving that tell who said
// it. A verb of saying done for the asker in the past (教えてくれた,
// おっしゃった, 추천해 준, 말씀하신) was said by the one asked unless
// another subject stands before it; a plain past (言った, 말한) only after
// "you". Chinese marks no tense on the verb, so 你 is followed: a verb of
// saying after it with 的, 过 or 了 (你推荐的, 你说过), or after a word of
// the past (你之前推荐).

// cjkKind is what a phrase tells.
type cjkKind uint8

const (
	kYou    cjkKind = iota + 1 // the one asked is the subject: あなたが, 네가
	kOther                     // someone else is: 私が, さんが, 내가, 씨가
	kSaidTo                    // said or given for the asker: 教えてくれた, 추천해 준
	kSaid                      // said, by the subject before: 言った, 말한
	kPoss                      // the one asked's advice: あなたの提案, 당신의 제안
	kMade                      // what only an answer holds: あなたのコード, 너의 설명
	kPast                      // a word of the past: でした, さっき, 였, 아까
)

type cjkPhrase struct {
	text string
	kind cjkKind
}

// cjkState is what a sentence's phrases have told so far.
type cjkState struct {
	subject    cjkKind // kYou, kOther or none
	poss, past bool
	zhPoss     bool // 你…的建议
	laizhe     bool // 来着: "what was it again"
}

// cjkPhrases indexes every phrase by its first rune.
func cjkPhrases() map[rune][]cjkPhrase {
	m := map[rune][]cjkPhrase{}
	add := func(k cjkKind, list ...string) {
		for _, p := range list {
			r, _ := utf8.DecodeRuneInString(p)
			m[r] = append(m[r], cjkPhrase{p, k})
		}
	}
	// each stem with each ending
	cross := func(k cjkKind, stems, endings string) {
		for _, s := range strings.Fields(stems) {
			for _, e := range strings.Fields(endings) {
				add(k, s+e)
			}
		}
	}
	fields := strings.Fields

	// Japanese
	add(kYou, fields("あなたが あなたは 君が 君は きみが きみは お前が おまえが 貴方が 貴方は そちらが そっちが")...)
	add(kOther, fields(`私が 私は わたしが わたしは 僕が 僕は ぼくが 俺が 俺は おれが 自分が
		彼が 彼は 彼女が 彼女は さんが さんは くんが ちゃんが 先生が 先生は たちが 達が`)...)
	cross(kSaidTo, `教えて 勧めて すすめて 薦めて 推薦して 提案して 言って 書いて 見せて 説明して
		挙げて 付けて つけて 選んで 出して 考えて 設定して 紹介して アドバイスして 決めて 作って
		示して おすすめして お勧めして オススメして 話して 送って`,
		`くれた くれました くださった くださいました もらった もらいました いただいた
		いただきました くれてた くれていた`)
	add(kSaidTo, fields(`おっしゃった おっしゃってた おっしゃっていた おっしゃいました
		おっしゃってました おっしゃっていました 言ってた 言っていた 言ってました 言っていました
		話してた 話していた ご提案いただいた ご提案いただきました ご説明いただいた
		おすすめいただいた お勧めいただいた`)...)
	add(kSaid, fields(`言った 勧めた すすめた 薦めた 提案した 書いた 教えた 説明した 選んだ 付けた
		つけた 推薦した 挙げた 示した 出した 設定した 名付けた 決めた おすすめした お勧めした
		オススメした アドバイスした 紹介した 話した 作った 言いました 勧めました 提案しました
		書きました 教えました 説明しました 選びました 推薦しました 決めました 作りました 付けました`)...)
	cross(kPoss, "あなたの 君の きみの 貴方の", "提案 おすすめ お勧め オススメ アドバイス 答え 回答 案 助言 意見")
	cross(kMade, "あなたの 君の きみの 貴方の", "コード 説明 例 スクリプト")
	add(kPoss, fields("ご提案 ご説明 ご回答 ご助言 ご指摘 ご紹介 ご推薦")...)
	add(kPast, fields("でした だった だっけ さっき 先ほど さきほど 前に この前 以前 前回 昨日 先日")...)

	// Korean (a phrase matches with or without the spaces inside it)
	add(kYou, fields("네가 니가 너가 당신이 당신은 너는 자네가 그쪽이")...)
	add(kOther, fields("내가 제가 나는 저는 우리가 씨가 님이 님은 께서 그가 그녀가 그는 그녀는")...)
	cross(kSaidTo, `말씀하 추천하 추천해주 제안하 제안해주 알려주 설명하 설명해주 가르쳐주 보여주
		써주 정해주 골라주 지어주 권하 권해주 언급하 작성해주 만들어주 말해주 조언하 조언해주
		얘기하 얘기해주 이야기하 이야기해주 짜주`, "신 셨")
	cross(kSaidTo, `알려 추천해 제안해 설명해 가르쳐 보여 써 정해 골라 지어 권해 작성해 만들어
		말해 조언해 얘기해 이야기해 짜`, "준 줬 주었")
	add(kSaid, fields(`말한 말했 추천한 추천했 제안한 제안했 설명한 설명했 쓴 썼 정한 정했 고른
		골랐 지은 지었 권한 권했 언급한 언급했 얘기한 얘기했 이야기한 이야기했 작성한 작성했
		짠 짰`)...)
	cross(kPoss, "너의 당신의", "제안 추천 조언 답변 대답 아이디어 의견")
	cross(kMade, "너의 당신의", "코드 예시 설명 스크립트")
	// what was said, quoted: 늘리라고 했잖아 (told me to), 좋다고 하셨죠
	cross(kSaidTo, "라고 다고", "했 하셨 말했 말씀하셨")
	add(kPast, fields("였 었 았 했던 아까 전에 지난번 이전 예전")...)
	return m
}

// cjkAt reads the CJK rune r at s[i:next], prev the rune before it, and
// reports whether the phrases starting there settle that the sentence asks
// about an answer.
func (a *askReader) cjkAt(s string, i, next int, r, prev rune) bool {
	switch zhSimplify(r) {
	case '你', '您':
		if a.zhYou(s, i, prev) {
			return true
		}
	case '来':
		if _, ok := zhPrefix(s, i, "来着"); ok {
			a.cjk.laizhe = true
		}
	}
	for _, p := range a.t.cjk[r] {
		end, ok := matchPhrase(s, i, p.text)
		if !ok || (p.kind == kSaidTo || p.kind == kSaid) && notYetSaid(p.text, s[end:]) {
			continue
		}
		if a.cjk.event(p.kind) {
			return true
		}
	}
	if otherSubject(r, prev, s[next:]) {
		a.cjk.subject = kOther
	}
	return false
}

// otherSubject reports whether r, after prev and before rest, marks a
// noun as the subject: someone else's, as in 上司が and 친구가 ("君が" and
// "네가" are phrases of their own).
func otherSubject(r, prev rune, rest string) bool {
	switch r {
	case 'が':
		noun := prev >= 0x2E80 && unicode.Is(unicode.Han, prev) || isKana(prev) && scriptOf(prev) == katakana
		return noun && prev != '君' && prev != '方'
	case '가':
		next, _ := utf8.DecodeRuneInString(rest)
		return 0xAC00 <= prev && prev <= 0xD7A3 && !strings.ContainsRune("네니너내제", prev) &&
			(rest == "" || !unicode.IsLetter(next))
	}
	return false
}

// event takes in what a phrase tells and reports whether the sentence now
// asks about an answer.
func (c *cjkState) event(k cjkKind) bool {
	switch k {
	case kYou, kOther:
		c.subject = k
	case kSaidTo:
		return c.subject != kOther
	case kSaid:
		return c.subject == kYou
	case kMade:
		return true
	case kPoss:
		c.poss = true
	case kPast:
		c.past = true
	}
	return c.poss && c.past
}

// matchPhrase reports whether s[i:] begins with p, spaces between its
// runes allowed (Korean writes 추천해 준 and 추천해준), and where the match
// ends.
func matchPhrase(s string, i int, p string) (int, bool) {
	for j, pr := range p {
		if j > 0 {
			for i < len(s) && s[i] == ' ' {
				i++
			}
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != pr {
			return 0, false
		}
		i += n
	}
	return i, true
}

// notYetSaid reports whether a past that ends in phrase is not one, by what
// follows it: 言ったら and くれたら are "if", 말한다 and 추천해 준대 are
// present (an adnominal in ㄴ before 다 or 대).
func notYetSaid(phrase, rest string) bool {
	last, _ := utf8.DecodeLastRuneInString(phrase)
	next, _ := utf8.DecodeRuneInString(rest)
	switch {
	case last == 'た' || last == 'だ':
		return next == 'ら' || next == 'り'
	case 0xAC00 <= last && last <= 0xD7A3 && (last-0xAC00)%28 == 4: // final ㄴ
		return next == '다' || next == '대' // 준다, 준대: present
	}
	return false
}

// Chinese: the words that may follow 你 when it asks about what was said.
var (
	// zhVerbs are verbs of saying, advising, writing and giving.
	zhVerbs = strings.Fields(`说 讲 提到 提 推荐 建议 提议 提出 告诉 给 写 起 取 选 定 设 设置 设定
		解释 展示 列 列出 介绍 教 举 提供 说明 命名 发 贴 给出 安排 布置 指定 叫 讲解 分享 算`)
	// zhPast are words that put what follows in the past.
	zhPast = strings.Fields(`之前 刚才 上次 前面 先前 刚刚 早些时候 早先 那时 当时 昨天 以前 原来
		最初 一开始 上回 前几天 曾经 早上 上周`)
	// zhAdvice is advice, asked for anew as often as recalled (你的建议是什么
	// asks for new advice); zhMade is what only an answer holds.
	zhAdvice = strings.Fields("建议 推荐 回答 答案 方案 主意 办法 意见")
	zhMade   = strings.Fields("代码 例子 示例 解释 命令 脚本")
)

// zhYou follows the 你 or 您 at s[i:] (prev the rune before it) and reports
// whether it asks about what the one asked said. 你 after a verb or a
// preposition is an object, not the one who said (我跟你说过, 我告诉过你).
func (a *askReader) zhYou(s string, i int, prev rune) bool {
	if strings.ContainsRune("跟给对和同向问诉让帮请叫教被替为陪找谢与过见告使令祝爱像比", zhSimplify(prev)) {
		return false
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	j := i + n
	if r, n := utf8.DecodeRuneInString(s[j:]); zhSimplify(r) == '们' {
		j += n
	}
	past := false
	last := rune(0)
	for range 12 {
		if j >= len(s) {
			break
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		r = zhSimplify(r)
		// a pause, another person, a modal or a negation ends what 你
		// did; 我 only as the one something was done for (给我, 跟我)
		if unicode.IsPunct(r) || unicode.IsSpace(r) || strings.ContainsRune("他她它能会要想可应该将不没别得吗", r) ||
			r == '我' && !strings.ContainsRune("给跟对为帮和向替教诉同", last) {
			break
		}
		if end, ok := zhMatch(s, j, zhPast); ok {
			past, last, j = true, 0, end
			continue
		}
		for _, v := range zhVerbs {
			end, ok := zhPrefix(s, j, v)
			if !ok {
				continue
			}
			if past {
				return true
			}
			if e, ok := zhPrefix(s, end, "给我"); ok {
				end = e
			} else if e, ok := zhPrefix(s, end, "我"); ok {
				end = e
			}
			if p, _ := utf8.DecodeRuneInString(s[end:]); strings.ContainsRune("的过了", zhSimplify(p)) {
				return true
			}
		}
		if r == '的' {
			if _, ok := zhMatch(s, j+n, zhMade); ok {
				return true
			}
			if _, ok := zhMatch(s, j+n, zhAdvice); ok {
				if past {
					return true
				}
				a.cjk.zhPoss = true
			}
		}
		last, j = r, j+n
	}
	return false
}

// zhMatch reports whether s[i:] begins with one of words, and where the
// longest ends.
func zhMatch(s string, i int, words []string) (int, bool) {
	best, ok := 0, false
	for _, w := range words {
		if end, m := zhPrefix(s, i, w); m && end > best {
			best, ok = end, true
		}
	}
	return best, ok
}

// zhPrefix reports whether s[i:] begins with w, read in simplified
// characters (說 as 说), and where it ends.
func zhPrefix(s string, i int, w string) (int, bool) {
	for _, wr := range w {
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 0 || zhSimplify(r) != wr {
			return 0, false
		}
		i += n
	}
	return i, true
}

// zhSimplify returns the simplified form of the traditional characters
// that the Chinese words above are spelled with (說 as 说), and any other
// rune as it is.
func zhSimplify(r rune) rune {
	if z, ok := zhSimplified[r]; ok {
		return z
	}
	return r
}

var zhSimplified = func() map[rune]rune {
	const (
		trad = "說講薦議訴給寫選設釋紹舉發貼剛時當來開幾經週碼腳辦見對問讓幫請為謝與過愛會應該將沒別嗎們著"
		simp = "说讲荐议诉给写选设释绍举发贴刚时当来开几经周码脚办见对问让帮请为谢与过爱会应该将没别吗们着"
	)
	m := map[rune]rune{}
	s := []rune(simp)
	for i, t := range []rune(trad) {
		m[t] = s[i]
	}
	return m
}()
