package byheart

import "strings"

// The languages whose words byheart stems. Latin-script texts are stemmed
// in the language their stop words point to; Cyrillic words are always
// stemmed as Russian, the script being evidence enough.
const (
	english = iota
	german
	french
	spanish
	portuguese
	italian
	latinLangs // the number of Latin-script languages above
	russian    = latinLangs
	nLangs     = russian + 1
)

// langSet is a set of languages, one bit each.
type langSet uint8

const allLatin = langSet(1)<<latinLangs - 1

// stemmers stem a folded word of the letters a to z, by language.
var stemmers = [latinLangs]func([]byte) []byte{
	english:    stemEnglish,
	german:     stemGerman,
	french:     stemFrench,
	spanish:    stemSpanish,
	portuguese: stemPortuguese,
	italian:    stemItalian,
}

// stopLists are each language's function words, question words and chat
// fillers: the words that say nothing about a conversation's subject. The
// English list has its contractions without the apostrophe, as the
// tokenizer leaves them. Each list is written as people spell it and folded
// as the tokenizer folds ("für" is stored as "fur").
var stopLists = [nLangs]string{
	english: `
		about above after again against all also am an and any are aren arent as at be because been
		before being below between both but by can cant cannot could couldnt did didnt do does
		doesnt doing dont down during each either else even ever few for from further get gets got
		had hadnt has hasnt have havent having he hed hell her here heres hers herself hes hey hi
		him himself his how hows however id if im in into is isnt it its itself ive just let lets
		like ll lot me might more most much must mustnt my myself no nor not now of off oh ok okay
		on once only or other ought our ours ourselves out over own quite re really said same say
		says shall shant she shed shell shes should shouldnt so some such than that thats the their
		theirs them themselves then there theres these they theyd theyll theyre theyve this those
		though through to too under until up us ve very was wasnt we wed well were werent weve what
		whats when whens where wheres which while who whom whos why whys will with wont would
		wouldnt yeah yes yet you youd youll your youre yours yourself yourselves youve wow lol hmm
		thanks thank`,
	german: `
		aber alle allem allen aller alles als also am an andere anderen auch auf aus bei beim bin
		bis bist da dabei damit dann das dass daß dein deine dem den denn der des dich die dir
		doch dort du durch ein eine einem einen einer eines er es etwas euch euer für gegen
		gewesen gibt hab habe haben hat hatte hatten hier hin ich ihm ihn ihnen ihr ihre im in
		ist ja jede jetzt kann kein keine können man mal mein meine meinem meinen meiner mich
		mir mit muss nach nicht nichts noch nun nur ob oder ohne schon sehr sein seine sich
		sie sind so soll sondern um und uns unser unter viel vom von vor war waren warst was
		weil welche welcher wenn wer werde werden wie wieder will wir wird wo wollen wann
		warum wurde wurden zu zum zur über ganz gerade genau okay hallo danke`,
	french: `
		le la les un une des du de et ou mais donc ni car je tu il elle on nous vous ils elles
		me te se moi toi lui leur leurs mon ma mes ton ta tes son sa ses notre nos votre vos
		ce cet cette ces ça cela ceci qui que quoi dont où quand comment pourquoi combien quel
		quelle quels quelles est suis es sommes êtes sont était étais être ai as avons avez
		ont avait avais avoir pas ne plus très aussi dans en sur sous avec sans pour par chez
		vers au aux si alors comme tout tous toute toutes même encore déjà oui non ah oh bon
		merci salut voilà`,
	spanish: `
		el la los las un una unos unas y e o u pero de del al a en con por para sin sobre
		entre hasta desde que qué quien quién como cómo cuando cuándo donde dónde cual cuál
		cuanto cuánto porque yo tú tu él ella nosotros nosotras vosotros ellos ellas usted
		ustedes me te se nos os le les lo mi mis tus su sus nuestro nuestra este esta esto
		estos estas ese esa eso esos esas es soy eres somos son era fue fui ser estar estoy
		está estás están estaba ha he has han hemos había haber hay no sí si ya muy más
		también tan todo toda todos todas mismo otro otra algo nada vale hola gracias pues
		entonces aquí allí ahí`,
	portuguese: `
		o a os as um uma uns umas e ou mas de do da dos das em no na nos nas ao aos à às com
		por pelo pela para pra sem sobre entre até desde que quem como quando onde qual
		quanto porque eu tu você ele ela nós vocês eles elas me te se lhe lhes meu minha
		meus minhas teu tua seu sua seus suas nosso nossa este esta isto esse essa isso
		aquele aquela aquilo é sou somos são era foi fui ser estar estou está estão estava
		tem tenho têm tinha ter há havia não sim já muito muita mais também tão todo toda
		tudo mesmo outro outra algo nada obrigado obrigada então aqui ali lá ainda olá oi`,
	italian: `
		il lo la i gli le un uno una e ed o ma di del dello della dei degli delle a al allo
		alla ai agli alle da dal dalla dai in nel nello nella nei nelle su sul sulla con per
		tra fra che chi come quando dove quale quanto perché io tu lui lei noi voi loro mi ti
		si ci vi ne mio mia miei mie tuo tua suo sua nostro nostra questo questa quello
		quella è sono sei siamo siete era ero stato stata essere ho hai ha abbiamo avete
		hanno avevo aveva avere non sì già molto più anche tanto tutto tutta tutti stesso
		altro altra qualcosa niente ciao grazie allora qui qua lì là ancora poi`,
	russian: `
		и в во не что он на я с со как а то все всё она так его но да ты к у же вы за бы по
		только ее её мне было вот от меня еще ещё нет о об из ему теперь когда даже ну ли
		если уже или ни быть был была были него до вас там потом себя ничего ей может они
		тут где есть надо ней для мы тебя тебе их чем сам чтобы без чего тоже себе под будет
		тогда кто этот это эта эти того этого этом этой потому какой какая какие мой моя мои
		моё мое твой твоя наш наша ваш ваша свой своя при через после над нас про всего них
		много очень конечно да нет привет спасибо почему зачем куда откуда сколько`,
}

