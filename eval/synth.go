package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

//go:generate go run . -gen ../testdata/synthetic.json

// The synthetic data is the benchmark's default input: long multi-session
// conversations of small talk with facts planted in them, each question
// tagged with its evidence turns and LoCoMo category, written in LoCoMo's
// file shape so one loader reads both. Every word comes from the templates
// and word lists in synthwords.go and synthfacts.go. The generator is
// deterministic (its own rng, fixed seed) and its output is committed as
// testdata/synthetic.json; a test checks that regenerating gives the same
// bytes.
//
// It is built to behave as real conversations do under retrieval, and a
// test holds each method's recall within 0.05 of its recall on LoCoMo: facts
// are often said in other words than the question's, in an exchange whose
// other turns carry them; second hops of multi-hop questions share few words
// with the question; both speakers have facts of every kind and keep coming
// back to them, so a question's words are in many turns besides its
// evidence; relative dates anchor temporal facts; sessions are days, and
// sometimes months, apart.

const (
	synthSeed          = 0x6279686561727421
	synthConversations = 7
	synthSessions      = 27
	// Sessions hold this many turns, plus up to synthTurnsSpread more: with
	// about 140 characters a turn, a conversation runs to about 80,000
	// characters, four times the default budget, as real multi-session
	// chats of a few months do.
	synthTurnsMin    = 20
	synthTurnsSpread = 8
)

// How facts are said, in percent. A fact is said directly (in the
// question's words), paraphrased (sharing about one of them) or barely
// (sharing none, answering a cue that does), in these shares; the other
// speaker raises the subject first (the cue) and replies after (the echo)
// this often. Together they set how much a single turn shares with the
// question against what its neighbours do. The shares of styles, echoes and
// cues are dealt (see deal), not drawn, so each conversation holds them
// exactly and the benchmark does not hang on a lucky draw.
const (
	directShare       = 60
	paraShare         = 28
	cueWithDirect     = 25
	cueWithPara       = 95
	echoShare         = 50
	temporalBareShare = 15
	longGapShare      = 12 // sessions that follow a pause of months, not days
	photoShare        = 12 // filler statements that share a photo
	threadShare       = 25 // filler statements that come back to a speaker's own thread
	chatterOne        = 55 // turns lengthened by one sentence of chatter
	chatterTwo        = 25 // turns lengthened by two
	addressShare      = 25 // replies and reactions that name the other speaker
	multiHopCue       = 40 // second hops the other speaker asks after first
)

// writeSynthetic writes the synthetic data to path.
func writeSynthetic(path string) error {
	return os.WriteFile(path, synthesize(), 0o644)
}

// synthesize returns the synthetic data file's bytes.
func synthesize() []byte { return synthesizeFrom(synthSeed) }

// synthesizeFrom returns the synthetic data drawn from seed.
func synthesizeFrom(seed uint64) []byte {
	r := newRNG(seed)
	names := draws(r, firstNames, 2*synthConversations)
	var convs []*synthConv
	for i := range synthConversations {
		convs = append(convs, newSynthConv(r, fmt.Sprintf("synth-%d", i+1), names[2*i], names[2*i+1], everything))
	}
	return encodeSynth(convs)
}

type synthConv struct {
	id       string
	speakers [2]string // speaker_a, speaker_b
	vocab    *vocab    // what it talks about
	sessions []*synthSession
	qa       []synthQA
	// threads are, by speaker, the subjects of their facts (see
	// factKind.subject), which they keep coming back to.
	threads [2][]string
}

type synthSession struct {
	when    time.Time
	starter int // which speaker opens; turns alternate from there
	topics  [2]*topic
	turns   []synthTurn
}

type synthTurn struct {
	text, caption string
	planted       bool // part of a fact's exchange, which filler must not overwrite
	// closes marks the last turn of an exchange when the fact's owner
	// said it, so the other speaker reacts next.
	closes bool
}

