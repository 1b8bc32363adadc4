package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// The external section tests rule 4 from both sides, on every question of
// categories 1–4 (category 5 asks about things the conversation never said,
// so it has no "needed" material to admit):
//
//   - junk: the memory holds the whole conversation and the External source
//     returns turns of the other conversations. Rejected when none of them
//     reaches the context.
//   - needed: the question's evidence turns are left out at ingest and the
//     source returns them mixed with junk. Admitted when at least one
//     evidence turn reaches the context.
//
// Both run with a negative Stability (every question answered fresh) and the
// default margin. Pools come from a seeded generator, so a run is repeatable.
//
// The needed test is then run end to end, under three admission policies
// (admissions): whatever is admitted, does the answer reach the model, from
// the conversation or from outside, and how much junk rides along? A
// question's junk never contains its answer, so only the conversation or an
// evidence turn can bring it.

// junkItems is how many items the source returns per question: the headline
// setting for both tests.
const junkItems = 5

// junkSizes are the item counts the rejection test runs with, to show whether
// more junk gets through when there is more of it.
var junkSizes = []int{1, junkItems, 10}

// minJunkChars keeps short turns ("Thanks!") out of the junk pool: they are
// likely to appear in the conversation itself.
const minJunkChars = 40

// admission is a policy for outside material in the end-to-end test.
type admission struct {
	name   string
	offer  bool    // whether the source offers anything at all
	margin float64 // Options.ExternalMargin
}

// admissions are compared end to end: no outside material; rule 4 as
// shipped (the default margin); and admitting every offered item that
// shares a term with the query (an infinite margin; the library never
// admits an item that shares none).
var admissions = []admission{
	{name: "never admit"},
	{name: ruleFour, offer: true},
	{name: alwaysAdmit, offer: true, margin: math.Inf(1)},
}

// fixedSource is an External that returns whatever the harness loaded into it
// for the next question.
type fixedSource struct{ items []byheart.Item }

func (s *fixedSource) Fetch(context.Context, string) ([]byheart.Item, error) { return s.items, nil }

// externalTally counts one conversation's admissions.
type externalTally struct {
	questions    int
	rejected     []int // by junkSizes
	overruns     int
	externalErrs int
	// answerable counts the questions whose answer is written in one of
	// their evidence turns; arms are by admissions.
	answerable int
	arms       []armTally
}

// armTally is what one admission policy sent, summed over questions.
type armTally struct {
	evidence  int // questions where an evidence turn reached the context
	answered  int // answerable questions whose answer reached it
	junkItems int
	junkChars int
}

func (a *externalTally) merge(b externalTally) {
	a.questions += b.questions
	if a.rejected == nil {
		a.rejected = make([]int, len(junkSizes))
		a.arms = make([]armTally, len(admissions))
	}
	for i, n := range b.rejected {
		a.rejected[i] += n
	}
	for i, arm := range b.arms {
		a.arms[i].evidence += arm.evidence
		a.arms[i].answered += arm.answered
		a.arms[i].junkItems += arm.junkItems
		a.arms[i].junkChars += arm.junkChars
	}
	a.overruns += b.overruns
	a.externalErrs += b.externalErrs
	a.answerable += b.answerable
}

// junkPool returns the turns of the other conversations that may serve as
// junk for conv: none of them appears anywhere in conv, so finding one in a
// context can only mean the external block was admitted.
func junkPool(ds *dataset, conv *conversation) []string {
	var own strings.Builder
	for _, t := range conv.Turns {
		own.WriteString(t.flat)
		own.WriteByte('\n')
	}
	var pool []string
	for _, other := range ds.Convs {
		if other == conv {
			continue
		}
		for _, t := range other.Turns {
			if utf8.RuneCountInString(t.Text) >= minJunkChars && !strings.Contains(own.String(), t.flat) {
				pool = append(pool, t.Text)
			}
		}
	}
	return pool
}

// draw picks n distinct junk items, none holding answer (a normalized
// answer, see normalizeAnswer; "" holds nothing), so that junk can never be
// what brings an answer.
func draw(r *rng, pool []string, n int, answer string) []byheart.Item {
	var items []byheart.Item
	picked := map[int]bool{}
	for len(items) < n && len(picked) < len(pool) {
		i := r.intn(len(pool))
		if picked[i] {
			continue
		}
		picked[i] = true
		if answer == "" || !strings.Contains(normalizeAnswer(pool[i]), answer) {
			items = append(items, byheart.Item{Text: pool[i], Source: "junk"})
		}
	}
	return items
}

