package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// The shapes section: evidence recall on the two shapes of conversation
// side by side, at budgets small and large against an assistant-shaped
// conversation. The short-turn data is the run's own (-locomo, or the
// synthetic set); the assistant-shaped data is -assistant's.

// assistantPath is the project's own assistant-shaped data.
const assistantPath = "testdata/assistant.json"

// shapeBudgets are the budgets the section measures at: the default, and
// two that hold a tenth and a quarter of a long assistant conversation.
var shapeBudgets = []int{20_000, 80_000, 200_000}

// shapeMethods are compared on both shapes.
var shapeMethods = []method{byheartFresh, byheartDefault, plainRAG, stretchBM25, recencyWindow, fullHistory}

// realAssistant is evidence recall measured on long user–assistant
// conversations of a public benchmark the project does not have, at
// shapeBudgets, by method: what the assistant-shaped data is calibrated
// against (per-turn and stretch BM25 within 0.05 of these).
var realAssistant = map[string][3]float64{
	plainRAG.name:       {0.484, 0.569, 0.685},
	stretchBM25.name:    {0.429, 0.622, 0.792},
	byheartFresh.name:   {0.369, 0.617, 0.792},
	byheartDefault.name: {0.364, 0.570, 0.671},
}

// shapeTally sums one method's recall at one budget on one set.
type shapeTally struct {
	sum   float64
	n     int
	role  [2]recallSum // evidence said by the user, and in the assistant's answers
	kinds map[string]*recallSum
}

// recallSum is a sum of per-question recall and how many questions it has.
type recallSum struct {
	Sum float64
	N   int
}

func (a *recallSum) add(v float64) { a.Sum += v; a.N++ }

func (a *recallSum) mean() float64 { return ratio(a.Sum, a.N) }

func (a *shapeTally) merge(b shapeTally) {
	a.sum += b.sum
	a.n += b.n
	for i := range a.role {
		a.role[i].Sum += b.role[i].Sum
		a.role[i].N += b.role[i].N
	}
	if a.kinds == nil {
		a.kinds = map[string]*recallSum{}
	}
	for k, v := range b.kinds {
		if a.kinds[k] == nil {
			a.kinds[k] = &recallSum{}
		}
		a.kinds[k].Sum += v.Sum
		a.kinds[k].N += v.N
	}
}

// shapeConversation appends the conversation, composes for each question
// in the file's order on that one composer, and scores the share of the
// evidence that reached the context, overall, by who said it and by kind.
func shapeConversation(conv *conversation, m method, budget int) (shapeTally, error) {
	comp := m.make(budget, &latencies{})
	for i := range conv.Turns {
		if err := comp.add(&conv.Turns[i]); err != nil {
			return shapeTally{}, err
		}
	}
	t := shapeTally{kinds: map[string]*recallSum{}}
	for i := range conv.Questions {
		q := &conv.Questions[i]
		c, err := comp.compose(q.Text)
		if err != nil {
			return shapeTally{}, err
		}
		s := newSent(c)
		var found, byRole [2]int
		for _, e := range q.Evidence {
			role := 1
			if conv.Turns[e].Role == byheart.User {
				role = 0
			}
			byRole[role]++
			if s.has(&conv.Turns[e]) {
				found[role]++
			}
		}
		v := float64(found[0]+found[1]) / float64(len(q.Evidence))
		t.sum += v
		t.n++
		for r := range 2 {
			if byRole[r] > 0 {
				t.role[r].add(float64(found[r]) / float64(byRole[r]))
			}
		}
		k := questionKind(q)
		if t.kinds[k] == nil {
			t.kinds[k] = &recallSum{}
		}
		t.kinds[k].add(v)
	}
	return t, nil
}

// questionKind is a question's kind, or its category's name when the
// file gives none.
func questionKind(q *question) string {
	if q.Kind != "" {
		return q.Kind
	}
	return categoryNames[q.Category]
}

// shapeRow is one method's recall at one budget on one set.
type shapeRow struct {
	Method    string       `json:"method"`
	Budget    int          `json:"budget"`
	Recall    float64      `json:"recall"`
	User      float64      `json:"user_evidence_recall"`
	Assistant float64      `json:"assistant_evidence_recall"`
	Kinds     []kindRecall `json:"kinds"`
}

// kindRecall is recall on the questions of one kind.
type kindRecall struct {
	Kind      string  `json:"kind"`
	Questions int     `json:"questions"`
	Recall    float64 `json:"recall"`
}

// shapeSet is the section's result on one set.
type shapeSet struct {
	Source string     `json:"source"`
	Stats  shapeStats `json:"stats"`
	Rows   []shapeRow `json:"rows"`
}