// ref points at a turn: session and turn index, both from 0.
type ref struct{ session, turn int }

func (a ref) before(b ref) bool {
	return a.session < b.session || a.session == b.session && a.turn < b.turn
}

type synthQA struct {
	question, answer string
	category         int
	adversarial      bool // the answer goes in adversarial_answer, as LoCoMo's category 5 does
	evidence         []ref
	kind             string // written as "kind" when set
}

// line is one turn of a planted exchange: said by the fact's owner, or by
// the other speaker.
type line struct {
	other bool
	text  string
}

func newSynthConv(r *rng, id, a, b string, v *vocab) *synthConv {
	return newSynthConvOf(r, id, a, b, synthSessions, v)
}

// newSynthConvOf is a conversation of the given number of sessions about
// v, with the facts of one of the default size planted across them.
func newSynthConvOf(r *rng, id, a, b string, sessions int, v *vocab) *synthConv {
	c := &synthConv{id: id, speakers: [2]string{a, b}, vocab: v}
	day := time.Date(2021+r.intn(3), time.Month(1+r.intn(12)), 1+r.intn(28), 0, 0, 0, 0, time.UTC)
	for range sessions {
		n := synthTurnsMin + 2*r.intn(synthTurnsSpread/2+1)
		when := day.Add(time.Duration(8*60+r.intn(15*60)) * time.Minute) // between 8 am and 11 pm
		s := &synthSession{when: when, starter: r.intn(2), turns: make([]synthTurn, n)}
		pair := draws(r, v.topics, 2)
		s.topics = [2]*topic{pair[0], pair[1]}
		c.sessions = append(c.sessions, s)
		gap := 3 + r.intn(22)
		if r.intn(100) < longGapShare {
			gap = 45 + r.intn(90)
		}
		day = day.AddDate(0, 0, gap)
	}
	c.plantMultiHop(r)
	c.plantOpenDomain(r)
	c.plantTemporal(r)
	c.plantSingleHop(r)
	for _, s := range c.sessions {
		c.fillSession(r, s)
	}
	c.order()
	return c
}

// place writes lines into consecutive turns of one of sessions lo to hi-1,
// where the speakers alternate as the lines do and a free turn stays on
// either side, and returns where each line went; nil when no session has
// room. Greetings and farewells keep the first and last two turns.
func (c *synthConv) place(r *rng, lo, hi, owner int, lines []line) []ref {
	order := indexes(hi - lo)
	shuffle(r, order)
	for _, k := range order {
		if at := c.placeIn(r, lo+k, owner, lines); at != nil {
			return at
		}
	}
	return nil
}

func (c *synthConv) placeIn(r *rng, si, owner int, lines []line) []ref {
	starts := c.starts(si, owner, lines)
	if len(starts) == 0 {
		return nil
	}
	s, t := c.sessions[si], pick(r, starts)
	at := make([]ref, len(lines))
	for i, l := range lines {
		s.turns[t+i] = synthTurn{text: capitalizeSentences(l.text), planted: true}
		at[i] = ref{si, t + i}
	}
	s.turns[t+len(lines)-1].closes = !lines[len(lines)-1].other
	return at
}

// starts returns the turns of session si where lines could begin.
func (c *synthConv) starts(si, owner int, lines []line) []int {
	s := c.sessions[si]
	first := owner
	if lines[0].other {
		first = 1 - owner
	}
	var starts []int
	for t := 2; t+len(lines) <= len(s.turns)-2; t++ {
		if (s.starter+t)%2 == first && s.free(t-1, t+len(lines)+1) {
			starts = append(starts, t)
		}
	}
	return starts
}

// free reports whether turns from to to-1 hold nothing planted.
func (s *synthSession) free(from, to int) bool {
	for t := max(from, 0); t < min(to, len(s.turns)); t++ {
		if s.turns[t].planted {
			return false
		}
	}
	return true
}

