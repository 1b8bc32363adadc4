package main

import (
	"cmp"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var syntheticFile = filepath.Join("..", syntheticPath)

func TestSyntheticDataIsRegeneratedByteForByte(t *testing.T) {
	requireRegenerated(t, syntheticFile, synthesize())
}

// requireRegenerated fails unless the committed file at path holds got.
func requireRegenerated(t *testing.T, path string, got []byte) {
	t.Helper()
	committed, err := os.ReadFile(path)
	require.NoError(t, err)
	// Compare lengths first so a mismatch does not print megabytes of diff.
	stale := filepath.Base(path) + " is stale: run go generate ./eval"
	require.Equal(t, len(committed), len(got), stale)
	require.True(t, string(committed) == string(got), stale)
}

func TestSyntheticDataIsWhatTheBenchmarkNeeds(t *testing.T) {
	info, err := os.Stat(syntheticFile)
	require.NoError(t, err)
	assert.Less(t, info.Size(), int64(1_500_000), "the file stays modest")

	ds, err := loadFile(syntheticFile)
	require.NoError(t, err)
	assert.Empty(t, ds.BadEvidence)
	assert.Zero(t, ds.NoEvidence)
	require.Len(t, ds.Convs, synthConversations)

	named := 0
	for _, k := range singleHop {
		if k.named {
			named++
		}
	}
	planned := map[int]int{1: 2 * len(multiHop), 2: 2 * len(relativeDates), 3: 2 * len(inferences), 4: 2 * len(singleHop), 5: 2 * named}
	for _, c := range ds.Convs {
		assert.Greater(t, conversationChars(c), 70_000, "%s: selection only matters well above the 20,000 budget", c.ID)
		categories := map[int]int{}
		for _, q := range c.Questions {
			categories[q.Category]++
			switch q.Category {
			case 1:
				require.Len(t, q.Evidence, 2, q.Text)
				assert.Less(t, c.Turns[q.Evidence[0]].Session, c.Turns[q.Evidence[1]].Session, "multi-hop spans sessions: %s", q.Text)
			case 2:
				_, _, reason := parseAnswerDate(q.Answer)
				assert.Contains(t, []string{"", skipWeek}, reason, "%s: %q", q.Text, q.Answer)
			}
		}
		assert.Equal(t, planned, categories, "%s: every planned fact found room", c.ID)
	}
}

// TestSyntheticRecallMatchesLoCoMo keeps the shipped data honest: on it,
// each method's evidence recall at the default budget lies within 0.05 of
// its recall on the LoCoMo dev conversations, measured in the same run, and
// the methods rank in the same order. Data on which single-turn matching is
// easy would tell a newcomer the wrong story.
func TestSyntheticRecallMatchesLoCoMo(t *testing.T) {
	locomo := loadLoCoMo(t)
	synth, err := loadFile(syntheticFile)
	require.NoError(t, err)
	const budget = 20000
	quiet := &progress{w: io.Discard}
	want, err := measureRecall(locomo, budget, &latencies{}, quiet)
	require.NoError(t, err)
	got, err := measureRecall(synth, budget, &latencies{}, quiet)
	require.NoError(t, err)
	for i, w := range want.Rows {
		t.Logf("%-16s LoCoMo %.3f  synthetic %.3f", w.Method, w.Recall14, got.Rows[i].Recall14)
		assert.InDelta(t, w.Recall14, got.Rows[i].Recall14, 0.05, "%s: recall over categories 1–4", w.Method)
	}
	assert.Equal(t, ranked(want), ranked(got), "methods in order of recall")
}

// ranked returns the methods of r, best recall first.
func ranked(r *recallResult) []string {
	rows := slices.Clone(r.Rows)
	slices.SortStableFunc(rows, func(a, b recallRow) int { return cmp.Compare(b.Recall14, a.Recall14) })
	var names []string
	for _, row := range rows {
		names = append(names, row.Method)
	}
	return names
}

// TestSyntheticFactsAreParaphrasedButTheirExchangeIsNot pins what makes the
// data realistic for retrieval: a share of single-hop evidence turns shares
// no term with the question (LoCoMo's dev file: 13%), while nearly every
// one of those has a neighbour in its session that does (LoCoMo: 99%); and
// most second hops of multi-hop questions share none (LoCoMo: 34%).
func TestSyntheticFactsAreParaphrasedButTheirExchangeIsNot(t *testing.T) {
	ds, err := loadFile(syntheticFile)
	require.NoError(t, err)
	var single, alone, singleNone, secondNone, seconds int
	for _, c := range ds.Convs {
		for _, q := range c.Questions {
			switch q.Category {
			case 4:
				e := q.Evidence[0]
				single++
				if sharesTerm(q.Text, c.Turns[e]) {
					continue
				}
				singleNone++
				anchored := false
				for i := max(0, e-3); i < min(len(c.Turns), e+4); i++ {
					anchored = anchored || c.Turns[i].Session == c.Turns[e].Session && sharesTerm(q.Text, c.Turns[i])
				}
				if !anchored {
					alone++
				}
			case 1:
				seconds++
				if !sharesTerm(q.Text, c.Turns[q.Evidence[1]]) {
					secondNone++
				}
			}
		}
	}
	assert.InDelta(t, 0.2, ratio(float64(singleNone), single), 0.1, "single-hop evidence sharing no term with its question")
	assert.Less(t, ratio(float64(alone), singleNone), 0.1, "of those, evidence with no neighbour sharing a term")
	assert.Greater(t, ratio(float64(secondNone), seconds), 0.4, "second hops sharing no term with their question")
}

func sharesTerm(question string, t turn) bool {
	terms := byheart.Terms(t.Annotated)
	for _, w := range byheart.Terms(question) {
		if slices.Contains(terms, w) {
			return true
		}
	}
	return false
}

func TestSyntheticQuestionsComeInLoCoMoOrder(t *testing.T) {
	ds, err := loadFile(syntheticFile)
	require.NoError(t, err)
	group := map[int]int{1: 0, 2: 0, 3: 0, 4: 1, 5: 2}
	for _, c := range ds.Convs {
		for i := 1; i < len(c.Questions); i++ {
			a, b := c.Questions[i-1], c.Questions[i]
			require.LessOrEqual(t, group[a.Category], group[b.Category], "%s: categories 1–3, then 4, then 5", c.ID)
			if group[a.Category] == group[b.Category] {
				assert.LessOrEqual(t, a.Evidence[0], b.Evidence[0], "%s: %q before %q", c.ID, a.Text, b.Text)
			}
		}
	}
}

func TestRelativeDatesResolveAsSaid(t *testing.T) {
	thursday := day(2023, 5, 25)
	got := map[string]string{}
	for _, rd := range relativeDates {
		got[rd.say] = rd.answer(thursday, 6, false) // Saturday
	}
	assert.Equal(t, "24 May 2023", got["Guess what, I {0} yesterday!"])
	assert.Equal(t, "20 May 2023", got["Last {weekday} I {0}. What a day that was."])
	assert.Equal(t, "23 May 2023", got["Two days ago I {0}, and it went better than I hoped."])
	assert.Equal(t, "April 2023", got["I {0} last month, did I ever tell you?"])
	assert.Equal(t, "2022", got["I {0} last year, and I'd love to do it again."])
	assert.Equal(t, "The week before 25 May 2023", got["I {0} last week, it was quite something."])
	assert.Equal(t, "The Saturday before 25 May 2023", lastWeekday(thursday, 6, true))
	assert.Equal(t, "18 May 2023", lastWeekday(thursday, 4, false), "last Thursday, said on a Thursday, is a week back")
	assert.Equal(t, "February 2023", relativeDates[5].answer(day(2023, 3, 31), 0, false), "no day overflow at the end of a month")
}
