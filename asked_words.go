package byheart

import (
	"strings"
	"sync"
)

// The languages written in words (English, German, Spanish, French,
// Italian, Portuguese, Russian) are read a clause at a time: each word is
// looked up, folded, in one table that gives the roles it can play (a
// second-person subject, an auxiliary of the past, a verb of saying in the
// past, a possessive "your", a noun for what an answer holds...), and the
// rules below ask for roles in order or together in a clause.

// askClass is a set of roles a word can play.
type askClass uint64

const (
	// English
	cEnYou     askClass = 1 << iota // you
	cEnAux                          // did, have, had: "did you say", "have you recommended"
	cEnBase                         // say, tell, suggest: after "did you"
	cEnPast                         // said, told, suggested: after "you"
	cEnCome                         // come, came: only with "up" ("did you come up with")
	cEnCame                         // came: "the name you came up with", not "you come up with"
	cEnUp                           // up
	cEnConj                         // if, once, after: "if you said", a case, not a memory
	cAccording                      // according
	cTo                             // to

	// German
	cDeAux2  // hast, hattest, habt, hattet: the auxiliary of du and ihr
	cDeAuxF  // haben, hatten: the auxiliary of Sie
	cDeSie   // Sie, capitalised inside a sentence
	cDePart  // gesagt, empfohlen, vorgeschlagen
	cDePret2 // sagtest, meintest: a past only du has
	cDePretF // sagten, meinten: with Sie
	cDeCond  // hättest, würdest: what one would have said

	// Spanish and Portuguese
	cEsHas   // has, habías: the auxiliary of tú
	cEsHa    // ha, había: with usted
	cEsPart  // dicho, recomendado
	cUsted   // usted, ustedes
	cEsPret3 // dijo, recomendó: with usted
	cPtVoce  // você, o senhor
	cPtPret3 // disse, recomendou, and the participles after tinha: with você
	cPret2   // dijiste, disseste, dicevi, disiez: a past only "you" has

	// French
	cFrTu    // tu
	cFrVous  // vous
	cFrAuxT  // as, avais
	cFrAuxV  // avez, aviez
	cFrPart  // dit, recommandé, conseillé
	cFrImpfT // disais, voulais (dire): with tu

	// Italian
	cItAux2 // hai, avevi, avete
	cItHa   // ha, aveva: with Lei
	cItLei  // Lei, capitalised inside a sentence
	cItPart // detto, consigliato

	// Russian
	cRuYou  // ты, вы
	cRuPast // сказал, посоветовала, предложили
	cRuBy   // бы: what one would have said

	// "What did you mean": a past of wanting before "to say"
	cWant2 // querías, quisiste, vouliez, volevi
	cSay   // decir, dire, dizer

	// Spanish "se te ocurrió": what came to you
	cEsTe      // te
	cEsOcurrio // ocurrió, ocurrieron

	// shared
	cFill     // words that may stand between the parts of a rule: "just", "me", "ya"
	cPoss     // your, dein, tu (es), ton, tuo, seu, твой
	cPossCaps // Ihr, Ihre: your only when capitalised inside a sentence
	cNoun     // code, example, script: made only by answering
	cNounAdv  // suggestion, advice, answer: also asked for anew
	cNounRu   // совет, ответ: Russian has no present copula to tell new from old
	cMod      // earlier, last, previous: "your earlier answer"
	cPresent  // is, would, can: "what is your advice" asks for new advice
	cSkip     // be, me, the: skipped looking back from "your"
	cRecall   // again, remind: "what's your advice again" asks for the old
	cPastCop  // был, была: "какой был твой совет"

	// set by the reading itself, never by the table
	cPossHit  // your + a noun of an answer
	cPossPres // your + advice, after a present: needs a recall word
	cPossPast // твой + совет: needs a past or a recall word
)

// askLang is a set of the languages written in words.
type askLang uint8

const (
	lEN askLang = 1 << iota
	lDE
	lES
	lFR
	lIT
	lPT
	lRU
)