// said builds the exchange a single-hop fact with values v is planted in,
// and which of its lines is the evidence.
func (k *factKind) said(r *rng, v []string, style sayStyle, echo bool) ([]line, int) {
	var lines []line
	text, cue := pick(r, k.bare), true
	switch style {
	case direct:
		text, cue = pick(r, k.direct), r.intn(100) < cueWithDirect
	case paraphrased:
		text, cue = pick(r, k.para), r.intn(100) < cueWithPara
	}
	if cue {
		lines = append(lines, line{other: true, text: fill(pick(r, k.cue), v, "")})
	}
	at := len(lines)
	lines = append(lines, line{text: fill(text, v, "")})
	if echo {
		lines = append(lines, line{other: true, text: fill(pick(r, k.echo), v, "")})
	}
	return lines, at
}

// sayStyle is how a fact is said: see directShare.
type sayStyle int

const (
	direct sayStyle = iota
	paraphrased
	bare
)

// styles deals n styles in the shares directShare and paraShare, the rest
// bare.
func styles(r *rng, n int) []sayStyle { return dealShares[sayStyle](r, n, directShare, paraShare) }

// dealShares deals n values: 0 in share a percent (rounded), 1 in share b,
// 2 in the rest, in random order.
func dealShares[T ~int](r *rng, n, a, b int) []T {
	out := make([]T, n)
	d, p := (n*a+50)/100, (n*b+50)/100
	for i := range out {
		switch {
		case i < d:
		case i < d+p:
			out[i] = 1
		default:
			out[i] = 2
		}
	}
	shuffle(r, out)
	return out
}

// deal returns n choices of which pct percent, rounded, are true, in random
// order.
func deal(r *rng, n, pct int) []bool {
	out := make([]bool, n)
	for i := range (n*pct + 50) / 100 {
		out[i] = true
	}
	shuffle(r, out)
	return out
}

// slotValues draws, for each slot, a different value per speaker, so no two
// questions of a conversation can be confused.
func slotValues(r *rng, slots [][]string, speakers int) [][]string {
	values := make([][]string, speakers)
	for _, list := range slots {
		for sp, v := range draws(r, list, speakers) {
			values[sp] = append(values[sp], v)
		}
	}
	return values
}

// plantSingleHop plants every kind of fact for both speakers, so each
// question's words also name the other speaker's fact of the same kind.
// A fact whose question names one of its values is asked again about the
// other speaker, which is what LoCoMo's adversarial category does.
func (c *synthConv) plantSingleHop(r *rng) {
	kinds := c.vocab.single
	style, echo := styles(r, 2*len(kinds)), deal(r, 2*len(kinds), echoShare)
	for i := range kinds {
		k := &kinds[i]
		for speaker, v := range slotValues(r, k.slots, 2) {
			lines, ev := k.said(r, v, style[2*i+speaker], echo[2*i+speaker])
			at := c.place(r, 0, len(c.sessions), speaker, lines)
			if at == nil {
				continue
			}
			for _, sub := range k.subject {
				c.threads[speaker] = append(c.threads[speaker], fill(sub, v, ""))
			}
			ask, answer := pick(r, k.ask), fill(k.answer, v, "")
			c.qa = append(c.qa, synthQA{question: fill(ask, v, c.speakers[speaker]), answer: answer, category: 4, evidence: []ref{at[ev]}})
			if k.named {
				c.qa = append(c.qa, synthQA{question: fill(ask, v, c.speakers[1-speaker]), answer: answer, category: 5, adversarial: true, evidence: []ref{at[ev]}})
			}
		}
	}
}

