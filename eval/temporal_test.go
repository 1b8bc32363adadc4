package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestParseAnswerDateReadsLoCoMoAnswers(t *testing.T) {
	cases := []struct {
		answer string
		want   span
		prec   precision
	}{
		{"7 May 2023", daySpan(day(2023, 5, 7)), dayPrecision},
		{" 23 July, 2023", daySpan(day(2023, 7, 23)), dayPrecision},
		{"August 9, 2022", daySpan(day(2022, 8, 9)), dayPrecision},
		{"5 November, 2022.", daySpan(day(2022, 11, 5)), dayPrecision},
		{"On 21 July 2023", daySpan(day(2023, 7, 21)), dayPrecision},
		{"2023-05-07", daySpan(day(2023, 5, 7)), dayPrecision},
		// 25 May 2023 was a Thursday; the Sunday before it is the 21st.
		{"The sunday before 25 May 2023", daySpan(day(2023, 5, 21)), dayPrecision},
		{"The Friday before 10July, 2022.", daySpan(day(2022, 7, 8)), dayPrecision},
		{"The sunday before 3` July 2023", daySpan(day(2023, 7, 2)), dayPrecision},
		// A weekday before the same weekday is a week back, not the same day.
		{"The Thursday before 25 May 2023", daySpan(day(2023, 5, 18)), dayPrecision},
		{"June 2023", monthSpan(2023, 6), monthPrecision},
		{"May, 2023", monthSpan(2023, 5), monthPrecision},
		{"April.2023", monthSpan(2023, 4), monthPrecision},
		{"In September, 2022", monthSpan(2022, 9), monthPrecision},
		{"November, 2023.", monthSpan(2023, 11), monthPrecision},
		{"2022", yearSpan(2022), yearPrecision},
		{"In 2021", yearSpan(2021), yearPrecision},
	}
	for _, tc := range cases {
		got, prec, reason := parseAnswerDate(tc.answer)
		if assert.Empty(t, reason, tc.answer) {
			assert.Equal(t, tc.want, got, tc.answer)
			assert.Equal(t, tc.prec, prec, tc.answer)
		}
	}
}

func TestParseAnswerDateSkipsWhatIsNotOneDayMonthOrYear(t *testing.T) {
	for answer, reason := range map[string]string{
		"The week before 9 June 2023":               skipWeek,
		"The weekend after 3June, 2022.":            skipWeek,
		"two weekends before 17 July 2023":          skipWeek,
		"first week of May 2023":                    skipWeek,
		"three years":                               skipOther,
		"Since 2016":                                skipOther,
		"13 August":                                 skipOther,
		"Januarty 5, 2024":                          skipOther,
		"around April 2, 2023":                      skipOther,
		"between October 19 and 24, 2023":           skipOther,
		"November 5-6, 2022":                        skipOther,
		"31 February 2023":                          skipOther,
		"Seattle":                                   skipOther,
		"":                                          skipOther,
		"The Friday before the big day":             skipOther,
		"On the night of October 30 to 31, 2022":    skipOther,
		"The summer of 2022":                        skipOther,
		"They rented an apartment near McGee's bar": skipOther,
	} {
		_, _, got := parseAnswerDate(answer)
		assert.Equal(t, reason, got, answer)
	}
}

func TestNamesAcceptsAMentionInsideTheAnswer(t *testing.T) {
	text := "I ran the race last Saturday [20 May 2023], the week after the fair."
	assert.True(t, names(text, daySpan(day(2023, 5, 20))))
	assert.True(t, names(text, monthSpan(2023, 5)), "a day names its month")
	assert.True(t, names(text, yearSpan(2023)), "and its year")
	assert.False(t, names(text, daySpan(day(2023, 5, 21))))

	month := "We moved last month [April 2023]."
	assert.True(t, names(month, monthSpan(2023, 4)))
	assert.False(t, names(month, daySpan(day(2023, 4, 1))), "a month does not name a day")

	assert.True(t, names("It was back in 2022, I think.", yearSpan(2022)))
	assert.True(t, names("on May 20th, 2023", daySpan(day(2023, 5, 20))))
	assert.True(t, names("[2023-05-20]", daySpan(day(2023, 5, 20))))
	assert.False(t, names("I may 20 times have said it in 2023", daySpan(day(2023, 5, 20))), "a date needs its parts in a date's order")
	assert.False(t, names("Room 2023, floor 5", yearSpan(2022)))
}

