package main

import (
	"fmt"
	"strings"

	"github.com/byheart/byheart/internal/pricing"
)

// The bill where it matters. Real users pause: a provider keeps a cached
// prompt five minutes after it was last read (an hour with the longer TTL,
// whose writes cost more), so a call after a longer pause finds nothing
// cached. Full history then writes the whole history to the cache again;
// byheart rebuilds (it is told the call's time) and writes at most its
// budget. This section plays the long histories of the window section as
// the live chat with questions, with a seeded share of calls arriving
// after the cache expired, and prices byheart, plain RAG, full history and
// the providers' server-side compaction on both TTLs.

// pauseShares are the shares of calls drawn to come after a pause the
// cache does not outlive.
var pauseShares = []float64{0, 0.1, 0.3}

// pauseSeed draws which calls pause.
const pauseSeed = 0x7061757365732121

// pausedAt draws, for each call k, whether it comes after a pause: with
// probability share, the same calls for every method, and every call
// paused at a smaller share paused at a larger one. A nil result pauses
// nothing.
func pausedAt(share float64) func(k int) bool {
	if share <= 0 {
		return nil
	}
	return func(k int) bool {
		u := newRNG(pauseSeed ^ uint64(k)*0x9e3779b97f4a7c15).next()
		return float64(u>>11)/(1<<53) < share
	}
}

// cacheTerms is what writing to the cache costs under one TTL; reads cost
// pricing.ReadRate under both (Anthropic's prompt caching: a 5-minute
// write 1.25× the input price, a 1-hour write 2×, a read 0.1×).
type cacheTerms struct {
	TTL   string  `json:"ttl"`
	Write float64 `json:"write_rate"`
}

var ttls = []cacheTerms{{"5 minutes", pricing.WriteRate}, {"1 hour", 2}}

// outputRate prices an output token against an input token: five times on
// every current Claude model. Only compaction's summaries are output the
// methods differ by; every method answers the same turns.
const outputRate = 5

// billMethods are priced along the long histories with pauses.
var billMethods = []method{byheartDefault, byheartFresh, plainRAG, fullHistory, anthropicCompaction.method(), openAICompaction.method()}

// billSums adds up calls' bills by rate, so any TTL's price can be read
// from them afterwards.
type billSums struct {
	Calls, Cold                  int
	Read, Written, Plain, Output float64
}

func (s *billSums) add(b pricing.Bill) {
	s.Read += b.Read
	s.Written += b.Written
	s.Plain += b.Plain
}

func (s *billSums) merge(o billSums) {
	s.Calls += o.Calls
	s.Cold += o.Cold
	s.Read += o.Read
	s.Written += o.Written
	s.Plain += o.Plain
	s.Output += o.Output
}

// perCall is the mean effective tokens a call under terms t.
func (s billSums) perCall(t cacheTerms) float64 {
	return ratio(pricing.ReadRate*s.Read+t.Write*s.Written+s.Plain+outputRate*s.Output, s.Calls)
}

// billTally is one method's bill along a long history, by the
// conversation of the chain each call was made in.
type billTally struct {
	parts       []billSums
	recall      recallTally
	compactions int
	// summarizes says the method compacts, so its recall is unknown.
	summarizes bool
}

// billHistory plays h as the live chat with questions for m, with share of
// its calls after a pause, and prices every call. A compaction's
// summarising pass is priced on the same cache just before the call that
// made it, and its summary as output.
func billHistory(h *longHistory, m method, share float64, budget int, lat *latencies) (billTally, error) {
	comp := m.make(budget, lat)
	var k cache
	_, summarizes := comp.(*compacting)
	t := billTally{parts: make([]billSums, len(h.starts)), summarizes: summarizes}
	err := play(h.conv, comp, schedule(h.conv), pausedAt(share), func(lc liveCall) {
		s, cold := &t.parts[h.part(lc.at)], lc.cold
		s.Calls++
		if cold {
			s.Cold++
		}
		if cp, ok := comp.(*compacting); ok && cp.pass != nil {
			s.add(k.charge(*cp.pass, cold))
			s.Output += cp.summary
			cp.pass, cold = nil, false
			t.compactions++
		}
		s.add(k.charge(lc.c, cold))
		if lc.q != nil {
			t.recall.judge(h.conv, lc.q, lc.c, budget)
		}
	})
	return t, err
}

