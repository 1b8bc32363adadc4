package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoCoMoGuards runs the measurements on the LoCoMo dev file and holds
// byheart to the numbers the project promises at a 20,000-character budget:
// evidence recall over categories 1–4 of at least 0.90 when composing fresh
// and 0.86 for the default (0.82 at 10,000 and 0.76 at 5,000), no
// composition over the budget, a live replay that costs at most 30% of
// plain RAG's effective tokens per call, the live chat with questions in
// it (see the floors below), and relative dates resolved beside the
// evidence of day, month and year answers (floors: 0.84 in the annotations
// alone, 0.92 with the date line the block writes above a turn, and at
// most 2.5% of questions with notes beside their evidence whose notes all
// disagree with the gold answer).
//
// The file is read from $BYHEART_LOCOMO, or from ../shared/locomo beside the
// repository; it is never copied into the repository.
func TestLoCoMoGuards(t *testing.T) {
	start := time.Now()
	ds := loadLoCoMo(t)
	const budget = 20000
	res, err := measure(ds, budget, map[string]bool{"recall": true, "temporal": true, "replay": true, "live": true, "external": true}, nil, &progress{w: io.Discard})
	require.NoError(t, err)
	t.Logf("LoCoMo measurements took %s", time.Since(start).Round(time.Millisecond))

	fresh := findRecall(res.Recall, byheartFresh.name)
	assert.GreaterOrEqual(t, fresh.Recall14, 0.90, "byheart fresh evidence recall over categories 1–4")
	def := findRecall(res.Recall, byheartDefault.name)
	// 0.875 on the dev file at the Stability that leave-one-conversation-out
	// chooses (0.15), where recalls go past the breakpoint, a stretch must
	// match the query beyond chance, and a query may recall what a fresh
	// selection would show; 0.865 when it recalled only from a rebuild's
	// half of the room, and 0.859 for the rule that kept recalls in the log.
	assert.GreaterOrEqual(t, def.Recall14, 0.87, "byheart default (questions in order) evidence recall over categories 1–4")

	// At small budgets a rebuild's block grows to the query's best
	// stretches and recalls the rest at once: the default keeps the
	// issue's 0.84 at 10,000 (0.846 on the dev file) and 0.76 at 5,000
	// (0.790), floored here a little under the dev run's.
	for _, b := range []struct {
		budget int
		floor  float64
	}{{10000, 0.84}, {5000, 0.78}} {
		small, err := measureRecall(ds, b.budget, &latencies{}, &progress{w: io.Discard})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, findRecall(small, byheartDefault.name).Recall14, b.floor, "byheart default evidence recall over categories 1–4 at %d characters", b.budget)
	}

	for _, name := range []string{byheartFresh.name, byheartDefault.name} {
		assert.Zero(t, findRecall(res.Recall, name).Overruns, "%s: compositions over the budget while answering questions", name)
		assert.Zero(t, findReplay(res.Replay, name).Overruns, "%s: compositions over the budget in the live replay", name)
	}
	assert.Zero(t, res.External.Overruns, "compositions over the budget with an External source")
	// Rule 4's default, on what the dev and synthetic runs share: junk kept
	// out at every size, little of always admit's junk let in, and the
	// knowledge base's answers admitted.
	rule4, always := res.External.admission(ruleFour), res.External.admission(alwaysAdmit)
	for i, n := range junkSizes {
		assert.GreaterOrEqual(t, rule4.JunkRejected[i], 0.95, "rule 4: junk rejected with %d junk items per fetch", n)
	}
	assert.LessOrEqual(t, rule4.JunkChars, 0.10*always.JunkChars, "rule 4: junk characters against always admit's")
	assert.GreaterOrEqual(t, rule4.EvidenceInContext, 0.55, "rule 4: evidence the conversation lacks, admitted (0.559 on the dev file, 0.676 on the synthetic set)")
	kb := res.External.Knowledge.row(ruleFour)
	assert.GreaterOrEqual(t, kb.NeededAdmitted, 0.85, "knowledge base: paragraphs that alone answer the question, admitted")
	assert.GreaterOrEqual(t, kb.ConversationAnswer, res.External.Knowledge.row("never admit").ConversationAnswer,
		"knowledge base: admitted paragraphs never push the conversation's answer out")

	dates := res.Temporal.Rows[len(res.Temporal.Rows)-1]
	assert.GreaterOrEqual(t, ratio(float64(dates.Annotated), dates.Questions), 0.84,
		"day/month/year answers written in an evidence turn's annotations (0.856 on the dev file)")
	assert.GreaterOrEqual(t, ratio(float64(dates.Dated), dates.Questions), 0.92,
		"day/month/year answers written in or beside an evidence turn")
	assert.LessOrEqual(t, ratio(float64(len(res.Temporal.Wrong)), res.Temporal.Noted), 0.025,
		"questions whose notes all disagree with the gold answer: %v", res.Temporal.Wrong)
	assert.LessOrEqual(t, ratio(float64(res.Temporal.Contradicted), res.Temporal.Noted), 0.01,
		"questions whose notes the text contradicts: %v", res.Temporal.Wrong)

	sticky, rag := findReplay(res.Replay, byheartDefault.name), findReplay(res.Replay, plainRAG.name)
	assert.LessOrEqual(t, sticky.EffectiveTokens, 0.30*rag.EffectiveTokens,
		"live replay: byheart's effective tokens per call against plain RAG's")
	assert.Equal(t, 1.0, sticky.Continuity, "live replay: the previous turn reaches every call")
	// Warm-call hits are reported, not floored: effective tokens per call
	// already price every miss.

	// The live chat with questions in it. The default's floor is what
	// leave-one-conversation-out gives a held-out conversation on average
	// (0.883 over the seven, the lowest 0.791), rounded down, not the dev
	// run's 0.883; its bill is the one the setting was chosen under (0.29
	// on the dev run). In every category it is at least plain RAG's
	// (multi-hop 0.624 against 0.611, the closest).
	live := map[string]liveRow{}
	for _, row := range res.Live.Rows {
		live[row.Method] = row
	}
	ld, lf, lk, lr := live[byheartDefault.name], live[byheartFresh.name], live[keepOrRebuild.name], live[plainRAG.name]
	assert.GreaterOrEqual(t, ld.Recall.Recall14, 0.88, "live chat with questions: byheart default's recall over categories 1–4")
	assert.GreaterOrEqual(t, lf.Recall.Recall14, 0.90, "live chat with questions: byheart fresh's recall over categories 1–4")
	assert.LessOrEqual(t, ld.Bill.EffectiveTokens, 0.30*lr.Bill.EffectiveTokens, "live chat with questions: byheart default's bill against plain RAG's")
	assert.Greater(t, ld.Recall.Recall14, lr.Recall.Recall14, "live chat with questions: byheart default against plain RAG")
	for c := range 4 {
		assert.GreaterOrEqual(t, ld.Recall.Categories[c].Recall, lk.Recall.Categories[c].Recall,
			"live chat with questions, %s: byheart default against keep or rebuild", ld.Recall.Categories[c].Name)
		assert.GreaterOrEqual(t, ld.Recall.Categories[c].Recall, lr.Recall.Categories[c].Recall,
			"live chat with questions, %s: byheart default against plain RAG", ld.Recall.Categories[c].Name)
	}
	assert.Zero(t, ld.Recall.Overruns+ld.Bill.Overruns, "live chat with questions: compositions over the budget")
}

// loadLoCoMo reads the LoCoMo dev file from $BYHEART_LOCOMO, or from
// ../shared/locomo beside the repository, and skips the test when there is
// none, or with -short.
func loadLoCoMo(t *testing.T) *dataset {
	t.Helper()
	if testing.Short() {
		t.Skip("the LoCoMo run takes seconds; skipped with -short")
	}
	path := os.Getenv("BYHEART_LOCOMO")
	if path == "" {
		path = filepath.Join("..", "..", "shared", "locomo", "locomo-dev.json")
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no LoCoMo file at %s (set BYHEART_LOCOMO to run it): %v", path, err)
	}
	ds, err := loadFile(path)
	require.NoError(t, err)
	return ds
}
