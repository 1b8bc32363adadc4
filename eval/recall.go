package main

import "unicode/utf8"

// recallMethods are compared on evidence recall; byheart fresh first, since
// it is what a one-shot question gets.
var recallMethods = []method{byheartFresh, byheartDefault, recencyWindow, plainRAG, fullHistory}

// recallTally sums one method's evidence recall over questions.
type recallTally struct {
	sum          [6]float64 // per category: the sum of per-question recall
	questions    [6]int
	compositions int
	overruns     int
	contextChars int
	maxContext   int
}

func (a *recallTally) merge(b recallTally) {
	for c := range a.sum {
		a.sum[c] += b.sum[c]
		a.questions[c] += b.questions[c]
	}
	a.compositions += b.compositions
	a.overruns += b.overruns
	a.contextChars += b.contextChars
	a.maxContext = max(a.maxContext, b.maxContext)
}

// recallConversation appends the whole conversation, then composes for each
// question in the file's order on that one composer (which is what makes
// byheart default's selection carry from question to question) and scores
// the share of the question's evidence turns that reached the context.
func recallConversation(conv *conversation, m method, budget int, lat *latencies) (recallTally, error) {
	comp := m.make(budget, lat)
	for i := range conv.Turns {
		if err := comp.add(&conv.Turns[i]); err != nil {
			return recallTally{}, err
		}
	}
	var t recallTally
	for i := range conv.Questions {
		q := &conv.Questions[i]
		c, err := comp.compose(q.Text)
		if err != nil {
			return recallTally{}, err
		}
		t.judge(conv, q, c, budget)
	}
	return t, nil
}

// judge scores call c, composed for question q, by the share of the
// question's evidence turns that reached its context.
func (t *recallTally) judge(conv *conversation, q *question, c call, budget int) {
	s := newSent(c)
	found := 0
	for _, e := range q.Evidence {
		if s.has(&conv.Turns[e]) {
			found++
		}
	}
	t.sum[q.Category] += float64(found) / float64(len(q.Evidence))
	t.questions[q.Category]++
	size := c.contextChars()
	t.compositions++
	t.contextChars += size
	t.maxContext = max(t.maxContext, size)
	if size > budget {
		t.overruns++
	}
}

// categoryRecall is one method's recall on one category.
type categoryRecall struct {
	Category  int     `json:"category"`
	Name      string  `json:"name"`
	Questions int     `json:"questions"`
	Recall    float64 `json:"recall"`
}

// recallRow is one method's line of the recall table.
type recallRow struct {
	Method           string           `json:"method"`
	Categories       []categoryRecall `json:"categories"`
	Recall14         float64          `json:"recall_1_4"`
	Compositions     int              `json:"compositions"`
	MeanContextChars float64          `json:"mean_context_chars"`
	MaxContextChars  int              `json:"max_context_chars"`
	Overruns         int              `json:"over_budget"`
}

// recallResult is the recall section.
type recallResult struct {
	Budget int         `json:"budget"`
	Rows   []recallRow `json:"rows"`
	// FullHistoryChars is the mean size of a whole conversation, in
	// characters: what full history sends at the end.
	FullHistoryChars float64 `json:"full_history_mean_chars"`
}

func (t recallTally) row(name string) recallRow {
	r := recallRow{Method: name, Compositions: t.compositions, MaxContextChars: t.maxContext, Overruns: t.overruns}
	var sum14 float64
	var n14 int
	for c := 1; c <= 5; c++ {
		cr := categoryRecall{Category: c, Name: categoryNames[c], Questions: t.questions[c]}
		if t.questions[c] > 0 {
			cr.Recall = t.sum[c] / float64(t.questions[c])
		}
		r.Categories = append(r.Categories, cr)
		if c <= 4 {
			sum14 += t.sum[c]
			n14 += t.questions[c]
		}
	}
	if n14 > 0 {
		r.Recall14 = sum14 / float64(n14)
	}
	if t.compositions > 0 {
		r.MeanContextChars = float64(t.contextChars) / float64(t.compositions)
	}
	return r
}

// conversationChars is the size of a whole conversation as appended.
func conversationChars(conv *conversation) int {
	n := 0
	for _, t := range conv.Turns {
		n += utf8.RuneCountInString(t.Text)
	}
	return n
}