// billRow is one method at one share of paused calls along a history.
type billRow struct {
	Method     string  `json:"method"`
	PauseShare float64 `json:"pause_share"`
	// ColdShare is the share of calls that found the cache cold: the
	// first of each session and the paused ones.
	ColdShare float64 `json:"cold_share"`
	// Recall14 is nil for compaction, whose recall needs a model.
	Recall14    *float64  `json:"recall_1_4,omitempty"`
	Compactions int       `json:"compactions"`
	TTLs        []billTTL `json:"by_ttl"`
}

// billTTL is a row's bill under one TTL: effective tokens per call while
// the history was 1×, 2×, … one conversation long, and over all calls.
type billTTL struct {
	TTL      string    `json:"ttl"`
	ByLength []float64 `json:"effective_tokens_per_call_by_length"`
	Mean     float64   `json:"effective_tokens_per_call"`
}

// billHistoryResult is one long history's rows.
type billHistoryResult struct {
	Name          string    `json:"name"`
	Conversations int       `json:"conversations"`
	Turns         int       `json:"turns"`
	Chars         int       `json:"chars"`
	Rows          []billRow `json:"rows"`
}

// billResult is the bill section.
type billResult struct {
	Budget    int                 `json:"budget"`
	Histories []billHistoryResult `json:"histories"`
}