func (c *synthConv) plantTemporal(r *rng) {
	events := draws(r, c.vocab.events, min(2*len(relativeDates), len(c.vocab.events)))
	bareAnswer := deal(r, len(events), temporalBareShare)
	for i, e := range events {
		rd := relativeDates[i%len(relativeDates)]
		speaker := i % 2
		weekday := time.Weekday(r.intn(7))
		lines := []line{{text: fill(strings.ReplaceAll(rd.say, "{weekday}", weekday.String()), []string{e.past}, "")}}
		if bareAnswer[i] {
			lines = []line{
				{other: true, text: fill(pick(r, temporalCues), []string{e.noun}, "")},
				{text: strings.ReplaceAll(rd.bare, "{weekday}", weekday.String())},
			}
		}
		at := c.place(r, 0, len(c.sessions), speaker, lines)
		if at == nil {
			continue
		}
		ev := at[len(at)-1]
		c.qa = append(c.qa, synthQA{
			question: fill("When did {name} {0}?", []string{e.base}, c.speakers[speaker]),
			answer:   rd.answer(c.sessions[ev.session].when, weekday, r.intn(2) == 0),
			category: 2,
			evidence: []ref{ev},
		})
	}
}

func (c *synthConv) plantMultiHop(r *rng) {
	kinds := c.vocab.multi
	cued := deal(r, 2*len(kinds), multiHopCue)
	for i := range kinds {
		k := &kinds[i]
		var values [][]string
		if k.pair {
			v := draws(r, k.slots[0], 4)
			values = [][]string{v[:2], v[2:]}
		} else {
			values = slotValues(r, k.slots, 2)
		}
		for speaker, v := range values {
			second := []line{{text: fill(pick(r, k.second), v, "")}}
			if cued[2*i+speaker] {
				second = append([]line{{other: true, text: fill(pick(r, k.cue), v, "")}}, second...)
			}
			c.twoSessions(r, speaker, []line{{text: fill(pick(r, k.first), v, "")}}, second, synthQA{
				question: fill(k.ask, v, c.speakers[speaker]), answer: fill(k.answer, v, ""), category: 1,
			})
		}
	}
}

func (c *synthConv) plantOpenDomain(r *rng) {
	for _, inf := range c.vocab.inferences {
		for speaker, ai := range draws(r, indexes(len(inf.answers)), 2) {
			a := inf.answers[ai]
			c.twoSessions(r, speaker, []line{{text: pick(r, a.evidence[0])}}, []line{{text: pick(r, a.evidence[1])}}, synthQA{
				question: fill(inf.ask, nil, c.speakers[speaker]), answer: a.answer, category: 3,
			})
		}
	}
}

// twoSessions plants two exchanges at least three sessions apart, each
// ending with its evidence, and adds q with both as its evidence.
func (c *synthConv) twoSessions(r *rng, speaker int, first, second []line, q synthQA) {
	// Drawing the pair of sessions as a pair, rather than the first and then
	// one after it, keeps evidence spread evenly over the conversation.
	for range 100 {
		s1, s2 := r.intn(len(c.sessions)), r.intn(len(c.sessions))
		s1, s2 = min(s1, s2), max(s1, s2)
		if s2-s1 < 3 || c.starts(s1, speaker, first) == nil || c.starts(s2, speaker, second) == nil {
			continue
		}
		at1, at2 := c.placeIn(r, s1, speaker, first), c.placeIn(r, s2, speaker, second)
		q.evidence = []ref{at1[len(at1)-1], at2[len(at2)-1]}
		c.qa = append(c.qa, q)
		return
	}
}

// order puts the questions in the order LoCoMo's files ask them: the
// multi-hop, temporal and open-domain questions together, then the
// single-hop ones, then the adversarial ones, each group in the order the
// conversation said its evidence.
func (c *synthConv) order() {
	group := map[int]int{1: 0, 2: 0, 3: 0, 4: 1, 5: 2}
	slices.SortStableFunc(c.qa, func(a, b synthQA) int {
		if ga, gb := group[a.category], group[b.category]; ga != gb {
			return ga - gb
		}
		switch ea, eb := a.evidence[0], b.evidence[0]; {
		case ea.before(eb):
			return -1
		case eb.before(ea):
			return 1
		}
		return 0
	})
}