// stopLangs maps each folded stop word to the languages it is one in.
var stopLangs = func() map[string]langSet {
	m := map[string]langSet{}
	var folded []byte
	for l, list := range stopLists {
		for _, w := range strings.Fields(list) {
			folded = folded[:0]
			for _, r := range w {
				folded = appendFolded(folded, r)
			}
			m[string(folded)] |= langSet(1) << l
		}
	}
	return m
}()

// stopShapes[b] has bit n set when some stop word of n bytes starts with
// the byte b: most content words fail it and skip the map.
var stopShapes = func() (shapes [256]uint32) {
	for w := range stopLangs {
		if len(w) < 32 {
			shapes[w[0]] |= 1 << len(w)
		}
	}
	return shapes
}()

// stopTable holds stopLangs again for the tokenizer, which looks up most
// words of every text it reads: an open-addressing table on a short hash
// of the word's bytes takes a fraction of a map lookup's instructions.
// Places are at most a quarter full, so a probe ends soon.
var stopTable = func() (t stopSet) {
	size := 1
	for size < 4*len(stopLangs) {
		size *= 2
	}
	t.places = make([]stopPlace, size)
	t.mask = uint32(size - 1)
	for w, langs := range stopLangs {
		i := stopHash(w) & t.mask
		for t.places[i].word != "" {
			i = (i + 1) & t.mask
		}
		t.places[i] = stopPlace{w, langs}
	}
	return t
}()

type stopSet struct {
	places []stopPlace
	mask   uint32
}

type stopPlace struct {
	word  string // "" for a free place
	langs langSet
}

// langs returns the languages w is a stop word in, none if it is not one.
func (t *stopSet) langs(w []byte) langSet {
	for i := stopHash(w) & t.mask; ; i = (i + 1) & t.mask {
		p := &t.places[i]
		if p.word == string(w) {
			return p.langs
		}
		if p.word == "" {
			return 0
		}
	}
}

// stopHash is FNV-1a over w's bytes.
func stopHash[T string | []byte](w T) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint32(w[i])) * 16777619
	}
	return h
}