// seed derives a question's generator from the conversation and question, so
// the pools do not depend on the order jobs run in.
func seed(conv *conversation, q int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(conv.ID))
	return h.Sum64() ^ uint64(q)*0x9e3779b97f4a7c15
}

func externalConversation(ds *dataset, conv *conversation, budget int, lat *latencies) (externalTally, error) {
	t := externalTally{rejected: make([]int, len(junkSizes)), arms: make([]armTally, len(admissions))}
	pool := junkPool(ds, conv)
	src := &fixedSource{}
	opts := byheart.Options{Budget: budget, Stability: -1, External: src}
	whole := newByheart(opts, lat)
	for i := range conv.Turns {
		if err := whole.add(&conv.Turns[i]); err != nil {
			return t, err
		}
	}
	for qi, q := range conv.Questions {
		if q.Category > 4 {
			continue
		}
		t.questions++
		r := newRNG(seed(conv, qi))
		answer := writtenAnswer(conv, q)
		for si, n := range junkSizes {
			src.items = draw(r, pool, n, answer)
			c, err := whole.compose(q.Text)
			if err != nil {
				return t, err
			}
			t.count(c, budget)
			if !anyReached(newSent(c), src.items) {
				t.rejected[si]++
			}
		}
		var evidence []byheart.Item
		for _, e := range q.Evidence {
			evidence = append(evidence, byheart.Item{Text: conv.Turns[e].Text, Source: "evidence"})
		}
		offered := append(draw(r, pool, max(junkItems-len(evidence), 1), answer), evidence...)
		shuffle(r, offered)
		if err := t.endToEnd(conv, q, offered, answer, opts, lat); err != nil {
			return t, err
		}
	}
	t.externalErrs += whole.externalErrs
	return t, nil
}

// endToEnd composes q on the conversation without its evidence under every
// admission policy, with offered (its evidence among junk) as the outside
// material, and tallies what reached the context.
func (t *externalTally) endToEnd(conv *conversation, q question, offered []byheart.Item, answer string, opts byheart.Options, lat *latencies) error {
	if answer != "" {
		t.answerable++
	}
	src := opts.External.(*fixedSource)
	mems := map[float64]*byheartMemory{} // one per margin
	for i, a := range admissions {
		m := mems[a.margin]
		if m == nil {
			opts.ExternalMargin = a.margin
			var err error
			if m, err = withoutEvidence(conv, q, opts, lat); err != nil {
				return err
			}
			mems[a.margin] = m
		}
		src.items = nil
		if a.offer {
			src.items = offered
		}
		c, err := m.compose(q.Text)
		if err != nil {
			return err
		}
		t.count(c, opts.Budget)
		t.arms[i].add(c, offered, answer)
	}
	for _, m := range mems {
		t.externalErrs += m.externalErrs
	}
	return nil
}

// add tallies what of offered, and whether answer, reached c's context.
func (a *armTally) add(c call, offered []byheart.Item, answer string) {
	s := newSent(c)
	evidence := false
	for _, it := range offered {
		if !s.hasText(it.Text) {
			continue
		}
		if it.Source == "evidence" {
			evidence = true
			continue
		}
		a.junkItems++
		a.junkChars += utf8.RuneCountInString(it.Text)
	}
	if evidence {
		a.evidence++
	}
	if answer != "" && strings.Contains(normalizeAnswer(contextText(c)), answer) {
		a.answered++
	}
}