// askEntry is what the table knows of a word, and what the rules see of
// it: its roles, and the languages it has them in (a possessive meets only
// a noun of its own language).
type askEntry struct {
	class askClass
	langs askLang
}

// askStep is one part of a sequence rule: the roles a word must have, and
// how many filler words may stand between it and the part before.
type askStep struct {
	class askClass
	gap   int
}

// askRule is a way of asking about an answer. A sequence rule (steps) is
// matched word by word, its parts in order with only fillers between, and
// the word before its first part must not have a role in pre; a clause
// rule (all) asks for every role of all somewhere in the clause. Either
// fails when the clause holds a role of veto.
type askRule struct {
	steps []askStep
	pre   askClass
	all   askClass
	veto  askClass
}

// askTables are the word table and the rules, built once, on first use.
type askTables struct {
	exact map[string]askEntry // words whose umlaut matters, lower-cased
	words map[string]askEntry // every other word, folded
	// shapes[b] has bit n set when a word of the table folds to n bytes
	// beginning with b: most words are not in the table, and this says so
	// without a lookup.
	shapes [256]uint64
	rules  []askRule
	cjk    map[rune][]cjkPhrase // see asked_cjk.go
}

var loadAskTables = sync.OnceValue(func() *askTables {
	t := &askTables{
		exact: map[string]askEntry{},
		words: map[string]askEntry{},
		rules: askRules(),
		cjk:   cjkPhrases(),
	}
	t.addWords()
	for _, m := range []map[string]askEntry{t.words, t.exact} {
		for w := range m {
			f := foldWord(w) // shorter than askWordMax
			t.shapes[f[0]] |= 1 << len(f)
		}
	}
	return t
})

// add gives each word of the space-separated list the role c in language l.
// The words are folded as a query's are ("твой" is read as "твои").
func (t *askTables) add(l askLang, c askClass, list string) {
	for _, w := range strings.Fields(list) {
		f := foldWord(w)
		e := t.words[f]
		e.class |= c
		e.langs |= l
		t.words[f] = e
	}
}

// foldWord folds w as a query's words are folded.
func foldWord(w string) string {
	var f []byte
	for _, r := range w {
		f = appendFolded(f, r)
	}
	return string(f)
}

// addExact is add for words that fold into another word: "hättest"
// (would have) is not "hattest" (had).
func (t *askTables) addExact(l askLang, c askClass, list string) {
	for _, w := range strings.Fields(list) {
		e := t.exact[w]
		e.class |= c
		e.langs |= l
		t.exact[w] = e
	}
}

// yourWords are a language's words around "your": the possessives, the
// nouns of what only an answer makes (code, an example) and of advice,
// which is asked for anew as often as recalled; the words that may stand
// between ("your earlier answer"); the presents that ask anew when they
// come before the possessive ("what is your advice"), and the words
// skipped looking back for one ("what would be your advice"); and the
// words that recall ("what was your advice again").
type yourWords struct {
	poss, made, advice, mod, present, skip, recall string
}

// addYour adds a language's words around "your", its nouns of advice with
// the role advice.
func (t *askTables) addYour(l askLang, advice askClass, w yourWords) {
	t.add(l, cPoss, w.poss)
	t.add(l, cNoun, w.made)
	t.add(l, advice, w.advice)
	t.add(l, cMod, w.mod)
	t.add(l, cPresent, w.present)
	t.add(l, cSkip, w.skip)
	t.add(l, cRecall, w.recall)
}

// addForms adds each word with each of the endings ("" for the word
// itself): the genders and numbers of a participle or a past.
func (t *askTables) addForms(l askLang, c askClass, endings, list string) {
	ends := strings.Split(endings, ",")
	for _, w := range strings.Fields(list) {
		for _, e := range ends {
			t.add(l, c, w+e)
		}
	}
}