func measureBill(shapes []shape, budget int, lat *latencies, prog *progress) (*billResult, error) {
	hs, err := longHistories(shapes, false)
	if err != nil {
		return nil, err
	}
	var runs []historyRun
	for _, h := range hs {
		for _, m := range billMethods {
			for _, share := range pauseShares {
				runs = append(runs, historyRun{h: h, m: m, budget: budget, share: share})
			}
		}
	}
	tallies := make([]billTally, len(runs))
	err = parallel(len(runs), lat, prog, "bill", func(j int, lat *latencies) (err error) {
		r := runs[j]
		tallies[j], err = billHistory(r.h, r.m, r.share, r.budget, lat)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &billResult{Budget: budget}
	for j, r := range runs {
		if j == 0 || runs[j-1].h != r.h {
			res.Histories = append(res.Histories, billHistoryResult{Name: r.h.name, Conversations: len(r.h.starts),
				Turns: len(r.h.conv.Turns), Chars: conversationChars(r.h.conv)})
		}
		last := &res.Histories[len(res.Histories)-1]
		last.Rows = append(last.Rows, tallies[j].row(r.m, r.share))
	}
	return res, nil
}

func (t billTally) row(m method, share float64) billRow {
	var all billSums
	for _, p := range t.parts {
		all.merge(p)
	}
	row := billRow{Method: m.name, PauseShare: share, ColdShare: ratio(float64(all.Cold), all.Calls), Compactions: t.compactions}
	if !t.summarizes {
		r := t.recall.row(m.name).Recall14
		row.Recall14 = &r
	}
	for _, terms := range ttls {
		bt := billTTL{TTL: terms.TTL, Mean: all.perCall(terms)}
		for _, p := range t.parts {
			bt.ByLength = append(bt.ByLength, p.perCall(terms))
		}
		row.TTLs = append(row.TTLs, bt)
	}
	return row
}

// shownLengths are the lengths, in conversations, the tables show: 1×, 3×
// and the whole chain.
func shownLengths(n int) []int {
	out := []int{1}
	if n > 3 {
		out = append(out, 3)
	}
	if n > 1 {
		out = append(out, n)
	}
	return out
}

func writeBill(b *strings.Builder, r *billResult) {
	fmt.Fprintf(b, "\n## The bill with pauses, at %s characters\n\n", thousands(float64(r.Budget)))
	b.WriteString("The long histories of the window section played as the live chat with questions, a seeded share of calls coming after a pause the provider's cache does not outlive: ")
	b.WriteString("such a call is cold for every method (nothing is read from the cache), and byheart is told its time, past the cache's life. ")
	b.WriteString("Effective tokens per call, while the history was one, three or all of its conversations long; a 5-minute TTL writes at 1.25×, a 1-hour TTL at 2×, both read at 0.1×. ")
	b.WriteString("Compaction is a provider summarising the whole history when a call crosses its threshold (Anthropic: 150,000 input tokens, the summary alone kept; OpenAI: 200,000, the user's turns kept beside the summary), ")
	b.WriteString("the pass billed as a call plus a 3,500-token summary at 5× as output; below its threshold it is full history. ")
	b.WriteString("Its bill is modelled; its recall is not measured, since what a summary keeps needs a model to tell. ")
	b.WriteString("Full history past a model's context window is arithmetic, not a call a provider would take.\n")
	for _, h := range r.Histories {
		fmt.Fprintf(b, "\n### %s\n\n%d conversations, %s turns, %s characters.\n", h.Name, h.Conversations, thousands(float64(h.Turns)), thousands(float64(h.Chars)))
		for ti := range ttls {
			writeBillTTL(b, h, ti)
		}
		writeBillRecall(b, h)
	}
}

// writeBillTTL writes a history's bill under the ti-th TTL.
func writeBillTTL(b *strings.Builder, h billHistoryResult, ti int) {
	lengths := shownLengths(h.Conversations)
	fmt.Fprintf(b, "\nTTL %s: effective tokens per call.\n\n| method |", ttls[ti].TTL)
	for _, share := range pauseShares {
		for _, l := range lengths {
			fmt.Fprintf(b, " %s paused, %d× |", sharePercent(share), l)
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(pauseShares)*len(lengths)) + "\n")
	for _, rows := range h.byMethod() {
		fmt.Fprintf(b, "| %s |", rows[0].Method)
		for _, row := range rows {
			for _, l := range lengths {
				fmt.Fprintf(b, " %s |", thousands(row.TTLs[ti].ByLength[l-1]))
			}
		}
		b.WriteString("\n")
	}
}

// writeBillRecall writes a history's recall, cold calls and compactions
// at each share of pauses.
func writeBillRecall(b *strings.Builder, h billHistoryResult) {
	b.WriteString("\n| method |")
	for _, what := range []string{"recall 1–4", "calls cold"} {
		for _, share := range pauseShares {
			fmt.Fprintf(b, " %s, %s paused |", what, sharePercent(share))
		}
	}
	b.WriteString(" compactions |\n|---|" + strings.Repeat("---:|", 2*len(pauseShares)+1) + "\n")
	for _, rows := range h.byMethod() {
		fmt.Fprintf(b, "| %s |", rows[0].Method)
		for _, row := range rows {
			if row.Recall14 == nil {
				b.WriteString(" — |")
			} else {
				fmt.Fprintf(b, " %.3f |", *row.Recall14)
			}
		}
		for _, row := range rows {
			fmt.Fprintf(b, " %s |", percent(row.ColdShare))
		}
		fmt.Fprintf(b, " %s |\n", thousands(float64(rows[0].Compactions)))
	}
}

// byMethod groups a history's rows by method, in pauseShares order.
func (h billHistoryResult) byMethod() [][]billRow {
	var out [][]billRow
	for i := 0; i < len(h.Rows); i += len(pauseShares) {
		out = append(out, h.Rows[i:i+len(pauseShares)])
	}
	return out
}

// sharePercent prints a share of calls as a whole percentage: 0.1 → "10%".
func sharePercent(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
