package main

import (
	"strings"
	"time"
)

// Planting the facts of an assistant-shaped conversation and the questions
// on them. Each plant marks the exchanges it writes into as used, so no
// two plants share a turn and no filler overwrites one.

// Question kinds, written in the data's "kind" field.
const (
	kindFact        = "fact"
	kindUpdate      = "update"
	kindMulti       = "multi-session"
	kindDate        = "date"
	kindDuration    = "duration"
	kindOrder       = "order"
	kindAssistant   = "assistant"
	kindInstruction = "instruction"
	kindPreference  = "preference"
)

func (c *asstConv) plant(r *rng) {
	c.plantStandings(r)
	c.plantFacts(r)
	c.plantUpdates(r)
	c.plantMulti(r)
	c.plantCross(r)
	c.plantDates(r)
	c.plantDurations(r)
	c.plantOrders(r)
	c.plantRecs(r)
	for range asstNearMisses {
		ex := c.free(r, 0, len(c.sessions), 0)
		ex.pre = append(ex.pre, c.subst(r, pick(r, nearMisses), ex.subject, "", ex.term, ""))
	}
}

// factSlot is one (kind of fact, subject) pair a conversation uses, with
// its value.
type factSlot struct {
	a    *attr
	s, v string
}

// slots draws n distinct (kind, subject) pairs; values go round each
// kind's list, so two subjects share a value only when a kind has more
// slots than values.
func (c *asstConv) slots(r *rng, n int) []factSlot {
	var all []factSlot
	for ai := range c.dom.attrs {
		for _, s := range c.subjects {
			all = append(all, factSlot{a: &c.dom.attrs[ai], s: s})
		}
	}
	shuffle(r, all)
	c.usedSlot = map[factSlot]bool{}
	for i := range all[:n] {
		c.usedSlot[all[i]] = true
		all[i].v = c.value(r, all[i].a)
	}
	return all[:n]
}

// value returns the next value of a's list for this conversation.
func (c *asstConv) value(r *rng, a *attr) string {
	if c.values == nil {
		c.values = map[*attr][]string{}
		c.nextValue = map[*attr]int{}
	}
	if c.values[a] == nil {
		c.values[a] = draws(r, a.values, len(a.values))
	}
	v := c.values[a][c.nextValue[a]%len(a.values)]
	c.nextValue[a]++
	return v
}

// partner returns a slot of f's kind about another subject, not yet used,
// or false when every subject has one.
func (c *asstConv) partner(r *rng, f factSlot) (factSlot, bool) {
	for _, s := range draws(r, c.subjects, len(c.subjects)) {
		g := factSlot{a: f.a, s: s}
		if s != f.s && !c.usedSlot[g] {
			c.usedSlot[g] = true
			g.v = c.value(r, f.a)
			return g, true
		}
	}
	return factSlot{}, false
}

// sayFact plants a fact of slot f said in style (0 direct, 1 paraphrased,
// 2 bare) with value v in sessions lo to hi-1, and returns where the
// evidence is.
func (c *asstConv) sayFact(r *rng, f factSlot, v string, style, lo, hi int) at {
	fill := func(t string) string { return c.subst(r, t, f.s, "", "", v) }
	var ex *exchange
	var where at
	switch style {
	case 0, 1:
		ex, where = c.freeAt(r, lo, hi, 0)
		tmpl := f.a.direct
		if style == 1 {
			tmpl = f.a.para
		}
		ex.pre = append(ex.pre, fill(pick(r, tmpl)))
	default:
		var cue *exchange
		cue, where = c.freeAt(r, lo, hi, 1)
		cue.subject = f.s
		cue.cue = fill(pick(r, f.a.cue))
		ex, where = c.next(where)
		ex.pre = append(ex.pre, fill(pick(r, f.a.bare)))
		ex.followUp = true
	}
	ex.subject = f.s
	if style == 2 {
		c.drift(r, ex)
	}
	if r.intn(100) < asstEcho[style] {
		ex.echo = append(ex.echo, fill(pick(r, f.a.direct)))
	}
	return where
}