// askRules are the ways each language asks about what "you" said. The
// steps' gaps allow "didn't you", "did you ever suggest", "you'd
// recommended", "me l'avevi detto".
func askRules() []askRule {
	seq := func(pre, veto askClass, steps ...askStep) askRule {
		return askRule{steps: steps, pre: pre, veto: veto}
	}
	all := func(c, veto askClass) askRule { return askRule{all: c, veto: veto} }
	s := func(c askClass, gap int) askStep { return askStep{c, gap} }
	return []askRule{
		// English: "what did you suggest", "have you recommended",
		// "did you come up with", "you said", "the name you came up
		// with", "according to you".
		seq(0, 0, s(cEnAux, 0), s(cEnYou, 1), s(cEnBase|cEnPast, 3)),
		seq(0, 0, s(cEnAux, 0), s(cEnYou, 1), s(cEnCome, 3), s(cEnUp, 0)),
		seq(cEnConj, 0, s(cEnYou, 0), s(cEnPast, 3)),
		seq(cEnConj, 0, s(cEnYou, 0), s(cEnCame, 3), s(cEnUp, 0)),
		seq(0, 0, s(cAccording, 0), s(cTo, 0), s(cEnYou, 0)),
		// German: "was hast du mir empfohlen", "was du gesagt hast",
		// "was haben Sie vorgeschlagen", "sagtest du", "wie Sie sagten".
		all(cDeAux2|cDePart, cDeCond),
		all(cDeAuxF|cDeSie|cDePart, cDeCond),
		all(cDePret2, cDeCond),
		seq(0, cDeCond, s(cDeSie, 0), s(cDePretF, 0)),
		seq(0, cDeCond, s(cDePretF, 0), s(cDeSie, 0)),
		// Spanish, Portuguese, Italian, French: a past only "you" has
		// ("dijiste", "disseste", "dicevi", "disiez").
		all(cPret2, 0),
		// Spanish: "me has dicho", "¿qué me recomendó usted?", "usted me
		// dijo", "¿qué me ha recomendado usted?".
		seq(0, 0, s(cEsHas, 0), s(cEsPart, 2)),
		seq(0, 0, s(cUsted, 0), s(cEsPret3, 2)),
		seq(0, 0, s(cEsPret3, 0), s(cUsted, 1)),
		all(cUsted|cEsHa|cEsPart, 0),
		// Portuguese: "você me disse", "você tinha recomendado", "o que
		// você quis dizer".
		seq(0, 0, s(cPtVoce, 0), s(cPtPret3, 3)),
		seq(0, 0, s(cPtVoce, 0), s(cFrImpfT, 2), s(cSay, 0)),
		// French: "tu m'as dit", "m'avez-vous recommandé", "tu disais";
		// the participle right after its auxiliary, not "tu as demandé
		// aux objets trouvés".
		seq(0, 0, s(cFrTu, 0), s(cFrAuxT, 2), s(cFrPart, 2)),
		seq(0, 0, s(cFrAuxT, 0), s(cFrTu, 0), s(cFrPart, 2)),
		seq(0, 0, s(cFrVous, 0), s(cFrAuxV, 2), s(cFrPart, 2)),
		seq(0, 0, s(cFrAuxV, 0), s(cFrVous, 0), s(cFrPart, 2)),
		seq(0, 0, s(cFrTu, 0), s(cFrImpfT, 2)),
		// Italian: "mi hai detto", "me l'avevi consigliato", "mi ha
		// consigliato Lei".
		seq(0, 0, s(cItAux2, 0), s(cItPart, 2)),
		all(cItLei|cItHa|cItPart, 0),
		// Russian: "ты мне посоветовал", "что сказали вы", not "что бы ты
		// сказал".
		seq(0, cRuBy, s(cRuYou, 0), s(cRuPast, 3)),
		seq(0, cRuBy, s(cRuPast, 0), s(cRuYou, 0)),
		// "¿qué querías decir?", "que vouliez-vous dire"
		seq(0, 0, s(cWant2, 0), s(cSay, 1)),
		seq(0, 0, s(cEsTe, 0), s(cEsOcurrio, 0)),
		// "your suggestion", "what was your advice", "what's your advice
		// again", "какой был твой совет"
		all(cPossHit, 0),
		all(cPossPres|cRecall, 0),
		all(cPossPast|cPastCop, 0),
		all(cPossPast|cRecall, 0),
	}
}

