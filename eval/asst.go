package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

//go:generate go run . -gen-assistant ../testdata/assistant.json

// The assistant-shaped data: long conversations between a user and an
// assistant on a project (code, planning, study or writing), in sessions
// days or weeks apart. The user asks in a sentence or two, sometimes
// pasting code or a log; the assistant answers in thousands of characters
// of markdown: headings, lists, tables, rules and fenced code. Facts,
// updates, dates, standing instructions and what the assistant itself
// recommended are planted in them, with questions whose evidence names
// the turns, in LoCoMo's file shape plus a "kind" per question. Every word
// comes from asstwords.go, asstcode.go and asstinstr.go; the generator is
// deterministic and its output is committed as testdata/assistant.json.
//
// It is calibrated against long user–assistant conversations of a public
// benchmark the project does not have: per-turn BM25 and stretch BM25
// recall within 0.05 of theirs at 20,000, 80,000 and 200,000 characters
// (asst_test.go). What makes it as hard as they are: answers restate the
// project's words, so a question's words are in dozens of long answers;
// facts are often said in other words than the question's, or answer the
// assistant's question with a bare value; a standing instruction shares
// nothing with the questions it governs.

const (
	asstSeed = 0x6173736973743337
	// asstSubjects is how many parts a project has that its user keeps
	// coming back to.
	asstSubjects      = 14
	asstConversations = 8
	// A conversation holds asstExchangesMin exchanges plus up to
	// asstExchangesSpread more: with answers of about 3,800 characters,
	// 0.65 to 1.3 million characters.
	asstExchangesMin    = 170
	asstExchangesSpread = 160
)

// How facts are said and echoed, in percent; see asstStyles.
const (
	asstDirect     = 57 // user facts said in the question's words
	asstPara       = 10 // in others, sharing at most the subject; the rest bare, sharing nothing
	asstDrift      = 65 // answers after a bare statement that move on to another subject
	asstEventPara  = 50 // dated events said in other words than the question's
	asstBareEvents = 35 // events and problems said as "it", after an answer about their subject
	asstEventEcho  = 60 // answers after a dated event or a problem that restate it in the question\'s words
	asstRecPlain   = 50 // recommendations asked for in their words, in an answer about their subject
	asstRecAside   = 25 // made in passing, naming their subject; the rest without naming it
	asstPaste      = 8  // user turns that paste code or a log
	asstFollowUps  = 25 // user turns with nothing planted whose request names nothing
	asstOddLines   = 8  // answers with a --- rule or a line opening with a speaker's word
	asstHugeChars  = 52_000
)

// asstEcho is how often the answer after a fact restates it in the
// question's words, in percent, by how the fact was said: direct,
// paraphrased, bare.
var asstEcho = [3]int{90, 40, 30}

// How many of each planted kind a conversation holds.
const (
	asstFacts       = 20 // single-hop facts asked about
	asstDistractors = 8  // facts of the same kinds not asked about
	asstUpdates     = 6
	asstMulti       = 6 // two facts of one kind, asked together
	asstCrossHop    = 6 // a user fact and a recommendation, asked together
	asstDates       = 8
	asstDurations   = 4
	asstOrders      = 4
	asstRecs        = 18
	asstStandings   = 7  // standing instructions and preferences; asstStandingQs are asked about
	asstStandingQs  = 10 // at most two a standing turn: each has two ways to be asked about
	asstNearMisses  = 8
	// asstStandingShared is the percent of standing turns asked about once
	// whose question shares a word with them.
	asstStandingShared = 60
)

// writeAssistant writes the assistant-shaped data to path.
func writeAssistant(path string) error {
	return os.WriteFile(path, asstSynthesize(), 0o644)
}

// asstSynthesize returns the assistant-shaped data file's bytes.
func asstSynthesize() []byte { return asstSynthesizeFrom(asstSeed) }

func asstSynthesizeFrom(seed uint64) []byte {
	r := newRNG(seed)
	users := draws(r, asstUsers, asstConversations)
	huge := r.intn(asstConversations)
	var convs []*synthConv
	for i := range asstConversations {
		c := newAsstConv(r, fmt.Sprintf("assistant-%d", i+1), users[i], domains[i%len(domains)], i == huge)
		convs = append(convs, c.synth())
	}
	return encodeSynth(convs)
}

// asstConv is one conversation being generated.
type asstConv struct {
	id, user string
	dom      *domain
	project  string
	subjects []string
	sessions []*asstSession
	qa       []synthQA
	// pending are fact slots drawn but not yet planted; usedSlot marks
	// the slots taken, values and nextValue each kind's values in the
	// order this conversation hands them out.
	pending   []factSlot
	usedSlot  map[factSlot]bool
	values    map[*attr][]string
	nextValue map[*attr]int
}

type asstSession struct {
	when time.Time
	ex   []*exchange
}

// exchange is a user turn and the assistant's answer to it, as planted
// and then rendered.
type exchange struct {
	subject, term string
	used          bool     // something is planted in it
	said          string   // when set, the user turn opens with it
	pre           []string // planted sentences beside the user's request
	followUp      bool     // the user's request names nothing: see followUps
	insert        []string // planted sentences in the answer
	echo          []string // planted sentences the answer restates
	cue           string   // a question the answer closes with
	huge          bool     // the answer is the set's one huge answer
	user, answer  string
}

