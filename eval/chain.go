package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/locomo"
)

// Where the window ends: one user's conversations with an application run
// for months, so the history it could send grows to many times a LoCoMo
// conversation. This section chains conversations a week apart into one
// history windowTimes as long, plays it as the live chat with questions,
// and gives each method's recall and bill at budgets up to ten times the
// default.
//
// What is chained decides the answer. Conversations between different
// people, about different things, are what a long history of a real
// application holds: a question's words then point at its own part of the
// history. The committed synthetic set's conversations all plant the same
// kinds of fact, often with the same values, and a chain of them returns
// to the same subjects with every conversation, which buries a question's
// evidence among look-alikes; that history exists too (a user who talks
// about the same things week after week), so it is reported beside the
// realistic one, as a hard case.

// windowTimes is how many conversations are chained; windowSeed draws the
// repetitive synthetic chain and distinctSeed the realistic one (neither
// is the committed data's seed).
const (
	windowTimes  = 10
	windowSeed   = synthSeed + 1
	distinctSeed = synthSeed + 2
)

// windowBudgets are the budgets the long histories are measured at.
var windowBudgets = []int{20_000, 80_000, 200_000}

// windowMethods are compared along the long histories at every budget;
// full history, the same at any budget, is played once.
var windowMethods = []method{byheartFresh, byheartDefault, plainRAG}

// shape is one data set whose conversations the long-history sections
// chain: the run's, and the assistant-shaped set beside it when there is
// one. generated says it is the project's synthetic set, whose
// conversations share their subjects, so its realistic chain is drawn by
// synthesizeDistinct rather than chained from the file.
type shape struct {
	name      string
	ds        *dataset
	generated bool
}

// longHistory is conversations chained into one.
type longHistory struct {
	name string
	// hard says it is the repetitive synthetic chain, the hard case.
	hard bool
	conv *conversation
	// starts holds the first turn of each conversation chained.
	starts []int
}

// part is the conversation of the chain that a call made when the history
// had at turns belongs to: the one its newest turn came from.
func (h *longHistory) part(at int) int {
	p := 0
	for p+1 < len(h.starts) && h.starts[p+1] < at {
		p++
	}
	return p
}

// chain plays convs one after the other as one conversation, each a week
// after the one before ends, each question's evidence pointing into it.
// Moving a turn in time moves the dates byheart writes beside its relative
// ones, so each turn's annotated form is made again at its new time.
func chain(name string, convs []*conversation) *longHistory {
	h := &longHistory{name: name, conv: &conversation{ID: name}}
	long := h.conv
	var end time.Time
	session := 0
	for _, c := range convs {
		shift := time.Duration(0)
		if !end.IsZero() && len(c.Turns) > 0 {
			shift = end.Add(7 * 24 * time.Hour).Sub(c.Turns[0].When)
		}
		base, sessions := len(long.Turns), 0
		h.starts = append(h.starts, base)
		for _, t := range c.Turns {
			if shift != 0 {
				t.When = t.When.Add(shift)
				t.Annotated = byheart.Annotate(t.Text, t.When)
				t.flatAnnotated = collapse(t.Annotated)
			}
			sessions = max(sessions, t.Session+1)
			t.Session += session
			long.Turns = append(long.Turns, t)
		}
		session += sessions
		if len(long.Turns) > 0 {
			end = long.Turns[len(long.Turns)-1].When
		}
		for _, q := range c.Questions {
			q.Evidence = append([]int(nil), q.Evidence...)
			for i := range q.Evidence {
				q.Evidence[i] += base
			}
			long.Questions = append(long.Questions, q)
		}
	}
	return h
}

// realistic is the chain of conversations whose people and subjects
// differ for sh: up to windowTimes of its file's conversations, or, for
// the synthetic set, windowTimes drawn with distinct vocabularies.
func realistic(sh shape) (*longHistory, error) {
	if !sh.generated {
		return chain(sh.name+", its conversations chained", sh.ds.Convs[:min(windowTimes, len(sh.ds.Convs))]), nil
	}
	data, err := synthesizeDistinct(distinctSeed, windowTimes)
	if err != nil {
		return nil, err
	}
	src, err := locomo.Parse(data)
	if err != nil {
		return nil, err
	}
	return chain("synthetic, distinct people and subjects", fromLoCoMo(src).Convs), nil
}

// repetitive is the hard case: windowTimes conversations of the committed
// set's kind, every one about the same kinds of fact, drawn seed after
// seed, so names come back too.
func repetitive() (*longHistory, error) {
	var convs []*conversation
	for seed := uint64(windowSeed); len(convs) < windowTimes; seed++ {
		src, err := locomo.Parse(synthesizeFrom(seed))
		if err != nil {
			return nil, err
		}
		convs = append(convs, fromLoCoMo(src).Convs...)
	}
	h := chain("synthetic, the same subjects in every conversation (hard case)", convs[:windowTimes])
	h.hard = true
	return h, nil
}

// longHistories are the histories the long-history sections play: the
// realistic chain of every shape, and with the synthetic set the
// repetitive one beside it when hard is set.
func longHistories(shapes []shape, hard bool) ([]*longHistory, error) {
	var out []*longHistory
	for _, sh := range shapes {
		h, err := realistic(sh)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sh.name, err)
		}
		out = append(out, h)
		if hard && sh.generated {
			if h, err = repetitive(); err != nil {
				return nil, err
			}
			out = append(out, h)
		}
	}
	return out, nil
}

