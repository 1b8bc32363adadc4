package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// The multilingual section asks whether byheart finds a conversation's own
// words again in languages other than English as well as it does in
// English. The project's own set (testdata/multilingual.json) holds the same
// conversations in English and in each other language, with questions whose
// evidence is phrased in another inflection, case or spelling than the
// question; each language is measured beside its English twin, and beside
// byheart's tokenizer as it was before it learned other languages.

// multilingualPath is where the project's multilingual set lives, from the
// module root.
const multilingualPath = "testdata/multilingual.json"

// Budget and stretch size are shares of each conversation's own length in
// each language, so every language selects among as many stretches, under
// as tight a budget, as its English twin: a Chinese turn is a third of its
// English twin's characters, and a budget in characters would favour it.
// The memory block's framing is the same English text in every language,
// so the budget covers a share of the conversation as rendered: the turns
// with a speaker label and a share of a date line each, plus the block's
// header and footer once.
const (
	defaultShare = 0.2  // the budget, as a share of the conversation
	chunkShare   = 0.08 // the stretch size, as a share of the conversation
	turnFraming  = 16   // a rendered turn's characters beyond its text
	blockFraming = 200  // the memory block's header and footer
)

// languageBudget is the budget and stretch size for conv at share.
func languageBudget(conv *conversation, share float64) (budget, chunk int) {
	chars := conversationChars(conv)
	rendered := chars + turnFraming*len(conv.Turns)
	return int(share*float64(rendered)) + blockFraming, int(chunkShare * float64(chars))
}

// mlFile is the multilingual set as stored.
type mlFile struct {
	About         string   `json:"about"`
	Languages     []string `json:"languages"`
	Conversations []mlConv `json:"conversations"`
}

// mlConv is one conversation in every language: turns alternate user and
// assistant, starting with the user.
type mlConv struct {
	ID        string              `json:"id"`
	Turns     map[string][]string `json:"turns"`
	Questions []mlQuestion        `json:"questions"`
}

// mlQuestion is one question in every language, with its evidence turns.
type mlQuestion struct {
	Evidence []int             `json:"evidence"`
	Text     map[string]string `json:"text"`
}

// parseMultilingual reads and checks a multilingual set: English first,
// every conversation and question in every language, the same number of
// turns in each, and evidence that names a turn.
func parseMultilingual(data []byte) (*mlFile, error) {
	var f mlFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("multilingual set: %w", err)
	}
	if len(f.Languages) < 2 || f.Languages[0] != "en" {
		return nil, errors.New("multilingual set: languages must list English first and at least one other")
	}
	for i, l := range f.Languages {
		if l == "" || slices.Contains(f.Languages[:i], l) {
			return nil, fmt.Errorf("multilingual set: language %q is empty or listed twice", l)
		}
	}
	if len(f.Conversations) == 0 {
		return nil, errors.New("multilingual set: no conversations")
	}
	for _, c := range f.Conversations {
		if err := c.check(f.Languages); err != nil {
			return nil, fmt.Errorf("multilingual set: conversation %q: %w", c.ID, err)
		}
	}
	return &f, nil
}

func (c *mlConv) check(langs []string) error {
	n := len(c.Turns["en"])
	if n == 0 {
		return errors.New("no English turns")
	}
	if len(c.Turns) != len(langs) {
		return fmt.Errorf("turns in %d languages, want %d", len(c.Turns), len(langs))
	}
	for _, l := range langs {
		if len(c.Turns[l]) != n {
			return fmt.Errorf("%d turns in %q, %d in English", len(c.Turns[l]), l, n)
		}
		for i, t := range c.Turns[l] {
			if strings.TrimSpace(t) == "" || !utf8.ValidString(t) {
				return fmt.Errorf("turn %d in %q is empty or not UTF-8", i, l)
			}
		}
	}
	for qi, q := range c.Questions {
		if len(q.Evidence) == 0 || len(q.Text) != len(langs) {
			return fmt.Errorf("question %d: no evidence, or not in every language", qi)
		}
		for _, e := range q.Evidence {
			if e < 0 || e >= n {
				return fmt.Errorf("question %d: evidence %d names no turn", qi, e)
			}
		}
		for _, l := range langs {
			if strings.TrimSpace(q.Text[l]) == "" {
				return fmt.Errorf("question %d has no text in %q", qi, l)
			}
		}
	}
	return nil
}

