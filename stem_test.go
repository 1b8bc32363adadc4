package byheart

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStemEnglishMergesWordForms(t *testing.T) {
	groups := [][]string{
		{"moving", "movers", "moved", "move", "mover", "moves"},
		{"houses", "house"},
		{"quickly", "quick"},
		{"parties", "party"},
		{"running", "runs", "run"},
		{"dresses", "dress"},
		{"watches", "watch", "watched", "watching"},
	}
	for _, g := range groups {
		want := Terms("the " + g[0])
		require.Len(t, want, 1, g[0])
		for _, w := range g[1:] {
			assert.Equal(t, want, Terms("the "+w), "%q and %q must share a stem", g[0], w)
		}
	}
	assert.Equal(t, []string{"quick"}, Terms("the quickly"))
}

func TestStemEnglishLeavesShortWordsAndNumbersAlone(t *testing.T) {
	for _, w := range []string{"was", "bus", "gas", "is"} {
		assert.Equal(t, w, string(stemEnglish([]byte(w))), "%q must not be cut", w)
	}
	assert.Equal(t, []string{"bus"}, Terms("the bus"))
	assert.Equal(t, []string{"2031", "covid19"}, Terms("the 2031 covid19"))
	assert.NotEqual(t, Terms("the bus"), Terms("the bu"))
}

func TestTermsLowercasesDropsStopWordsAndSplitsUnspacedScripts(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"The Movers ARRIVED on Tuesday", []string{"mov", "arriv", "tuesday"}},
		{"Ada's dog", Terms("Ada dog")},
		{"Ada’s dog", Terms("Ada dog")},
		{"I don't know, we didn’t go", []string{"know", "go"}},
		{"a 5 b x 2031", []string{"5", "2031"}},
		{"東京に行く", []string{"東京", "行"}},
		{"Москва, ПАМЯТЬ", []string{"москв", "памят"}},
		{"what was it that you said?", nil},
		{"", nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Terms(c.text), "Terms(%q)", c.text)
	}
}

func TestTermsFoldCaseAccentsWidthAndApostrophes(t *testing.T) {
	groups := [][]string{
		{"the café", "the cafe", "THE CAFÉ", "the cafe\u0301"},
		{"die Straße", "die STRASSE", "die Strasse"},
		{"Ёлка", "елка", "ЕЛКА"},
		{"the ＡＢＣ １２３", "the abc 123"},
		{"ｺｰﾋｰ", "コーヒー"},
		{"ｶﾞｲﾄﾞ", "ガイド", "カ\u3099イト\u3099"},
		{"άλφα", "ΑΛΦΑ", "αλφα"},
		{"ὁδός", "οδοσ"},
		{"the ﬁle", "the file"},
		{"Ada's", "Ada’s", "Adaʼs", "Ada`s", "Ada"},
		{"São Paulo", "sao paulo"},
		{"Łódź", "lodz"},
	}
	for _, g := range groups {
		want := Terms(g[0])
		require.NotEmpty(t, want, g[0])
		for _, w := range g[1:] {
			assert.Equal(t, want, Terms(w), "%q and %q must fold alike", g[0], w)
		}
	}
}

// stemOf is the one term a short sentence of stop words and one content
// word gives, failing the test if it gives another number.
func stemOf(t *testing.T, text string) string {
	t.Helper()
	terms := Terms(text)
	require.Len(t, terms, 1, "Terms(%q) = %q", text, terms)
	return terms[0]
}

func TestTermsStemEachLanguageSoItsInflectionsMeet(t *testing.T) {
	groups := map[string][]string{
		"German":       {"die Schwester", "mit den Schwestern"},
		"German'":      {"der Hund", "mit den Hunden", "des Hundes"},
		"German''":     {"dem Haus", "in den Häusern", "des Hauses"},
		"German 4":     {"in dem Garten", "eines Gartens", "in den Gärten"},
		"German 5":     {"der Vater", "des Vaters", "die Väter"},
		"German 6":     {"mit dem Auto", "mit den Autos"},
		"German 7":     {"der Preis", "die Preise", "des Preises"},
		"French":       {"ce cheval", "ces chevaux"},
		"French'":      {"elle est arrivée", "nous sommes arrivés", "pour arriver", "vous arrivez"},
		"French''":     {"une chienne", "ce chien", "ces chiens"},
		"Spanish":      {"la llave", "las llaves"},
		"Spanish'":     {"yo perdí", "dónde perdiste", "él perdió", "lo he perdido", "para perder"},
		"Spanish''":    {"una luz", "las luces"},
		"Portuguese":   {"minha canção", "minhas canções"},
		"Portuguese'":  {"uma viagem", "minhas viagens"},
		"Portuguese''": {"meu animal", "meus animais"},
		"Italian":      {"della chiave", "delle chiavi"},
		"Italian'":     {"mio amico", "miei amici", "mie amiche"},
		"Russian":      {"память", "о памяти", "с памятью"},
		"Russian'":     {"Москва", "в Москве", "над Москвой", "в Москву"},
		"Russian''":    {"новый", "новая", "нового", "новыми"},
		"Russian'''":   {"ёлка", "на елке"},
	}
	for name, g := range groups {
		want := stemOf(t, g[0])
		for _, w := range g[1:] {
			assert.Equal(t, want, stemOf(t, w), "%s: %q and %q must meet", name, g[0], w)
		}
	}
}