func TestMeasureTemporalComparesAnnotatedWithRaw(t *testing.T) {
	conv := &conversation{ID: "c", Turns: []turn{
		mkTurn("D1:1", "Ana", "user", "I ran last Saturday.", "I ran last Saturday [20 May 2023]."),
		mkTurn("D1:2", "Bo", "assistant", "In June 2023 we met.", "In June 2023 we met."),
		mkTurn("D2:1", "Ana", "user", "We just got back from Oslo.", "We just got back from Oslo."),
	}}
	conv.Turns[2].When = time.Date(2023, time.July, 3, 14, 0, 0, 0, time.UTC)
	conv.Questions = []question{
		{Answer: "July 2023", Category: 2, Evidence: []int{2}},
		{Answer: "20 May 2023", Category: 2, Evidence: []int{0}},
		{Answer: "June 2023", Category: 2, Evidence: []int{1}},
		{Answer: "2022", Category: 2, Evidence: []int{0, 1}},
		{Answer: "The week before 9 June 2023", Category: 2, Evidence: []int{0}},
		{Answer: "20 May 2023", Category: 4, Evidence: []int{0}},
	}
	res := measureTemporal(&dataset{Convs: []*conversation{conv}})
	assert.Equal(t, 5, res.Temporal)
	assert.Equal(t, []temporalRow{
		{Names: "a day", Questions: 1, Annotated: 1, Raw: 0, Dated: 1},
		{Names: "a month", Questions: 2, Annotated: 1, Raw: 1, Dated: 2},
		{Names: "a year", Questions: 1, Annotated: 0, Raw: 0, Dated: 0},
		{Names: "all counted", Questions: 4, Annotated: 2, Raw: 1, Dated: 3},
	}, res.Rows, "the day a turn was said, shown above it in the block, counts beside it")
	assert.Equal(t, []skippedAnswer{{"c", "The week before 9 June 2023", skipWeek}}, res.Skipped)
}

func TestInsertedNotesFindsOnlyWhatAnnotateAdded(t *testing.T) {
	cases := []struct {
		name, text, annotated string
		want                  []string
	}{
		{"no notes", "Nothing here.", "Nothing here.", nil},
		{"one note", "I ran last Saturday.", "I ran last Saturday [20 May 2023].", []string{"20 May 2023"}},
		{"a caption is text, not a note", "Look [shares a photo: a dog]", "Look [shares a photo: a dog]", nil},
		{"a note right before a caption", "I ran yesterday [shares a photo: a race]",
			"I ran yesterday [24 May 2023] [shares a photo: a race]", []string{"24 May 2023"}},
		{"two notes, one with two readings", "last week and next Friday",
			"last week [week of 15 May 2023] and next Friday [26 May or 2 June 2023]",
			[]string{"week of 15 May 2023", "26 May or 2 June 2023"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, insertedNotes(c.text, c.annotated))
		})
	}
}

func TestNoteSpansReadEveryForm(t *testing.T) {
	said := time.Date(2023, time.May, 24, 15, 0, 0, 0, time.UTC)
	cases := []struct {
		note string
		want []span
	}{
		{"20 May 2023", []span{daySpan(day(2023, 5, 20))}},
		{"week of 15 May 2023", []span{{day(2023, 5, 15), day(2023, 5, 21)}}},
		{"weekend of 20 May 2023", []span{{day(2023, 5, 20), day(2023, 5, 21)}}},
		{"about the week of 8 May 2023", []span{{day(2023, 5, 8), day(2023, 5, 14)}}},
		{"June 2023", []span{monthSpan(2023, 6)}},
		{"2022", []span{yearSpan(2022)}},
		{"summer 2022", []span{{day(2022, 6, 1), day(2022, 8, 31)}}},
		{"winter 2022-2023", []span{{day(2022, 12, 1), day(2023, 2, 28)}}},
		{"since 2020", []span{{day(2020, 1, 1), day(2023, 5, 24)}}},
		{"until 27 May 2023", []span{{day(2023, 5, 24), day(2023, 5, 27)}}},
		{"2 or 9 June 2023", []span{daySpan(day(2023, 6, 2)), daySpan(day(2023, 6, 9))}},
		{"26 May or 2 June 2023", []span{daySpan(day(2023, 5, 26)), daySpan(day(2023, 6, 2))}},
		{"30 December 2023 or 6 January 2024", []span{daySpan(day(2023, 12, 30)), daySpan(day(2024, 1, 6))}},
		{"May 2022 or May 2023", []span{monthSpan(2022, 5), monthSpan(2023, 5)}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, noteSpans(c.note, said), c.note)
	}
}