// shapesResult is the shapes section: the short-turn set, then the
// assistant-shaped one.
type shapesResult struct {
	Sets []shapeSet `json:"sets"`
}

// measureShapes measures every method at every budget on each set.
func measureShapes(sets []*dataset, prog *progress) (*shapesResult, error) {
	res := &shapesResult{}
	for _, ds := range sets {
		set, err := measureShapeSet(ds, shapeMethods, prog)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ds.Source, err)
		}
		res.Sets = append(res.Sets, set)
	}
	return res, nil
}

// measureShapeSet measures methods at every budget on one set.
func measureShapeSet(ds *dataset, methods []method, prog *progress) (shapeSet, error) {
	nm, nb := len(methods), len(shapeBudgets)
	per := nm * nb
	runs := make([]shapeTally, len(ds.Convs)*per)
	err := parallel(len(runs), &latencies{}, prog, "shapes", func(j int, _ *latencies) (err error) {
		k := j % per
		runs[j], err = shapeConversation(ds.Convs[j/per], methods[k/nb], shapeBudgets[k%nb])
		return err
	})
	if err != nil {
		return shapeSet{}, err
	}
	sums := make([]shapeTally, per)
	for j, t := range runs {
		sums[j%per].merge(t)
	}
	set := shapeSet{Source: ds.Source, Stats: shapeStatsOf(ds)}
	for k, t := range sums {
		m, b := methods[k/nb], k%nb
		row := shapeRow{Method: m.name, Budget: shapeBudgets[b], Recall: ratio(t.sum, t.n),
			User: t.role[0].mean(), Assistant: t.role[1].mean()}
		kinds := make([]string, 0, len(t.kinds))
		for kd := range t.kinds {
			kinds = append(kinds, kd)
		}
		sort.Strings(kinds)
		for _, kd := range kinds {
			row.Kinds = append(row.Kinds, kindRecall{kd, t.kinds[kd].N, t.kinds[kd].mean()})
		}
		set.Rows = append(set.Rows, row)
	}
	return set, nil
}

// shapeStats describes a set's shape: sizes of conversations and turns.
type shapeStats struct {
	Conversations int `json:"conversations"`
	Turns         int `json:"turns"`
	Questions     int `json:"questions"`
	// MinChars and MaxChars bound a whole conversation's length.
	MinChars, MaxChars int
	UserMedian         int     `json:"user_turn_median_chars"`
	UserP90            int     `json:"user_turn_p90_chars"`
	AnswerMedian       int     `json:"assistant_turn_median_chars"`
	AnswerP90          int     `json:"assistant_turn_p90_chars"`
	AnswerMax          int     `json:"assistant_turn_max_chars"`
	CodeShare          float64 `json:"answers_with_code"`
	UserEvidence       float64 `json:"evidence_in_user_turns"`
}

func shapeStatsOf(ds *dataset) shapeStats {
	st := shapeStats{Conversations: len(ds.Convs), MinChars: -1}
	var user, answers []int
	code, evUser, ev := 0, 0, 0
	for _, c := range ds.Convs {
		st.Turns += len(c.Turns)
		st.Questions += len(c.Questions)
		n := conversationChars(c)
		st.MaxChars = max(st.MaxChars, n)
		if st.MinChars < 0 || n < st.MinChars {
			st.MinChars = n
		}
		for _, t := range c.Turns {
			size := utf8.RuneCountInString(t.Text)
			if t.Role == byheart.User {
				user = append(user, size)
				continue
			}
			answers = append(answers, size)
			if strings.Contains(t.Text, "```") {
				code++
			}
		}
		for _, q := range c.Questions {
			for _, e := range q.Evidence {
				ev++
				if c.Turns[e].Role == byheart.User {
					evUser++
				}
			}
		}
	}
	slices.Sort(user)
	slices.Sort(answers)
	st.UserMedian, st.UserP90 = rankOf(user, 0.5), rankOf(user, 0.9)
	st.AnswerMedian, st.AnswerP90 = rankOf(answers, 0.5), rankOf(answers, 0.9)
	if len(answers) > 0 {
		st.AnswerMax = slices.Max(answers)
	}
	st.CodeShare = ratio(float64(code), len(answers))
	st.UserEvidence = ratio(float64(evUser), ev)
	return st
}

// rankOf is the nearest-rank q-quantile of sorted sizes, 0 when there are
// none.
func rankOf(sorted []int, q float64) int {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[max(0, min(int(math.Ceil(q*float64(len(sorted))))-1, len(sorted)-1))]
}

