package main

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/pricing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tok returns a part of the given size in tokens, made of one letter.
func tok(letter string, n int) part {
	return part{byheart.User, strings.Repeat(letter, n*pricing.CharsPerToken)}
}

// scripted is a composer that returns prepared calls and logs the order in
// which the harness drives it.
type scripted struct {
	log   []string
	calls []call
}

func (s *scripted) add(t *turn) error {
	s.log = append(s.log, "add "+t.Text)
	return nil
}

func (s *scripted) compose(query string) (call, error) {
	s.log = append(s.log, "compose "+query)
	c := s.calls[0]
	s.calls = s.calls[1:]
	return c, nil
}

func TestReplayComposesBeforeEachUserTurnAndPricesTheCall(t *testing.T) {
	conv := tinyConversation()
	block := tok("m", 2000)
	q := func(i int) part { return part{byheart.User, conv.Turns[i].Text} }
	s := &scripted{calls: []call{
		{parts: []part{block, q(0)}, breakpoint: 0, reselected: true},
		{parts: []part{block, {byheart.Assistant, conv.Turns[1].Text}, q(2)}, breakpoint: 1},
		{parts: []part{block, q(4)}, breakpoint: 0},
	}}
	m := method{name: "scripted", selects: true, make: func(int, *latencies) composer { return s }}

	got, err := replayConversation(conv, m, 1000, &latencies{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"compose " + conv.Turns[0].Text, "add " + conv.Turns[0].Text, "add " + conv.Turns[1].Text,
		"compose " + conv.Turns[2].Text, "add " + conv.Turns[2].Text, "add " + conv.Turns[3].Text,
		"compose " + conv.Turns[4].Text, "add " + conv.Turns[4].Text, "add " + conv.Turns[5].Text,
	}, s.log, "a user turn is the query before it is appended; assistant turns are only appended")

	tokensOf := func(i int) float64 { return tokens([]part{{text: conv.Turns[i].Text}}) }
	first := 1.25*2000 + tokensOf(0)
	second := 0.1*2000 + 1.25*tokensOf(1) + tokensOf(2)
	third := 1.25*2000 + tokensOf(4) // session 2 starts cold
	assert.Equal(t, 3, got.calls)
	assert.Equal(t, 1, got.warm, "only the second call is not the first of its session")
	assert.Equal(t, 1, got.hits)
	assert.Equal(t, 1, got.warmHits)
	assert.Equal(t, 1, got.rebuilds)
	assert.InDelta(t, first+second+third, got.effective, 1e-9)
	assert.InDelta(t, 3*2000+tokensOf(0)+tokensOf(1)+tokensOf(2)+tokensOf(4), got.prompt, 1e-9)
	assert.Equal(t, 2, got.withPrevious, "the first call has no previous turn")
	assert.Equal(t, 1, got.continuity, "the third call lost the previous turn")
	assert.Equal(t, 3, got.overruns, "every context is over a 1,000-character budget")

	row := got.row(m)
	assert.InDelta(t, (first+second+third)/3, row.EffectiveTokens, 1e-9)
	assert.InDelta(t, 1.0/3, row.HitRate, 1e-9)
	assert.InDelta(t, 1.0, row.WarmHitRate, 1e-9)
	assert.InDelta(t, 1-second/(2000+tokensOf(1)+tokensOf(2)), row.WarmSaving, 1e-9, "the saving counts warm calls only")
	assert.InDelta(t, 0.5, row.Continuity, 1e-9)
	require.NotNil(t, row.Rebuilds)
	assert.Equal(t, 1, *row.Rebuilds)
	assert.Nil(t, got.row(fullHistory).Rebuilds, "baselines have no selection to rebuild")
}

func TestRecallScoresTheShareOfEvidenceInTheContext(t *testing.T) {
	conv := tinyConversation()
	// Room for the last two turns only: turn 4 is evidence, turn 0 is not in.
	budget := len("Ana: Pickle chewed my new boots.\n") + len("Bo: Classic beagle behaviour.\n")
	got, err := recallConversation(conv, recencyWindow, budget, &latencies{})
	require.NoError(t, err)
	assert.InDelta(t, 0.0, got.sum[4], 1e-9)
	assert.InDelta(t, 0.5, got.sum[1], 1e-9, "one of the multi-hop question's two evidence turns")
	assert.InDelta(t, 0.0, got.sum[2], 1e-9)
	assert.Equal(t, 3, got.compositions)
	assert.Equal(t, 0, got.overruns)

	row := got.row("recency window")
	assert.InDelta(t, 0.5/3, row.Recall14, 1e-9, "1–4 is the mean over questions, not over categories")
	assert.Equal(t, 1, row.Categories[0].Questions)
	assert.Equal(t, 0, row.Categories[4].Questions)

	all, err := recallConversation(conv, fullHistory, budget, &latencies{})
	require.NoError(t, err)
	assert.InDelta(t, 1.0, all.row("full").Recall14, 1e-9)
	assert.Equal(t, 3, all.overruns, "the whole history does not fit")
}

