package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// claim sets one of the reference's published numbers beside this run's
// nearest measurement. The two are rarely the same experiment, so each says
// what ours measures.
type claim struct {
	Claim  string `json:"claim"`
	Theirs string `json:"theirs"`
	Ours   string `json:"ours"`
}

// claims are the published numbers of byheart-python 0.1.0, the library this
// one ports; they are theirs, measured on their setup.
func claims(r *results) []claim {
	var out []claim
	if r.Recall != nil {
		fresh, rag := findRecall(r.Recall, byheartFresh.name), findRecall(r.Recall, plainRAG.name)
		out = append(out, claim{"stretches over single turns, evidence recall", "+0.10",
			fmt.Sprintf("%+.2f (byheart fresh vs plain RAG, categories 1–4)", fresh.Recall14-rag.Recall14)})
	}
	if r.Replay != nil {
		sticky, rag := findReplay(r.Replay, byheartDefault.name), findReplay(r.Replay, plainRAG.name)
		out = append(out,
			claim{"per-turn bill on a warm cache", "−90.8%",
				fmt.Sprintf("−%.1f%% (byheart default, warm calls: effective against uncached prompt tokens)", 100*sticky.WarmSaving)},
			claim{"effective tokens per turn, byheart vs plain RAG", "740 vs 2,320",
				fmt.Sprintf("%s vs %s", thousands(sticky.EffectiveTokens), thousands(rag.EffectiveTokens))})
	}
	if r.External != nil {
		out = append(out, claim{"junk rejected / needed admitted", "92% / 89%",
			fmt.Sprintf("%s / %s", percent(r.External.Rows[0].Share), percent(r.External.Rows[1].Share))})
	}
	if r.Temporal != nil {
		all := r.Temporal.Rows[len(r.Temporal.Rows)-1]
		gain := ratio(float64(all.Annotated-all.Raw), all.Questions)
		out = append(out, claim{"date annotation on time-anchored questions", "+11 points (answer accuracy)",
			fmt.Sprintf("%+.0f points (answer date in or beside the evidence, annotated vs raw)", 100*gain)})
	}
	return out
}

func findRecall(r *recallResult, name string) recallRow {
	for _, row := range r.Rows {
		if row.Method == name {
			return row
		}
	}
	return recallRow{}
}

func findReplay(r *replayResult, name string) replayRow {
	for _, row := range r.Rows {
		if row.Method == name {
			return row
		}
	}
	return replayRow{}
}