// in returns the conversation in one language, as the other sections'
// harness reads conversations. Turns are a minute apart on one afternoon,
// so the date annotation runs on them and no pause splits a stretch.
func (c *mlConv) in(lang string, qs []mlQuestion) *conversation {
	start := time.Date(2024, time.May, 14, 15, 0, 0, 0, time.UTC)
	conv := &conversation{ID: c.ID + "/" + lang}
	for i, text := range c.Turns[lang] {
		t := turn{DiaID: fmt.Sprintf("%s:%d", c.ID, i), Session: 1, Role: byheart.User, Speaker: "A",
			Text: text, When: start.Add(time.Duration(i) * time.Minute)}
		if i%2 == 1 {
			t.Role, t.Speaker = byheart.Assistant, "B"
		}
		t.Annotated = byheart.Annotate(t.Text, t.When)
		t.flat, t.flatAnnotated = collapse(t.Text), collapse(t.Annotated)
		conv.Turns = append(conv.Turns, t)
	}
	for _, q := range qs {
		conv.Questions = append(conv.Questions, question{Text: q.Text[lang], Category: 4, Evidence: q.Evidence})
	}
	return conv
}

// multilingualRow is one language's line of the table.
type multilingualRow struct {
	Language  string `json:"language"`
	Questions int    `json:"questions"`
	// Recall is byheart's evidence recall, built-in BM25, fresh selection;
	// RecallTerse the same with each question cut to its content words,
	// RecallShort to at most three of them.
	Recall      float64 `json:"recall"`
	RecallTerse float64 `json:"recall_terse_queries"`
	RecallShort float64 `json:"recall_short_queries"`
	// RecallBM25 and RecallLegacy are byheart's with one BM25 Retriever on
	// this tokenizer and on the one before it: the tokenizer's effect alone.
	RecallBM25   float64 `json:"recall_bm25_retriever"`
	RecallLegacy float64 `json:"recall_bm25_retriever_old_tokenizer"`
	// Twin is the English twin's recall (built-in), and Ratio Recall/Twin;
	// TerseRatio and ShortRatio compare the terse and short queries'
	// recall with the twin's.
	Twin       float64 `json:"english_twin_recall"`
	Ratio      float64 `json:"ratio_to_twin"`
	TerseRatio float64 `json:"terse_ratio_to_twin"`
	ShortRatio float64 `json:"short_ratio_to_twin"`
	// FalseMatch is the share of (question, turn) pairs whose English twins
	// share no term but which share one in this language; FalseMatchLegacy
	// the same under the old tokenizer.
	FalseMatch       float64 `json:"false_match_rate"`
	FalseMatchLegacy float64 `json:"false_match_rate_old_tokenizer"`
	// FalseNotes counts turns the English date annotation wrote on.
	FalseNotes int `json:"false_date_notes"`
}

// multilingualResult is the multilingual section.
type multilingualResult struct {
	Source string            `json:"source"`
	Share  float64           `json:"budget_share"`
	Rows   []multilingualRow `json:"rows"`
}

// findMultilingual locates the multilingual set as findSynthetic does.
func findMultilingual() (string, error) {
	synth, err := findSynthetic()
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(synth, syntheticPath) + multilingualPath, nil
}

func measureMultilingual(path string, share float64, prog *progress) (*multilingualResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parseMultilingual(data)
	if err != nil {
		return nil, err
	}
	res := &multilingualResult{Source: path, Share: share}
	langs := f.Languages
	rows := make([]multilingualRow, len(langs))
	err = parallel(len(langs), &latencies{}, prog, "multilingual", func(i int, _ *latencies) (err error) {
		rows[i], err = measureLanguage(f, langs[i], share)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].Twin = rows[0].Recall
		if rows[i].Twin > 0 {
			rows[i].Ratio = rows[i].Recall / rows[i].Twin
		}
		if rows[0].RecallTerse > 0 {
			rows[i].TerseRatio = rows[i].RecallTerse / rows[0].RecallTerse
		}
		if rows[0].RecallShort > 0 {
			rows[i].ShortRatio = rows[i].RecallShort / rows[0].RecallShort
		}
	}
	res.Rows = rows
	return res, nil
}

// measureLanguage measures one language on every conversation.
func measureLanguage(f *mlFile, lang string, share float64) (multilingualRow, error) {
	row := multilingualRow{Language: lang}
	var sums [5]float64
	var pairs, falseNow, falseThen int
	for i := range f.Conversations {
		c := &f.Conversations[i]
		conv := c.in(lang, c.Questions)
		budget, chunk := languageBudget(conv, share)
		opts := byheart.Options{Budget: budget, Chunk: chunk, Stability: -1}
		runs := []struct {
			retriever byheart.Retriever
			conv      *conversation
		}{{nil, conv}, {nil, terseQuestions(conv, 0)}, {bm25Over(byheart.Terms), conv}, {bm25Over(legacyTerms), conv},
			{nil, terseQuestions(conv, shortWords)}}
		for k, run := range runs {
			o := opts
			o.Retriever = run.retriever
			m := method{name: lang, make: func(int, *latencies) composer { return newByheart(o, &latencies{}) }}
			t, err := recallConversation(run.conv, m, o.Budget, &latencies{})
			if err != nil {
				return row, fmt.Errorf("%s: %w", conv.ID, err)
			}
			sums[k] += t.sum[4]
		}
		row.Questions += len(c.Questions)
		if lang != "en" {
			p, now, then := falseMatches(c, lang)
			pairs, falseNow, falseThen = pairs+p, falseNow+now, falseThen+then
			for _, t := range conv.Turns {
				if t.Annotated != t.Text {
					row.FalseNotes++
				}
			}
		}
	}
	if row.Questions > 0 {
		n := float64(row.Questions)
		row.Recall, row.RecallTerse, row.RecallBM25, row.RecallLegacy = sums[0]/n, sums[1]/n, sums[2]/n, sums[3]/n
		row.RecallShort = sums[4] / n
	}
	if pairs > 0 {
		row.FalseMatch = float64(falseNow) / float64(pairs)
		row.FalseMatchLegacy = float64(falseThen) / float64(pairs)
	}
	return row, nil
}