func TestTermsStemByTheLanguageTheTextIsIn(t *testing.T) {
	// "Häuser" and "houses" stem by their own language's rules.
	assert.Equal(t, []string{"haus"}, Terms("die Häuser"))
	assert.Equal(t, []string{"hous"}, Terms("the houses"))
	// A stop word of one language is a word of another: "die" is German's
	// article and an English verb, "son" a French pronoun and an English noun.
	assert.Equal(t, []string{"son"}, Terms("my son"))
	assert.Equal(t, []string{"chat", "chien"}, Terms("son chat est là et son chien"))
}

func TestTermsOfATextWithNoStopWordsMeetEveryLanguagesStem(t *testing.T) {
	for _, sentence := range []string{
		"the keys", "die Schwestern", "ces chevaux", "las llaves", "minhas canções", "delle chiavi",
	} {
		stem := stemOf(t, sentence)
		bare := sentence[strings.IndexByte(sentence, ' ')+1:]
		assert.Contains(t, Terms(bare), stem, "a terse %q must still meet %q", bare, sentence)
	}
	// A short question in any inflection meets the word in a turn whose
	// language is clear, whatever that question's words leave unsaid.
	for _, pair := range [][2]string{
		{"Wessen Gartens?", "Wir sitzen heute im Garten und trinken Tee."},
		{"Vaters Auto?", "Der Vater und die Autos sind in der Garage."},
		{"chevaux blancs", "Les chevaux sont dans le pré avec le cheval blanc."},
		{"llaves perdidas", "Perdí las llaves en la playa."},
	} {
		assert.NotEmpty(t, shared(Terms(pair[0]), Terms(pair[1])), "%q must meet %q", pair[0], pair[1])
	}
	// Each distinct stem once.
	terms := Terms("Hochzeit")
	assert.Equal(t, terms, slices.Compact(slices.Clone(terms)))
}

func TestTermsIndexCJKAsPairsOfCharacters(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"北京", []string{"北京"}},
		{"北京大学", []string{"北京", "京大", "大学"}},
		{"猫！", []string{"猫"}},
		{"我们去北京", []string{"去北", "北京"}},
		// Kana right after kanji are endings and particles.
		{"食べた", []string{"食"}},
		{"食べます", []string{"食"}},
		{"京都で新しいカメラを買いました", []string{"京都", "新", "カメ", "メラ", "買"}},
		// A Korean word loses its particle, and keeps two syllables.
		{"학교에서", []string{"학교"}},
		{"학교가", []string{"학교"}},
		{"아이가", []string{"아이"}},
		{"iPhone买了", []string{"iphon", "买"}},
		// Grammatical characters part runs: 的 and 了 are not words' halves.
		{"我的猫生病了", []string{"猫生", "生病"}},
		{"我的猫了", []string{"猫"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Terms(c.text), "Terms(%q)", c.text)
	}
	assert.Empty(t, intersect(Terms("我在北京工作"), Terms("我在北海道")), "北京 and 北海道 share only 北")
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func TestTermsKeepOtherScriptsWhole(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"สวัสดีครับ ผมชื่อ", []string{"สวัสดีครับ", "ผมชื่อ"}},
		// A spacing vowel sign is part of its word.
		{"किताब पढ़ी", []string{"किताब", "पढ़ी"}},
		{"שָׁלוֹם", []string{"שָׁלוֹם"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Terms(c.text), "Terms(%q)", c.text)
	}
}