// writeMarkdown prints the tables of every section that ran.
func writeMarkdown(w io.Writer, r *results) error {
	var b strings.Builder
	d := r.Data
	fmt.Fprintf(&b, "# byheart benchmark\n\nData: `%s`: %s conversations, %s turns, %s questions. Budget: %s characters.\n",
		d.Source, thousands(float64(d.Conversations)), thousands(float64(d.Turns)), thousands(float64(d.Questions)), thousands(float64(r.Budget)))
	if len(d.BadEvidence) > 0 || d.NoEvidence > 0 {
		fmt.Fprintf(&b, "\nSkipped: %d evidence ids that name no turn (%s); %d questions left without evidence, which count nowhere.\n",
			len(d.BadEvidence), strings.Join(d.BadEvidence, ", "), d.NoEvidence)
	}
	if r.Recall != nil {
		writeRecall(&b, r.Recall)
	}
	if r.Temporal != nil {
		writeTemporal(&b, r.Temporal)
	}
	if r.Replay != nil {
		writeReplay(&b, r.Replay)
	}
	if r.Live != nil {
		writeLive(&b, r.Live)
	}
	if r.LOCO != nil {
		writeLOCO(&b, r.LOCO)
	}
	if r.Window != nil {
		writeWindow(&b, r.Window)
	}
	if r.Bill != nil {
		writeBill(&b, r.Bill)
	}
	if r.Policies != nil {
		writePolicies(&b, r.Policies)
	}
	if r.External != nil {
		writeExternal(&b, r.External)
	}
	if r.Speed != nil {
		writeSpeed(&b, r.Speed)
	}
	if r.Multilingual != nil {
		writeMultilingual(&b, r.Multilingual)
	}
	if r.Attacks != nil {
		writeAttacks(&b, r.Attacks)
	}
	if r.Shapes != nil {
		writeShapes(&b, r.Shapes)
	}
	if len(r.Claims) > 0 {
		b.WriteString("\n## The reference's published claims (theirs) beside this run\n\n")
		b.WriteString("| claim | theirs (byheart-python 0.1.0) | ours (this run) |\n|---|---|---|\n")
		for _, c := range r.Claims {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Claim, c.Theirs, c.Ours)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeRecall(b *strings.Builder, r *recallResult) {
	fmt.Fprintf(b, "\n## Evidence recall at %s characters\n\n", thousands(float64(r.Budget)))
	b.WriteString("Per question, the share of its evidence turns whose text reaches the context; the mean over questions.\n\n")
	b.WriteString("| method |")
	for c := 1; c <= 5; c++ {
		fmt.Fprintf(b, " %d %s |", c, categoryNames[c])
	}
	b.WriteString(" 1–4 | mean context | over budget |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	if len(r.Rows) > 0 {
		b.WriteString("| *questions* |")
		n14 := 0
		for _, c := range r.Rows[0].Categories {
			fmt.Fprintf(b, " %s |", thousands(float64(c.Questions)))
			if c.Category <= 4 {
				n14 += c.Questions
			}
		}
		fmt.Fprintf(b, " %s | | |\n", thousands(float64(n14)))
	}
	for _, row := range r.Rows {
		fmt.Fprintf(b, "| %s |", row.Method)
		for _, c := range row.Categories {
			fmt.Fprintf(b, " %.3f |", c.Recall)
		}
		fmt.Fprintf(b, " **%.3f** | %s | %s of %s |\n", row.Recall14, thousands(row.MeanContextChars), thousands(float64(row.Overruns)), thousands(float64(row.Compositions)))
	}
	fmt.Fprintf(b, "\nFull history is %s characters per conversation on average (%.1f× the budget).\n",
		thousands(r.FullHistoryChars), r.FullHistoryChars/float64(r.Budget))
}

func writeTemporal(b *strings.Builder, r *temporalResult) {
	b.WriteString("\n## Temporal\n\n")
	b.WriteString("Temporal questions whose gold answer names one day, month or year: is that date written in or beside one of the evidence turns? ")
	b.WriteString("*Annotated* is the turn as byheart indexes and renders it (`Annotate`), *raw* as it was said, ")
	b.WriteString("and *with the block's date* also counts the date line the memory block writes above every stretch and change of day.\n\n")
	b.WriteString("| answer names | questions | annotated | raw | with the block's date |\n|---|---:|---:|---:|---:|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", row.Names, thousands(float64(row.Questions)),
			percent(ratio(float64(row.Annotated), row.Questions)), percent(ratio(float64(row.Raw), row.Questions)),
			percent(ratio(float64(row.Dated), row.Questions)))
	}
	writeWrongNotes(b, r)
	if len(r.Skipped) == 0 {
		return
	}
	reasons := map[string]int{}
	var order []string
	for _, s := range r.Skipped {
		if reasons[s.Reason] == 0 {
			order = append(order, s.Reason)
		}
		reasons[s.Reason]++
	}
	var parts []string
	for _, reason := range order {
		parts = append(parts, fmt.Sprintf("%d %s", reasons[reason], reason))
	}
	fmt.Fprintf(b, "\nSkipped %d of %d temporal answers: %s.\n\n<details><summary>Skipped answers</summary>\n\n",
		len(r.Skipped), r.Temporal, strings.Join(parts, ", "))
	var answers []string
	for _, s := range r.Skipped {
		answers = append(answers, strconv.Quote(s.Answer))
	}
	b.WriteString(strings.Join(answers, ", "))
	b.WriteString("\n\n</details>\n")
}

// writeWrongNotes reports the notes that disagree with the gold answer and
// lists them, so a reader can tell a wrong note from a wrong gold answer.
func writeWrongNotes(b *strings.Builder, r *temporalResult) {
	fmt.Fprintf(b, "\nNotes that disagree with the gold answer: %d of %d counted questions whose evidence carries a note (%s): ",
		len(r.Wrong), r.Noted, percent(ratio(float64(len(r.Wrong)), r.Noted)))
	b.WriteString("no note beside the evidence overlaps the answer, and the answer is not the day the evidence was said. ")
	b.WriteString("A note giving two readings counts as naming neither in the table above. ")
	fmt.Fprintf(b, "Of them, notes the text contradicts: %d of %d (%s); a note after a weekday's name that names that weekday, within two weeks of the day said, ",
		r.Contradicted, r.Noted, percent(ratio(float64(r.Contradicted), r.Noted)))
	b.WriteString("agrees with its words, and then the gold answer is what disagrees (marked *vouched by the text* below); every other disagreeing note counts as contradicted.\n")
	if len(r.Wrong) == 0 {
		return
	}
	b.WriteString("\n<details><summary>Disagreeing notes</summary>\n\n")
	for _, w := range r.Wrong {
		vouch := ""
		if w.Vouched {
			vouch = " (vouched by the text)"
		}
		fmt.Fprintf(b, "- %s: answer %q, notes %q%s\n", w.Conversation, w.Answer, w.Notes, vouch)
	}
	b.WriteString("\n</details>\n")
}

func writeReplay(b *strings.Builder, r *replayResult) {
	fmt.Fprintf(b, "\n## Live replay at %s characters\n\n", thousands(float64(r.Budget)))
	b.WriteString("Each user turn is composed as the query (byheart told its time: `ComposeAt`), then appended; every call is priced as a provider would ")
	b.WriteString("(tokens = characters / 4; a cached prefix of ≥ 1,024 tokens read at 0.1×, newly cached tokens written at 1.25×, the rest 1×; each session starts cold). ")
	if len(r.Rows) > 0 {
		fmt.Fprintf(b, "%s calls per method. ", thousands(float64(r.Rows[0].Calls)))
	}
	b.WriteString("*Warm-call saving* is the share of the uncached bill the cache saves on calls that are not the first of a session; *previous turn present* is continuity.\n\n")
	b.WriteString("| method | prompt tokens/call | effective tokens/call | × plain RAG | warm-call saving | cache hits | warm-call hits | rebuilds | previous turn present | over budget | mean context | max context |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	rag := findReplay(r, plainRAG.name)
	for _, row := range r.Rows {
		rebuilds := "—"
		if row.Rebuilds != nil {
			rebuilds = thousands(float64(*row.Rebuilds))
		}
		fmt.Fprintf(b, "| %s | %s | **%s** | %.2f | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			row.Method, thousands(row.PromptTokens), thousands(row.EffectiveTokens),
			ratio(row.EffectiveTokens, rag.EffectiveTokens), percent(row.WarmSaving), percent(row.HitRate), percent(row.WarmHitRate), rebuilds,
			percent(row.Continuity), thousands(float64(row.Overruns)), thousands(row.MeanContextChars), thousands(float64(row.MaxContextChars)))
	}
}

func writeExternal(b *strings.Builder, r *externalResult) {
	b.WriteString("\n## External admission\n\n")
	b.WriteString("*Junk*: the External source returns turns of the other conversations; rejected when none reaches the context. ")
	b.WriteString("*Needed*: the question's evidence turns are left out at ingest and the source returns them among junk; admitted when one reaches the context. ")
	fmt.Fprintf(b, "*Admissible*: always admit brings one. Categories 1–4, %s, default margin.\n\n", ruleFour)
	b.WriteString("| test | items per fetch | questions | result | target |\n|---|---|---:|---:|---:|\n")
	for _, row := range r.Rows {
		target := ""
		if row.Target > 0 {
			target = "≥ " + percent(row.Target)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", row.Test, row.Items, thousands(float64(row.Questions)), percent(row.Share), target)
	}
	fmt.Fprintf(b, "\nExternal errors: %s. Compositions over budget: %s.\n", thousands(float64(r.ExternalErrors)), thousands(float64(r.Overruns)))
	writeAdmissions(b, r)
	writeMargins(b, r.Margins)
	writeKnowledge(b, r.Knowledge)
}

func writeAdmissions(b *strings.Builder, r *externalResult) {
	if len(r.Admissions) == 0 {
		return
	}
	b.WriteString("\n### Rule 4 end to end, form by form\n\n")
	b.WriteString("The needed test under every policy: no outside material; rule 4's forms (the default margin): by default, the item against the conversation's best stretch or, by the query's weight it holds, against the heaviest query term the composed context holds; against the best stretch alone; against the conversation's best window of the item's own length; by the share of the query's weight the item and that window each hold; against that window on the query terms the item holds; by the query's weight the item holds that the best stretch lacks; against the query's heaviest term; against the context's heaviest term alone; and the previous default, the best stretch or the query's heaviest term; and admitting every offered item that shares a term with the question (an infinite margin). ")
	fmt.Fprintf(b, "*Evidence in context*: an evidence turn reached the context (categories 1–4, %s questions); *of admissible*: over the %s where always admit brings one. ", thousands(float64(r.Rows[0].Questions)), thousands(float64(r.Admissible)))
	fmt.Fprintf(b, "*Answer in context*: the gold answer reached it, from the conversation or from outside, over the %s questions whose answer an evidence turn writes out (junk never holds it). ", thousands(float64(r.Answerable)))
	b.WriteString("*Junk* is what of the offered junk reached the context, per question; *junk rejected* the junk test at 1, 5 and 10 items.\n\n")
	b.WriteString("| policy | evidence in context | of admissible | answer in context | junk items | junk characters | junk vs always admit | junk rejected (1 / 5 / 10) |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
	always := r.admission(alwaysAdmit)
	for _, row := range r.Admissions {
		var rejected []string
		for _, v := range row.JunkRejected {
			rejected = append(rejected, percent(v))
		}
		fmt.Fprintf(b, "| %s | %.3f | %s | %.3f | %.2f | %s | %s | %s |\n", row.Policy, row.EvidenceInContext, percent(row.NeededAdmitted), row.AnswerInContext,
			row.JunkItems, thousands(row.JunkChars), percent(ratio(row.JunkChars, always.JunkChars)), strings.Join(rejected, " / "))
	}
	rule4 := r.admission(ruleFour)
	fmt.Fprintf(b, "\nTargets: %s within 0.05 of always admit's evidence in context (%s: %+.3f) and 0.03 of its answer in context (%s: %+.3f), with at most 10%% of its junk characters (%s: %s).\n",
		ruleFour, verdict(always.EvidenceInContext-rule4.EvidenceInContext <= 0.05), rule4.EvidenceInContext-always.EvidenceInContext,
		verdict(always.AnswerInContext-rule4.AnswerInContext <= 0.03), rule4.AnswerInContext-always.AnswerInContext,
		verdict(rule4.JunkChars <= 0.1*always.JunkChars), percent(ratio(rule4.JunkChars, always.JunkChars)))
}

func writeMargins(b *strings.Builder, rows []marginRow) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n### Each form's margin, left one conversation out\n\n")
	b.WriteString("For each conversation in turn, the margin admitting the most evidence while rejecting 95% of junk at every size on the other conversations, measured on the one left out (read from each item's `Admission`, before the budget's room decides what is sent), beside the default margin, zero.\n\n")
	b.WriteString("| policy | margins chosen | needed admitted | junk rejected (1 / 5 / 10) | at zero: needed | at zero: junk rejected |\n|---|---|---:|---|---:|---|\n")
	shares := func(v []float64) string {
		var out []string
		for _, x := range v {
			out = append(out, percent(x))
		}
		return strings.Join(out, " / ")
	}
	for _, row := range rows {
		var chosen []string
		for _, mu := range row.Chosen {
			chosen = append(chosen, fmt.Sprintf("%g", mu))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", row.Policy, strings.Join(chosen, ", "), percent(row.Needed), shares(row.JunkRejected),
			percent(row.NeededAtZero), shares(row.JunkRejectedAtZero))
	}
}

func writeKnowledge(b *strings.Builder, k *kbResult) {
	if k == nil {
		return
	}
	b.WriteString("\n### A knowledge base as the source\n\n")
	fmt.Fprintf(b, "The project's own help pages and FAQ (%s), found by keyword search (the %d paragraphs sharing the most terms with the question), with the whole conversation in memory. ", knowledgePath, kbHits)
	fmt.Fprintf(b, "*Needed*: %s questions only a paragraph answers (the search finds that paragraph for %s); admitted when it reaches the context. ", thousands(float64(k.Needed)), percent(k.Retrieved))
	fmt.Fprintf(b, "*Junk rejected*: over the %s of the conversation's %s questions the search found paragraphs for, none reached it; *conversation's answer*: over its %s answerable questions, the answer still did. ", thousands(float64(k.Offered)), thousands(float64(k.Conv)), thousands(float64(k.Answerable)))
	fmt.Fprintf(b, "*Unanswerable*: of %s questions neither answers, a paragraph came along anyway. *Junk characters*: paragraphs that do not answer, per question.\n\n", thousands(float64(k.Neither)))
	b.WriteString("| policy | needed admitted | answer in context | junk rejected | conversation's answer | unanswerable, with a paragraph | junk characters | vs always admit |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	always := k.row(alwaysAdmit)
	for _, row := range k.Rows {
		fmt.Fprintf(b, "| %s | %s | %.3f | %s | %.3f | %s | %s | %s |\n", row.Policy, percent(row.NeededAdmitted), row.AnswerInContext, percent(row.JunkRejected),
			row.ConversationAnswer, percent(row.Unanswerable), thousands(row.JunkChars), percent(ratio(row.JunkChars, always.JunkChars)))
	}
}

// verdict says whether a target was met.
func verdict(met bool) string {
	if met {
		return "met"
	}
	return "missed"
}

func writeSpeed(b *strings.Builder, r *speedResult) {
	b.WriteString("\n## Speed\n\nEvery `Compose` and `Append` call of the runs above, timed.\n\n")
	b.WriteString("| call | calls | median | p99 | max |\n|---|---:|---:|---:|---:|\n")
	for _, row := range []struct {
		name string
		s    latencySummary
	}{{"Compose", r.Compose}, {"Append", r.Append}} {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", row.name, thousands(float64(row.s.Calls)), micros(row.s.Median), micros(row.s.P99), micros(row.s.Max))
	}
	if len(r.Growth) > 0 {
		b.WriteString("\n| turns in memory | `Compose` median | `Append` median |\n|---|---:|---:|\n")
		for _, g := range r.Growth {
			to := "…"
			if g.ToTurns > 0 {
				to = strconv.Itoa(g.ToTurns - 1)
			}
			fmt.Fprintf(b, "| %d–%s | %s | %s |\n", g.FromTurns, to, median(g.Compose), median(g.Append))
		}
	}
	var parts []string
	for _, s := range r.Sections {
		parts = append(parts, fmt.Sprintf("%s %.1f s", s.Section, s.Seconds))
	}
	fmt.Fprintf(b, "\nSections: %s. Whole program: %.1f s.\n", strings.Join(parts, ", "), r.Seconds)
}

// median prints a summary's median, or a dash when there were no calls.
func median(s latencySummary) string {
	if s.Calls == 0 {
		return "—"
	}
	return micros(s.Median)
}

// thousands rounds f and groups its digits: 12345.6 → "12,346".
func thousands(f float64) string {
	s := strconv.FormatInt(int64(math.Round(f)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

// micros prints a latency given in µs, to a sensible precision.
func micros(us float64) string {
	switch {
	case us >= 1000:
		return strconv.FormatFloat(us/1000, 'f', 1, 64) + " ms"
	case us >= 10:
		return strconv.FormatFloat(us, 'f', 0, 64) + " µs"
	}
	return strconv.FormatFloat(us, 'f', 1, 64) + " µs"
}
