package main

import (
	"math"
	"strconv"
	"strings"
)

// Rendering an assistant-shaped conversation's turns: the user's requests
// around what was planted in them, and the assistant's markdown answers.

// Answer lengths are log-normal: median asstAnswerMedian characters, and
// the 90th percentile e^(1.2816·asstAnswerSigma) times that.
const (
	asstAnswerMedian = 3800
	asstAnswerSigma  = 0.26
)

// renderUser writes the user's turn: what was planted (a standing
// instruction first, since it opens its turn), the request, and sometimes
// pasted code or a log.
func (c *asstConv) renderUser(r *rng, ex *exchange) {
	var parts []string
	if ex.said != "" {
		parts = append(parts, ex.said)
	}
	request := []string{c.subst(r, pick(r, requests), ex.subject, "", ex.term, "")}
	if ex.followUp || !ex.used && r.intn(100) < asstFollowUps {
		request = []string{pick(r, followUps)}
	}
	for range contextSentences(r) {
		request = append(request, c.subst(r, pick(r, requestContext), ex.subject, "", ex.term, ""))
	}
	if r.intn(100) < 60 {
		parts = append(parts, ex.pre...)
		parts = append(parts, request...)
	} else {
		parts = append(parts, request...)
		parts = append(parts, ex.pre...)
	}
	ex.user = strings.Join(parts, " ")
	if r.intn(100) < asstPaste {
		ex.user += "\n\n" + pick(r, pasteIntros) + "\n\n" + c.codeBlock(r, ex.subject, ex.term)
	}
}

// contextSentences is how many sentences of context a request gets: most
// users add two or three, some write a paragraph.
func contextSentences(r *rng) int {
	switch k := r.intn(100); {
	case k < 3:
		return 0
	case k < 13:
		return 1
	case k < 38:
		return 2
	case k < 65:
		return 3
	case k < 85:
		return 4 + r.intn(4)
	}
	return 7 + r.intn(4)
}

// normal draws from the standard normal distribution (Box–Muller).
func normal(r *rng) float64 {
	u1 := (float64(r.next()>>11) + 0.5) / (1 << 53)
	u2 := float64(r.next()>>11) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// answerWriter builds one answer.
type answerWriter struct {
	c      *asstConv
	r      *rng
	b      strings.Builder
	s, s2  string // the subject asked about, and another
	t, t2  string // the term asked about, and another
	code   bool   // the answer holds code
	blocks int    // code blocks written
}

func (w *answerWriter) sentence() string {
	return strings.ReplaceAll(w.c.subst(w.r, pick(w.r, proseSentences), w.s, w.s2, w.t, ""), "{t2}", w.t2)
}

func (w *answerWriter) paragraph(n int) {
	var ss []string
	for range n {
		ss = append(ss, w.sentence())
	}
	w.b.WriteString(upperFirst(strings.Join(ss, " ")) + "\n\n")
}

// renderAnswer writes the assistant's answer: an opening that restates
// the request (and a fact just said, when echoed), then sections of prose,
// lists, tables and code until it reaches its drawn length, then a
// closing, or the question a later turn answers.
func (c *asstConv) renderAnswer(r *rng, ex *exchange, _ bool) {
	target := int(asstAnswerMedian * math.Exp(asstAnswerSigma*normal(r)))
	if ex.huge {
		target = asstHugeChars
	}
	w := &answerWriter{c: c, r: r, s: ex.subject, s2: pick(r, c.subjects), t: ex.term, t2: pick(r, c.dom.terms)}
	w.code = ex.huge || r.intn(100) < c.dom.codeShare
	w.paragraph(2 + r.intn(3))
	for _, e := range ex.echo {
		w.b.WriteString(pick(r, echoOpeners) + " " + lowerFirst(strings.TrimSuffix(e, ".")) + ", " + w.sentence() + "\n\n")
	}
	odd := r.intn(100) < asstOddLines
	inserted := false
	for w.b.Len() < target-300 || w.code && w.blocks == 0 {
		w.section()
		if !inserted && len(ex.insert) > 0 {
			w.b.WriteString(strings.Join(ex.insert, " ") + " " + w.sentence() + "\n\n")
			inserted = true
		}
		if odd {
			w.oddLines()
			odd = false
		}
	}
	if !inserted && len(ex.insert) > 0 {
		w.b.WriteString(strings.Join(ex.insert, " ") + "\n\n")
	}
	if ex.cue != "" {
		w.b.WriteString("One question before you go further: " + ex.cue)
	} else {
		w.b.WriteString(pick(r, closings))
	}
	ex.answer = w.b.String()
}

var echoOpeners = []string{"Since", "Given that", "Because", "Knowing that"}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z' {
		return s
	}
	return string(s[0]-'A'+'a') + s[1:]
}