// addWords fills the word table.
func (t *askTables) addWords() {
	t.addEnglish()
	t.addGerman()
	t.addSpanishPortuguese()
	t.addFrenchItalian()
	t.addRussian()
}

func (t *askTables) addEnglish() {
	t.add(lEN, cEnYou, "you u youve youd")
	t.add(lEN, cEnAux, "did didn didnt have haven havent had hadn hadnt")
	t.add(lEN, cEnBase, `say tell suggest recommend propose give name call pick choose advise
		explain show mention write think offer describe list outline provide share warn
		estimate calculate mean settle decide specify note quote cite put set sketch draft
		answer reply respond conclude assign teach use`)
	t.add(lEN, cEnPast, `said told suggested recommended proposed gave given named called picked
		chose chosen advised explained showed shown mentioned wrote written offered
		described listed outlined provided shared warned estimated calculated meant settled
		decided specified noted quoted cited sketched drafted answered replied responded
		concluded assigned taught used mean`)
	t.add(lEN, cEnCome, "come came")
	t.add(lEN, cEnCame, "came")
	t.add(lEN, cEnUp, "up")
	t.add(lEN, cEnConj, "if once after until unless whenever")
	t.add(lEN, cAccording, "according")
	t.add(lEN, cTo, "to")
	t.add(lEN, cFill, `t ve d have had just already also originally initially earlier previously
		once first guys all actually really then ever never not yourself specifically
		explicitly recently even both kindly last`)
	t.addYour(lEN, cNounAdv, yourWords{
		// Not "your answers" (plural: all of them, "keep your answers
		// short"), in any language; nor "your list", "your plan": the
		// user's own as often.
		poss: "your ur",
		made: `code example examples script scripts snippet snippets explanation
			explanations command commands draft drafts version outline mnemonic regex query
			function solution`,
		advice: `suggestion suggestions recommendation recommendations advice answer
			proposal proposals tip tips reply response idea estimate pick`,
		mod: "earlier last previous original first second latest initial old prior recent other",
		present: `is s are re would will ll could can should might may give gimme tell
			share need`,
		skip:   "be me us",
		recall: "again remind reminder recall remember back",
	})
}

func (t *askTables) addGerman() {
	t.add(lDE, cDeAux2, "hast hattest habt hattet")
	t.add(lDE, cDeAuxF, "haben hatten")
	t.add(lDE, cDeSie, "sie")
	t.add(lDE, cDePart, `gesagt erzahlt empfohlen vorgeschlagen gegeben genannt geschrieben
		gezeigt erklart erwahnt gemeint geraten ausgewahlt gewahlt festgelegt eingestellt
		angegeben beschrieben aufgelistet angeboten benannt mitgeteilt ausgedacht gewarnt
		berechnet geschatzt aufgeschrieben skizziert entworfen gesetzt nahegelegt
		geantwortet beantwortet verraten beigebracht rausgesucht herausgesucht`)
	t.add(lDE, cDePret2, `sagtest meintest erwahntest nanntest empfahlst schlugst gabst
		schriebst zeigtest erklartest erzahltest rietst`)
	t.add(lDE, cDePretF, `sagten meinten empfahlen schlugen nannten erwahnten gaben schrieben
		zeigten erklarten erzahlten rieten`)
	t.addExact(lDE, cDeCond|cPresent, `hättest hätten hättet hätte würdest würden würde wärst
		wäre wären könntest könnten solltest`)
	t.add(lDE, cFill, "mir uns doch ja schon noch mal vorhin gestern damals eben")
	t.addYour(lDE, cNounAdv, yourWords{
		poss: "dein deine deinen deinem deiner deines euer eure euren eurem eurer",
		made: `code beispiel beispiele befehl erklarung skript script entwurf codebeispiel
			losung`,
		advice: `vorschlag vorschlags vorschlage empfehlung empfehlungen rat ratschlag
			ratschlage tipp tipps antwort idee namensvorschlag schatzung hinweis`,
		mod:     "letzte letzter letzten letztes vorherige vorheriger vorherigen erste erster ursprungliche ursprunglicher",
		present: "ist sind wird gib",
		recall:  "nochmal nochmals erinnere erinner erinnern wieder",
	})
	t.add(lDE, cPossCaps, "ihr ihre ihren ihrem ihrer ihres")
}