// fillSession writes small talk around the planted exchanges: a greeting,
// then statements on the session's two topics each followed by a reply, a
// reaction after a fact its speaker closed, and a farewell.
func (c *synthConv) fillSession(r *rng, s *synthSession) {
	n := len(s.turns)
	other := func(t int) string { return c.speakers[1-(s.starter+t)%2] }
	s.turns[0].text = fill(pick(r, greetings), nil, other(0))
	s.turns[1].text = fill(pick(r, greetingReplies), nil, other(1))
	replyDue := false
	for t := 2; t < n-2; t++ {
		tp := s.topics[0]
		if t >= n/2 {
			tp = s.topics[1]
		}
		switch {
		case s.turns[t].planted:
			replyDue = false
		case s.turns[t-1].closes:
			s.turns[t].text = address(r, pick(r, reactions), other(t))
		case replyDue && r.intn(100) < threadShare:
			s.turns[t].text = strings.ReplaceAll(pick(r, threadQuestions), "{subject}", yours(pick(r, c.threads[1-(s.starter+t)%2])))
			replyDue = false
		case replyDue:
			s.turns[t].text = address(r, tp.reply(r), other(t))
			replyDue = false
		case r.intn(100) < threadShare:
			s.turns[t].text = capitalizeSentences(strings.ReplaceAll(pick(r, threadMentions), "{subject}", pick(r, c.threads[(s.starter+t)%2])))
			replyDue = true
		default:
			s.turns[t] = tp.statement(r)
			replyDue = true
		}
	}
	s.turns[n-2].text = fill(pick(r, farewells), nil, other(n-2))
	s.turns[n-1].text = fill(pick(r, farewellReplies), nil, other(n-1))
	for t := range s.turns {
		s.turns[t].text = lengthen(r, s.turns[t].text)
	}
}

// address sometimes opens a reply with the name of the speaker it answers,
// as friends do.
func address(r *rng, text, name string) string {
	if r.intn(100) >= addressShare {
		return text
	}
	if !strings.HasPrefix(text, "I ") && !strings.HasPrefix(text, "I'") {
		text = strings.ToLower(text[:1]) + text[1:]
	}
	return "Oh " + name + ", " + text
}

// yours turns a speaker's thread into the words of the one asking after it.
func yours(subject string) string {
	return strings.NewReplacer("my ", "your ", "our ", "your ", "I've", "you've").Replace(subject)
}

// lengthen adds chatter to some turns, as people pad what they say.
func lengthen(r *rng, text string) string {
	n := 0
	switch k := r.intn(100); {
	case k < chatterTwo:
		n = 2
	case k < chatterTwo+chatterOne:
		n = 1
	}
	for _, c := range draws(r, chatter, n) {
		text += " " + c
	}
	return text
}

// topic is the vocabulary small talk on one subject draws from.
type topic struct {
	activities []string // what one does, as "-ing" phrases
	things     []string // what one talks about, with their article
	questions  []string // what a friend asks back
	photos     []string // captions for a shared picture
}

// statement is one filler turn on the topic, sometimes with a photo.
func (tp *topic) statement(r *rng) synthTurn {
	text := fill(pick(r, statements), nil, "")
	text = strings.NewReplacer(
		"{activity}", pick(r, tp.activities),
		"{thing}", pick(r, tp.things),
		"{mood}", pick(r, moods),
		"{when}", pick(r, whens),
	).Replace(text)
	if r.intn(100) < 55 {
		text += " " + strings.NewReplacer("{activity}", pick(r, tp.activities), "{thing}", pick(r, tp.things)).Replace(pick(r, asides))
	}
	if r.intn(100) < 45 {
		text += " " + pick(r, tails)
	}
	t := synthTurn{text: capitalizeSentences(text)}
	if r.intn(100) < photoShare {
		t.text += " Here's a quick photo."
		t.caption = pick(r, tp.photos)
	}
	return t
}

