package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/byheart/byheart"
)

// The live chat with questions in it is the one workload both of the
// benchmark's figures come from: the replay as a chat plays it, and each
// LoCoMo question asked during it, at a seeded point after its last
// evidence turn, composed then (told its time like every chat call),
// priced like every other call and judged like the recall table, but never
// appended: a question is a look into the memory, not part of the talk.

// liveSeed draws where the questions are asked.
const liveSeed = 0x6c69766520636861

// asked maps, for each point of the conversation (before turn i is
// appended; len(Turns) is after the last), the questions asked there.
type asked map[int][]*question

// schedule places each question at a point drawn uniformly after its last
// evidence turn, the same points for every method.
func schedule(conv *conversation) asked {
	r := newRNG(liveSeed ^ uint64(len(conv.Turns))<<20 ^ uint64(len(conv.Questions)))
	at := asked{}
	for i := range conv.Questions {
		q := &conv.Questions[i]
		last := 0
		for _, e := range q.Evidence {
			last = max(last, e)
		}
		p := last + 1 + r.intn(len(conv.Turns)-last)
		at[p] = append(at[p], q)
	}
	return at
}

// liveConversation plays the conversation as a live chat, composing for
// each user turn before it is appended, and, when questions are given,
// asks those scheduled at each point before the chat's call there. It
// returns the bill of every call, questions' included, and the questions'
// evidence recall.
func liveConversation(conv *conversation, m method, budget int, lat *latencies, questions asked) (replayTally, recallTally, error) {
	var k cache
	var t replayTally
	var rc recallTally
	err := play(conv, m.make(budget, lat), questions, nil, func(lc liveCall) {
		t.charge(&k, lc.c, lc.cold, budget, lc.at)
		switch {
		case lc.q != nil:
			rc.judge(conv, lc.q, lc.c, budget)
		case lc.at > 0:
			t.withPrevious++
			if newSent(lc.c).has(&conv.Turns[lc.at-1]) {
				t.continuity++
			}
		}
	})
	if err != nil {
		return replayTally{}, recallTally{}, err
	}
	return t, rc, nil
}

// liveCall is one call of the live chat as play makes it.
type liveCall struct {
	c call
	// cold says the provider's cache expired before the call: the first
	// call of a session, or one that came after a pause.
	cold bool
	at   int       // how many turns the conversation had
	q    *question // the question asked; nil for the chat's own call
}

// pauseGap is how much later a call after a pause, and every call after
// it, is told it comes: past both a 5-minute and a 1-hour cache TTL, so
// one play serves both (byheart rebuilds after any pause of five minutes
// or more, and appended turns keep their own times, so what it selects is
// the same whichever TTL the pause outlived).
const pauseGap = time.Hour + time.Minute