func (t *askTables) addSpanishPortuguese() {
	t.add(lES|lPT, cPret2, `recomendaste sugeriste explicaste mencionaste indicaste contaste
		mostraste comentaste`)
	t.add(lES, cPret2, `dijiste dijistes propusiste diste escribiste nombraste elegiste
		escogiste aconsejaste ensenaste pusiste ofreciste planteaste hablaste llamaste
		asignaste fijaste definiste decias comentabas`)
	t.add(lPT, cPret2, `disseste propuseste deste escreveste aconselhaste escolheste chamaste
		falaste dizias`)
	t.add(lES, cEsHas, "has habias")
	t.add(lES, cEsHa, "ha habia")
	t.add(lES, cEsPart, `dicho recomendado sugerido propuesto dado mencionado escrito explicado
		contado comentado indicado mostrado ensenado elegido escogido nombrado aconsejado
		puesto ofrecido planteado llamado hablado asignado fijado definido`)
	t.add(lES, cUsted, "usted ustedes ud uds")
	t.add(lES, cEsPret3, `dijo recomendo sugirio propuso dio menciono explico escribio conto
		comento aconsejo indico mostro nombro eligio dijeron recomendaron sugirieron
		propusieron dieron mencionaron explicaron`)
	t.add(lES, cWant2, "querias quisiste")
	t.add(lES, cSay, "decir")
	t.add(lES, cEsTe, "te")
	t.add(lES, cEsOcurrio, "ocurrio ocurrieron")
	t.add(lES, cFill, "me lo la le nos ya tambien antes")
	t.addYour(lES, cNounAdv, yourWords{
		poss: "tu tus vuestro vuestra vuestros vuestras",
		made: "codigo ejemplo ejemplos comando script explicacion solucion",
		advice: `sugerencia sugerencias recomendacion recomendaciones consejo consejos
			respuesta propuesta propuestas idea`,
		mod:     "ultima ultimo primera primer anterior",
		present: "es son seria sera dame",
		skip:    "el la los las",
		recall:  "recuerdame recordarme vez",
	})

	t.add(lPT, cPtVoce, "voce vc voces vcs senhor senhora")
	t.add(lPT, cPtPret3, `disse recomendou sugeriu propos deu explicou mencionou escreveu mostrou
		falou indicou contou aconselhou escolheu chamou passou comentou disseram
		recomendaram sugeriram dito recomendado sugerido proposto dado mencionado escrito
		explicado falado indicado mostrado aconselhado escolhido`)
	t.add(lPT, cFrImpfT, "quis")
	t.add(lPT, cSay, "dizer")
	t.add(lPT, cFill, "me ja tinha tinhas havia tambem antes ontem entao mesmo nos")
	t.addYour(lPT, cNounAdv, yourWords{
		poss: "teu tua teus tuas seu sua seus suas",
		made: "codigo exemplo exemplos comando script explicacao solucao",
		advice: `sugestao sugestoes recomendacao recomendacoes conselho conselhos
			resposta proposta propostas ideia dica dicas`,
		mod: "ultima ultimo primeira primeiro anterior",
		// "é" (is), often typed "e": "qual e a sua sugestão" asks anew
		present: "é sao seria sera",
		skip:    "a o as os",
		recall:  "lembra lembre lembrar novo",
	})
}