func TestTermsElideFrenchAndItalianArticles(t *testing.T) {
	assert.Equal(t, []string{"hotel"}, Terms("dans l'hôtel"))
	assert.Equal(t, Terms("dans ces hôtels"), Terms("dans l'hôtel"))
	assert.Equal(t, Terms("anno"), Terms("dell'anno"))
	assert.Equal(t, []string{"obrien"}, Terms("the O'Brien"), "an English name keeps its letters")
}

func TestTokenizerForgetsTheTextBefore(t *testing.T) {
	texts := []string{"die Schwestern und der Hund", "東京に行く", "las llaves", "the keys", "Москва", "猫"}
	var tk tokenizer
	for _, a := range texts {
		for _, b := range texts {
			tk.each(a, func([]byte) {})
			var got []string
			tk.each(b, func(term []byte) { got = append(got, string(term)) })
			assert.Equal(t, Terms(b), got, "%q after %q", b, a)
		}
	}
}

func TestTokenizerAllocatesNothingPerWordOnceWarm(t *testing.T) {
	text := strings.Repeat("The movers arrived with Ada's boxes; die Schwestern kamen später. 我们去北京 食べた Москве ", 20)
	var tk tokenizer
	n := 0
	count := func([]byte) { n++ }
	tk.each(text, count)
	allocs := testing.AllocsPerRun(20, func() { tk.each(text, count) })
	assert.Zero(t, allocs)
}

// BenchmarkTokenizer tokenizes turns of the benchmark chat with one
// tokenizer, as the index does.
func BenchmarkTokenizer(b *testing.B) {
	turns := chat(1, 500)
	var tk tokenizer
	n := 0
	count := func([]byte) { n++ }
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		tk.each(turns[i%len(turns)].Text, count)
		i++
	}
}

// shared lists the terms a and b have in common.
func shared(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func TestCompoundPartsSplitWhereTheVocabularyKnowsBoth(t *testing.T) {
	vocab := []string{"zahn", "arzt", "auto", "schlussel", "geburtstag", "kuchen", "haus", "tur"}
	known := func(w []byte) bool { return slices.Contains(vocab, string(w)) }
	for _, c := range []struct {
		term string
		want []string
	}{
		{"zahnarzt", []string{"zahn", "arzt"}},
		{"autoschlussel", []string{"auto", "schlussel"}},
		{"geburtstagskuchen", []string{"geburtstag", "kuchen"}},
		{"haustur", nil},    // a head of three letters is too short to tell from an ending
		{"zahnburste", nil}, // the head is not in the vocabulary
		{"kinderarzt", nil}, // nor is the modifier
		{"arzt", nil},       // too short to hold two parts
		{"zahn2arzt", nil},  // not a word of letters
		{"schlusselarzt", []string{"schlussel", "arzt"}},
	} {
		var got []string
		compoundParts([]byte(c.term), known, func(p []byte) { got = append(got, string(p)) })
		assert.Equal(t, c.want, got, c.term)
	}
}

func TestRelatedCompoundsShareAPartTheVocabularyKnowsOrALongModifier(t *testing.T) {
	vocab := []string{"gross", "arzt", "zahn", "grossvat"}
	known := func(w []byte) bool { return slices.Contains(vocab, string(w)) }
	for _, c := range []struct {
		name, query, term string
		want              bool
	}{
		{"the question's word is the turn's head", "arzt", "zahnarzt", true},
		{"the question's word is the turn's modifier", "zahn", "zahnburst", true},
		{"a linking element before the head", "kuch", "geburtstagskuch", true},
		{"a known modifier opens both", "grosselt", "grossvat", true},
		{"a known head ends both", "kinderarzt", "zahnarzt", true},
		{"an unknown modifier of five letters opens both", "kindergart", "kinderarzt", true},
		{"an unknown modifier of four letters is too short to tell", "hochzeit", "hochhaus", false},
		{"a prefix of derived words is no modifier", "band", "verband", false},
		{"a separable prefix is no modifier", "gang", "ausgang", false},
		{"a suffix of derived words is no head", "freiheit", "gesundheit", false},
		{"a rest too short to be a head", "auto", "autor", false},
		{"the same term is not related to itself", "zahnarzt", "zahnarzt", false},
		{"a short term is no compound", "arzt", "arzte", false},
		{"a verb prefix shared is no modifier", "geschenk", "geschicht", false},
		{"digits are no compound", "arzt", "2024arzt", false},
		{"a compound the memory says shares no part beyond its own", "grossvat", "grosselt", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := queryWord{stem: []byte(c.query)}
			q.parts(known)
			assert.Equal(t, c.want, related(&q, []byte(c.term)))
		})
	}
}

