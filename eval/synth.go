package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

//go:generate go run . -gen ../testdata/synthetic.json

// The synthetic data is the benchmark's default input: long multi-session
// conversations of small talk with facts planted in them, each question
// tagged with its evidence turns and LoCoMo category, written in LoCoMo's
// file shape so one loader reads both. Every word comes from the templates
// and word lists below. The generator is deterministic (its own rng, fixed
// seed) and its output is committed as testdata/synthetic.json; a test checks
// that regenerating gives the same bytes.

const (
	synthSeed          = 0x6279686561727421
	synthConversations = 7
	synthSessions      = 28
	// Sessions hold this many turns, plus up to synthTurnsSpread more: with
	// about 80 characters a turn, a conversation runs to 55,000–65,000
	// characters, about three times the default budget.
	synthTurnsMin    = 24
	synthTurnsSpread = 8
)

// writeSynthetic writes the synthetic data to path.
func writeSynthetic(path string) error {
	return os.WriteFile(path, synthesize(), 0o644)
}

// synthesize returns the synthetic data file's bytes.
func synthesize() []byte {
	r := newRNG(synthSeed)
	names := draws(r, firstNames, 2*synthConversations)
	var convs []*synthConv
	for i := range synthConversations {
		convs = append(convs, newSynthConv(r, fmt.Sprintf("synth-%d", i+1), names[2*i], names[2*i+1]))
	}
	return encodeSynth(convs)
}

type synthConv struct {
	id       string
	speakers [2]string // speaker_a, speaker_b
	sessions []*synthSession
	qa       []synthQA
}

type synthSession struct {
	when    time.Time
	starter int // which speaker opens; turns alternate from there
	topics  [2]*topic
	turns   []synthTurn
}

type synthTurn struct {
	text, caption string
	fact          bool // a planted turn, which filler must not overwrite
}

// ref points at a turn: session and turn index, both from 0.
type ref struct{ session, turn int }

type synthQA struct {
	question, answer string
	category         int
	adversarial      bool // the answer goes in adversarial_answer, as LoCoMo's category 5 does
	evidence         []ref
}

func newSynthConv(r *rng, id, a, b string) *synthConv {
	c := &synthConv{id: id, speakers: [2]string{a, b}}
	day := time.Date(2021+r.intn(3), time.Month(1+r.intn(12)), 1+r.intn(28), 0, 0, 0, 0, time.UTC)
	for range synthSessions {
		n := synthTurnsMin + 2*r.intn(synthTurnsSpread/2+1)
		when := day.Add(time.Duration(8*60+r.intn(15*60)) * time.Minute) // between 8 am and 11 pm
		s := &synthSession{when: when, starter: r.intn(2), turns: make([]synthTurn, n)}
		pair := draws(r, topics, 2)
		s.topics = [2]*topic{pair[0], pair[1]}
		c.sessions = append(c.sessions, s)
		day = day.AddDate(0, 0, 3+r.intn(22))
	}
	c.plantSingleHop(r)
	c.plantTemporal(r)
	c.plantMultiHop(r)
	c.plantOpenDomain(r)
	for _, s := range c.sessions {
		c.fillSession(r, s)
	}
	shuffle(r, c.qa)
	return c
}

// plant writes a fact into a free turn of session si that speaker says, and
// returns where it went. Greetings and farewells keep the first and last two
// turns.
func (c *synthConv) plant(r *rng, si, speaker int, text string) ref {
	s := c.sessions[si]
	var free []int
	for t := 2; t < len(s.turns)-2; t++ {
		if (s.starter+t)%2 == speaker && !s.turns[t-1].fact && !s.turns[t].fact && !s.turns[t+1].fact {
			free = append(free, t)
		}
	}
	t := pick(r, free)
	s.turns[t] = synthTurn{text: text, fact: true}
	return ref{si, t}
}