func (t *askTables) addFrenchItalian() {
	t.add(lFR, cFrTu, "tu")
	t.add(lFR, cFrVous, "vous")
	t.add(lFR, cFrAuxT, "as avais")
	t.add(lFR, cFrAuxV, "avez aviez")
	t.addForms(lFR, cFrPart, ",e,s,es", `dit recommande suggere propose donne conseille
		explique montre mentionne ecrit nomme appele choisi indique cite raconte parle
		fourni decrit precise evoque fixe defini trouve`)
	t.add(lFR, cFrImpfT, "disais voulais")
	t.add(lFR, cFill, "m t l me te bien deja alors pas jamais vraiment aussi")
	t.add(lFR, cPret2, "disiez")
	t.add(lFR, cWant2, "vouliez")
	t.add(lFR, cSay, "dire")
	t.addYour(lFR, cNounAdv, yourWords{
		poss: "ton ta tes votre vos",
		made: "code exemple exemples commande script explication solution",
		advice: `conseil conseils suggestion suggestions recommandation
			recommandations reponse proposition propositions idee astuce astuces`,
		mod:     "derniere dernier premiere premier precedente precedent",
		present: "est sont serait sera donne",
		recall:  "rappelle rappelez encore",
	})

	t.add(lIT, cItAux2, "hai avevi avete avevate")
	t.add(lIT, cItHa, "ha aveva")
	t.add(lIT, cItLei, "lei")
	t.add(lIT, cItPart, `detto consigliato suggerito proposto dato scritto spiegato mostrato
		nominato chiamato scelto indicato menzionato raccontato raccomandato fornito
		descritto elencato impostato fissato accennato parlato assegnato`)
	t.add(lIT, cPret2, `dicevi dicevate dicesti consigliasti suggeristi proponesti scrivesti
		spiegasti intendevi intendevate`)
	t.add(lIT, cWant2, "volevi volevate")
	t.add(lIT, cFill, "mi me ci ce lo la l gli gia anche prima poi appena")
	t.addYour(lIT, cNounAdv, yourWords{
		poss: "tuo tua tuoi tue vostro vostra vostri vostre",
		made: "codice esempio esempi comando script spiegazione soluzione",
		advice: `consiglio consigli suggerimento suggerimenti risposta
			proposta proposte raccomandazione idea`,
		mod:     "ultima ultimo prima primo precedente",
		present: "è sono sarebbe sara dammi",
		skip:    "il la lo l i gli le mi",
		recall:  "ricordami ricordarmi",
	})
}

func (t *askTables) addRussian() {
	t.add(lRU, cRuYou, "ты вы")
	t.addForms(lRU, cRuPast, ",а,и", `сказал говорил советовал посоветовал рекомендовал
		порекомендовал предложил предлагал дал давал назвал называл придумал написал писал
		объяснил объяснял показал показывал упомянул упоминал выбрал рассказал рассказывал
		подсказал привел задал задавал указал назначил поставил установил описал
		перечислил имел`)
	t.add(lRU, cRuBy, "бы б")
	t.add(lRU, cFill, `мне нам тогда вчера раньше уже же ведь там недавно это его ее их только
		сам сама сами вот тоже еще так`)
	t.addYour(lRU, cNounRu, yourWords{
		poss: `твой твоя твое твои твоего твоей твоему твоим твою твоих ваш ваша ваше
			ваши вашего вашей вашему вашим вашу ваших`,
		made: "код кода пример примера примеры команда команду команды скрипт решение объяснение",
		advice: `совет совета советы советов рекомендация рекомендацию рекомендации
			предложение ответ ответа идея идею вариант`,
		mod:    "последний последняя последнее прошлый прошлая предыдущий предыдущая первый первая",
		recall: "напомни напомните снова опять",
	})
	t.add(lRU, cPastCop, "был была было были")
}