func TestJunkNeverComesFromTheConversationItself(t *testing.T) {
	shared := "We should really get the band back together this summer."
	home := &conversation{ID: "home", Turns: []turn{
		mkTurn("D1:1", "A", byheart.User, shared+" What do you think?", ""),
		mkTurn("D1:2", "B", byheart.Assistant, "Ok!", ""),
	}}
	away := &conversation{ID: "away", Turns: []turn{
		mkTurn("D1:1", "C", byheart.User, shared, ""),
		mkTurn("D1:2", "D", byheart.Assistant, "Short one.", ""),
		mkTurn("D1:3", "C", byheart.User, "A long enough line about something else entirely, for the pool.", ""),
	}}
	pool := junkPool(&dataset{Convs: []*conversation{home, away}}, home)
	assert.Equal(t, []string{"A long enough line about something else entirely, for the pool."}, pool,
		"a turn contained in the conversation, or a short one, is never junk")
}

func TestJunkDrawsAreDistinctAndRepeatable(t *testing.T) {
	pool := strings.Fields("a b c d e f g h i j k l")
	conv := &conversation{ID: "c"}
	first := draw(newRNG(seed(conv, 3)), pool, 5, "")
	again := draw(newRNG(seed(conv, 3)), pool, 5, "")
	assert.Equal(t, first, again)
	seen := map[string]bool{}
	for _, it := range first {
		assert.False(t, seen[it.Text])
		seen[it.Text] = true
		assert.Equal(t, "junk", it.Source)
	}
	assert.NotEqual(t, first, draw(newRNG(seed(conv, 4)), pool, 5, ""), "each question gets its own pool")
	assert.Len(t, draw(newRNG(1), pool[:2], 5, ""), 2, "a small pool gives what it has")
}

func TestJunkNeverHoldsTheAnswer(t *testing.T) {
	pool := []string{"We went to Lisbon in May.", "Lisbon-bound, again!", "Nothing here.", "A Lisbonian pastry.", "Also nothing."}
	for q := range 20 {
		items := draw(newRNG(uint64(q)), pool, 5, normalizeAnswer("lisbon"))
		var texts []string
		for _, it := range items {
			texts = append(texts, it.Text)
		}
		assert.ElementsMatch(t, []string{"Nothing here.", "A Lisbonian pastry.", "Also nothing."}, texts,
			"the answer is matched as whole words, whatever its case and punctuation")
	}
}

func TestWrittenAnswerIsFoundAsWholeWordsInTheEvidence(t *testing.T) {
	conv := tinyConversation()
	for _, tc := range []struct {
		answer   string
		evidence []int
		want     string
	}{
		{"Pickle", []int{0}, " pickle "},
		{"pickle!", []int{2, 4}, " pickle "},
		{"a beagle called Pickle", []int{0}, " a beagle called pickle "},
		{"Pick", []int{0}, ""},
		{"Pickle", []int{2}, ""},
		{"8 May 2023", []int{0}, ""},
		{"it", []int{0}, ""},
	} {
		got := writtenAnswer(conv, question{Answer: tc.answer, Evidence: tc.evidence})
		assert.Equal(t, tc.want, got, "%q in turns %v", tc.answer, tc.evidence)
	}
}

