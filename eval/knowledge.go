package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// The knowledge-base part of the external section gives rule 4 a second,
// realistic source beside turns of other conversations: help pages and FAQ
// answers the project wrote for the products the synthetic chats mention
// (testdata/knowledge.json), paragraphs of a few hundred characters, found
// by a plain keyword search. Every conversation is asked three kinds of
// question with the whole conversation in memory:
//
//   - the knowledge base's own questions, which only one of its paragraphs
//     answers (needed: that paragraph reaches the context);
//   - its questions that neither it nor the conversation answers;
//   - the conversation's own questions (categories 1–4), which it answers
//     and the knowledge base does not: whatever the search finds for them is
//     junk (rejected: none of it reaches the context).

// knowledgePath is the knowledge base, from the module root.
const knowledgePath = "testdata/knowledge.json"

// kbHits is how many paragraphs the search returns at most, as a
// knowledge-base tool would.
const kbHits = 3

// knowledge is the knowledge base as written.
type knowledge struct {
	Paragraphs []struct {
		ID     string `json:"id"`
		Source string `json:"source"`
		Text   string `json:"text"`
	} `json:"paragraphs"`
	Questions []struct {
		Question  string `json:"question"`
		Answer    string `json:"answer"`
		Paragraph string `json:"paragraph"` // the one that answers it; "" for none
	} `json:"questions"`
	terms []map[string]bool // each paragraph's terms
}

// loadKnowledge reads the knowledge base and checks that every question's
// answer is written in its paragraph and in no other.
func loadKnowledge(path string) (*knowledge, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var kb knowledge
	if err := json.Unmarshal(data, &kb); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, p := range kb.Paragraphs {
		set := map[string]bool{}
		for _, t := range byheart.Terms(p.Text) {
			set[t] = true
		}
		kb.terms = append(kb.terms, set)
	}
	for _, q := range kb.Questions {
		for _, p := range kb.Paragraphs {
			holds := q.Answer != "" && strings.Contains(normalizeAnswer(p.Text), normalizeAnswer(q.Answer))
			if holds != (p.ID == q.Paragraph) {
				return nil, fmt.Errorf("%s: %q: answer %q in paragraph %q: %v", path, q.Question, q.Answer, p.ID, holds)
			}
		}
	}
	return &kb, nil
}

// findKnowledge returns the knowledge base beside the synthetic data.
func findKnowledge() (*knowledge, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, fmt.Errorf("%w, so no %s", err, knowledgePath)
	}
	return loadKnowledge(filepath.Join(root, knowledgePath))
}

// search returns the kbHits paragraphs sharing the most distinct terms with
// query, best first, leaving out those that share none.
func (kb *knowledge) search(query string) []byheart.Item {
	type hit struct{ p, n int }
	var hits []hit
	seen := map[string]bool{}
	for _, t := range byheart.Terms(query) {
		seen[t] = true
	}
	for p, terms := range kb.terms {
		n := 0
		for t := range seen {
			if terms[t] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, hit{p, n})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.n - a.n })
	var items []byheart.Item
	for _, h := range hits[:min(len(hits), kbHits)] {
		p := kb.Paragraphs[h.p]
		items = append(items, byheart.Item{Text: p.Text, Source: p.ID})
	}
	return items
}

// kbTally counts the knowledge-base part, by admissions.
type kbTally struct {
	needed, retrieved, neither int
	// conv counts the conversation's questions, offered those the search
	// found paragraphs for, answerable those whose answer it writes out.
	conv, offered, answerable int
	arms                      []kbArm
}

// kbArm is what one policy sent for the knowledge base's questions.
type kbArm struct {
	admitted  int // knowledge questions whose paragraph reached the context
	answered  int // knowledge questions whose answer did
	junkChars int // characters of paragraphs that do not answer, every kind of question
	rejected  int // conversation questions with paragraphs offered, none reaching the context
	convKept  int // conversation questions whose answer reached the context
	neither   int // unanswerable questions with a paragraph in the context
}

func (a *kbTally) merge(b kbTally) {
	a.needed += b.needed
	a.retrieved += b.retrieved
	a.conv += b.conv
	a.offered += b.offered
	a.neither += b.neither
	a.answerable += b.answerable
	if a.arms == nil {
		a.arms = make([]kbArm, len(admissions))
	}
	for i, x := range b.arms {
		y := &a.arms[i]
		y.admitted += x.admitted
		y.answered += x.answered
		y.junkChars += x.junkChars
		y.rejected += x.rejected
		y.convKept += x.convKept
		y.neither += x.neither
	}
}

