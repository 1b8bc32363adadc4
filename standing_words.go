package byheart

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// The words and phrases of the standing rules (standing_rules.go), by
// language. Phrases are separated by "|"; a comma after a word means the
// sentence must have one there. They are written as people spell them and
// read by the recognizer's own tokenizer, so they are folded as a
// sentence's words are.

// spacedLang is what the rules know of one language written with spaces.
type spacedLang struct {
	// postVerb: "always" may follow the imperative it qualifies
	// ("Responde siempre…"), which English does not say.
	postVerb bool
	// proDrop: the language leaves the subject unsaid, the verb's ending
	// saying whose it is.
	proDrop bool
	phrases map[phraseKind]string
	words   map[setKind]string
}

// spaced are the languages, indexed as the stemmers' (english, german, …).
var spaced = [nLangs]spacedLang{
	english: {
		phrases: map[phraseKind]string{
			kindNote: `remember that | keep in mind | bear in mind | for future reference | don't forget that |
				do not forget that | make a note that | take note that | note that i | note that my | note that we`,
			kindLead: `from now on | from here on | from here on out | from this point on | from this point forward |
				from this point onwards | going forward | moving forward | in future | in the future | henceforth |
				from today on | starting now | starting today | for the rest of this conversation |
				for the rest of our conversation | for the rest of the conversation | for the rest of this chat |
				in all future answers | in all your answers | in all your future answers | in all future responses |
				in all your responses | in every answer | in every response | in your answers | in your replies |
				by default | as a rule`,
			kindCond:   `whenever | every time | each time | any time | anytime`,
			kindCondIf: `when | if`,
			kindAdverb: `always | never | never ever | don't ever | do not ever | don't you ever`,
			kindPref: `i prefer | i'd prefer | i would prefer | i'd rather | i would rather | i'd much rather |
				i would much rather | i'd much prefer | i much prefer | i really prefer | i generally prefer |
				i usually prefer | i always prefer | i strongly prefer | i definitely prefer | i do prefer | i also prefer |
				i still prefer | i tend to prefer | i personally prefer | we prefer | we'd prefer | we would prefer |
				we'd rather | we would rather | we generally prefer | my preference is | my preference would be |
				our preference is | i prefer it when | i prefer it if | i'd prefer it if | i would prefer it if |
				i like it when you | i like it better when you | i'd like it if you |
				i would like it if you | i'd love it if you | i don't like it when you | i do not like it when you |
				i hate it when you | i dislike it when you | i'd appreciate it if you | i would appreciate it if you`,
			kindWant: `i want you to | i'd like you to | i would like you to | i need you to | i expect you to |
				i want your answers to | i want | i'd like | i would like | make sure you | make sure to |
				make sure that you | be sure to | remember to | try to | you must | you need to | you have to`,
			kindBare:   `no more`,
			kindStop:   `stop`,
			kindDirect: `don't | do not | let's | let us | be | do | you must | you need to | you're to | you are to`,
			kindPolite: `could you | can you | would you | will you | would you mind | would you kindly`,
			kindOpener: `please | pls | plz | also | and | but | actually | oh | ok | okay | so | btw | by the way | hey | hi |
				hello | well | right | alright | all right | great | thanks | thank you | thx | cool | perfect | nice |
				good | yes | yeah | yep | sure | no | nope | hmm | um | just | now | oh and | and also | one more thing |
				one thing | another thing | fyi | just so you know | for the record | quick note | side note | note |
				important | reminder | listen | look | anyway | anyways | besides | additionally | furthermore |
				moreover | lastly | finally | first | firstly | then | ps | new rule | one rule | a rule | rule`,
			kindLasting: `from now on | going forward | moving forward | from here on | from this point on |
				from this point forward | in future | in the future | henceforth | for the rest of | for all future |
				in all future | at all times | as a rule | by default | from today on`,
			kindAlways: `always | never`,
			kindPlease: `please | pls | plz | kindly`,
			kindLike:   `i like | i love | i need | i'd love | i would love | i really like | i always like | i also like`,
			kindThen:   `so | and | and so | then | but | therefore`,
			kindScope:  `whenever | every time | each time | any time | anytime | any answer | any reply | any response`,
			kindEvery:  `every | each`,
			kindOneOff: `tonight | today | tomorrow | this time | for now | right now | this weekend | this evening | this morning | this afternoon | option | instead | this one | that one | in this case | just this once | until | till`,
			kindPast:   `used to | as a child | as a kid | when i was | when we were | back then | years ago | growing up | in those days | back in the day`,
		},
		words: map[setKind]string{
			wordNonImp: `a an the this that these those my your his her its our their i you he she it we they me him us
				them myself yourself who whom whose which what when where why how there here is are was were am be been
				being has have had having do does did done can could will would shall should may might must ought not no
				nor and or but if then else than so because as at by for from in into of off on onto out over to up with
				without within about above after against before below between during through under until upon via per
				all any both each every few many more most much other some such same own only very too also just even
				still already yet again ever never always often sometimes usually rarely now today tomorrow yesterday
				tonight soon later once everyone everything everybody nothing nobody someone something somebody anyone
				anything anybody none one two three first second last next whenever whatever wherever although though
				while unless since whether it's that's there's here's what's who's i'm
				i've i'd i'll you're you've you'd you'll we're we've we'd we'll they're they've they'd they'll he's
				she's let's isn't aren't wasn't weren't don't doesn't didn't can't couldn't won't wouldn't shouldn't
				hasn't haven't hadn't thanks thank sorry yes yeah yep nope ok okay hi hey hello oh wow lol hmm well sure
				great cool nice good bad fine awesome perfect interesting weird funny true false maybe perhaps probably
				honestly actually really basically literally almost back mind happy glad hard easy fun better worse best worst
				thought went got said told came took gave made knew saw found felt left kept bought brought caught
				taught ate drank ran wrote spoke became began broke chose drove fell forgot flew grew heard held lost
				meant met paid rode sang sat slept sold sent stood understood woke won wore gone seen known taken given
				written spoken forgotten eaten been let`,
			wordAux: `is are was were am will would can could should must may might shall has have had does did
				don't doesn't didn't won't can't isn't aren't wasn't weren't`,
			wordAsk: `ask request need want paste send share give mention say type write upload post show tell query refer
				submit forward attach`,
			wordOutput: `answer answers reply replies response responses explanation explanations example examples code snippets
				summary summaries list lists table tables plan plans recipe recipes units measurements quantities format
				formatting output message messages suggestion suggestions recommendation recommendations words sources dates
				prices numbers figures temperatures distances weights charts draft drafts translation translations write
				give show suggest recommend explain compare mention quote cite summarise summarize translate describe
				generate respond`,
			wordAnswer: `answer answers reply replies response responses message messages explanation explanations plan plans
				summary summaries suggestion suggestions recommendation recommendations output outputs draft drafts recipe recipes`,
			wordAnswers: `answers replies responses messages explanations summaries suggestions recommendations outputs`,
			wordYours:   `your`,
			wordYou:     `you your`,
			wordMine:    `i i'm i've i'd i'll my me mine we we're our us`,
			wordNotPref: `the this that these those it not one which what`,
			wordSkip:    `ever just only also really please still kindly`,
			wordPrep:    `in on at with for by from to as into under without of`,
		},
	},
	german: {
		postVerb: true,
		phrases: map[phraseKind]string{
			kindNote: `merk dir | merke dir | merkt euch | merken sie sich | denk daran dass | denke daran dass |
				denken sie daran dass | vergiss nicht dass | vergessen sie nicht dass | behalte im hinterkopf |
				behalt im hinterkopf | beachte dass | zur info | für die zukunft | nur zur info | zu deiner information`,
			kindLead: `ab jetzt | ab sofort | von nun an | von jetzt an | künftig | zukünftig | in zukunft | ab heute |
				fortan | in allen antworten | in deinen antworten | in allen künftigen antworten |
				für den rest des gesprächs | für den rest der unterhaltung | grundsätzlich | generell | standardmäßig`,
			kindCond:   `immer wenn | jedes mal wenn | jedesmal wenn | immer dann wenn`,
			kindCondIf: `wenn | sobald | falls`,
			kindAdverb: `immer | nie | niemals | stets | nie wieder | niemals wieder | nie mehr | auf keinen fall | keinesfalls`,
			kindPref: `ich bevorzuge | wir bevorzugen | ich würde lieber | ich hätte lieber | ich mag lieber |
				ich mag es wenn du | ich mag es nicht wenn du | am liebsten | ich finde es besser wenn du |
				meine präferenz ist | mir ist es lieber wenn`,
			kindPrefIf: `mir ist | mir sind | mir wäre | mir wären`,
			kindWant: `ich möchte dass du | ich will dass du | ich hätte gern dass du | ich hätte gerne dass du |
				ich wünsche mir dass du | ich möchte dass sie | ich möchte | ich will | achte darauf | achte bitte darauf |
				sorg dafür dass | sorge dafür dass | denk daran | denke daran | vergiss nicht | du sollst | du musst`,
			kindBare:   `keine | kein | schluss mit`,
			kindStop:   `hör auf | hör bitte auf | hören sie auf`,
			kindDirect: `nur | keine | kein | ich möchte | ich will | lass uns | du sollst | du musst`,
			kindPolite: `kannst du | könntest du | würdest du | können sie | könnten sie | würden sie | wärst du so nett`,
			kindOpener: `bitte | und | auch | also | übrigens | ach | ach ja | ach und | ok | okay | danke | gut | super |
				prima | perfekt | noch etwas | noch was | noch eine sache | eine sache noch | außerdem | ja | nein | hey |
				hallo | zudem | wichtig | hinweis | ah | oh | so | na | dann | kurz | vielen dank`,
			kindLasting: `ab jetzt | ab sofort | von nun an | von jetzt an | künftig | zukünftig | in zukunft | ab heute |
				fortan | grundsätzlich | generell | standardmäßig | für immer |
				dauerhaft | in allen antworten | in jeder antwort`,
			kindAlways: `immer | nie | niemals | stets`,
			kindPlease: `bitte`,
			kindRather: `lieber | besser`,
			kindLike:   `ich mag | ich hätte gern | ich hätte gerne | ich brauche | ich liebe | mir gefällt | mir gefallen`,
			kindThen:   `also | und | dann | daher | deshalb | deswegen | aber`,
			kindScope:  `wann immer | jedes mal | jedesmal | immer wenn`,
			kindEvery:  `jede | jeder | jedes | jeden | jedem`,
			kindOneOff: `heute | morgen | heute abend | diesmal | dieses mal | erstmal | vorerst | option | variante | für jetzt | in diesem fall`,
			kindPast:   `als kind | früher | damals | als ich klein war | vor jahren | als wir kinder waren`,
		},
		words: map[setKind]string{
			wordNonImp: `der die das den dem des ein eine einen einem einer eines kein keine keinen keinem ich du er
				sie es wir ihr man mein meine meinen meinem meiner dein deine sein seine ihre unser unsere euer mir mich
				dir dich ihm ihn uns euch sich in im an am auf aus bei beim mit nach von vom zu zum zur für über unter
				vor hinter neben zwischen durch gegen ohne um bis seit während wegen ab und oder aber denn sondern dass
				ob weil wenn als wie so also dann da dort hier heute morgen gestern früher damals jetzt immer nie niemals
				stets noch schon auch nur sehr ist sind war waren bin bist sei seid wäre wären hat habe hab hast haben
				hatte hätte hatten hättest wird werde werden wirst wurde würde würden kann kannst können konnte könnte
				muss musst müssen musste soll sollst sollen sollte will willst wollen wollte mag magst möchte möchtest
				darf dürfen gibt was wer wo wann warum wieso weshalb welche welcher welches nicht ja nein doch mal alle
				alles etwas nichts viel viele mehr weniger diese dieser dieses diesen jeder jede jedes jeden egal danke
				bitte okay ok hallo hey genau gut schön toll super leider vielleicht wahrscheinlich eigentlich wirklich
				ganz gerade oft manchmal meistens selten wieder fast kaum`,
			wordAux: `ist sind war waren wird werden wurde wurden hat haben hatte hatten kann können muss müssen soll
				sollen will wollen darf dürfen mag`,
			wordAsk: `frage frag bitte schicke schick sende poste brauche will möchte schreibe gebe erwähne sage sag verlange`,
			wordOutput: `antwort antworten erklärung erklärungen beispiel beispiele code zusammenfassung zusammenfassungen liste
				listen tabelle tabellen plan pläne plans einheiten maße mengen angaben format ausgabe nachricht nachrichten
				vorschlag vorschläge empfehlung empfehlungen quellen daten preise zahlen übersetzung gibst schreibst zeigst
				vorschlägst empfiehlst erklärst vergleichst nennst angibst antwortest übersetzt`,
			wordAnswer: `antwort antworten erklärung erklärungen plan plans pläne zusammenfassung zusammenfassungen nachricht
				nachrichten vorschlag vorschläge empfehlung empfehlungen ausgabe entwurf`,
			wordAnswers: `antworten erklärungen zusammenfassungen nachrichten vorschläge empfehlungen`,
			wordYours:   `deine deinen dein eure`,
			wordYou:     `du dich dir dein deine`,
			wordMine:    `ich mir mich mein meine meinen meinem meiner wir uns unser unsere`,
			wordNotPref: `der die das den dem diese dieser dieses diesen jene nicht es`,
			wordSkip:    `bitte auch wirklich ganz`,
			wordPrep:    `in auf an mit bei für nach zu aus von im am über`,
			wordSubject: `ich du er es wir ihr man`,
		},
	},
	spanish: {
		postVerb: true,
		proDrop:  true,
		phrases: map[phraseKind]string{
			kindNote: `recuerda que | recuerde que | recordá que | acuérdate de que | acuérdate que | ten en cuenta que |
				tenga en cuenta que | toma nota de que | no olvides que | no olvide que | para que lo sepas |
				para tu información | que sepas que | ten presente que`,
			kindLead: `a partir de ahora | de ahora en adelante | desde ahora | en adelante | de aquí en adelante |
				a partir de hoy | en lo sucesivo | de ahora en más | en el futuro | de hoy en adelante |
				en todas tus respuestas | en tus respuestas | por defecto | para el resto de la conversación |
				a partir de este momento | desde este momento`,
			kindCond:   `cada vez que | siempre que | todas las veces que`,
			kindCondIf: `cuando | si | en cuanto`,
			kindAdverb: `siempre | nunca | jamás | nunca jamás | nunca más | no vuelvas a | no vuelva a | no vuelvan a`,
			kindNeg:    `no`,
			kindPref: `prefiero | yo prefiero | preferiría | yo preferiría | preferimos | mi preferencia es |
				me gusta más | me gustan más | me gusta cuando | me gustaría más | me resulta más útil`,
			kindWant: `quiero que | me gustaría que | necesito que | asegúrate de | procura | recuerda | debes | tienes que |
				yo quiero que | quisiera que`,
			kindBare:   `nada de | no más | basta de | ya no`,
			kindStop:   `deja de | dejá de | para de | deje de`,
			kindDirect: `siempre | nunca | no | solo | sólo | solamente | quiero | me gustaría | prefiero | nada de | debes | tienes que`,
			kindPolite: `puedes | podrías | podría | puede | me puedes | me podrías | podés`,
			kindOpener: `por favor | también | y | además | bueno | vale | gracias | oye | ah | oh | pues | una cosa |
				otra cosa | por cierto | ok | okey | perfecto | genial | importante | nota | sí | no | mira | eh | bien |
				muy bien | entonces | una cosa más | otra cosa más | ojo | y también`,
			kindLasting: `a partir de ahora | de ahora en adelante | desde ahora | en adelante | de aquí en adelante |
				a partir de hoy | en lo sucesivo | de ahora en más | en todas tus respuestas |
				en todas las respuestas | por defecto | para siempre`,
			kindAlways: `siempre | nunca | jamás`,
			kindPlease: `por favor | porfa | porfis`,
			kindLike:   `me gusta | me gustan | me encanta | necesito | quiero`,
			kindThen:   `así que | y | entonces | por eso | pero | por lo tanto`,
			kindScope:  `cada vez que | siempre que | todas las veces que`,
			kindEvery:  `cada`,
			kindOneOff: `hoy | mañana | esta noche | esta vez | este fin de semana | por ahora | de momento | opción | ahora mismo | por hoy | en este caso | esta tarde`,
			kindPast:   `de niño | de niña | de pequeño | de pequeña | cuando era | cuando éramos | de joven | en aquella época | en aquel entonces | hace años`,
			kindNever:  `nunca | jamás | más`,
		},
		words: map[setKind]string{
			wordNonImp: `el la los las un una unos unas y e o u pero de del al a en con por para sin sobre entre hasta
				desde que qué quien quién como cómo cuando donde cual porque yo tú tu él ella nosotros vosotros ellos
				ellas usted ustedes me te se nos os le les lo mi mis tus su sus nuestro nuestra este esta esto estos
				estas ese esa eso esos esas aquel aquella es soy eres somos son era eras fue fui fueron ser estar estoy
				está estás están estaba estaban ha he has han hemos había haber hay no sí si ya muy más menos también
				tampoco tan todo toda todos todas mismo otro otra algo nada alguien nadie cada vale hola gracias pues
				entonces aquí allí ahí ahora antes después luego hoy mañana ayer siempre nunca jamás aún todavía bien
				mal claro bueno tengo tiene tienes tenía voy va vas iba puedo puede puedes quiero quiere quieres gusta
				gustan gustó gustaron gustaba encanta creo sé casi`,
			wordAux: `es son era fue ha han está están va van tiene tienen puede pueden hay`,
			wordAsk: `pida pido pregunte pregunto mande mando envíe envío pegue pego pase paso necesite necesito quiera quiero
				escriba escribo diga digo hable hablo consulte consulto solicite comparta comparto`,
			wordOutput: `respuesta respuestas explicación explicaciones ejemplo ejemplos código resumen resúmenes lista listas tabla
				tablas plan planes receta recetas unidades medidas cantidades formato mensaje mensajes sugerencia sugerencias
				recomendación recomendaciones palabras fuentes fechas precios números traducción des das escribas escribes
				muestres sugieras recomiendes expliques compares menciones respondas contestes traduzcas`,
			wordAnswer: `respuesta respuestas explicación explicaciones plan planes resumen resúmenes mensaje mensajes sugerencia
				sugerencias recomendación recomendaciones borrador receta recetas`,
			wordAnswers: `respuestas explicaciones resúmenes mensajes sugerencias recomendaciones`,
			wordYours:   `tus sus`,
			wordYou:     `te tú usted tus tu`,
			wordMine:    `yo me mi mis nosotros nosotras nuestro nuestra soy estoy tengo voy hago puedo quiero`,
			wordNotPref: `el la lo este esta ese esa aquel aquella no eso esto`,
			wordClitic:  `me te le lo la nos les los las se`,
			wordSkip:    `también`,
			wordPrep:    `en con de a para por sin sobre`,
		},
	},
	french: {
		postVerb: true,
		phrases: map[phraseKind]string{
			kindNote: `souviens toi que | souvenez vous que | rappelle toi que | rappelez vous que | n'oublie pas que |
				n'oubliez pas que | garde en tête que | gardez en tête que | garde à l'esprit que | gardez à l'esprit que |
				retiens que | retenez que | note que je | notez que je | pour info | pour information | sache que | sachez que`,
			kindLead: `à partir de maintenant | désormais | dorénavant | à l'avenir | dès maintenant | dès à présent |
				à partir d'aujourd'hui | pour la suite | pour l'avenir | par défaut | dans toutes tes réponses |
				dans tes réponses | dans toutes vos réponses | pour le reste de la conversation | à partir de ce moment`,
			kindCond:   `chaque fois que | chaque fois qu' | à chaque fois que | toutes les fois que`,
			kindCondIf: `quand | lorsque | lorsqu' | si | dès que`,
			kindAdverb: `toujours | jamais | ne jamais | plus jamais`,
			kindNeg:    `ne | n'`,
			kindPref: `je préfère | je préférerais | j'aimerais mieux | j'aime mieux | nous préférons | ma préférence va |
				je préfère que | je préfère quand | j'aime bien quand tu | j'aime quand tu | je n'aime pas quand tu |
				je déteste quand tu`,
			kindWant: `je veux que tu | je voudrais que tu | j'aimerais que tu | je veux que vous | je voudrais que vous |
				j'aimerais que vous | assure toi de | assurez vous de | veille à | veillez à | pense à | pensez à |
				n'oublie pas de | n'oubliez pas de | tu dois | il faut que tu | je souhaite que tu`,
			kindBare:   `plus de | fini les | pas de`,
			kindStop:   `arrête de | arrêtez de | arrête d' | arrêtez d'`,
			kindDirect: `toujours | jamais | je veux | je voudrais | j'aimerais | il faut | tu dois | merci de`,
			kindPolite: `peux tu | pourrais tu | pouvez vous | pourriez vous | tu peux | tu pourrais | est ce que tu peux | est ce que tu pourrais`,
			kindOpener: `s'il te plaît | s'il vous plaît | stp | svp | aussi | et | d'ailleurs | bon | ok | okay | merci |
				au fait | une chose | une autre chose | autre chose | oh | ah | alors | parfait | super | important |
				note | oui | non | eh | sinon | par ailleurs | également | ah oui | et aussi | dernière chose |
				encore une chose | tiens | bref | voilà | d'accord | donc`,
			kindLasting: `à partir de maintenant | désormais | dorénavant | à l'avenir | dès maintenant | dès à présent |
				à partir d'aujourd'hui | systématiquement | par défaut |
				dans toutes tes réponses | pour toujours | tout le temps`,
			kindAlways: `toujours | jamais`,
			kindPlease: `s'il te plaît | s'il vous plaît | stp | svp | merci de`,
			kindLike:   `j'aime | j'adore | je veux | je voudrais | j'ai besoin d' | j'ai besoin de | j'aimerais`,
			kindThen:   `donc | et | alors | mais | du coup | par conséquent | puis`,
			kindScope:  `chaque fois que | chaque fois qu' | à chaque fois que | à chaque fois qu' | toutes les fois que`,
			kindEvery:  `chaque`,
			kindOneOff: `ce soir | aujourd'hui | demain | cette fois | pour l'instant | pour le moment | option | ce week end | dans ce cas`,
			kindPast:   `quand j'étais | à l'époque | autrefois | quand nous étions | quand on était | il y a des années`,
			kindNever:  `jamais | plus | plus jamais`,
		},
		words: map[setKind]string{
			wordNonImp: `le la les l' un une des du de d' et ou mais donc ni car je j' tu il elle on nous vous ils elles
				me m' te t' se s' moi toi lui leur leurs mon ma mes ton ta tes son sa ses notre nos votre vos ce c' cet
				cette ces ça cela ceci qui que qu' quoi dont où quand comment pourquoi combien quel quelle quels quelles
				est suis es sommes êtes sont était étais étaient être ai as avons avez ont avait avais avaient avoir pas
				ne n' plus très aussi dans en sur sous avec sans pour par chez vers au aux si alors comme tout tous toute
				toutes même encore déjà oui non ah oh bon merci salut voilà y aujourd'hui demain hier maintenant avant
				après toujours jamais souvent parfois va vais vas vont fait font peut peux veux voudrais faut
				beaucoup peu trop bien mal rien personne chaque quelque quelques presque`,
			wordAux: `est sont était a ont va vont peut peuvent doit doivent fait`,
			wordAsk: `demande demanderai envoie colle écris pose veux parle dis cherche interroge partage`,
			wordOutput: `réponse réponses explication explications exemple exemples code résumé résumés liste listes tableau tableaux
				plan plans recette recettes unités mesures quantités format message messages suggestion suggestions
				recommandation recommandations mots sources dates prix chiffres traduction donnes écris montres suggères
				recommandes expliques compares mentionnes réponds traduis cites`,
			wordAnswer: `réponse réponses explication explications plan plans résumé résumés message messages suggestion suggestions
				recommandation recommandations brouillon recette recettes`,
			wordAnswers: `réponses explications résumés messages suggestions recommandations`,
			wordYours:   `tes vos`,
			wordYou:     `te t' tu vous ton ta tes`,
			wordMine:    `je j' moi me m' mon ma mes nous notre nos`,
			wordNotPref: `le la l' ce cet cette celui celle ça cela ne n' pas`,
			wordClitic:  `me m' te t' le la l' les lui nous vous leur y en se s'`,
			wordSkip:    `bien vraiment`,
			wordPrep:    `en à dans avec pour sur de par sans`,
		},
	},
	italian: {
		postVerb: true,
		proDrop:  true,
		phrases: map[phraseKind]string{
			kindNote: `ricordati che | ricorda che | ricordate che | tieni presente che | tieni a mente che |
				tieni conto che | non dimenticare che | tieni presente | per tua informazione | sappi che | prendi nota che`,
			kindLead: `d'ora in poi | da ora in poi | d'ora in avanti | da ora in avanti | da adesso in poi |
				da adesso in avanti | da qui in avanti | da oggi in poi | d'ora innanzi | in futuro | per il futuro |
				per il resto della conversazione | in tutte le tue risposte | nelle tue risposte | di default | per default`,
			kindCond:   `ogni volta che | tutte le volte che | ogniqualvolta`,
			kindCondIf: `quando | se | qualora`,
			kindAdverb: `sempre | mai | mai più`,
			kindNeg:    `non`,
			kindPref: `preferisco | io preferisco | preferirei | io preferirei | preferiamo | mi piace di più |
				mi piacciono di più | la mia preferenza è | preferisco che | preferirei che | mi piace quando | mi trovo meglio con`,
			kindWant:   `voglio che tu | vorrei che tu | vorrei che | voglio che | assicurati di | ricordati di | devi | cerca di`,
			kindBare:   `niente | basta con | niente più | basta`,
			kindStop:   `smettila di | smetti di | smettete di`,
			kindDirect: `sempre | mai | solo | soltanto | niente | nessun | nessuna | voglio | vorrei | preferisco | devi`,
			kindPolite: `puoi | potresti | potrebbe | può | mi puoi | mi potresti`,
			kindOpener: `per favore | per piacere | anche | e | inoltre | allora | ok | okay | grazie | comunque | ah | oh |
				una cosa | un'altra cosa | tra l'altro | perfetto | ottimo | importante | nota | sì | no | ecco | beh |
				quindi | ah e | ancora una cosa | ultima cosa | senti | guarda | bene | va bene`,
			kindLasting: `d'ora in poi | da ora in poi | d'ora in avanti | da ora in avanti | da adesso in poi |
				da qui in avanti | da oggi in poi | in futuro | sistematicamente | di default | per sempre |
				in tutte le risposte | in tutte le tue risposte`,
			kindAlways: `sempre | mai`,
			kindPlease: `per favore | per piacere | mi raccomando | cortesemente`,
			kindLike:   `mi piace | mi piacciono | adoro | ho bisogno di | voglio | vorrei`,
			kindThen:   `quindi | e | allora | ma | perciò | dunque | per cui`,
			kindScope:  `ogni volta che | tutte le volte che`,
			kindEvery:  `ogni | ciascun | ciascuna`,
			kindOneOff: `stasera | oggi | domani | questa volta | per ora | per adesso | opzione | stamattina | stavolta | in questo caso`,
			kindPast:   `da bambino | da bambina | da piccolo | da piccola | quando ero | quando eravamo | da ragazzo | da ragazza | anni fa | a quei tempi`,
			kindNever:  `mai | più | mai più`,
		},
		words: map[setKind]string{
			wordNonImp: `il lo la i gli le un uno una l' un' e ed o ma di d' del dello della dei degli delle a al allo
				alla ai agli alle da dal dalla dai in nel nello nella nei nelle su sul sulla con per tra fra che chi come
				quando dove quale quanto perché io tu lui lei noi voi loro mi ti si ci vi ne mio mia miei mie tuo tua
				suo sua nostro nostra questo questa quello quella è sono sei siamo siete era ero erano stato stata
				essere ho hai ha abbiamo avete hanno avevo aveva avere non sì già molto più anche tanto tutto tutta
				tutti stesso altro altra qualcosa niente ciao grazie allora qui qua lì là ancora poi oggi domani ieri
				adesso ora prima dopo sempre mai spesso bene male troppo poco nessuno ogni fa fai faccio va vado vai
				posso puoi può voglio vorrei piace piacciono piaceva c' quasi`,
			wordAux: `è sono era erano ha hanno può possono deve devono va vanno fa`,
			wordAsk: `chiedo chiederò domando domanderò mando invio incollo scrivo voglio serve parlo dico richiedo condivido`,
			wordOutput: `risposta risposte spiegazione spiegazioni esempio esempi codice riassunto riassunti elenco elenchi lista liste
				tabella tabelle piano piani ricetta ricette unità misure quantità formato messaggio messaggi suggerimento
				suggerimenti consiglio consigli parole fonti date prezzi numeri traduzione dai scrivi mostri suggerisci
				spieghi confronti citi rispondi traduci`,
			wordAnswer: `risposta risposte spiegazione spiegazioni piano piani riassunto riassunti messaggio messaggi suggerimento
				suggerimenti consiglio consigli bozza ricetta ricette`,
			wordAnswers: `risposte spiegazioni riassunti messaggi suggerimenti consigli`,
			wordYours:   `tue tuoi vostre vostri`,
			wordYou:     `ti tu tuo tua tuoi`,
			wordMine:    `io mi me mio mia miei mie noi nostro nostra sono ho sto vado faccio posso voglio`,
			wordNotPref: `il lo la l' questo questa quello quella non`,
			wordClitic:  `mi ti ci vi lo la li le gli ne si me te`,
			wordSkip:    `anche`,
			wordPrep:    `in con di a per su da senza`,
		},
	},
	portuguese: {
		postVerb: true,
		proDrop:  true,
		phrases: map[phraseKind]string{
			kindNote: `lembre se de que | lembre se que | lembra que | lembre que | lembra te de que | lembra te que |
				tenha em mente que | tenha em conta que | tem em mente que | não esqueça que | não se esqueça de que |
				não se esqueça que | leve em conta que | leve em consideração que | anote que | saiba que |
				para sua informação | só para você saber`,
			kindLead: `a partir de agora | de agora em diante | daqui pra frente | daqui para frente | daqui em diante |
				a partir de hoje | de hoje em diante | doravante | no futuro | por padrão | em todas as suas respostas |
				nas suas respostas | pelo resto da conversa | a partir deste momento`,
			kindCond:   `toda vez que | sempre que | cada vez que | todas as vezes que`,
			kindCondIf: `quando | se`,
			kindAdverb: `sempre | nunca | jamais | nunca mais | não volte a | nunca mais volte a`,
			kindNeg:    `não`,
			kindPref: `prefiro | eu prefiro | preferiria | eu preferiria | preferimos | nós preferimos | gosto mais de |
				eu gosto mais de | gosto mais quando | minha preferência é | gosto quando você | eu gosto quando você`,
			kindWant: `quero que você | quero que | eu quero que | gostaria que você | gostaria que | preciso que você |
				certifique se de | lembre se de | você deve | você tem que | procure`,
			kindBare:   `nada de | chega de | nada mais de`,
			kindStop:   `pare de | para de | deixe de`,
			kindDirect: `sempre | nunca | só | apenas | somente | quero | gostaria | prefiro | nada de | você deve`,
			kindPolite: `pode | poderia | você pode | você poderia | consegue | dá pra`,
			kindOpener: `por favor | também | e | além disso | então | ok | obrigado | obrigada | ah | oh | uma coisa |
				outra coisa | aliás | perfeito | ótimo | importante | nota | sim | não | ei | olha | bom | beleza | certo |
				mais uma coisa | só mais uma coisa | ah e | e também | valeu`,
			kindLasting: `a partir de agora | de agora em diante | daqui pra frente | daqui para frente | daqui em diante |
				a partir de hoje | doravante | por padrão | em todas as respostas |
				em todas as suas respostas | para sempre`,
			kindAlways: `sempre | nunca | jamais`,
			kindPlease: `por favor | por gentileza`,
			kindLike:   `gosto de | eu gosto de | adoro | preciso de | quero | eu quero`,
			kindThen:   `então | e | mas | por isso | portanto`,
			kindScope:  `sempre que | toda vez que | cada vez que | todas as vezes que`,
			kindEvery:  `cada | toda | todo`,
			kindOneOff: `hoje | amanhã | esta noite | hoje à noite | desta vez | por enquanto | por agora | opção | neste caso | agora mesmo | este fim de semana`,
			kindPast:   `quando criança | quando eu era | quando era criança | antigamente | quando éramos | na infância | anos atrás | naquela época`,
			kindNever:  `nunca | mais | jamais | nunca mais`,
		},
		words: map[setKind]string{
			wordNonImp: `o a os as um uma uns umas e ou mas de do da dos das em no na nos nas ao aos à às com por pelo pela
				para pra sem sobre entre até desde que quem como quando onde qual quanto porque eu tu você ele ela nós
				vocês eles elas me te se lhe lhes meu minha meus minhas teu tua seu sua seus suas nosso nossa este esta
				isto esse essa isso aquele aquela aquilo é sou somos são era foi fui ser estar estou está estão estava
				estive tem tenho têm tinha ter há havia não sim já muito muita mais também tão todo toda tudo mesmo outro
				outra algo nada obrigado obrigada então aqui ali lá ainda olá oi hoje amanhã ontem agora antes depois
				sempre nunca jamais bem mal pouco ninguém cada vai vou ia pode posso quero queria gosto gostei acho sei quase`,
			wordAux: `é são era foi tem têm está estão vai vão pode podem deve devem`,
			wordAsk: `pedir perguntar peço pergunto mandar mando enviar envio colar colo escrever escrevo quiser precisar
				preciso falar falo solicitar compartilhar`,
			wordOutput: `resposta respostas explicação explicações exemplo exemplos código resumo resumos lista listas tabela tabelas
				plano planos receita receitas unidades medidas quantidades formato mensagem mensagens sugestão sugestões
				recomendação recomendações palavras fontes datas preços números tradução der escrever mostrar sugerir
				recomendar explicar comparar citar responder traduzir`,
			wordAnswer: `resposta respostas explicação explicações plano planos resumo resumos mensagem mensagens sugestão sugestões
				recomendação recomendações rascunho receita receitas`,
			wordAnswers: `respostas explicações resumos mensagens sugestões recomendações`,
			wordYours:   `suas seus tuas teus`,
			wordYou:     `te você lhe seu sua`,
			wordMine:    `eu me mim meu minha meus minhas nós nosso nossa sou estou tenho vou faço posso quero`,
			wordNotPref: `o a este esta esse essa aquele aquela isso isto não`,
			wordClitic:  `me te o a lhe nos se lhes os as`,
			wordSkip:    `também`,
			wordPrep:    `em com de a para por sem no na`,
		},
	},
	russian: {
		postVerb: true,
		phrases: map[phraseKind]string{
			kindNote: `запомни | запомните | имей в виду | имейте в виду | не забывай что | не забывайте что | учти |
				учтите | помни что | помните что | к твоему сведению | для справки | на будущее | прими к сведению`,
			kindLead: `с этого момента | отныне | впредь | в дальнейшем | с сегодняшнего дня | начиная с этого момента |
				начиная с сегодняшнего дня | с этих пор | в будущем | теперь всегда | по умолчанию | во всех ответах |
				в своих ответах | до конца разговора | с данного момента`,
			kindCond:   `каждый раз когда | всякий раз когда | каждый раз как`,
			kindCondIf: `когда | если | как только`,
			kindAdverb: `всегда | никогда не | больше никогда не | больше не | ни в коем случае не | никогда |
				всегда и везде`,
			kindPref: `я предпочитаю | предпочитаю | я бы предпочёл | я бы предпочла | я бы предпочли |
				мне больше нравится | мне больше нравятся | мне нравится когда ты | мне нравится когда вы | мне удобнее |
				мы предпочитаем | я больше люблю | мне не нравится когда ты`,
			kindWant: `хочу чтобы ты | я хочу чтобы ты | хочу чтобы вы | я хочу чтобы вы | я бы хотел чтобы ты |
				я бы хотела чтобы ты | я бы хотел чтобы вы | я бы хотела чтобы вы | следи чтобы | следите чтобы |
				постарайся | старайся | ты должен | ты должна | вы должны | не забывай | не забывайте`,
			kindBare:   `хватит | никаких | больше никаких`,
			kindStop:   `перестань | перестаньте | прекрати | прекратите`,
			kindDirect: `всегда | никогда | только | хочу | давай | давайте | ты должен | вы должны | больше не`,
			kindPolite: `можешь | можете | не мог бы ты | не могла бы ты | не могли бы вы | ты можешь | вы можете`,
			kindOpener: `пожалуйста | также | и | кстати | ну | ок | окей | спасибо | а | ещё | да | нет | слушай | важно |
				так | вот | итак | хорошо | отлично | и ещё | ещё одно | и ещё одно | кроме того | ладно | понятно | супер`,
			kindLasting: `с этого момента | отныне | впредь | в дальнейшем | с сегодняшнего дня | по умолчанию | во всех ответах | навсегда | всегда и везде | в будущем`,
			kindAlways:  `всегда | никогда`,
			kindPlease:  `пожалуйста | будь добр | будьте добры`,
			kindLike:    `мне нравится | мне нравятся | я люблю | люблю | мне нужно | мне нужны | мне нужен | я хочу | хочу`,
			kindThen:    `так что | и | поэтому | а | но | значит | тогда`,
			kindScope:   `каждый раз | всякий раз`,
			kindEvery:   `каждый | каждого | каждом | каждой | каждую | каждое | каждому`,
			kindOneOff:  `сегодня | завтра | вечером | сейчас | в этот раз | пока что | вариант | на этот раз | в этом случае`,
			kindPast:    `в детстве | когда я был | когда я была | раньше | когда мы были | в молодости | много лет назад`,
		},
		words: map[setKind]string{
			wordNonImp: `я ты он она оно мы вы они мой моя моё мои твой твоя твои наш наша наши ваш ваша ваши свой своя
				свои их его её это этот эта эти тот та те в во на с со к ко по за из от до о об у при для без над под
				через про и а но или что чтобы как когда если потому всегда никогда сегодня завтра вчера раньше сейчас
				теперь тогда потом уже ещё очень спасибо да нет пожалуйста тоже также даже лишь только здесь там тут
				есть быть опять ведь вообще какой такой другой каждый любой второй первый этой той одной всей моей
				твоей нашей вашей своей всё все весь вся сам сама сами кто где куда зачем почему ли же бы ни не нельзя
				можно надо нужно мне меня мной тебе тебя тобой ему ей нам нас вам вас им ими них неё него ней день почти`,
			wordAsk: `прошу попрошу спрашиваю спрошу пишу напишу присылаю пришлю отправляю отправлю задаю задам хочу
				скидываю скину упоминаю говорю`,
			wordOutput: `ответ ответа ответе ответы ответов ответах объяснение объяснения пример примеры код резюме список списки
				таблица таблицы таблицей план плана плане планы рецепт единицы размеры меры величины формат сообщение
				сообщения совет советы рекомендации слова источники даты цены числа перевод даёшь приводишь пишешь
				показываешь предлагаешь советуешь объясняешь сравниваешь отвечаешь переводишь`,
			wordAnswer: `ответ ответа ответе ответы ответов ответах объяснение объяснения план плана плане планы планов сообщение
				сообщения совет совета советы рекомендация рекомендации резюме`,
			wordAnswers: `ответы объяснения сообщения советы рекомендации`,
			wordYours:   `свои твои ваши`,
			wordYou:     `ты тебя тебе вы вас вам твой твоя`,
			wordMine:    `я мне меня мной мой моя моё мои мы нам нас наш наша наши`,
			wordNotPref: `этот эту эта это тот ту не второй первый третий`,
			wordSkip:    `пожалуйста тоже ещё`,
			wordPrep:    `в на с по к для о без`,
		},
	},
}