// findAssistant locates the assistant-shaped set as findSynthetic does.
func findAssistant() (string, error) {
	synth, err := findSynthetic()
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(synth, syntheticPath) + assistantPath, nil
}

// loadAssistant reads the assistant-shaped set that the shapes, window and
// bill sections measure beside ds: the one at path, or the shipped one when
// path is empty; ds itself when path names ds's file, so that one file is
// read once.
func loadAssistant(ds *dataset, path string) (*dataset, error) {
	var err error
	if path == "" {
		if path, err = findAssistant(); err != nil {
			return nil, err
		}
	}
	if absolute(path) == absolute(ds.Source) {
		return ds, nil
	}
	asst, err := loadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-assistant: %w", err)
	}
	return asst, nil
}

// absolute is path made absolute, or path when it cannot be.
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// writeShapes prints the shapes section: recall on both sets side by side,
// then the assistant-shaped set's recall by who said the evidence and by
// kind.
func writeShapes(b *strings.Builder, r *shapesResult) {
	b.WriteString("\n## Two shapes of conversation\n\n")
	b.WriteString("Evidence recall (per question, the share of its evidence turns whose whole text reaches the context; the mean over questions with evidence) at three budgets, ")
	b.WriteString("on short turns between two people and on long user–assistant conversations whose answers run to thousands of characters. ")
	b.WriteString("*Stretch BM25* ranks stretches of turns that close at 1,000 characters with plain BM25 and packs the best that fit whole; *plain RAG* does the same with single turns. ")
	b.WriteString("*Real* is what the same methods measured on long user–assistant conversations of a public benchmark the project does not have, which the assistant-shaped set is calibrated against.\n\n")
	for _, set := range r.Sets {
		st := set.Stats
		fmt.Fprintf(b, "- `%s`: %d conversations, %s turns, %s questions; %s–%s characters a conversation; user turns median %s (p90 %s), assistant turns median %s (p90 %s, longest %s); %s of assistant turns hold code; %s of evidence in the user's turns.\n",
			set.Source, st.Conversations, thousands(float64(st.Turns)), thousands(float64(st.Questions)), thousands(float64(st.MinChars)), thousands(float64(st.MaxChars)),
			thousands(float64(st.UserMedian)), thousands(float64(st.UserP90)), thousands(float64(st.AnswerMedian)), thousands(float64(st.AnswerP90)), thousands(float64(st.AnswerMax)),
			percent(st.CodeShare), percent(st.UserEvidence))
	}
	b.WriteString("\n| method |")
	for _, label := range []string{"short turns", "assistant-shaped", "real assistant-shaped"} {
		for _, bud := range shapeBudgets {
			fmt.Fprintf(b, " %s, %sk |", label, thousands(float64(bud/1000)))
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", 3*len(shapeBudgets)) + "\n")
	for _, m := range shapeMethods {
		fmt.Fprintf(b, "| %s |", m.name)
		for _, set := range r.Sets[:min(2, len(r.Sets))] {
			for _, bud := range shapeBudgets {
				fmt.Fprintf(b, " %.3f |", set.row(m.name, bud).Recall)
			}
		}
		real, ok := realAssistant[m.name]
		for i := range shapeBudgets {
			if ok {
				fmt.Fprintf(b, " %.3f |", real[i])
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
	if len(r.Sets) > 1 {
		writeShapeSplit(b, r.Sets[len(r.Sets)-1])
	}
}

// writeShapeSplit prints one set's recall by who said the evidence and by
// the questions' kind.
func writeShapeSplit(b *strings.Builder, set shapeSet) {
	if len(set.Rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\nOn `%s`, recall by who said the evidence (over the questions with evidence of that side) and by the questions' kind:\n\n", set.Source)
	b.WriteString("| method | budget | user's turns | assistant's answers |")
	sep := "|---|---:|---:|---:|"
	for _, k := range set.Rows[0].Kinds {
		fmt.Fprintf(b, " %s (%d) |", k.Kind, k.Questions)
		sep += "---:|"
	}
	b.WriteString("\n" + sep + "\n")
	for _, row := range set.Rows {
		fmt.Fprintf(b, "| %s | %sk | %.3f | %.3f |", row.Method, thousands(float64(row.Budget/1000)), row.User, row.Assistant)
		for _, k := range row.Kinds {
			fmt.Fprintf(b, " %.3f |", k.Recall)
		}
		b.WriteString("\n")
	}
}

// row is the set's row for a method at a budget.
func (s shapeSet) row(method string, budget int) shapeRow {
	for _, r := range s.Rows {
		if r.Method == method && r.Budget == budget {
			return r
		}
	}
	return shapeRow{}
}