// reply is one filler turn answering a statement on the topic.
func (tp *topic) reply(r *rng) string {
	text := strings.NewReplacer(
		"{activity}", pick(r, tp.activities),
		"{thing}", pick(r, tp.things),
		"{question}", pick(r, tp.questions),
		"{feeling}", pick(r, feelings),
	).Replace(pick(r, replies))
	return capitalizeSentences(text)
}

// fill puts values into {0}, {1}, … and name into {name}.
func fill(template string, values []string, name string) string {
	out := strings.ReplaceAll(template, "{name}", name)
	for i, v := range values {
		out = strings.ReplaceAll(out, fmt.Sprintf("{%d}", i), v)
	}
	return out
}

// capitalizeSentences upper-cases the first letter of the text and of every
// sentence in it, since slots like "the compost heap" can open one.
func capitalizeSentences(s string) string {
	b := []byte(s)
	start := true
	for i, ch := range b {
		switch {
		case start && ch >= 'a' && ch <= 'z':
			b[i] = ch - 'a' + 'A'
			start = false
		case ch == '.' || ch == '!' || ch == '?':
			start = true
		case ch != ' ':
			start = false
		}
	}
	return string(b)
}

// draws picks n distinct elements of xs.
func draws[T any](r *rng, xs []T, n int) []T {
	cp := append([]T(nil), xs...)
	shuffle(r, cp)
	return cp[:n]
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// dayString writes a date the way LoCoMo's answers do: "7 May 2023".
func dayString(d time.Time) string { return d.Format("2 January 2006") }

// encodeSynth writes the conversations in LoCoMo's file shape, one turn or
// question per line, keys in LoCoMo's order.
func encodeSynth(convs []*synthConv) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for ci, c := range convs {
		fmt.Fprintf(&b, "  {\n    \"sample_id\": %s,\n    \"conversation\": {\n", quote(c.id))
		fmt.Fprintf(&b, "      \"speaker_a\": %s,\n      \"speaker_b\": %s", quote(c.speakers[0]), quote(c.speakers[1]))
		for si, s := range c.sessions {
			stamp := s.when.Format("3:04 pm on 2 January, 2006")
			fmt.Fprintf(&b, ",\n      \"session_%d_date_time\": %s,\n      \"session_%d\": [\n", si+1, quote(stamp), si+1)
			for ti, t := range s.turns {
				speaker := c.speakers[(s.starter+ti)%2]
				fmt.Fprintf(&b, "        {\"speaker\": %s, \"id\": %s, \"text\": %s", quote(speaker), quote(diaID(ref{si, ti})), quote(t.text))
				if t.caption != "" {
					fmt.Fprintf(&b, ", \"blip_caption\": %s", quote(t.caption))
				}
				b.WriteString("}")
				if ti < len(s.turns)-1 {
					b.WriteString(",")
				}
				b.WriteString("\n")
			}
			b.WriteString("      ]")
		}
		b.WriteString("\n    },\n    \"qa\": [\n")
		for qi, q := range c.qa {
			key := "answer"
			if q.adversarial {
				key = "adversarial_answer"
			}
			var ids []string
			for _, e := range q.evidence {
				ids = append(ids, quote(diaID(e)))
			}
			fmt.Fprintf(&b, "      {\"question\": %s, %q: %s, \"evidence\": [%s], \"category\": %d",
				quote(q.question), key, quote(q.answer), strings.Join(ids, ", "), q.category)
			if q.kind != "" {
				fmt.Fprintf(&b, ", \"kind\": %s", quote(q.kind))
			}
			b.WriteString("}")
			if qi < len(c.qa)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("    ]\n  }")
		if ci < len(convs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.Bytes()
}

func diaID(at ref) string { return fmt.Sprintf("D%d:%d", at.session+1, at.turn+1) }

// quote writes s as a JSON string, leaving <, > and & readable.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a Go string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}