// ask puts the knowledge base's questions and conv's own to every policy,
// on whole, memories of the whole conversation, with src as their source.
func (k *kbTally) ask(conv *conversation, kb *knowledge, whole *memories, src *fixedSource, budget int, t *externalTally) error {
	if k.arms == nil {
		k.arms = make([]kbArm, len(admissions))
	}
	type asked struct{ query, paragraph, answer string }
	var qs []asked
	for _, q := range kb.Questions {
		qs = append(qs, asked{q.Question, q.Paragraph, normalizeAnswer(q.Answer)})
	}
	for _, q := range conv.Questions {
		if q.Category <= 4 {
			qs = append(qs, asked{query: q.Text, answer: writtenAnswer(conv, q)})
		}
	}
	own := len(kb.Questions)
	for qi, q := range qs {
		items := kb.search(q.query)
		switch {
		case qi >= own:
			k.conv++
			if len(items) > 0 {
				k.offered++
			}
			if q.answer != "" {
				k.answerable++
			}
		case q.paragraph == "":
			k.neither++
		default:
			k.needed++
			if slices.ContainsFunc(items, func(it byheart.Item) bool { return it.Source == q.paragraph }) {
				k.retrieved++
			}
		}
		for i, a := range admissions {
			m, err := whole.get(a)
			if err != nil {
				return err
			}
			src.items = nil
			if a.offer {
				src.items = items
			}
			c, err := m.compose(q.query)
			if err != nil {
				return err
			}
			t.count(c, budget)
			k.arms[i].add(c, items, q.paragraph, q.answer, qi >= own)
		}
	}
	return nil
}

// add tallies what of items reached c's context for a question answered
// by paragraph ("" for none) with answer, asked of the knowledge base or,
// when conv is set, of the conversation.
func (a *kbArm) add(c call, items []byheart.Item, paragraph, answer string, conv bool) {
	s := newSent(c)
	any, found := false, false
	for _, it := range items {
		if !s.hasText(it.Text) {
			continue
		}
		any = true
		if it.Source == paragraph {
			found = true
			continue
		}
		a.junkChars += utf8.RuneCountInString(it.Text)
	}
	inContext := answer != "" && strings.Contains(normalizeAnswer(contextText(c)), answer)
	switch {
	case conv:
		if len(items) > 0 && !any {
			a.rejected++
		}
		if inContext {
			a.convKept++
		}
	case paragraph == "":
		if any {
			a.neither++
		}
	default:
		if found {
			a.admitted++
		}
		if inContext {
			a.answered++
		}
	}
}

// kbRow is one policy's line of the knowledge-base table.
type kbRow struct {
	Policy string `json:"policy"`
	// NeededAdmitted is the share of the knowledge base's answerable
	// questions whose paragraph reached the context; AnswerInContext the
	// share whose answer did.
	NeededAdmitted  float64 `json:"needed_admitted"`
	AnswerInContext float64 `json:"answer_in_context"`
	// JunkRejected is the share of the conversation's questions, of those
	// the search found paragraphs for, where none reached the context;
	// ConversationAnswer the share of the conversation's answerable
	// questions whose answer still reached it.
	JunkRejected       float64 `json:"junk_rejected"`
	ConversationAnswer float64 `json:"conversation_answer_in_context"`
	// Unanswerable is the share of the questions neither source answers
	// that brought a paragraph along anyway.
	Unanswerable float64 `json:"unanswerable_with_a_paragraph"`
	JunkChars    float64 `json:"junk_chars_per_question"`
}

// kbResult is the knowledge-base part of the external section.
type kbResult struct {
	Needed     int     `json:"knowledge_questions"`
	Retrieved  float64 `json:"paragraph_retrieved"` // share of those the search found the answering paragraph for
	Conv       int     `json:"conversation_questions"`
	Answerable int     `json:"conversation_answerable"`
	Offered    int     `json:"conversation_questions_offered_paragraphs"`
	Neither    int     `json:"unanswerable_questions"`
	Rows       []kbRow `json:"rows"`
}

func (k kbTally) result() *kbResult {
	if k.needed+k.conv == 0 {
		return nil
	}
	res := &kbResult{Needed: k.needed, Retrieved: ratio(float64(k.retrieved), k.needed), Conv: k.conv, Answerable: k.answerable, Offered: k.offered, Neither: k.neither}
	for i, a := range admissions {
		x := k.arms[i]
		res.Rows = append(res.Rows, kbRow{
			Policy:             a.name,
			NeededAdmitted:     ratio(float64(x.admitted), k.needed),
			AnswerInContext:    ratio(float64(x.answered), k.needed),
			JunkRejected:       ratio(float64(x.rejected), k.offered),
			ConversationAnswer: ratio(float64(x.convKept), k.answerable),
			Unanswerable:       ratio(float64(x.neither), k.neither),
			JunkChars:          ratio(float64(x.junkChars), k.needed+k.conv+k.neither),
		})
	}
	return res
}

// row returns the line of the named policy.
func (r *kbResult) row(policy string) kbRow {
	for _, row := range r.Rows {
		if row.Policy == policy {
			return row
		}
	}
	return kbRow{}
}