func newAsstConv(r *rng, id, user string, dom *domain, huge bool) *asstConv {
	c := &asstConv{id: id, user: user, dom: dom, project: pick(r, dom.projects)}
	c.subjects = draws(r, dom.subjects, asstSubjects)
	n := asstExchangesMin + r.intn(asstExchangesSpread+1)
	day := time.Date(2023+r.intn(2), time.Month(1+r.intn(12)), 1+r.intn(28), 0, 0, 0, 0, time.UTC)
	for n > 0 {
		k := min(n, 3+r.intn(10))
		s := &asstSession{when: day.Add(time.Duration(7*60+r.intn(15*60)) * time.Minute)}
		focus := draws(r, c.subjects, 2)
		for range k {
			sub := focus[0]
			if r.intn(100) < 35 {
				sub = focus[1]
			}
			if r.intn(100) < 15 {
				sub = pick(r, c.subjects)
			}
			s.ex = append(s.ex, &exchange{subject: sub, term: pick(r, dom.terms)})
		}
		c.sessions = append(c.sessions, s)
		n -= k
		day = day.AddDate(0, 0, 1+r.intn(20))
	}
	c.plant(r)
	if huge {
		c.free(r, 0, len(c.sessions), 0).huge = true
	}
	for _, s := range c.sessions {
		for i, ex := range s.ex {
			c.renderUser(r, ex)
			c.renderAnswer(r, ex, i == len(s.ex)-1)
		}
	}
	c.order()
	return c
}

// synth is the conversation in the form encodeSynth writes.
func (c *asstConv) synth() *synthConv {
	sc := &synthConv{id: c.id, speakers: [2]string{c.user, "Assistant"}, qa: c.qa}
	for _, s := range c.sessions {
		ss := &synthSession{when: s.when}
		for _, ex := range s.ex {
			ss.turns = append(ss.turns, synthTurn{text: ex.user}, synthTurn{text: ex.answer})
		}
		sc.sessions = append(sc.sessions, ss)
	}
	return sc
}

// at is where an exchange's user turn (answer false) or answer is.
type at struct {
	session, ex int
	answer      bool
}

func (a at) ref() ref {
	t := 2 * a.ex
	if a.answer {
		t++
	}
	return ref{a.session, t}
}

// free returns an unplanted exchange of sessions lo to hi-1, drawn at
// random, and marks it used; gap > 0 asks for one whose next exchange in
// its session is free too, and marks both.
func (c *asstConv) free(r *rng, lo, hi, gap int) *exchange {
	e, _ := c.freeAt(r, lo, hi, gap)
	return e
}

func (c *asstConv) freeAt(r *rng, lo, hi, gap int) (*exchange, at) {
	lo, hi = max(lo, 0), min(hi, len(c.sessions))
	var free []at
	for si := lo; si < hi; si++ {
		s := c.sessions[si]
		for i := range len(s.ex) - gap {
			if !s.ex[i].used && !s.ex[i+gap].used {
				free = append(free, at{session: si, ex: i})
			}
		}
	}
	if len(free) == 0 {
		panic(fmt.Sprintf("assistant data: no free exchange in sessions %d to %d; the conversation is too short for what is planted", lo, hi-1))
	}
	a := pick(r, free)
	s := c.sessions[a.session]
	s.ex[a.ex].used, s.ex[a.ex+gap].used = true, true
	return s.ex[a.ex], a
}

// next is the exchange after a.
func (c *asstConv) next(a at) (*exchange, at) {
	n := at{session: a.session, ex: a.ex + 1}
	return c.sessions[n.session].ex[n.ex], n
}

func (c *asstConv) exAt(a at) *exchange { return c.sessions[a.session].ex[a.ex] }

// askingOrder is the order the questions are asked in, kind by kind, as
// benchmarks of this shape group them.
var askingOrder = []string{kindFact, kindUpdate, kindMulti, kindDate, kindDuration, kindOrder, kindAssistant, kindInstruction, kindPreference}

// order asks the questions kind by kind, each kind in the order the
// conversation said their last evidence.
func (c *asstConv) order() {
	last := func(q synthQA) ref {
		e := q.evidence[0]
		for _, x := range q.evidence {
			if e.before(x) {
				e = x
			}
		}
		return e
	}
	slices.SortStableFunc(c.qa, func(a, b synthQA) int {
		if ka, kb := slices.Index(askingOrder, a.kind), slices.Index(askingOrder, b.kind); ka != kb {
			return ka - kb
		}
		switch ea, eb := last(a), last(b); {
		case ea.before(eb):
			return -1
		case eb.before(ea):
			return 1
		}
		return 0
	})
}

// subst fills a template's {s}, {S}, {s2}, {t}, {tool}, {project} and {0}.
func (c *asstConv) subst(r *rng, tmpl, s, s2, t, v string) string {
	rep := strings.NewReplacer("{S}", upperFirst(s), "{s}", s, "{s2}", s2, "{t}", t, "{T}", upperFirst(t),
		"{tool}", pick(r, c.dom.tools), "{Tool}", pick(r, c.dom.tools), "{project}", c.project, "{p}", pick(r, c.dom.problems), "{P}", upperFirst(pick(r, c.dom.problems)), "{0}", v)
	return rep.Replace(tmpl)
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
