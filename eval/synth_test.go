package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var syntheticFile = filepath.Join("..", syntheticPath)

func TestSyntheticDataIsRegeneratedByteForByte(t *testing.T) {
	committed, err := os.ReadFile(syntheticFile)
	require.NoError(t, err)
	// Compare lengths first so a mismatch does not print a megabyte of diff.
	got := synthesize()
	require.Equal(t, len(committed), len(got), "testdata/synthetic.json is stale: run go generate ./eval")
	require.True(t, string(committed) == string(got), "testdata/synthetic.json is stale: run go generate ./eval")
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

	categories := map[int]int{}
	for _, c := range ds.Convs {
		assert.Greater(t, conversationChars(c), 50_000, "%s: selection only matters well above the 20,000 budget", c.ID)
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
	}
	for cat := range categoryNames {
		assert.Positive(t, categories[cat], "category %d is represented", cat)
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