// asstStyles deals n styles in the shares asstDirect and asstPara, the
// rest bare.
func asstStyles(r *rng, n int) []int { return dealShares[int](r, n, asstDirect, asstPara) }

func (c *asstConv) ask(q, answer, kind string, category int, evidence ...at) {
	qa := synthQA{question: q, answer: answer, category: category, kind: kind}
	for _, e := range evidence {
		qa.evidence = append(qa.evidence, e.ref())
	}
	c.qa = append(c.qa, qa)
}

func (c *asstConv) plantFacts(r *rng) {
	n := asstFacts + asstDistractors + asstUpdates + asstMulti
	all := c.slots(r, n)
	style := asstStyles(r, asstFacts+asstDistractors)
	for i, f := range all[:asstFacts+asstDistractors] {
		where := c.sayFact(r, f, f.v, style[i], 0, len(c.sessions))
		if i < asstFacts {
			c.ask(c.subst(r, f.a.ask, f.s, "", "", ""), c.subst(r, f.a.answer, f.s, "", "", f.v), kindFact, 4, where)
		}
	}
	c.pending = all[asstFacts+asstDistractors:]
}

// plantUpdates says a fact in the first half and changes it in the second;
// the later value is the answer.
func (c *asstConv) plantUpdates(r *rng) {
	half := len(c.sessions) / 2
	style := asstStyles(r, asstUpdates)
	for i, f := range c.take(asstUpdates) {
		c.sayFact(r, f, f.v, r.intn(2), 0, half)
		v2 := c.value(r, f.a)
		where := c.sayFact(r, f, v2, style[i], half, len(c.sessions))
		said := &c.exAt(where).pre
		(*said)[len(*said)-1] = pick(r, updateOpeners) + " " + lowerFirst((*said)[len(*said)-1])
		c.ask(c.subst(r, f.a.ask, f.s, "", "", ""), c.subst(r, f.a.answer, f.s, "", "", v2), kindUpdate, 4, where)
	}
}

var updateOpeners = []string{"Change of plan:", "Quick update:", "Small correction to what I said before:", "Things moved on:"}

// take returns the next n unused fact slots.
func (c *asstConv) take(n int) []factSlot {
	out := c.pending[:n]
	c.pending = c.pending[n:]
	return out
}

// plantMulti says two facts of one kind about two subjects in sessions
// at least three apart, and asks for both.
func (c *asstConv) plantMulti(r *rng) {
	for range asstMulti {
		f := c.take(1)[0]
		g, ok := c.partner(r, f)
		for i := 0; !ok; i++ {
			// Every subject has a fact of f's kind: pair the slot with
			// one of another kind's, drawn afresh.
			f = factSlot{a: &c.dom.attrs[i], s: f.s}
			if !c.usedSlot[f] {
				c.usedSlot[f] = true
				f.v = c.value(r, f.a)
				g, ok = c.partner(r, f)
			}
		}
		third := len(c.sessions) / 3
		e1 := c.sayFact(r, f, f.v, r.intn(3), 0, 2*third)
		e2 := c.sayFact(r, g, g.v, r.intn(3), e1.session+3, len(c.sessions))
		answer := c.subst(r, f.a.answer, f.s, "", "", f.v) + " and " + c.subst(r, f.a.answer, g.s, "", "", g.v)
		c.ask(c.subst(r, f.a.both, f.s, g.s, "", ""), answer, kindMulti, 1, e1, e2)
	}
}

// plantCross says who a subject belongs to, and later recommends
// something about it; the question names the subject only by its person.
func (c *asstConv) plantCross(r *rng) {
	person := &c.dom.attrs[c.dom.person]
	for range asstCrossHop {
		f := factSlot{a: person}
		for _, s := range draws(r, c.subjects, len(c.subjects)) {
			if f.s = s; !c.usedSlot[f] {
				break
			}
		}
		c.usedSlot[f] = true
		f.v = c.value(r, person)
		half := len(c.sessions) / 2
		e1 := c.sayFact(r, f, f.v, r.intn(2), 0, half)
		rc := pick(r, c.dom.recs)
		v := pick(r, rc.values)
		ex, e2 := c.freeAt(r, e1.session+2, len(c.sessions), 0)
		ex.subject = f.s
		ex.insert = append(ex.insert, c.subst(r, rc.say, f.s, "", "", v))
		e2.answer = true
		whose := c.subst(r, c.dom.whose, "", "", "", f.v)
		c.ask(c.subst(r, rc.ask, whose, "", "", ""), v, kindMulti, 1, e1, e2)
	}
}