func TestEndToEndTalliesWhatEachPolicySent(t *testing.T) {
	conv := tinyConversation()
	q := question{Text: "What did Ana call the beagle she adopted?", Answer: "Pickle", Category: 4, Evidence: []int{0}}
	matching := byheart.Item{Text: "Our beagle club meets on Sundays by the river.", Source: "junk"}
	unrelated := byheart.Item{Text: "Nothing in common with the question here.", Source: "junk"}
	offered := []byheart.Item{matching, {Text: conv.Turns[0].Text, Source: "evidence"}, unrelated}
	answer := writtenAnswer(conv, q)
	require.Equal(t, " pickle ", answer)

	tally := externalTally{arms: newArms()}
	opts := byheart.Options{Budget: 20000, Stability: -1, External: &fixedSource{}}
	require.NoError(t, tally.endToEnd(conv, q, offered, answer, opts, &latencies{}))
	assert.Equal(t, 1, tally.answerable)

	never, rule4, always := tally.arms[0], tally.arms[1], tally.arms[len(admissions)-1]
	require.Equal(t, ruleFour, admissions[1].name)
	require.Equal(t, alwaysAdmit, admissions[len(admissions)-1].name)
	// evidence, admissible, answered, junk items, junk characters
	counts := func(a armTally) [5]int { return [5]int{a.evidence, a.admissible, a.answered, a.junkItems, a.junkChars} }
	assert.Equal(t, [5]int{0, 0, 1, 0, 0}, counts(never),
		"nothing from outside, yet the answer reaches the model: a later turn of the conversation names Pickle")
	assert.Equal(t, [5]int{1, 1, 1, 1, len(matching.Text)}, counts(always),
		"always admit sends the evidence and the junk that shares a word with the question, never the junk that shares none")
	assert.Equal(t, 1, tally.admissible, "always admit brought the evidence")
	for i, a := range admissions {
		if a.form() {
			require.Len(t, tally.arms[i].neededGaps, 1, "%s: one gap per question, read from Result.Outside", a.name)
			assert.Equal(t, tally.arms[i].evidence == 1, tally.arms[i].neededGaps[0] < 0,
				"%s: the evidence reached the context just when a zero margin admits it", a.name)
		}
	}
	assert.LessOrEqual(t, rule4.evidence, always.evidence)
	assert.LessOrEqual(t, rule4.junkChars, always.junkChars)
	assert.Zero(t, tally.overruns)
}

func TestLeaveOneOutChoosesEachFoldsMarginOnTheOthers(t *testing.T) {
	// Three conversations whose evidence needs a margin above 1 to be
	// admitted, and whose junk a margin above 2 lets in; the third's junk
	// is let in by any margin above 0.5.
	conv := func(needed, junk float64) externalTally {
		arms := newArms()
		for i, a := range admissions {
			if !a.form() {
				continue
			}
			for q := 0; q < 20; q++ {
				arms[i].neededGaps = append(arms[i].neededGaps, needed)
				for j := range junkSizes {
					arms[i].junkGaps[j] = append(arms[i].junkGaps[j], junk)
				}
			}
		}
		return externalTally{arms: arms}
	}
	runs := []externalTally{conv(1, 2), conv(1, 2), conv(1, 0.5)}
	rows := leaveOneOut(runs)
	require.NotEmpty(t, rows)
	// The stretch's grid is in BM25 units, up to 8.
	const stretch = "rule 4, stretch"
	for _, row := range rows {
		if row.Policy != stretch {
			continue
		}
		// Left out, the third conversation's fold sees only junk at 2, so it
		// chooses 2, the one margin of the grid that admits the evidence
		// (above 1) and rejects that junk; the others' folds see junk at 0.5
		// in half their questions, so they admit no evidence, at the margin
		// nearest zero.
		assert.Equal(t, []float64{0, 0, 2}, row.Chosen)
		assert.InDelta(t, 0.0, row.NeededAtZero, 1e-9)
		assert.InDelta(t, 1.0/3, row.Needed, 1e-9, "only the third fold's margin admits its evidence")
		assert.InDelta(t, 2.0/3, row.JunkRejected[0], 1e-9, "and lets its junk in")
		return
	}
	t.Fatalf("no row for %s", stretch)
}

func TestKnowledgeBaseAnswersEachQuestionInOneParagraph(t *testing.T) {
	kb, err := findKnowledge()
	require.NoError(t, err, "loadKnowledge checks every answer is written in its paragraph and no other")
	answered, neither := 0, 0
	for _, q := range kb.Questions {
		if q.Paragraph == "" {
			neither++
			continue
		}
		answered++
		found := slices.ContainsFunc(kb.search(q.Question), func(it byheart.Item) bool { return it.Source == q.Paragraph })
		assert.True(t, found, "the search finds the paragraph answering %q", q.Question)
	}
	assert.GreaterOrEqual(t, answered, 15)
	assert.GreaterOrEqual(t, neither, 5)
	for _, p := range kb.Paragraphs {
		n := utf8.RuneCountInString(p.Text)
		assert.True(t, n >= 300 && n <= 800, "%s: %d characters, not a help page's paragraph", p.ID, n)
	}
}