func (c *synthConv) plantSingleHop(r *rng) {
	// A third of the single-hop facts are asked again about the other
	// speaker, which is what LoCoMo's adversarial category does.
	adversarial := map[int]bool{}
	for _, i := range draws(r, indexes(len(singleHop)), len(singleHop)/3) {
		adversarial[i] = true
	}
	for i, f := range singleHop {
		var values []string
		for _, list := range f.slots {
			values = append(values, pick(r, list))
		}
		speaker := r.intn(2)
		at := c.plant(r, r.intn(synthSessions), speaker, fill(f.say, values, ""))
		answer := fill(f.answer, values, "")
		c.qa = append(c.qa, synthQA{question: fill(f.ask, values, c.speakers[speaker]), answer: answer, category: 4, evidence: []ref{at}})
		if adversarial[i] {
			c.qa = append(c.qa, synthQA{question: fill(f.ask, values, c.speakers[1-speaker]), answer: answer, category: 5, adversarial: true, evidence: []ref{at}})
		}
	}
}

func (c *synthConv) plantTemporal(r *rng) {
	events := draws(r, pastEvents, len(relativeDates))
	for i, rd := range relativeDates {
		si, speaker := r.intn(synthSessions), r.intn(2)
		day := c.sessions[si].when
		weekday := time.Weekday(r.intn(7))
		say := strings.ReplaceAll(rd.say, "{weekday}", weekday.String())
		at := c.plant(r, si, speaker, fill(say, []string{events[i].past}, ""))
		c.qa = append(c.qa, synthQA{
			question: fill("When did {name} {0}?", []string{events[i].base}, c.speakers[speaker]),
			answer:   rd.answer(day, weekday, r.intn(2) == 0),
			category: 2,
			evidence: []ref{at},
		})
	}
}

func (c *synthConv) plantMultiHop(r *rng) {
	for _, f := range multiHop {
		// Each slot gets a different value per instance, so no two
		// questions of a conversation can be confused.
		values := make([][]string, len(f.slots))
		for i, list := range f.slots {
			values[i] = draws(r, list, len(f.speakers))
		}
		for k, speaker := range f.speakers {
			var v []string
			for i := range f.slots {
				v = append(v, values[i][k])
			}
			first := r.intn(synthSessions - 3)
			second := first + 3 + r.intn(synthSessions-first-3)
			at1 := c.plant(r, first, speaker, fill(f.say[0], v, ""))
			at2 := c.plant(r, second, speaker, fill(f.say[1], v, ""))
			c.qa = append(c.qa, synthQA{question: fill(f.ask, v, c.speakers[speaker]), answer: fill(f.answer, v, ""), category: 1, evidence: []ref{at1, at2}})
		}
	}
}

func (c *synthConv) plantOpenDomain(r *rng) {
	for speaker, in := range draws(r, interests, 2) {
		first := r.intn(synthSessions - 3)
		second := first + 3 + r.intn(synthSessions-first-3)
		at1 := c.plant(r, first, speaker, fill("I've been volunteering at the {0} every Saturday morning, it's the best part of my week.", []string{in.place}, ""))
		at2 := c.plant(r, second, speaker, fill("I keep falling down rabbit holes reading about {0} late at night.", []string{in.field}, ""))
		c.qa = append(c.qa, synthQA{
			question: fill("What field might {name} consider studying, given the volunteering and the late-night reading?", nil, c.speakers[speaker]),
			answer:   in.field, category: 3, evidence: []ref{at1, at2},
		})
	}
}

// fillSession writes small talk around the planted facts: a greeting, then
// statements on the session's two topics each followed by a reply, a
// reaction after each fact, and a farewell.
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
		case s.turns[t].fact:
			replyDue = false
		case s.turns[t-1].fact:
			s.turns[t].text = pick(r, reactions)
		case replyDue:
			s.turns[t].text = tp.reply(r)
			replyDue = false
		default:
			s.turns[t] = tp.statement(r)
			replyDue = true
		}
	}
	s.turns[n-2].text = fill(pick(r, farewells), nil, other(n-2))
	s.turns[n-1].text = fill(pick(r, farewellReplies), nil, other(n-1))
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
	if r.intn(10) < 4 {
		text += " " + pick(r, tails)
	}
	t := synthTurn{text: capitalizeSentences(text)}
	if r.intn(100) < 6 {
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
			fmt.Fprintf(&b, "      {\"question\": %s, %q: %s, \"evidence\": [%s], \"category\": %d}",
				quote(q.question), key, quote(q.answer), strings.Join(ids, ", "), q.category)
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