// sayAbout plants a user's sentence about subject in sessions lo to hi-1.
// Said plainly, it names the subject; said bare, it follows an answer
// about the subject and says "it", with a request that names nothing, as
// a user goes on from what was just said.
func (c *asstConv) sayAbout(r *rng, lo, hi int, subject string, bare bool, text func(subject string) string) (*exchange, at) {
	if !bare {
		ex, where := c.freeAt(r, lo, hi, 0)
		ex.subject = subject
		ex.pre = append(ex.pre, upperFirst(text(subject)))
		return ex, where
	}
	before, where := c.freeAt(r, lo, hi, 1)
	before.subject = subject
	ex, where := c.next(where)
	ex.subject, ex.followUp = subject, true
	ex.pre = append(ex.pre, upperFirst(text("it")))
	c.drift(r, ex)
	return ex, where
}

// drift sometimes moves the answer to a bare statement on to another
// subject, as an assistant does when the user says "what's next?".
func (c *asstConv) drift(r *rng, ex *exchange) {
	if r.intn(100) < asstDrift {
		ex.subject = pick(r, c.subjects)
	}
}

// sayWhen plants a user's sentence that an event happened, dated relative
// to its session with phrase p, and returns where, the gold answer, and
// the day it names (zero for a week).
func (c *asstConv) sayWhen(r *rng, p int, event [3]string, subject string, lo, hi int) (at, string, time.Time) {
	wd := time.Weekday(r.intn(7))
	rp := relPhrases[p]
	past := event[0]
	if r.intn(100) < asstEventPara {
		past = event[2]
	}
	ex, where := c.sayAbout(r, lo, hi, subject, r.intn(100) < asstBareEvents, func(s string) string {
		return strings.NewReplacer("{0}", strings.ReplaceAll(past, "{s}", s), "{weekday}", wd.String()).Replace(rp.say)
	})
	if r.intn(100) < asstEventEcho {
		ex.echo = append(ex.echo, "we "+strings.ReplaceAll(event[0], "{s}", subject))
	}
	when := c.sessions[where.session].when
	day := time.Date(when.Year(), when.Month(), when.Day(), 0, 0, 0, 0, time.UTC)
	if rp.day == nil {
		return where, "The week before " + dayString(day), time.Time{}
	}
	d := rp.day(day, wd)
	return where, dayString(d), d
}

// event draws an event and a subject it happened to, and the question's
// words for it.
func (c *asstConv) event(r *rng) (e [3]string, base, subject string) {
	e, subject = pick(r, c.dom.events), pick(r, c.subjects)
	return e, strings.ReplaceAll(e[1], "{s}", subject), subject
}

func (c *asstConv) plantDates(r *rng) {
	for i := range asstDates {
		e, base, s := c.event(r)
		where, answer, _ := c.sayWhen(r, i%len(relPhrases), e, s, 0, len(c.sessions))
		c.ask("When did we "+base+"?", answer, kindDate, 2, where)
	}
}

// exactPhrases are the relPhrases that name one day.
var exactPhrases = []int{0, 1, 2, 3, 5}

func (c *asstConv) plantDurations(r *rng) {
	for range asstDurations {
		p1, b1, s1 := c.event(r)
		p2, b2, s2 := c.event(r)
		half := len(c.sessions) / 2
		e1, _, d1 := c.sayWhen(r, pick(r, exactPhrases), p1, s1, 0, half)
		e2, _, d2 := c.sayWhen(r, pick(r, exactPhrases), p2, s2, e1.session+1, len(c.sessions))
		c.ask("How many days passed between the time we "+b1+" and the time we "+b2+"?", daysBetween(d1, d2), kindDuration, 2, e1, e2)
	}
}