// lexeme is what the tables know of a word.
type lexeme struct {
	// langs are the languages the word says a sentence may be in: those
	// it is a stop word of (the index's lists) or a word of the tables in.
	langs langSet
	// sets are, for each set of words the rules ask about, the languages
	// the word is in it in.
	sets [nSetKinds]langSet
	// phrases are the phrases the word opens, longer ones first; markers
	// those of them that are looked for anywhere in a sentence (kinds from
	// kindLasting on).
	phrases, markers []*phrase
}

// lexicon is every word of the tables and of the index's stop lists,
// made at init; lexTable holds it again for the recognizer, which looks up
// every word it reads.
var lexicon = map[string]*lexeme{}

// lexemeOf returns w's entry in the lexicon, made if there is none.
func lexemeOf(w string) *lexeme {
	e := lexicon[w]
	if e == nil {
		e = &lexeme{}
		lexicon[w] = e
	}
	return e
}

func init() {
	for l, spec := range spaced {
		for kind, list := range spec.phrases {
			for _, text := range strings.Split(list, "|") {
				ws, commas := phraseWords(text)
				if len(ws) == 0 {
					continue
				}
				p := &phrase{rest: ws[1:], lang: uint8(l), kind: kind}
				if slices.Contains(commas, true) {
					p.comma = commas
				}
				first := lexemeOf(ws[0])
				first.phrases = append(first.phrases, p)
				if kind >= kindLasting {
					first.markers = append(first.markers, p)
				}
				for _, w := range ws {
					lexemeOf(w).langs |= 1 << l
				}
			}
		}
		for kind, list := range spec.words {
			ws, _ := phraseWords(list)
			for _, w := range ws {
				e := lexemeOf(w)
				e.sets[kind] |= 1 << l
				e.langs |= 1 << l
			}
		}
	}
	for w, langs := range stopLangs {
		lexemeOf(w).langs |= langs
	}
	for _, e := range lexicon {
		slices.SortStableFunc(e.phrases, func(a, b *phrase) int { return len(b.rest) - len(a.rest) })
		slices.SortStableFunc(e.markers, func(a, b *phrase) int { return len(b.rest) - len(a.rest) })
	}
	lexTable = newLexTable(lexicon)
	lasting := map[string]*lexeme{}
	for w, e := range lexicon {
		if e.sets[wordAnswer] != 0 || slices.ContainsFunc(e.markers, func(p *phrase) bool {
			return p.kind == kindLasting || p.kind == kindAlways || p.kind == kindScope
		}) {
			lasting[w] = e
		}
	}
	lastingWords = newLexTable(lasting)
}

