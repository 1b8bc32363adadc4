package byheart

import (
	"cmp"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAsksAboutAnswers(t *testing.T) {
	for _, c := range []struct {
		name, query string
		want        bool
	}{
		{"a command the assistant suggested", "What command did you suggest for finding the data race?", true},
		{"a package it recommended", "Which package did you recommend for the catering?", true},
		{"a name it came up with", "What name did you come up with for the module?", true},
		{"what it told the user, after remind me", "Remind me what you told me about retries", true},
		{"your suggestion, elliptic", "your suggestion for the pool size?", true},
		{"what was your advice: the old advice", "What was your advice on the sister's arc?", true},
		{"what's your advice again: recalled", "What's your advice on retries again?", true},
		{"the thing you gave me", "Can you repeat the mnemonic you gave me?", true},
		{"didn't you say", "Didn't you say I should use a mutex here?", true},
		{"you'd recommended", "You'd recommended Postgres over MySQL, why again?", true},
		{"your code: only an answer writes it", "Is your code thread-safe?", true},
		{"according to you", "How many connections should the pool hold, according to you?", true},
		{"the user's own words", "What did I tell you about my sister's wedding?", false},
		{"a request for a new suggestion", "Can you suggest a name for the module?", false},
		{"new advice, present", "What do you recommend now?", false},
		{"new advice, would", "What would you suggest for the catering?", false},
		{"what is your advice: asked anew", "What is your recommendation for a beginner?", false},
		{"did you know", "Did you know that Go has generics now?", false},
		{"a third person's words", "What did Maria say about the venue?", false},
		{"quoted words", `What does "you said it was fine" mean in this email?`, false},
		{"quoted with single quotes", "My reviewer wrote 'you said this was tested', how should I reply?", false},
		{"a fenced block", "Is this right?\n```\n// as you said, retry twice\n```\n", false},
		{"after a fenced block", "```\nx := 1\n```\nWhy did you suggest x?", true},
		{"a line quoted as in e-mail", "> you told me the invoice was paid\nHow should I answer him?", false},
		{"a comparison, not a quote", "Is 2 > 1 what you said?", true},
		{"a case, not a memory", "If you said no, what would happen?", false},
		{"generic you in a how-to", "Once you've written the test, how do you run it?", false},
		{"du: Perfekt", "Was hast du mir für das Hotel empfohlen?", true},
		{"du: in a subordinate clause", "Erinnere mich, was du mir über Retries gesagt hast.", true},
		{"Sie: Perfekt", "Welchen Titel haben Sie vorgeschlagen?", true},
		{"sie, lower case, is they", "Was haben sie im Meeting gesagt?", false},
		{"du: would have said", "Was hättest du gesagt?", false},
		{"ich: the user's words", "Was habe ich dir gesagt?", false},
		{"tú: pretérito", "¿Qué me recomendaste para el hotel?", true},
		{"usted", "¿Qué me recomendó usted?", true},
		{"él: a third person", "¿Qué me recomendó Juan?", false},
		{"tu: passé composé, inverted", "Quel paquet m'as-tu recommandé ?", true},
		{"vous: plus-que-parfait", "Vous m'aviez conseillé un hôtel, lequel ?", true},
		{"je: the user's words", "Qu'est-ce que je t'ai dit ?", false},
		{"tu: passato prossimo", "Cosa mi hai consigliato per il catering?", true},
		{"io: the user's words", "Cosa ti ho detto?", false},
		{"você", "Que nome você deu para o módulo?", true},
		{"tu (pt): pretérito", "O que disseste sobre o prazo?", true},
		{"ты", "Что ты посоветовал для кэша?", true},
		{"вы", "Что вы сказали про сроки?", true},
		{"ты бы: would have", "Что бы ты предложил?", false},
		{"я: the user's words", "Что я тебе говорил?", false},
		{"ja: done for me", "おすすめしてくれたパッケージはどれ？", true},
		{"ja: あなたが + past", "あなたが提案したコマンドは何でしたか？", true},
		{"ja: 私が, the user's words", "私が言ったことを覚えてる？", false},
		{"ja: someone else's words", "上司が20がいいと言っていたけど、妥当？", false},
		{"ja: a request", "モジュールの名前を提案してくれる？", false},
		{"ko: done for me", "추천해 준 패키지가 뭐였어?", true},
		{"ko: honorific past", "전에 말씀하신 호텔이 어디였죠?", true},
		{"ko: 내가, the user's words", "내가 말한 거 기억나?", false},
		{"ko: a request", "모듈 이름 좀 추천해 줄래?", false},
		{"zh: 你 + verb + 的", "你推荐的命令是什么？", true},
		{"zh: 你 + past word", "你之前建议我每天做几道题？", true},
		{"zh: traditional", "你說過的那個是什麼意思？", true},
		{"zh: 你 as object", "我跟你说过的事你还记得吗？", false},
		{"zh: a request", "你能推荐一个名字吗？", false},
		{"zh: quoted", "「你说过的」是什么意思？", false},
		{"empty", "", false},
		{"invalid UTF-8", "what did you \xff say", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, asksAboutAnswers(c.query), c.query)
		})
	}
}