func TestMeasureTemporalCountsTheDayATurnWasSaidWhateverItsHour(t *testing.T) {
	conv := &conversation{ID: "c", Turns: []turn{
		mkTurn("D1:1", "Ana", "user", "I just got the job!", "I just got the job!"),
	}}
	conv.Turns[0].When = time.Date(2023, time.May, 27, 19, 56, 0, 0, time.UTC)
	conv.Questions = []question{{Answer: "27 May, 2023", Category: 2, Evidence: []int{0}}}
	res := measureTemporal(&dataset{Convs: []*conversation{conv}})
	assert.Equal(t, 1, res.Rows[0].Dated, "a turn said at 19:56 on 27 May was said on 27 May")
}

func TestMeasureTemporalScoresNotesStrictly(t *testing.T) {
	said := time.Date(2023, time.May, 24, 15, 0, 0, 0, time.UTC)
	conv := &conversation{ID: "c", Turns: []turn{
		mkTurn("D1:1", "Ana", "user", "See you next Friday.", "See you next Friday [26 May or 2 June 2023]."),
		mkTurn("D1:2", "Bo", "user", "I ran last Saturday.", "I ran last Saturday [20 May 2023]."),
		mkTurn("D1:3", "Cy", "user", "Met her yesterday.", "Met her yesterday [23 May 2023]."),
	}}
	for i := range conv.Turns {
		conv.Turns[i].When = said
	}
	conv.Questions = []question{
		{Answer: "2 June 2023", Category: 2, Evidence: []int{0}},
		{Answer: "20 May 2023", Category: 2, Evidence: []int{1}},
		{Answer: "21 May 2023", Category: 2, Evidence: []int{1}},
		{Answer: "24 May 2023", Category: 2, Evidence: []int{2}},
	}
	res := measureTemporal(&dataset{Convs: []*conversation{conv}})
	all := res.Rows[len(res.Rows)-1]
	assert.Equal(t, 1, all.Annotated, "a note with two readings names neither; only 20 May is resolved")
	assert.Equal(t, 4, res.Noted)
	assert.Equal(t, []wrongNote{{"c", "21 May 2023", []string{"20 May 2023"}, true}}, res.Wrong,
		"two readings that include the answer are not wrong, nor is a note beside an answer that is the day said")
	assert.Zero(t, res.Contradicted, "a Saturday's note after \"last Saturday\" agrees with its words, whatever the gold says")
}

func TestVouchedChecksAWeekdaysNoteAgainstItsWords(t *testing.T) {
	said := time.Date(2023, time.May, 24, 15, 0, 0, 0, time.UTC)
	cases := []struct {
		name, annotated, note string
		want                  bool
	}{
		{"the weekday its words name", "I ran last Saturday [20 May 2023].", "20 May 2023", true},
		{"another weekday", "I ran last Saturday [21 May 2023].", "21 May 2023", false},
		{"the weekday, but months away", "I ran last Saturday [18 March 2023].", "18 March 2023", false},
		{"no weekday before it", "Met her yesterday [23 May 2023].", "23 May 2023", false},
		{"two readings", "See you next Friday [26 May or 2 June 2023].", "26 May or 2 June 2023", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, vouched(c.annotated, c.note, said), c.name)
	}
}