// play drives comp through conv as a live chat: before each user turn is
// appended it composes for that turn, told the turn's time, and before
// that it asks the questions scheduled at that point, told the previous
// turn's time. visit sees every call in order. paused, when not nil, says
// which calls (numbered from 0 in that order) come after a pause the
// provider's cache does not outlive: such a call is cold, and it and every
// call after it are told a time pauseGap later, as a server's clock would
// tell them.
func play(conv *conversation, comp composer, questions asked, paused func(k int) bool, visit func(liveCall)) error {
	called, calls := -1, 0
	var late time.Duration
	compose := func(query string, when time.Time, session, at int, q *question) error {
		cold := session != called
		if paused != nil && paused(calls) {
			cold, late = true, late+pauseGap
		}
		called, calls = session, calls+1
		if !when.IsZero() {
			when = when.Add(late)
		}
		var c call
		var err error
		if tc, ok := comp.(timed); ok {
			c, err = tc.composeAt(query, when)
		} else {
			c, err = comp.compose(query)
		}
		if err != nil {
			return err
		}
		visit(liveCall{c: c, cold: cold, at: at, q: q})
		return nil
	}
	ask := func(i int) error {
		if i == 0 {
			return nil
		}
		prev := &conv.Turns[i-1]
		for _, q := range questions[i] {
			if err := compose(q.Text, prev.When, prev.Session, i, q); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range conv.Turns {
		if err := ask(i); err != nil {
			return err
		}
		turn := &conv.Turns[i]
		if turn.Role == byheart.User {
			if err := compose(turn.Text, turn.When, turn.Session, i, nil); err != nil {
				return err
			}
		}
		if err := comp.add(turn); err != nil {
			return err
		}
	}
	return ask(len(conv.Turns))
}

// liveMethods are compared on the live chat with questions.
var liveMethods = []method{byheartDefault, byheartFresh, keepOrRebuild, plainRAG, fullHistory}

// keepOrRebuild is rule 3 before logs could grow: the selection is kept
// while it scores at least 0.55 of a rebuild's, and rebuilt otherwise.
var keepOrRebuild = method{name: "keep or rebuild", selects: true, make: func(budget int, lat *latencies) composer {
	return newByheart(byheart.Options{Budget: budget, Stability: 0.45, Recall: -1}, lat)
}}

// liveRow is one method's line of the live chat with questions.
type liveRow struct {
	Method string    `json:"method"`
	Recall recallRow `json:"recall"`
	Bill   replayRow `json:"bill"`
}

// liveResult is the live section.
type liveResult struct {
	Budget    int       `json:"budget"`
	Questions int       `json:"questions"`
	Rows      []liveRow `json:"rows"`
}

func measureLive(ds *dataset, budget int, lat *latencies, prog *progress) (*liveResult, error) {
	n := len(liveMethods)
	bills := make([]replayTally, len(ds.Convs)*n)
	recalls := make([]recallTally, len(ds.Convs)*n)
	err := parallel(len(bills), lat, prog, "live", func(j int, lat *latencies) (err error) {
		conv := ds.Convs[j/n]
		bills[j], recalls[j], err = liveConversation(conv, liveMethods[j%n], budget, lat, schedule(conv))
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &liveResult{Budget: budget}
	for _, c := range ds.Convs {
		res.Questions += len(c.Questions)
	}
	for i, m := range liveMethods {
		var b replayTally
		var r recallTally
		for c := range ds.Convs {
			b.merge(bills[c*n+i])
			r.merge(recalls[c*n+i])
		}
		res.Rows = append(res.Rows, liveRow{Method: m.name, Recall: r.row(m.name), Bill: b.row(m)})
	}
	return res, nil
}

func writeLive(b *strings.Builder, r *liveResult) {
	fmt.Fprintf(b, "\n## Live chat with questions at %s characters\n\n", thousands(float64(r.Budget)))
	fmt.Fprintf(b, "The live replay, with each of the %s questions asked during it at a seeded point after its last evidence turn: composed then (`ComposeAt`), priced like every other call, judged like the recall table, never appended. ", thousands(float64(r.Questions)))
	b.WriteString("Effective tokens are per call, chat and questions together.\n\n")
	b.WriteString("| method | 1 multi-hop | 2 temporal | 3 open-domain | 4 single-hop | 1–4 | effective tokens/call | × plain RAG | warm-call hits | rebuilds | over budget |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var rag float64
	for _, row := range r.Rows {
		if row.Method == plainRAG.name {
			rag = row.Bill.EffectiveTokens
		}
	}
	for _, row := range r.Rows {
		rebuilds := "—"
		if row.Bill.Rebuilds != nil {
			rebuilds = thousands(float64(*row.Bill.Rebuilds))
		}
		fmt.Fprintf(b, "| %s |", row.Method)
		for _, c := range row.Recall.Categories[:4] {
			fmt.Fprintf(b, " %.3f |", c.Recall)
		}
		fmt.Fprintf(b, " **%.3f** | %s | %.2f | %s | %s | %d |\n", row.Recall.Recall14, thousands(row.Bill.EffectiveTokens),
			ratio(row.Bill.EffectiveTokens, rag), percent(row.Bill.WarmHitRate), rebuilds, row.Recall.Overruns+row.Bill.Overruns)
	}
}
