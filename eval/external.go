package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
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
	name    string
	offer   bool               // whether the source offers anything at all
	compare byheart.Comparison // Options.ExternalCompare
	margin  float64            // Options.ExternalMargin
}

// form reports whether a is one of rule 4's forms, measured in every test.
func (a admission) form() bool { return a.offer && !math.IsInf(a.margin, 1) }

// admissions are compared end to end: no outside material; rule 4 in each
// of its forms (the default margin), the default first; and admitting every
// offered item that shares a term with the query (an infinite margin on the
// best stretch's comparison, which holds back no item another covers; the
// library never admits an item that shares none).
var admissions = []admission{
	{name: "never admit"},
	{name: ruleFour, offer: true, compare: byheart.CompareEither},
	{name: "rule 4, stretch", offer: true, compare: byheart.CompareStretch},
	{name: "rule 4, window", offer: true, compare: byheart.CompareWindow},
	{name: "rule 4, coverage", offer: true, compare: byheart.CompareCoverage},
	{name: "rule 4, window on the item's terms", offer: true, compare: byheart.CompareItemTerms},
	{name: "rule 4, gain over the best stretch", offer: true, compare: byheart.CompareGain},
	{name: "rule 4, more than the heaviest term", offer: true, compare: byheart.CompareHeaviestTerm},
	{name: "rule 4, more than the context's heaviest term", offer: true, compare: byheart.CompareContextTerm},
	{name: "rule 4, stretch or the query's heaviest term (the previous default)", offer: true, compare: byheart.CompareEitherQuery},
	{name: alwaysAdmit, offer: true, compare: byheart.CompareStretch, margin: math.Inf(1)},
}

// fixedSource is an External that returns whatever the harness loaded into it
// for the next question.
type fixedSource struct{ items []byheart.Item }

func (s *fixedSource) Fetch(context.Context, string) ([]byheart.Item, error) { return s.items, nil }

// externalTally counts one conversation's admissions.
type externalTally struct {
	questions    int
	overruns     int
	externalErrs int
	// answerable counts the questions whose answer is written in one of
	// their evidence turns; arms are by admissions.
	answerable int
	// admissible counts the questions always admit brought an evidence turn
	// to: those a comparison can bring one to at all.
	admissible int
	arms       []armTally
	kb         kbTally
}

// armTally is what one admission policy sent, summed over questions.
type armTally struct {
	evidence   int // questions where an evidence turn reached the context
	admissible int // of the admissible questions, those where one did
	answered   int // answerable questions whose answer reached it
	junkItems  int
	junkChars  int
	rejected   []int // junk test, by junkSizes: questions where no junk reached the context
	// gaps are, per question, the least margin that would have admitted
	// an item (see gap): the junk test's by junkSizes, and the needed
	// test's for its evidence; they let a margin be chosen afterwards.
	junkGaps   [][]float64
	neededGaps []float64
}

func newArms() []armTally {
	arms := make([]armTally, len(admissions))
	for i := range arms {
		arms[i].rejected = make([]int, len(junkSizes))
		arms[i].junkGaps = make([][]float64, len(junkSizes))
	}
	return arms
}

func (a *externalTally) merge(b externalTally) {
	a.questions += b.questions
	if a.arms == nil {
		a.arms = newArms()
	}
	for i, arm := range b.arms {
		x := &a.arms[i]
		x.evidence += arm.evidence
		x.admissible += arm.admissible
		x.answered += arm.answered
		x.junkItems += arm.junkItems
		x.junkChars += arm.junkChars
		for j := range junkSizes {
			x.rejected[j] += arm.rejected[j]
			x.junkGaps[j] = append(x.junkGaps[j], arm.junkGaps[j]...)
		}
		x.neededGaps = append(x.neededGaps, arm.neededGaps...)
	}
	a.overruns += b.overruns
	a.externalErrs += b.externalErrs
	a.answerable += b.answerable
	a.admissible += b.admissible
	a.kb.merge(b.kb)
}