// lastingWords are the words that open a phrase that makes an imperative
// last ("from now on", "always", "whenever") and the nouns of an
// assistant's answers ("answers", "plan"), for mayStand.
var lastingWords lexSet

// lexTable is the lexicon as an open-addressing table on a short hash of a
// word's bytes, as stopTable holds the stop words, but packed: a place is
// the word's hash and its entry's number in eight bytes, the table half
// full, so the few kilobytes a lookup touches stay in the cache beside the
// index's work. Most words the lexicon lacks are turned away by their first
// byte and length alone.
var lexTable lexSet

type lexSet struct {
	places  []uint64 // hash<<32 | entry+1; 0 for a free place
	mask    uint32
	entries []lexEntry
	shapes  [256]uint64 // bit n of shapes[b]: some word of n bytes starts with b
}

type lexEntry struct {
	word string
	e    *lexeme
}

func newLexTable(words map[string]*lexeme) lexSet {
	size := 1
	for size < 2*len(words) {
		size *= 2
	}
	t := lexSet{places: make([]uint64, size), mask: uint32(size - 1)}
	for w, e := range words {
		if w == "" {
			continue
		}
		t.shapes[w[0]] |= 1 << min(len(w), 63)
		h := stopHash(w)
		i := h & t.mask
		for t.places[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.entries = append(t.entries, lexEntry{w, e})
		t.places[i] = uint64(h)<<32 | uint64(len(t.entries))
	}
	return t
}

// find returns w's entry, or nil.
func (t *lexSet) find(w []byte) *lexeme {
	if len(w) == 0 || t.shapes[w[0]]&(1<<min(len(w), 63)) == 0 {
		return nil
	}
	h := stopHash(w)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		p := t.places[i]
		if p == 0 {
			return nil
		}
		if uint32(p>>32) == h {
			if e := &t.entries[uint32(p)-1]; e.word == string(w) {
				return e.e
			}
		}
	}
}

// phraseWords reads text as the recognizer reads a sentence: its folded
// words, and which of them a comma follows. A word that ends with an
// apostrophe ("l'", "qu'") is one as written, as a sentence's elided
// article is.
func phraseWords(text string) (ws []string, commas []bool) {
	var s sentence
	for _, field := range strings.Fields(text) {
		if strings.HasSuffix(field, "'") {
			var w []byte
			for _, r := range strings.TrimSuffix(field, "'") {
				w = appendFolded(w, r)
			}
			ws, commas = append(ws, string(w)+"'"), append(commas, false)
			continue
		}
		s.reset()
		for i, r := range field {
			next, _ := utf8.DecodeRuneInString(field[i+utf8.RuneLen(r):])
			s.take(r, next)
		}
		s.endWord()
		for i := range s.nWords {
			ws, commas = append(ws, string(s.word(i))), append(commas, s.words[i].comma)
		}
	}
	return ws, commas
}