// askedQuestion is one labelled question of testdata/asked.json.
type askedQuestion struct {
	Lang  string `json:"lang"`
	Asks  bool   `json:"asks"`
	Text  string `json:"text"`
	Batch string `json:"batch"`
}

func loadAskedQuestions(t testing.TB) []askedQuestion {
	t.Helper()
	b, err := os.ReadFile("testdata/asked.json")
	require.NoError(t, err)
	var f struct {
		Questions []askedQuestion `json:"questions"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	return f.Questions
}

// askedScore counts a recogniser's answers against labels.
type askedScore struct{ tp, fp, fn, n int }

func (s *askedScore) add(want, got bool) {
	s.n++
	switch {
	case want && got:
		s.tp++
	case got:
		s.fp++
	case want:
		s.fn++
	}
}

func (s askedScore) precision() float64 { return float64(s.tp) / float64(max(s.tp+s.fp, 1)) }
func (s askedScore) recall() float64    { return float64(s.tp) / float64(max(s.tp+s.fn, 1)) }

func TestAsksAboutAnswersOnLabelledQuestions(t *testing.T) {
	qs := loadAskedQuestions(t)
	var all askedScore
	byLang, byBatch := map[string]*askedScore{}, map[string]*askedScore{}
	for _, q := range qs {
		got := asksAboutAnswers(q.Text)
		if got != q.Asks {
			t.Logf("%s, want %v: %s", q.Lang, q.Asks, q.Text)
		}
		all.add(q.Asks, got)
		for _, by := range []struct {
			m map[string]*askedScore
			k string
		}{{byLang, q.Lang}, {byBatch, "batch " + cmp.Or(q.Batch, "first")}} {
			if by.m[by.k] == nil {
				by.m[by.k] = &askedScore{}
			}
			by.m[by.k].add(q.Asks, got)
		}
	}
	for _, m := range []map[string]*askedScore{byLang, byBatch} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			s := m[k]
			t.Logf("%-11s %3d questions, %2d asking: precision %.3f, recall %.3f", k, s.n, s.tp+s.fn, s.precision(), s.recall())
		}
	}
	t.Logf("all         %3d questions, %d asking: precision %.3f, recall %.3f", all.n, all.tp+all.fn, all.precision(), all.recall())
	assert.GreaterOrEqual(t, len(qs), 250)
	assert.GreaterOrEqual(t, len(byLang), 10)
	assert.GreaterOrEqual(t, all.precision(), 0.95)
	assert.GreaterOrEqual(t, all.recall(), 0.85)
}

// On the shipped assistant-shaped set, the questions whose evidence is an
// assistant's answer are the ones marked: questions of a fact the user
// stated, a date or an order are not.
func TestAsksAboutAnswersMarksQuestionsAboutAssistantAnswers(t *testing.T) {
	b, err := os.ReadFile("testdata/assistant.json")
	require.NoError(t, err)
	var convs []struct {
		QA []struct {
			Question string `json:"question"`
			Kind     string `json:"kind"`
		} `json:"qa"`
	}
	require.NoError(t, json.Unmarshal(b, &convs))
	marked, total := map[string]int{}, map[string]int{}
	for _, c := range convs {
		for _, q := range c.QA {
			total[q.Kind]++
			if asksAboutAnswers(q.Question) {
				marked[q.Kind]++
			}
		}
	}
	kinds := make([]string, 0, len(total))
	for k := range total {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		t.Logf("%-13s %3d of %3d marked", k, marked[k], total[k])
	}
	assert.Greater(t, float64(marked["assistant"]), 0.5*float64(total["assistant"]))
	for _, k := range kinds {
		// multi-session questions ask what the assistant said about a
		// part someone else owns: half their evidence is its answers
		if k != "assistant" && k != "multi-session" {
			assert.LessOrEqual(t, float64(marked[k]), 0.05*float64(total[k]), k)
		}
	}
}

// LoCoMo's questions are about two people, in the third person: almost none
// is about what "you" said.
func TestAsksAboutAnswersLeavesThirdPersonQuestions(t *testing.T) {
	convs, path, err := loadLoCoMo()
	if errors.Is(err, fs.ErrNotExist) || err == nil && convs == nil {
		t.Skip("no LoCoMo data at", path)
	}
	require.NoError(t, err)
	n, marked := 0, 0
	for _, c := range convs {
		for _, q := range c.questions {
			n++
			if asksAboutAnswers(q) {
				marked++
				t.Log("marked:", q)
			}
		}
	}
	t.Logf("%d of %d LoCoMo questions marked", marked, n)
	assert.LessOrEqual(t, float64(marked), 0.01*float64(n))
}

func TestAsksAboutAnswersAllocatesNothing(t *testing.T) {
	qs := loadAskedQuestions(t)
	asksAboutAnswers("") // the tables are built on first use
	allocs := testing.AllocsPerRun(10, func() {
		for _, q := range qs {
			asksAboutAnswers(q.Text)
		}
	})
	assert.Zero(t, allocs)
}

// The rules that matched in a clause are kept as bits of a uint64.
func TestAskRulesFitTheirSet(t *testing.T) {
	assert.LessOrEqual(t, len(loadAskTables().rules), 64)
}