// section writes one part of an answer: a heading and prose, a list, a
// table or a code block.
func (w *answerWriter) section() {
	r := w.r
	switch k := r.intn(100); {
	case w.code && (w.blocks == 0 && k < 60 || k < 22):
		w.b.WriteString(w.sentence() + "\n\n" + w.c.codeBlock(r, w.s, w.t) + "\n\n")
		w.blocks++
	case k < 40:
		w.b.WriteString("## " + pick(r, headings) + "\n\n")
		w.paragraph(2 + r.intn(3))
	case k < 60:
		for range 3 + r.intn(4) {
			w.b.WriteString("- **" + pick(r, bulletLeads) + "**: " + w.sentence() + "\n")
		}
		w.b.WriteString("\n")
	case k < 80:
		for i := range 3 + r.intn(4) {
			w.b.WriteString(string(rune('1'+i)) + ". " + w.sentence() + "\n")
		}
		w.b.WriteString("\n")
	default:
		w.table()
	}
}

// table writes a comparison table.
func (w *answerWriter) table() {
	r := w.r
	w.b.WriteString("| option | " + w.t + " | " + w.t2 + " | when it fits |\n|---|---|---|---|\n")
	levels := []string{"low", "medium", "high", "depends"}
	for range 3 + r.intn(3) {
		w.b.WriteString("| " + pick(r, w.c.dom.tools) + " | " + pick(r, levels) + " | " + pick(r, levels) + " | " + pick(r, fits) + " " + w.s + " |\n")
	}
	w.b.WriteString("\n")
}

var fits = []string{"a first version of", "a larger", "a short-lived", "a team-wide", "a careful rework of", "an urgent fix to"}

// oddLines writes what real answers hold and a guard may mark: a
// horizontal rule, or a program's output whose lines open with a
// speaker's word.
func (w *answerWriter) oddLines() {
	if w.r.intn(2) == 0 {
		w.b.WriteString("---\n\n")
		return
	}
	out := strings.NewReplacer("{n}", "3", "{id}", ident(w.s, false), "{s}", w.s).Replace(pick(w.r, sampleOutputs))
	w.b.WriteString("Running it prints:\n\n```text\n" + out + "\n```\n\n")
}

// codeBlock writes a fenced block in one of the domain's languages.
func (c *asstConv) codeBlock(r *rng, s, t string) string {
	lang := pick(r, c.dom.langs)
	body := strings.NewReplacer("{id}", ident(s, false), "{Id}", ident(s, true), "{s}", s, "{t}", t,
		"{n}", strconv.Itoa(3+r.intn(60)), "{tool}", pick(r, c.dom.tools)).Replace(pick(r, codeBlocks[lang]))
	return "```" + langFence[lang] + "\n" + body + "\n```"
}

// ident turns a subject into an identifier: "the billing API" becomes
// billing_api, or BillingAPI when exported.
func ident(s string, exported bool) string {
	var words []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if f != "the" && f != "s" {
			words = append(words, f)
		}
	}
	if !exported {
		return strings.Join(words, "_")
	}
	for i, wd := range words {
		words[i] = upperFirst(wd)
	}
	return strings.Join(words, "")
}