// TestRelatedCompoundsFindWhatAScanOfTheVocabularyFinds holds the ordered
// vocabulary to a scan of every term, while terms are added and forgotten
// across its merges.
func TestRelatedCompoundsFindWhatAScanOfTheVocabularyFinds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 30))
	parts := []string{"zahn", "arzt", "kinder", "gross", "vat", "elt", "haus", "tur", "garten", "schul", "bus", "auto",
		"schlussel", "ver", "aus", "heit", "kuch", "geburtstag", "s", "en", "weg", "bahn", "hof", "stadt"}
	ix := newIndex()
	queries := []string{"Arzt", "Zahn", "Großeltern", "Kinderarzt", "Kindergarten", "Schulbus", "Haus", "Autobahn"}
	for round := range 12 {
		for range 150 {
			w := ""
			for range 1 + r.IntN(3) {
				w += parts[r.IntN(len(parts))]
			}
			ix.intern([]byte(w))
		}
		if round%3 == 2 { // forget a few, as a dropped stretch's terms are
			for range 20 {
				id := uint32(r.IntN(ix.terms.n))
				if ix.info(id).size > 0 {
					ix.forget(id)
				}
			}
		}
		for _, q := range queries {
			got := []string{}
			ix.tk.each(q, func([]byte) {})
			ix.relatedCompounds(func(term []byte) { got = append(got, string(term)) })
			want := []string{}
			for _, w := range ix.tk.qwords {
				for id := range uint32(ix.terms.n) {
					if ix.info(id).size > 0 && related(&w, ix.termBytes(id)) {
						want = append(want, ix.term(id))
					}
				}
			}
			slices.Sort(want)
			assert.Equal(t, slices.Compact(want), got, "round %d, %q", round, q)
		}
	}
}

// TestAShortQuestionIsStemmedInTheLanguagesOfTheMemorysOwnTurns: a question
// with no stop words to tell its language by takes the stems of the
// language whose stems of its words the memory holds, and every language's
// in a memory that holds none of them.
func TestAShortQuestionIsStemmedInTheLanguagesOfTheMemorysOwnTurns(t *testing.T) {
	termsOf := func(ix *index, q string) []string {
		var out []string
		ix.eachQueryTerm(q, func(term []byte) { out = append(out, string(term)) })
		return out
	}
	german := newIndex()
	german.encode(nil, "Die Schnecken haben im Garten alle Tomaten gefressen.")
	assert.Equal(t, []string{"gart"}, termsOf(german, "Gartens?"), "a German memory: the German stem")

	english := newIndex()
	english.encode(nil, "I planted roses in the gardens of the castle.")
	assert.Equal(t, []string{"garden"}, termsOf(english, "gardens"), "an English memory: the English stem")

	none := newIndex()
	none.encode(nil, "Nothing about plants here.")
	assert.Equal(t, Terms("Gartens"), termsOf(none, "Gartens"), "no evidence: every language's stem, as Terms gives them")
}

// BenchmarkCompoundSearch reads a short German question and a long one
// against a vocabulary of 50,000 terms: the compound search's binary
// searches and its lookups of a word's parts.
func BenchmarkCompoundSearch(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		w := make([]byte, 4+r.IntN(10))
		for k := range w {
			w[k] = byte('a' + r.IntN(26))
		}
		return string(w)
	}
	ix := newIndex()
	for range 50_000 {
		ix.intern([]byte(word()))
	}
	long := make([]string, 0, 120)
	for i := range 100 {
		long = append(long, word())
		if i%5 == 0 {
			long = append(long, "und die")
		}
	}
	for _, c := range []struct{ name, query string }{
		{"short", "Großeltern?"},
		{"sentence", "Was hat der Zahnarzt über meine Großeltern gesagt?"},
		{"long", strings.Join(long, " ")},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				ix.eachQueryTerm(c.query, func([]byte) {})
			}
		})
	}
}

func TestStopTableIsStopLangs(t *testing.T) {
	for w, langs := range stopLangs {
		require.Equal(t, langs, stopTable.langs([]byte(w)), w)
	}
	for _, w := range []string{"", "x", "zebra", "thee", "th", "дом", "queue", "undd"} {
		require.Equal(t, stopLangs[w], stopTable.langs([]byte(w)), w)
	}
}