// gap is the least margin that would admit one of the items offered to c whose
// source is source: rule 4 admits an item when Score > 0 and Score +
// margin > Against. +Inf when no such item matches the query at all.
func gap(c call, items []byheart.Item, source string) float64 {
	g := math.Inf(1)
	for _, a := range c.outside {
		// A covered item stays out at any margin that admits the one
		// covering it.
		if items[a.Item].Source == source && a.Score > 0 && !a.Covered {
			g = min(g, a.Against-a.Score)
		}
	}
	return g
}

// memories holds one memory of a conversation per comparison and margin,
// built on first use.
type memories struct {
	build func(opts byheart.Options) (*byheartMemory, error)
	opts  byheart.Options
	by    map[admission]*byheartMemory
}

func (ms *memories) get(a admission) (*byheartMemory, error) {
	key := admission{compare: a.compare, margin: a.margin}
	if m := ms.by[key]; m != nil {
		return m, nil
	}
	opts := ms.opts
	opts.ExternalCompare, opts.ExternalMargin = a.compare, a.margin
	m, err := ms.build(opts)
	if err != nil {
		return nil, err
	}
	if ms.by == nil {
		ms.by = map[admission]*byheartMemory{}
	}
	ms.by[key] = m
	return m, nil
}

// externalErrs counts the failed sources of every memory built.
func (ms *memories) externalErrs() int {
	n := 0
	for _, m := range ms.by {
		n += m.externalErrs
	}
	return n
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

func externalConversation(ds *dataset, conv *conversation, kb *knowledge, budget int, lat *latencies) (externalTally, error) {
	t := externalTally{arms: newArms()}
	pool := junkPool(ds, conv)
	src := &fixedSource{}
	opts := byheart.Options{Budget: budget, Stability: -1, External: src}
	whole := &memories{opts: opts, build: func(opts byheart.Options) (*byheartMemory, error) {
		m := newByheart(opts, lat)
		for i := range conv.Turns {
			if err := m.add(&conv.Turns[i]); err != nil {
				return nil, err
			}
		}
		return m, nil
	}}
	for qi, q := range conv.Questions {
		if q.Category > 4 {
			continue
		}
		t.questions++
		r := newRNG(seed(conv, qi))
		answer := writtenAnswer(conv, q)
		for si, n := range junkSizes {
			src.items = draw(r, pool, n, answer)
			for i, a := range admissions {
				if !a.form() {
					continue
				}
				m, err := whole.get(a)
				if err != nil {
					return t, err
				}
				c, err := m.compose(q.Text)
				if err != nil {
					return t, err
				}
				t.count(c, budget)
				if !anyReached(newSent(c), src.items) {
					t.arms[i].rejected[si]++
				}
				t.arms[i].junkGaps[si] = append(t.arms[i].junkGaps[si], gap(c, src.items, "junk"))
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
	if kb != nil {
		if err := t.kb.ask(conv, kb, whole, src, budget, &t); err != nil {
			return t, err
		}
	}
	t.externalErrs += whole.externalErrs()
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
	mems := &memories{opts: opts, build: func(opts byheart.Options) (*byheartMemory, error) {
		return withoutEvidence(conv, q, opts, lat)
	}}
	reached := make([]bool, len(admissions))
	for i, a := range admissions {
		m, err := mems.get(a)
		if err != nil {
			return err
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
		reached[i] = t.arms[i].add(c, offered, answer)
		if a.form() {
			t.arms[i].neededGaps = append(t.arms[i].neededGaps, gap(c, offered, "evidence"))
		}
	}
	if always := slices.IndexFunc(admissions, func(a admission) bool { return a.name == alwaysAdmit }); reached[always] {
		t.admissible++
		for i, r := range reached {
			if r {
				t.arms[i].admissible++
			}
		}
	}
	t.externalErrs += mems.externalErrs()
	return nil
}

// add tallies what of offered, and whether answer, reached c's context,
// and reports whether an evidence item did.
func (a *armTally) add(c call, offered []byheart.Item, answer string) bool {
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
	return evidence
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
	// out, over which AnswerInContext is measured; Admissible those always
	// admit brought an evidence turn to.
	Answerable int            `json:"answerable_questions"`
	Admissible int            `json:"admissible_questions"`
	Admissions []admissionRow `json:"admissions"`
	// Margins is the leave-one-conversation-out choice of each form's
	// margin, and Knowledge the knowledge-base part.
	Margins   []marginRow `json:"margins,omitempty"`
	Knowledge *kbResult   `json:"knowledge,omitempty"`
}

// admissionRow is one policy's line of the end-to-end test.
type admissionRow struct {
	Policy string `json:"policy"`
	// EvidenceInContext is the share of questions an evidence turn reached
	// the context for; NeededAdmitted that share over the admissible
	// questions; AnswerInContext the share of answerable questions whose
	// answer did, from the conversation or from outside.
	EvidenceInContext float64 `json:"evidence_in_context"`
	NeededAdmitted    float64 `json:"needed_admitted_of_admissible"`
	AnswerInContext   float64 `json:"answer_in_context"`
	JunkItems         float64 `json:"junk_items_per_question"`
	JunkChars         float64 `json:"junk_chars_per_question"`
	// JunkRejected is the junk test's share by junkSizes, for rule 4's
	// forms only.
	JunkRejected []float64 `json:"junk_rejected,omitempty"`
}

func (t externalTally) result() *externalResult {
	res := &externalResult{Overruns: t.overruns, ExternalErrors: t.externalErrs, Answerable: t.answerable, Admissible: t.admissible}
	share := func(n int) float64 { return ratio(float64(n), t.questions) }
	for i, a := range admissions {
		arm := t.arms[i]
		row := admissionRow{
			Policy:            a.name,
			EvidenceInContext: share(arm.evidence),
			NeededAdmitted:    ratio(float64(arm.admissible), t.admissible),
			AnswerInContext:   ratio(float64(arm.answered), t.answerable),
			JunkItems:         share(arm.junkItems),
			JunkChars:         share(arm.junkChars),
		}
		if a.form() {
			for _, n := range arm.rejected {
				row.JunkRejected = append(row.JunkRejected, share(n))
			}
		}
		res.Admissions = append(res.Admissions, row)
	}
	rule4 := res.admission(ruleFour)
	for i, n := range junkSizes {
		if n == junkItems {
			res.Rows = append(res.Rows, externalRow{"junk rejected", fmt.Sprintf("%d junk", n), t.questions, rule4.JunkRejected[i], 0.95})
		}
	}
	res.Rows = append(res.Rows,
		externalRow{"needed admitted", fmt.Sprintf("evidence + junk, at least %d in all", junkItems), t.questions, rule4.EvidenceInContext, 0.85},
		externalRow{"needed admitted, of the admissible", "the same, where always admit brings evidence", t.admissible, rule4.NeededAdmitted, 0.85})
	for i, n := range junkSizes {
		if n != junkItems {
			res.Rows = append(res.Rows, externalRow{"junk rejected", fmt.Sprintf("%d junk", n), t.questions, rule4.JunkRejected[i], 0.95})
		}
	}
	res.Knowledge = t.kb.result()
	return res
}

// ruleFour names the default form of rule 4, and alwaysAdmit the policy
// the end-to-end targets compare it with.
const (
	ruleFour    = "rule 4, stretch or the context's heaviest term (default)"
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

// marginGrids are the margins leave-one-conversation-out chooses among, in
// each comparison's unit: BM25 score, or a share of the query's weight.
var marginGrids = map[byheart.Comparison][]float64{
	byheart.CompareWindow:       {-2, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 2},
	byheart.CompareStretch:      {-2, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 2, 4, 8},
	byheart.CompareCoverage:     {-0.2, -0.1, -0.05, 0, 0.05, 0.1, 0.2, 0.3},
	byheart.CompareItemTerms:    {-2, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 2},
	byheart.CompareGain:         {-0.2, -0.1, -0.05, 0, 0.05, 0.1, 0.2, 0.3},
	byheart.CompareHeaviestTerm: {-0.2, -0.1, -0.05, 0, 0.05, 0.1, 0.2, 0.3},
	byheart.CompareEither:       {-0.5, -0.25, -0.1, 0, 0.1, 0.25, 0.5},
	byheart.CompareEitherQuery:  {-0.5, -0.25, -0.1, 0, 0.1, 0.25, 0.5},
	byheart.CompareContextTerm:  {-0.2, -0.1, -0.05, 0, 0.05, 0.1, 0.2, 0.3},
}

// marginRow is one form's leave-one-conversation-out margin: the margin
// each fold chose on the other conversations, and what it gave on the one
// left out, summed over folds. Admission is read from each item's
// Admission (Score + margin > Against), so these shares count what rule 4
// admits, before the budget's room decides what is sent.
type marginRow struct {
	Policy       string    `json:"policy"`
	Chosen       []float64 `json:"chosen"`
	Needed       float64   `json:"needed_admitted"`
	JunkRejected []float64 `json:"junk_rejected"`
	// AtZero is the same pair at the default margin, zero.
	NeededAtZero       float64   `json:"needed_admitted_at_zero"`
	JunkRejectedAtZero []float64 `json:"junk_rejected_at_zero"`
}

// admitShares are, at margin mu, the share of questions an evidence item
// would be admitted for and, by junkSizes, the share no junk item would be.
func admitShares(arm armTally, mu float64) (float64, []float64) {
	needed := 0
	for _, g := range arm.neededGaps {
		if mu > g {
			needed++
		}
	}
	var junk []float64
	for _, gaps := range arm.junkGaps {
		kept := 0
		for _, g := range gaps {
			if !(mu > g) {
				kept++
			}
		}
		junk = append(junk, ratio(float64(kept), len(gaps)))
	}
	return ratio(float64(needed), len(arm.neededGaps)), junk
}

// chooseMargin picks from grid the margin admitting the most needed items
// while rejecting at least 95% of junk at every size, the nearest to zero
// among equals; when none rejects enough, the one rejecting the most.
func chooseMargin(arm armTally, grid []float64) float64 {
	best, bestNeeded, bestJunk, found := 0.0, -1.0, -1.0, false
	for _, mu := range grid {
		needed, junk := admitShares(arm, mu)
		worst := slices.Min(junk)
		ok := worst >= 0.95
		better := false
		switch {
		case ok && !found:
			better = true
		case ok:
			better = needed > bestNeeded || needed == bestNeeded && math.Abs(mu) < math.Abs(best)
		case !found:
			better = worst > bestJunk || worst == bestJunk && math.Abs(mu) < math.Abs(best)
		}
		if better {
			best, bestNeeded, bestJunk, found = mu, needed, worst, found || ok
		}
	}
	return best
}

// leaveOneOut chooses each form's margin on all conversations but one and
// measures it on that one, for every conversation in turn.
func leaveOneOut(runs []externalTally) []marginRow {
	var rows []marginRow
	for i, a := range admissions {
		if !a.form() || len(runs) < 2 {
			continue
		}
		row := marginRow{Policy: a.name}
		var held, all armTally
		held.junkGaps = make([][]float64, len(junkSizes))
		all.junkGaps = make([][]float64, len(junkSizes))
		for k := range runs {
			var train armTally
			train.junkGaps = make([][]float64, len(junkSizes))
			for j, r := range runs {
				if j != k {
					train.absorb(r.arms[i])
				}
			}
			mu := chooseMargin(train, marginGrids[a.compare])
			row.Chosen = append(row.Chosen, mu)
			// The held-out conversation's gaps, shifted by the fold's
			// margin, so one tally at zero reads every fold's choice.
			test := runs[k].arms[i]
			held.absorb(shifted(test, mu))
			all.absorb(test)
		}
		row.Needed, row.JunkRejected = admitShares(held, 0)
		row.NeededAtZero, row.JunkRejectedAtZero = admitShares(all, 0)
		rows = append(rows, row)
	}
	return rows
}

// absorb adds b's gaps to a's.
func (a *armTally) absorb(b armTally) {
	a.neededGaps = append(a.neededGaps, b.neededGaps...)
	for j := range b.junkGaps {
		a.junkGaps[j] = append(a.junkGaps[j], b.junkGaps[j]...)
	}
}

// shifted is arm's gaps as margin mu sees them at zero.
func shifted(arm armTally, mu float64) armTally {
	out := armTally{junkGaps: make([][]float64, len(arm.junkGaps))}
	for _, g := range arm.neededGaps {
		out.neededGaps = append(out.neededGaps, g-mu)
	}
	for j, gaps := range arm.junkGaps {
		for _, g := range gaps {
			out.junkGaps[j] = append(out.junkGaps[j], g-mu)
		}
	}
	return out
}