// contextText joins the parts of c's context.
func contextText(c call) string {
	var b strings.Builder
	for _, p := range c.context() {
		b.WriteString(p.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// writtenAnswer returns q's answer normalized (see normalizeAnswer) when an
// evidence turn writes it out, and "" otherwise: a date computed from the
// session, an inference, two hops' answers joined, or an answer too short
// to find by its letters alone.
func writtenAnswer(conv *conversation, q question) string {
	answer := normalizeAnswer(q.Answer)
	if len(strings.TrimSpace(answer)) < 3 {
		return ""
	}
	for _, e := range q.Evidence {
		if strings.Contains(normalizeAnswer(conv.Turns[e].Text), answer) {
			return answer
		}
	}
	return ""
}

// normalizeAnswer lower-cases s and makes every run of characters other
// than letters and digits one space, with a space at either end, so a
// normalized answer found in a normalized text is found as whole words.
func normalizeAnswer(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// count records the budget check every byheart composition gets.
func (t *externalTally) count(c call, budget int) {
	if c.contextChars() > budget {
		t.overruns++
	}
}

// withoutEvidence builds a memory of conv with q's evidence turns left out.
func withoutEvidence(conv *conversation, q question, opts byheart.Options, lat *latencies) (*byheartMemory, error) {
	skip := map[int]bool{}
	for _, e := range q.Evidence {
		skip[e] = true
	}
	m := newByheart(opts, lat)
	for i := range conv.Turns {
		if skip[i] {
			continue
		}
		if err := m.add(&conv.Turns[i]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func anyReached(s *sent, items []byheart.Item) bool {
	for _, it := range items {
		if s.hasText(it.Text) {
			return true
		}
	}
	return false
}

// externalRow is one line of the external table.
type externalRow struct {
	Test      string  `json:"test"`
	Items     string  `json:"items_per_fetch"`
	Questions int     `json:"questions"`
	Share     float64 `json:"share"`
	Target    float64 `json:"target,omitempty"`
}

// externalResult is the external section.
type externalResult struct {
	Rows           []externalRow `json:"rows"`
	Overruns       int           `json:"over_budget"`
	ExternalErrors int           `json:"external_errors"`
	// Answerable counts the questions whose answer an evidence turn writes
	// out, over which AnswerInContext is measured.
	Answerable int            `json:"answerable_questions"`
	Admissions []admissionRow `json:"admissions"`
}

// admissionRow is one policy's line of the end-to-end test.
type admissionRow struct {
	Policy string `json:"policy"`
	// EvidenceInContext is the share of questions an evidence turn reached
	// the context for; AnswerInContext the share of answerable questions
	// whose answer did, from the conversation or from outside.
	EvidenceInContext float64 `json:"evidence_in_context"`
	AnswerInContext   float64 `json:"answer_in_context"`
	JunkItems         float64 `json:"junk_items_per_question"`
	JunkChars         float64 `json:"junk_chars_per_question"`
}

func (t externalTally) result() *externalResult {
	res := &externalResult{Overruns: t.overruns, ExternalErrors: t.externalErrs, Answerable: t.answerable}
	for i, a := range admissions {
		arm := t.arms[i]
		res.Admissions = append(res.Admissions, admissionRow{
			Policy:            a.name,
			EvidenceInContext: ratio(float64(arm.evidence), t.questions),
			AnswerInContext:   ratio(float64(arm.answered), t.answerable),
			JunkItems:         ratio(float64(arm.junkItems), t.questions),
			JunkChars:         ratio(float64(arm.junkChars), t.questions),
		})
	}
	share := func(n int) float64 { return ratio(float64(n), t.questions) }
	for i, n := range junkSizes {
		if n == junkItems {
			res.Rows = append(res.Rows, externalRow{"junk rejected", fmt.Sprintf("%d junk", n), t.questions, share(t.rejected[i]), 0.95})
		}
	}
	rule4 := res.admission(ruleFour)
	res.Rows = append(res.Rows, externalRow{"needed admitted", fmt.Sprintf("evidence + junk, at least %d in all", junkItems), t.questions, rule4.EvidenceInContext, 0.90})
	for i, n := range junkSizes {
		if n != junkItems {
			res.Rows = append(res.Rows, externalRow{"junk rejected", fmt.Sprintf("%d junk", n), t.questions, share(t.rejected[i]), 0})
		}
	}
	return res
}

// ruleFour and alwaysAdmit name the policies the end-to-end targets compare.
const (
	ruleFour    = "rule 4"
	alwaysAdmit = "always admit"
)

// admission returns the end-to-end row of the named policy.
func (r *externalResult) admission(policy string) admissionRow {
	for _, row := range r.Admissions {
		if row.Policy == policy {
			return row
		}
	}
	return admissionRow{}
}