// shapeName names a data set by its file.
func shapeName(ds *dataset) string { return filepath.Base(ds.Source) }

// historyRun is one play of a long history: by m, at a budget, with a
// share of its calls after a pause.
type historyRun struct {
	h      *longHistory
	m      method
	budget int
	share  float64
}

// windowRow is one method at one budget along a long history.
type windowRow struct {
	Method          string  `json:"method"`
	Budget          int     `json:"budget"`
	Recall14        float64 `json:"recall_1_4"`
	EffectiveTokens float64 `json:"effective_tokens_per_call"`
	WarmHitRate     float64 `json:"warm_cache_hit_rate"`
	MaxContextChars int     `json:"max_context_chars"`
}

// windowHistory is one long history's table.
type windowHistory struct {
	Name          string `json:"name"`
	HardCase      bool   `json:"hard_case"`
	Conversations int    `json:"conversations"`
	Turns         int    `json:"turns"`
	Chars         int    `json:"chars"`
	Questions     int    `json:"questions"`
	// Full is full history's bill, the same at every budget; its recall
	// is 1.
	Full windowRow   `json:"full_history"`
	Rows []windowRow `json:"rows"`
}

// windowResult is the window section.
type windowResult struct {
	Histories []windowHistory `json:"histories"`
}

func measureWindow(shapes []shape, lat *latencies, prog *progress) (*windowResult, error) {
	hs, err := longHistories(shapes, true)
	if err != nil {
		return nil, err
	}
	var runs []historyRun
	for _, h := range hs {
		runs = append(runs, historyRun{h: h, m: fullHistory})
		for _, b := range windowBudgets {
			for _, m := range windowMethods {
				runs = append(runs, historyRun{h: h, m: m, budget: b})
			}
		}
	}
	rows := make([]windowRow, len(runs))
	err = parallel(len(runs), lat, prog, "window", func(j int, lat *latencies) error {
		r := runs[j]
		bill, rc, err := liveConversation(r.h.conv, r.m, r.budget, lat, schedule(r.h.conv))
		row := bill.row(r.m)
		rows[j] = windowRow{Method: r.m.name, Budget: r.budget, Recall14: rc.row(r.m.name).Recall14,
			EffectiveTokens: row.EffectiveTokens, WarmHitRate: row.WarmHitRate, MaxContextChars: row.MaxContextChars}
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &windowResult{}
	for j, r := range runs {
		if j == 0 || runs[j-1].h != r.h {
			h := r.h
			res.Histories = append(res.Histories, windowHistory{Name: h.name, HardCase: h.hard, Conversations: len(h.starts),
				Turns: len(h.conv.Turns), Chars: conversationChars(h.conv), Questions: len(h.conv.Questions), Full: rows[j]})
			continue // each history's runs start with full history's
		}
		last := &res.Histories[len(res.Histories)-1]
		last.Rows = append(last.Rows, rows[j])
	}
	return res, nil
}

func writeWindow(b *strings.Builder, r *windowResult) {
	b.WriteString("\n## Where the window ends: histories ten times as long\n\n")
	b.WriteString("Conversations chained a week apart into one history, played as the live chat with its questions in it (composed at a seeded point after their evidence, priced like every call, never appended). ")
	b.WriteString("Evidence recall over categories 1–4, and effective tokens per call, chat and questions together, on a cache that starts cold each session. ")
	b.WriteString("The realistic chain is of conversations whose people and subjects differ; the hard case chains conversations that all plant the same kinds of fact, so a question's words point at every one of them.\n")
	for _, h := range r.Histories {
		fmt.Fprintf(b, "\n### %s\n\n%d conversations, %s turns, %s characters (about %s tokens), %s questions. Full history: recall %.3f, %s effective tokens a call, its largest context %s tokens.\n\n",
			h.Name, h.Conversations, thousands(float64(h.Turns)), thousands(float64(h.Chars)), thousands(float64(h.Chars)/4),
			thousands(float64(h.Questions)), h.Full.Recall14, thousands(h.Full.EffectiveTokens), thousands(float64(h.Full.MaxContextChars)/4))
		b.WriteString("| method |")
		for _, what := range []string{"recall 1–4", "tokens/call"} {
			for _, budget := range windowBudgets {
				fmt.Fprintf(b, " %s at %s |", what, thousands(float64(budget)))
			}
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", 2*len(windowBudgets)) + "\n")
		for _, m := range windowMethods {
			fmt.Fprintf(b, "| %s |", m.name)
			for _, row := range h.rowsOf(m.name) {
				fmt.Fprintf(b, " %.3f |", row.Recall14)
			}
			for _, row := range h.rowsOf(m.name) {
				fmt.Fprintf(b, " %s |", thousands(row.EffectiveTokens))
			}
			b.WriteString("\n")
		}
	}
}

// rowsOf returns the rows of one method, by budget.
func (h windowHistory) rowsOf(name string) []windowRow {
	var out []windowRow
	for _, row := range h.Rows {
		if row.Method == name {
			out = append(out, row)
		}
	}
	return out
}

// chainShapes are the data sets the window and bill sections chain: ds
// (generated says it is the synthetic set), and beside it asst, the
// assistant-shaped set, unless that is ds itself.
func chainShapes(ds *dataset, generated bool, asst *dataset) []shape {
	shapes := []shape{{name: shapeName(ds), ds: ds, generated: generated}}
	if asst != ds {
		shapes = append(shapes, shape{name: shapeName(asst), ds: asst})
	}
	return shapes
}