// plantOrders raises two problems in different sessions and asks which
// came first.
func (c *asstConv) plantOrders(r *rng) {
	for range asstOrders {
		probs := draws(r, c.dom.problems, 2)
		subs := draws(r, c.subjects, 2)
		var where [2]at
		for i := range 2 {
			lo, hi := 0, len(c.sessions)/2
			if i == 1 {
				lo, hi = where[0].session+1, len(c.sessions)
			}
			say := pick(r, problemSays)
			var ex *exchange
			ex, where[i] = c.sayAbout(r, lo, hi, subs[i], r.intn(100) < asstBareEvents, func(s string) string {
				return c.subst(r, say, s, "", "", probs[i])
			})
			if r.intn(100) < asstEventEcho {
				ex.echo = append(ex.echo, "there is "+probs[i]+" in "+subs[i])
			}
		}
		q := "Which came up first: " + probs[1] + " in " + subs[1] + ", or " + probs[0] + " in " + subs[0] + "?"
		c.ask(q, probs[0]+" in "+subs[0], kindOrder, 2, where[0], where[1])
	}
}

var problemSays = []string{
	"We've hit {0} in {s} since this morning.",
	"There's {0} in {s} again.",
	"Bad news: {0} in {s}.",
}

// plantRecs has the assistant recommend something, and asks for it. A
// recommendation is made in an answer about its subject and asked for in
// its words; or made in passing ("As for the billing API: ...") in an
// answer about another subject and asked for in other words; or made in
// passing without naming its subject, asked for in other words, so that
// the question shares nothing with the answer but what it means.
func (c *asstConv) plantRecs(r *rng) {
	form := dealShares[int](r, asstRecs, asstRecPlain, asstRecAside)
	for i := range asstRecs {
		rc := c.dom.recs[i%len(c.dom.recs)]
		ex, where := c.freeAt(r, 0, len(c.sessions), 0)
		where.answer = true
		v := pick(r, rc.values)
		say, s, ask := c.subst(r, rc.say, ex.subject, "", "", v), ex.subject, rc.ask
		if form[i] > 0 {
			ask = rc.alt
			for s == ex.subject {
				s = pick(r, c.subjects)
			}
		}
		if form[i] == 1 {
			say = "As for " + s + ": " + lowerFirst(say)
		}
		ex.insert = append(ex.insert, say)
		c.ask(c.subst(r, ask, s, "", "", ""), v, kindAssistant, 4, where)
	}
}

// plantStandings states standing instructions and preferences, mostly
// early, sometimes revising one later, and asks questions they govern.
func (c *asstConv) plantStandings(r *rng) {
	early := max(len(c.sessions)*3/10, 1)
	// Each standing turn is asked about asstStandingQs/asstStandings
	// times, and the remainder once more, in different words.
	asked := make([]int, asstStandings)
	for i := range asked {
		asked[i] = asstStandingQs / asstStandings
		if i < asstStandingQs%asstStandings {
			asked[i]++
		}
	}
	shuffle(r, asked)
	for i, st := range draws(r, standings, asstStandings) {
		hi := early
		if r.intn(100) < 25 {
			hi = len(c.sessions) * 7 / 10
		}
		ex, where := c.freeAt(r, 0, hi, 0)
		ex.said = st.say + " " + st.why
		evidence, answer := []at{where}, st.answer
		if st.revise != "" && r.intn(100) < 50 {
			rex, rwhere := c.freeAt(r, where.session+2, len(c.sessions), 0)
			rex.said = st.revise
			evidence, answer = []at{rwhere}, st.revAnswer
			if st.both {
				evidence = []at{where, rwhere}
			}
		}
		asks := st.ask
		if asked[i] == 1 {
			asks = st.ask[:1]
			if r.intn(100) < asstStandingShared {
				asks = st.ask[1:]
			}
		}
		for _, ask := range asks {
			q := c.subst(r, ask, pick(r, c.subjects), "", pick(r, c.dom.terms), "")
			c.ask(upperFirst(q), answer, st.kind, 3, evidence...)
		}
	}
}
