package main

import (
	"strings"
	"testing"

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

	tally := externalTally{arms: make([]armTally, len(admissions))}
	opts := byheart.Options{Budget: 20000, Stability: -1, External: &fixedSource{}}
	require.NoError(t, tally.endToEnd(conv, q, offered, answer, opts, &latencies{}))
	assert.Equal(t, 1, tally.answerable)

	never, rule4, always := tally.arms[0], tally.arms[1], tally.arms[2]
	assert.Equal(t, armTally{answered: 1}, never,
		"nothing from outside, yet the answer reaches the model: a later turn of the conversation names Pickle")
	assert.Equal(t, armTally{evidence: 1, answered: 1, junkItems: 1, junkChars: len(matching.Text)}, always,
		"always admit sends the evidence and the junk that shares a word with the question, never the junk that shares none")
	assert.LessOrEqual(t, rule4.evidence, always.evidence)
	assert.LessOrEqual(t, rule4.junkChars, always.junkChars)
	assert.Zero(t, tally.overruns)
}