// terseQuestions returns conv with each question cut to the words that
// carry its topic, as a user typing keywords would ask it: a word stays when
// byheart finds a term in it on its own. A question in a script without
// spaces stays whole but for its punctuation. Such a query holds few stop words, if any, to tell its
// language by: it tests the tokenizer's answer to an unreliable guess. With
// most > 0 it keeps only the first most of those words.
func terseQuestions(conv *conversation, most int) *conversation {
	out := *conv
	out.Questions = slices.Clone(conv.Questions)
	for i, q := range out.Questions {
		var kept []string
		for _, w := range strings.Fields(q.Text) {
			if len(byheart.Terms(w)) > 0 {
				kept = append(kept, strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
			}
		}
		if most > 0 && len(kept) > most {
			kept = kept[:most]
		}
		if len(kept) > 0 {
			out.Questions[i].Text = strings.Join(kept, " ")
		}
	}
	return &out
}

// falseMatches counts, over every question and turn of a conversation whose
// English twins share no term, the pairs and those that share a term in
// lang under this tokenizer and under the old one.
func falseMatches(c *mlConv, lang string) (pairs, now, then int) {
	for _, q := range c.Questions {
		enQ := byheart.Terms(q.Text["en"])
		qNow, qThen := byheart.Terms(q.Text[lang]), legacyTerms(q.Text[lang])
		for i, text := range c.Turns[lang] {
			if shares(enQ, byheart.Terms(c.Turns["en"][i])) {
				continue
			}
			pairs++
			if shares(qNow, byheart.Terms(text)) {
				now++
			}
			if shares(qThen, legacyTerms(text)) {
				then++
			}
		}
	}
	return pairs, now, then
}

func shares(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// bm25Over is a Retriever that ranks stretches with plain RAG's BM25 over
// the terms the given tokenizer finds, so two tokenizers can be compared
// under one scorer.
func bm25Over(terms func(string) []string) byheart.Retriever {
	return byheart.RetrieverFunc(func(_ context.Context, query string, docs []byheart.Document) ([]float64, error) {
		r := newRAG(0)
		r.terms = terms
		for _, d := range docs {
			if err := r.add(&turn{Text: d.Text}); err != nil {
				return nil, err
			}
		}
		scores := make([]float64, len(docs))
		for i, s := range r.scores(query) {
			scores[i] = s
		}
		return scores, nil
	})
}

// shortWords is the length of the short questions: three words, the most a
// user typing into a chat box often gives.
const shortWords = 3

func writeMultilingual(b *strings.Builder, r *multilingualResult) {
	fmt.Fprintf(b, "\n## Languages: evidence recall beside the English twin\n\n"+
		"`%s`: the same conversations in each language. Budget %.0f%% of each conversation's length in that language as rendered, "+
		"stretches %.0f%%; fresh selection. *Terse* questions keep only their content words, as keywords typed into a search box; *short* ones the first three of those. *BM25 retriever* columns rank the stretches with one BM25 on this tokenizer and on "+
		"the one before it; a false match is a question and a turn whose English twins share no term but which share one here.\n\n",
		r.Source, 100*r.Share, 100*chunkShare)
	b.WriteString("| language | questions | recall | ÷ English twin | terse | ÷ English twin | short | ÷ English twin | BM25 retriever | BM25 retriever, old tokenizer | false matches | false matches, old tokenizer | false date notes |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, row := range r.Rows {
		fm, fmOld, notes := percent(row.FalseMatch), percent(row.FalseMatchLegacy), fmt.Sprint(row.FalseNotes)
		if row.Language == "en" {
			fm, fmOld, notes = "—", "—", "—"
		}
		fmt.Fprintf(b, "| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s | %s |\n", row.Language, row.Questions,
			row.Recall, row.Ratio, row.RecallTerse, row.TerseRatio, row.RecallShort, row.ShortRatio, row.RecallBM25, row.RecallLegacy, fm, fmOld, notes)
	}
}
