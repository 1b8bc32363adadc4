package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/pricing"
)

// askOptions are the ask command's own flags.
type askOptions struct {
	text    bool   // print every part's text
	asJSON  bool   // print the Result as JSON instead
	outside string // a JSON file of outside items to offer, or ""
}

// comparisons are the -compare flag's names for byheart's comparisons.
var comparisons = map[string]byheart.Comparison{
	"either":       byheart.CompareEither,
	"stretch":      byheart.CompareStretch,
	"window":       byheart.CompareWindow,
	"coverage":     byheart.CompareCoverage,
	"terms":        byheart.CompareItemTerms,
	"gain":         byheart.CompareGain,
	"heaviest":     byheart.CompareHeaviestTerm,
	"context":      byheart.CompareContextTerm,
	"either-query": byheart.CompareEitherQuery,
}

// ask prints what the model would receive for question: every part with its
// size, where the cache breakpoint is, and the stretches chosen with their
// scores.
func ask(w io.Writer, path, question string, opts byheart.Options, ao askOptions) error {
	conv, err := read(path)
	if err != nil {
		return err
	}
	var items []byheart.Item
	if ao.outside != "" {
		if items, err = readItems(ao.outside); err != nil {
			return err
		}
		opts.External = byheart.ExternalFunc(func(context.Context, string) ([]byheart.Item, error) { return items, nil })
	}
	m, err := conv.memory(path, opts)
	if err != nil {
		return err
	}
	// The call is made at the newest turn's time, as Compose makes it; the
	// tables judge expiry by the same clock.
	clock := conv.newest()
	r, err := m.ComposeAt(context.Background(), question, clock)
	if err != nil {
		return err
	}
	if ao.asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	var b strings.Builder
	turns := make([]byheart.Turn, len(conv.turns))
	chars := 0
	for i, t := range conv.turns {
		turns[i] = shown(t.Turn, clock)
		chars += utf8.RuneCountInString(t.Text)
	}
	bounds := m.Bounds()
	fmt.Fprintf(&b, "%s: %s turns, %s characters, %s stretches. Budget: %s characters.\n\n",
		path, thousands(len(turns)), thousands(chars), thousands(len(bounds)), thousands(budgetOf(opts)))
	writeParts(&b, r, question)
	writeStretches(&b, r, turns, spans(bounds, len(turns)), question)
	if ao.outside != "" {
		writeOutside(&b, r, items)
	}
	if ao.text {
		writeTexts(&b, r)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// expiredText is what the library shows in an expired turn's place.
const expiredText = "[expired]"

// shown is t as a call at clock shows it: an expired turn (see
// byheart.Turn.Expires) says expiredText, so that no table quotes or
// scores the words it no longer says.
func shown(t byheart.Turn, clock time.Time) byheart.Turn {
	if !t.Expires.IsZero() && !clock.IsZero() && !t.Expires.After(clock) {
		t.Text = expiredText
	}
	return t
}

// flatPart is one part of a Result with its message's role.
type flatPart struct {
	role byheart.Role
	text string
}

func flatten(r byheart.Result) []flatPart {
	var parts []flatPart
	for _, msg := range r.Messages {
		for _, p := range msg.Parts {
			parts = append(parts, flatPart{msg.Role, p.Text})
		}
	}
	return parts
}

func writeParts(b *strings.Builder, r byheart.Result, question string) {
	parts := flatten(r)
	fmt.Fprintf(b, "What the model receives for %q: %d messages, %d parts.\n\n", question, len(r.Messages), len(parts))
	b.WriteString("part  role         characters  tokens  begins\n")
	stable, context := 0, 0
	for i, p := range parts {
		n := utf8.RuneCountInString(p.text)
		note := ""
		switch {
		case i == r.StableUpto:
			note = "  ← cache breakpoint"
		case i == len(parts)-1:
			note = "  ← the question"
		}
		fmt.Fprintf(b, "%4d  %-11s  %10s  %6s  %s%s\n", i, p.role, thousands(n), thousands(tokens(n)), preview(p.text, 48), note)
		if i <= r.StableUpto {
			stable += n
		}
		if i < len(parts)-1 {
			context += n
		}
	}
	b.WriteString("\n")
	if r.StableUpto >= 0 {
		fmt.Fprintf(b, "Cacheable prefix: parts 0–%d, %s characters (%s tokens), byte for byte the same until the next rebuild.\n",
			r.StableUpto, thousands(stable), thousands(tokens(stable)))
	} else {
		b.WriteString("No part is stable: there is nothing to cache.\n")
	}
	rebuilt := "no: the kept selection still serves"
	if r.Reselected() {
		rebuilt = "yes"
	}
	fmt.Fprintf(b, "Context: %s characters (%s tokens), plus the question. Rebuilt for this call: %s.\n", thousands(context), thousands(tokens(context)), rebuilt)
	if r.ExternalErr != nil {
		fmt.Fprintf(b, "Outside material failed: %v\n", r.ExternalErr)
	}
}

func writeStretches(b *strings.Builder, r byheart.Result, turns []byheart.Turn, stretches []span, question string) {
	fmt.Fprintf(b, "\nStretches in the context: %d of %d, in time order (turns numbered from 0, as Memory.Turn numbers them).\n\n", len(r.Included), len(stretches))
	if len(r.Included) == 0 {
		return
	}
	b.WriteString("stretch  turns        characters  said on             score  matches\n")
	sc := newScorer(turns, stretches)
	for _, first := range r.Included {
		i := stretchOf(stretches, first)
		st := stretches[i]
		n := 0
		for _, t := range turns[st.first:st.end] {
			n += utf8.RuneCountInString(t.Text)
		}
		said := "—"
		if when := turns[st.first].Time; !when.IsZero() {
			said = when.Format("2 Jan 2006 15:04")
		}
		score, matched := sc.score(question, i)
		fmt.Fprintf(b, "%7d  %-11s  %10s  %-17s  %6.2f  %s\n", i, fmt.Sprintf("%d–%d", st.first, st.end-1), thousands(n), said, score, strings.Join(matched, ", "))
	}
	b.WriteString("\nScore: BM25 (k1 1.2, b 0.75) of the stretch, dates resolved, against the question, over all stretches,\n" +
		"computed by this tool; the library ranks with its own BM25, which also spreads scores to neighbouring\n" +
		"stretches, so near ties can order differently. Matches are the question's terms the stretch holds.\n")
}

// stretchOf returns the index of the stretch starting at turn first.
func stretchOf(stretches []span, first int) int {
	for i, st := range stretches {
		if st.first <= first && first < st.end {
			return i
		}
	}
	return len(stretches) - 1
}

func writeTexts(b *strings.Builder, r byheart.Result) {
	for i, p := range flatten(r) {
		fmt.Fprintf(b, "\n--- part %d, %s, %s characters ---\n%s\n", i, p.role, thousands(utf8.RuneCountInString(p.text)), p.text)
	}
}

// preview is the start of text on one line, at most n characters.
func preview(text string, n int) string {
	flat := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(flat) <= n {
		return flat
	}
	return string([]rune(flat)[:n-1]) + "…"
}

// tokens is a size in characters as tokens, as a provider roughly counts
// them.
func tokens(chars int) int { return (chars + pricing.CharsPerToken/2) / pricing.CharsPerToken }

func budgetOf(opts byheart.Options) int {
	if opts.Budget > 0 {
		return opts.Budget
	}
	return byheart.DefaultBudget
}

// thousands groups an integer's digits: 12345 → "12,345".
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// readItems reads outside material: a JSON array of items with a text and
// a source.
func readItems(path string) ([]byheart.Item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw []struct {
		Text   string `json:"text"`
		Source string `json:"source"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: want a JSON array of {\"text\": …, \"source\": …}: %w", path, err)
	}
	items := make([]byheart.Item, len(raw))
	for i, it := range raw {
		items[i] = byheart.Item{Text: it.Text, Source: it.Source}
	}
	return items, nil
}

// writeOutside shows rule 4's decision on each offered item.
func writeOutside(b *strings.Builder, r byheart.Result, items []byheart.Item) {
	fmt.Fprintf(b, "\nOutside material: %d items offered, %d weighed.\n\n", len(items), len(r.Outside))
	if len(r.Outside) == 0 {
		return
	}
	b.WriteString("item  source                 score  against  from turn  admitted  sent  begins\n")
	for _, a := range r.Outside {
		turn := "—"
		if a.Turn >= 0 {
			turn = fmt.Sprint(a.Turn)
		}
		fmt.Fprintf(b, "%4d  %-20s  %6.2f  %7.2f  %9s  %-8s  %-4s  %s\n", a.Item, preview(a.Source, 20), a.Score, a.Against, turn,
			admitted(a), yesNo(a.Sent), preview(items[a.Item].Text, 40))
	}
	b.WriteString("\nAn item is admitted when its score plus the margin beats what it was compared against, on one index:\n" +
		"by default the better of its score to the conversation's best stretch's and its weight of the question to\n" +
		"that of the heaviest question term the context holds, against 1 (its share of the question's weight\n" +
		"against 0 when the context holds none); or the best stretch, or the conversation's best window of the\n" +
		"item's length (see -compare), which starts at the turn shown. A covered item won its comparison but holds\n" +
		"no question term the better items admitted before it lack. An admitted item is sent when it fits the\n" +
		"room the budget leaves.\n")
}

// admitted is the admitted column: yes, no, or covered (see
// byheart.Admission).
func admitted(a byheart.Admission) string {
	if a.Covered {
		return "covered"
	}
	return yesNo(a.Admitted)
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
