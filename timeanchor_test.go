package byheart

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// on returns mid-afternoon of a day in UTC; the time of day never matters.
func on(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 15, 4, 0, 0, time.UTC) }

// thursday is the issue's own example day: Thursday 25 May 2023.
var thursday = on(2023, time.May, 25)

type annotateCase struct {
	name string
	when time.Time
	text string
	want string
}

// runAnnotate checks each case and, for every one, that removing the notes
// gives back the text and that annotating twice changes nothing more.
func runAnnotate(t *testing.T, cases []annotateCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			when := c.when
			if when.IsZero() {
				when = thursday
			}
			got := Annotate(c.text, when)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.text, stripNotes(got, dateNotes(c.text, when)), "notes must strip back to the text")
			assert.Equal(t, got, Annotate(got, when), "annotating annotated text must change nothing")
		})
	}
}

func TestAnnotateDays(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "today is the day itself", text: "I feel great today.", want: "I feel great today [25 May 2023]."},
		{name: "tonight is the day itself", text: "Want to eat out tonight?", want: "Want to eat out tonight [25 May 2023]?"},
		{name: "this morning is the day itself", text: "I ran this morning", want: "I ran this morning [25 May 2023]"},
		{name: "this afternoon is the day itself", text: "a nap this afternoon", want: "a nap this afternoon [25 May 2023]"},
		{name: "this evening is the day itself", text: "call me this evening", want: "call me this evening [25 May 2023]"},
		{name: "yesterday is the day before", text: "My sister phoned yesterday about the boat.",
			want: "My sister phoned yesterday [24 May 2023] about the boat."},
		{name: "last night is the evening before", text: "Last night the storm kept us up.", want: "Last night [24 May 2023] the storm kept us up."},
		{name: "last night's keeps the possessive before the note", text: "last night's party", want: "last night's [24 May 2023] party"},
		{name: "the day before yesterday is two days back", text: "It rained the day before yesterday.",
			want: "It rained the day before yesterday [23 May 2023]."},
		{name: "day before yesterday without the article", text: "day before yesterday", want: "day before yesterday [23 May 2023]"},
		{name: "tomorrow is the day after", text: "Let us talk tomorrow!", want: "Let us talk tomorrow [26 May 2023]!"},
		{name: "the day after tomorrow is two days ahead", text: "Our ferry sails the day after tomorrow evening.",
			want: "Our ferry sails the day after tomorrow evening [27 May 2023]."},
		{name: "a part of the day joins the expression", text: "yesterday morning I slept in",
			want: "yesterday morning [24 May 2023] I slept in"},
		{name: "case does not matter", text: "YESTERDAY was long", want: "YESTERDAY [24 May 2023] was long"},
		{name: "a curly apostrophe is read like a straight one", text: "last night\u2019s show",
			want: "last night\u2019s [24 May 2023] show"},
		{name: "idiomatic possessives are left alone", text: "That's yesterday's news in today's world.",
			want: "That's yesterday's news in today's world."},
		{name: "a newspaper name is left alone", text: "I read it in USA Today yesterday.",
			want: "I read it in USA Today yesterday [24 May 2023]."},
		{name: "a show name is left alone", text: "We watched The Tonight Show.", want: "We watched The Tonight Show."},
		{name: "a word merely containing a day word is left alone", text: "todays yesterdays tomorrowland",
			want: "todays yesterdays tomorrowland"},
	})
}

func TestAnnotateWeekdays(t *testing.T) {
	sunday := on(2023, time.May, 28)
	runAnnotate(t, []annotateCase{
		{name: "last Saturday said on a Thursday is five days back", text: "I ran the race last Saturday",
			want: "I ran the race last Saturday [20 May 2023]"},
		{name: "last Monday is this week's Monday when it has passed", text: "last Monday", want: "last Monday [22 May 2023]"},
		{name: "last Wednesday said on Thursday is yesterday", text: "last Wednesday", want: "last Wednesday [24 May 2023]"},
		{name: "last Thursday said on a Thursday is a week back", text: "last Thursday", want: "last Thursday [18 May 2023]"},
		{name: "this past Saturday reads as last Saturday", text: "this past Saturday", want: "this past Saturday [20 May 2023]"},
		{name: "this Monday once passed has two readings", text: "this Monday", want: "this Monday [22 or 29 May 2023]"},
		{name: "this Monday once passed in a past sentence is this week's", text: "I saw her this Monday.",
			want: "I saw her this Monday [22 May 2023]."},
		{name: "this Monday once passed in a future sentence is the coming one", text: "I'll see her this Monday.",
			want: "I'll see her this Monday [29 May 2023]."},
		{name: "this Saturday is the coming one within the week", text: "this Saturday", want: "this Saturday [27 May 2023]"},
		{name: "this Thursday said on a Thursday is today", text: "this Thursday", want: "this Thursday [25 May 2023]"},
		{name: "this coming Monday is the first one ahead", text: "this coming Monday", want: "this coming Monday [29 May 2023]"},
		{name: "this coming Thursday said on a Thursday is a week ahead", text: "this coming Thursday",
			want: "this coming Thursday [1 June 2023]"},
		{name: "next Monday falls in the following week", text: "next Monday", want: "next Monday [29 May 2023]"},
		{name: "next Thursday said on a Thursday is a week ahead", text: "next Thursday", want: "next Thursday [1 June 2023]"},
		{name: "next Saturday said on a Thursday has two readings", text: "next Saturday", want: "next Saturday [27 May or 3 June 2023]"},
		{name: "next Sunday said on a Sunday is a week ahead", when: sunday, text: "next Sunday", want: "next Sunday [4 June 2023]"},
		{name: "on a weekday in narration is the most recent one", text: "On Tuesday the parcel arrived.",
			want: "On Tuesday [23 May 2023] the parcel arrived."},
		{name: "on a weekday with a future marker is the coming one", text: "I'll call you on Saturday.",
			want: "I'll call you on Saturday [27 May 2023]."},
		{name: "going to marks the future", text: "We are going to meet on Monday.",
			want: "We are going to meet on Monday [29 May 2023]."},
		{name: "on the same weekday as today is left alone", text: "It happened on Thursday.", want: "It happened on Thursday."},
		{name: "on a weekday inside a question is left alone", text: "Are you free on Saturday?", want: "Are you free on Saturday?"},
		{name: "habitual plural weekdays are left alone", text: "I swim on Saturdays.", want: "I swim on Saturdays."},
		{name: "abbreviations that are not words are read", text: "Last Fri we met, and last Tues too.",
			want: "Last Fri [19 May 2023] we met, and last Tues [23 May 2023] too."},
		{name: "abbreviations that are also words are left alone", text: "when I last sat down, last sun of the day",
			want: "when I last sat down, last sun of the day"},
		{name: "a lone abbreviation is read in an English sentence", text: "We met on Mon.",
			want: "We met on Mon [22 May 2023]."},
		{name: "a lone abbreviation opening another language's sentence is left alone", text: "Mon voisin m'a dit la même chose.",
			want: "Mon voisin m'a dit la même chose."},
		{name: "a part of the day after a weekday joins it", text: "last Friday night was fun",
			want: "last Friday night [19 May 2023] was fun"},
		{name: "a weekday possessive keeps the note after it", text: "last Saturday's game",
			want: "last Saturday's [20 May 2023] game"},
		{name: "last weekend is the previous week's Saturday and Sunday", text: "Last weekend I fixed the fence.",
			want: "Last weekend [weekend of 20 May 2023] I fixed the fence."},
		{name: "this weekend is the current week's", text: "this weekend", want: "this weekend [weekend of 27 May 2023]"},
		{name: "next weekend is the following week's", text: "next weekend", want: "next weekend [weekend of 3 June 2023]"},
		{name: "this past weekend reads as last weekend", text: "this past weekend", want: "this past weekend [weekend of 20 May 2023]"},
		{name: "this coming weekend on a weekday is this week's", text: "this coming weekend",
			want: "this coming weekend [weekend of 27 May 2023]"},
		{name: "last weekend said on a Sunday is the one before this one", when: sunday, text: "last weekend",
			want: "last weekend [weekend of 20 May 2023]"},
		{name: "this weekend said on a Sunday is the one under way", when: sunday, text: "this weekend",
			want: "this weekend [weekend of 27 May 2023]"},
		{name: "this coming weekend said on a Sunday is the next one", when: sunday, text: "this coming weekend",
			want: "this coming weekend [weekend of 3 June 2023]"},
	})
}

func TestAnnotateCounts(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "days ago in words", text: "I met him two days ago.", want: "I met him two days ago [23 May 2023]."},
		{name: "days ago in digits", text: "3 days ago", want: "3 days ago [22 May 2023]"},
		{name: "a day ago", text: "a day ago", want: "a day ago [24 May 2023]"},
		{name: "nights ago are days", text: "two nights ago", want: "two nights ago [23 May 2023]"},
		{name: "weeks ago give the week holding the day", text: "three weeks ago", want: "three weeks ago [week of 1 May 2023]"},
		{name: "a week ago", text: "a week ago", want: "a week ago [week of 15 May 2023]"},
		{name: "weekends ago count calendar weekends", text: "two weekends ago", want: "two weekends ago [weekend of 13 May 2023]"},
		{name: "months ago give the month", text: "six months ago", want: "six months ago [November 2022]"},
		{name: "months ago in digits across years", text: "18 months ago", want: "18 months ago [November 2021]"},
		{name: "years ago give the year", text: "ten years ago", want: "ten years ago [2013]"},
		{name: "a few days is vague", text: "a few days ago", want: "a few days ago [about 22 May 2023]"},
		{name: "a couple of weeks is vague", text: "a couple of weeks ago", want: "a couple of weeks ago [about the week of 8 May 2023]"},
		{name: "a couple without of", text: "a couple weeks ago", want: "a couple weeks ago [about the week of 8 May 2023]"},
		{name: "from now counts forward", text: "two weeks from now", want: "two weeks from now [week of 5 June 2023]"},
		{name: "in ... time counts forward", text: "in two weeks' time", want: "in two weeks' time [week of 5 June 2023]"},
		{name: "in a week's time", text: "in a week's time", want: "in a week's time [week of 29 May 2023]"},
		{name: "in N days with a future marker counts forward", text: "I'll be back in three days.",
			want: "I'll be back in three days [28 May 2023]."},
		{name: "in a couple of months with a future marker", text: "We will move in a couple of months.",
			want: "We will move in a couple of months [about July 2023]."},
		{name: "in N days without a future marker is a duration", text: "I read the whole book in three days.",
			want: "I read the whole book in three days."},
		{name: "in a day or two is left alone", text: "I'll know in a day or two.", want: "I'll know in a day or two."},
		{name: "hyphenated number words are read whole", text: "twenty-five years ago", want: "twenty-five years ago [1998]"},
		{name: "a hyphenated number is not read in part", text: "forty-two-five days ago", want: "forty-two-five days ago"},
		{name: "decimals are not read in part", text: "1.5 years ago", want: "1.5 years ago"},
		{name: "grouped digits are not read in part", text: "2,000 years ago", want: "2,000 years ago"},
		{name: "bounds are left alone", text: "over two years ago, more than 3 weeks ago, less than a month ago, at least a year ago",
			want: "over two years ago, more than 3 weeks ago, less than a month ago, at least a year ago"},
		{name: "ranges are left alone", text: "two or three weeks ago, two to three days ago",
			want: "two or three weeks ago, two to three days ago"},
		{name: "ago without a count is left alone", text: "long ago, years ago, a while ago, ages ago",
			want: "long ago, years ago, a while ago, ages ago"},
		{name: "hours and minutes are left alone", text: "an hour ago, 5 minutes ago", want: "an hour ago, 5 minutes ago"},
		{name: "a possessive period is not a count", text: "It cost a week's pay.", want: "It cost a week's pay."},
	})
}

func TestAnnotateCountWords(t *testing.T) {
	words := []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	for i, w := range words {
		n := i + 1
		t.Run(w+" and "+strconv.Itoa(n)+" read alike", func(t *testing.T) {
			want := " [" + strconv.Itoa(2023-n) + "]"
			assert.Equal(t, w+" years ago"+want, Annotate(w+" years ago", thursday))
			assert.Equal(t, strconv.Itoa(n)+" years ago"+want, Annotate(strconv.Itoa(n)+" years ago", thursday))
		})
	}
}

func TestAnnotatePeriods(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "last week is the previous Monday-to-Sunday week", text: "The plumber finally came last week.",
			want: "The plumber finally came last week [week of 15 May 2023]."},
		{name: "this week is the current week", text: "this week", want: "this week [week of 22 May 2023]"},
		{name: "next week is the following week", text: "next week", want: "next week [week of 29 May 2023]"},
		{name: "a possessive period keeps the note after it", text: "last week's meeting",
			want: "last week's [week of 15 May 2023] meeting"},
		{name: "last month is the previous calendar month", text: "last month", want: "last month [April 2023]"},
		{name: "this month", text: "this month", want: "this month [May 2023]"},
		{name: "next month is the following calendar month", text: "We're repainting the kitchen next month.",
			want: "We're repainting the kitchen next month [June 2023]."},
		{name: "last year is the previous calendar year", text: "the novel we finished last year", want: "the novel we finished last year [2022]"},
		{name: "this year", text: "this year", want: "this year [2023]"},
		{name: "next year", text: "next year", want: "next year [2024]"},
		{name: "the week before last is two weeks back", text: "the week before last", want: "the week before last [week of 8 May 2023]"},
		{name: "the weekend before last", text: "the weekend before last", want: "the weekend before last [weekend of 13 May 2023]"},
		{name: "the month before last", text: "the month before last", want: "the month before last [March 2023]"},
		{name: "the year after next", text: "the year after next", want: "the year after next [2025]"},
		{name: "the bare week before counts from another event and is left alone", text: "She had called the week before.",
			want: "She had called the week before."},
		{name: "a period after a determiner is not a date", text: "That was the last week, my last year at school, the next day.",
			want: "That was the last week, my last year at school, the next day."},
		{name: "a span word makes the last week a span up to now", text: "Over the last week, I slept badly.",
			want: "Over the last week [since 18 May 2023], I slept badly."},
		{name: "an owner makes it a span too", text: "It was John's last week at work.", want: "It was John's last week at work."},
		{name: "a contraction is no owner", text: "It's next week.", want: "It's next week [week of 29 May 2023]."},
		{name: "an expression is no owner of the next one", text: "last night's last week",
			want: "last night's [24 May 2023] last week [week of 15 May 2023]"},
		{name: "a period followed by of is a part of something else", text: "the last week of June, last day of term",
			want: "the last week of June, last day of term"},
		{name: "this past week is the last seven days", text: "this past week", want: "this past week [since 18 May 2023]"},
		{name: "last summer said in spring is the previous year's", text: "Last summer we swam a lot.",
			want: "Last summer [summer 2022] we swam a lot."},
		{name: "this summer said in spring is the coming one", text: "this summer", want: "this summer [summer 2023]"},
		{name: "next summer is the first one not yet begun", text: "next summer", want: "next summer [summer 2023]"},
		{name: "last winter straddles the new year", text: "last winter", want: "last winter [winter 2022-2023]"},
		{name: "last spring said in spring is a year back", text: "last spring", want: "last spring [spring 2022]"},
		{name: "fall and autumn are one season", text: "last fall and last autumn",
			want: "last fall [autumn 2022] and last autumn [autumn 2022]"},
		{name: "this summer said in January is a tie and left alone", when: on(2024, time.January, 15), text: "this summer",
			want: "this summer"},
		{name: "this winter said in December is the one starting", when: on(2023, time.December, 10), text: "this winter",
			want: "this winter [winter 2023-2024]"},
		{name: "last summer said in December is the one just gone", when: on(2023, time.December, 26), text: "last summer",
			want: "last summer [summer 2023]"},
		{name: "last with a month name is the latest such month", text: "last August", want: "last August [August 2022]"},
		{name: "last with the current month is a year back", text: "last May", want: "last May [May 2022]"},
		{name: "last with the previous month", text: "last April", want: "last April [April 2023]"},
		{name: "this with a month name is the nearest", text: "this June and this January",
			want: "this June [June 2023] and this January [January 2023]"},
		{name: "this with a month six months away is a tie and left alone", text: "this November", want: "this November"},
		{name: "next with a month name is the first one after", text: "next May and next January",
			want: "next May [May 2024] and next January [January 2024]"},
		{name: "month names that are words need a capital", text: "this may be it; last march was loud",
			want: "this may be it; last march was loud"},
	})
}

func TestAnnotateDurations(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "present perfect with for gives the start", text: "I've lived here for three years.",
			want: "I've lived here for three years [since 2020]."},
		{name: "has worked for months", text: "She has worked there for 6 months.",
			want: "She has worked there for 6 months [since November 2022]."},
		{name: "a negated present perfect", text: "I haven't seen him for two years.",
			want: "I haven't seen him for two years [since 2021]."},
		{name: "N units now", text: "Nine years now, and still knitting.", want: "Nine years now [since 2014], and still knitting."},
		{name: "for N units now", text: "We've been dating for a couple of years now.",
			want: "We've been dating for a couple of years now [since about 2021]."},
		{name: "since a day", text: "I've been sick for three days.", want: "I've been sick for three days [since 22 May 2023]."},
		{name: "past simple is not anchored to now", text: "I lived there for three years.", want: "I lived there for three years."},
		{name: "past perfect is not anchored to now", text: "I'd been there for 3 years.", want: "I'd been there for 3 years."},
		{name: "a modal perfect is not anchored to now", text: "I will have worked here for 3 years.",
			want: "I will have worked here for 3 years."},
		{name: "arranging verbs measure what was arranged", text: "I've booked a room for 3 nights.",
			want: "I've booked a room for 3 nights."},
	})
}

func TestAnnotateNegatives(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "last time", text: "Last time I checked, it was fine.", want: "Last time I checked, it was fine."},
		{name: "the last one", text: "That was the last one.", want: "That was the last one."},
		{name: "a show title", text: "We watched Saturday Night Live and then on Saturday Night Live they sang.",
			want: "We watched Saturday Night Live and then on Saturday Night Live they sang."},
		{name: "a show title after last", text: "last Saturday Night Live episode", want: "last Saturday Night Live episode"},
		{name: "next to", text: "I sat next to her.", want: "I sat next to her."},
		{name: "a week's pay", text: "It cost me a week's pay.", want: "It cost me a week's pay."},
		{name: "ago without a count", text: "Not long ago, and ages ago.", want: "Not long ago, and ages ago."},
		{name: "a bare weekday", text: "Saturday is my favourite day.", want: "Saturday is my favourite day."},
		{name: "a bare month", text: "I love May and March.", want: "I love May and March."},
		{name: "words across a sentence break", text: "It was the last. Week after week it rained.",
			want: "It was the last. Week after week it rained."},
		{name: "words across punctuation", text: "last, week", want: "last, week"},
	})
}

func TestAnnotateCalendarEdges(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "last month on 31 March is February, not a normalised March", when: on(2023, time.March, 31), text: "last month",
			want: "last month [February 2023]"},
		{name: "a month ago on 31 March is February", when: on(2023, time.March, 31), text: "a month ago",
			want: "a month ago [February 2023]"},
		{name: "next month on 31 January is February", when: on(2023, time.January, 31), text: "next month",
			want: "next month [February 2023]"},
		{name: "six months ago on 31 August is February", when: on(2023, time.August, 31), text: "six months ago",
			want: "six months ago [February 2023]"},
		{name: "yesterday on 1 March of a leap year is 29 February", when: on(2024, time.March, 1), text: "yesterday",
			want: "yesterday [29 February 2024]"},
		{name: "tomorrow on 28 February of a leap year is 29 February", when: on(2024, time.February, 28), text: "tomorrow",
			want: "tomorrow [29 February 2024]"},
		{name: "tomorrow on 28 February of a common year is 1 March", when: on(2023, time.February, 28), text: "tomorrow",
			want: "tomorrow [1 March 2023]"},
		{name: "the day after tomorrow across a leap day", when: on(2024, time.February, 28), text: "the day after tomorrow",
			want: "the day after tomorrow [1 March 2024]"},
		{name: "a year ago on a leap day is the year before", when: on(2024, time.February, 29), text: "a year ago",
			want: "a year ago [2023]"},
		{name: "last week across a leap day", when: on(2024, time.March, 4), text: "last week",
			want: "last week [week of 26 February 2024]"},
		{name: "yesterday on New Year's Day", when: on(2024, time.January, 1), text: "yesterday",
			want: "yesterday [31 December 2023]"},
		{name: "last month in January is December of the year before", when: on(2024, time.January, 15), text: "last month",
			want: "last month [December 2023]"},
		{name: "next month in December is January of the year after", when: on(2023, time.December, 10), text: "next month",
			want: "next month [January 2024]"},
		{name: "last week straddling the new year", when: on(2024, time.January, 3), text: "last week",
			want: "last week [week of 25 December 2023]"},
		{name: "next weekend across the new year", when: on(2023, time.December, 29), text: "next weekend",
			want: "next weekend [weekend of 6 January 2024]"},
		{name: "last Saturday across the new year", when: on(2024, time.January, 1), text: "last Saturday",
			want: "last Saturday [30 December 2023]"},
		{name: "last year on New Year's Day", when: on(2024, time.January, 1), text: "last year", want: "last year [2023]"},
	})
}

func TestAnnotateUsesTheTurnsOwnLocation(t *testing.T) {
	// 23:30 on 25 May in UTC-7 is already 26 May in UTC.
	late := time.Date(2023, time.May, 25, 23, 30, 0, 0, time.FixedZone("UTC-7", -7*3600))
	assert.Equal(t, "yesterday [24 May 2023]", Annotate("yesterday", late))
	// 00:30 on 26 May in UTC+14 is still 25 May in UTC.
	early := time.Date(2023, time.May, 26, 0, 30, 0, 0, time.FixedZone("UTC+14", 14*3600))
	assert.Equal(t, "yesterday [25 May 2023]", Annotate("yesterday", early))
}

func TestAnnotateWithoutATimeWritesNothing(t *testing.T) {
	text := "I ran the race last Saturday."
	assert.Equal(t, text, Annotate(text, time.Time{}))
	assert.Nil(t, dateNotes(text, time.Time{}))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Annotate(text, time.Time{}) }))
}

func TestAnnotateWithNothingToResolveDoesNotAllocate(t *testing.T) {
	text := "Thanks, that sounds lovely. I've been reading about gardening and tomatoes might do well here."
	assert.Equal(t, text, Annotate(text, thursday))
	assert.Nil(t, dateNotes(text, thursday))
	// Head words that make no expression cost no allocation either, capitals
	// and possessives included, except when the scanner pool has to be
	// refilled: the race detector empties it on purpose, so the counts hold
	// only without it.
	busy := "What a Day it was. Over the years, Mom's week went by; THE LAST ONE, Saturday Night Live!"
	assert.Nil(t, dateNotes(busy, thursday))
	if !raceEnabled {
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Annotate(text, thursday) }))
		assert.LessOrEqual(t, testing.AllocsPerRun(100, func() { _ = Annotate(busy, thursday) }), 1.0)
	}
}

func TestAnnotateBracketsTheUserTyped(t *testing.T) {
	t.Run("a bracket that says exactly the note stands in for it", func(t *testing.T) {
		text := "yesterday [24 May 2023] was fine"
		assert.Equal(t, text, Annotate(text, thursday))
		assert.Nil(t, dateNotes(text, thursday))
	})
	t.Run("any other bracket after an anchor comes after the note", func(t *testing.T) {
		text := "yesterday [1 Jan 1999] was fine"
		assert.Equal(t, "yesterday [24 May 2023] [1 Jan 1999] was fine", Annotate(text, thursday))
	})
	t.Run("a bracket that looks like a note is never stripped", func(t *testing.T) {
		text := "last time [20 May 2023] and last Saturday"
		notes := dateNotes(text, thursday)
		require.Len(t, notes, 1)
		annotated := applyNotes(text, notes)
		assert.Equal(t, "last time [20 May 2023] and last Saturday [20 May 2023]", annotated)
		assert.Equal(t, text, stripNotes(annotated, notes))
	})
}

func TestDateNotesAreSortedAndPointAfterTheWords(t *testing.T) {
	text := "Yesterday I ran. Two weeks ago I swam, and next month I will cycle; last year I rested."
	notes := dateNotes(text, thursday)
	require.Len(t, notes, 4)
	ends := []string{"Yesterday", "Two weeks ago", "next month", "last year"}
	for i, nt := range notes {
		assert.True(t, strings.HasSuffix(text[:nt.At], ends[i]), "note %d sits after %q", i, ends[i])
		if i > 0 {
			assert.Greater(t, nt.At, notes[i-1].At)
		}
	}
	assert.Equal(t, applyNotes(text, notes), Annotate(text, thursday))
}

func TestApplyAndStripNotesSurviveBadNotes(t *testing.T) {
	text := "short text"
	bad := []dateNote{{At: 5, Text: " [x]"}, {At: 2, Text: " [out of order]"}, {At: 99, Text: " [past the end]"}, {At: -1, Text: "[negative]"}}
	annotated := applyNotes(text, bad)
	assert.Equal(t, "short [x] text", annotated)
	assert.Equal(t, text, stripNotes(annotated, bad))
	assert.Equal(t, "", stripNotes("", bad))
}

func TestAnnotateIsSafeForConcurrentUse(t *testing.T) {
	texts := []string{
		"I ran the race last Saturday.",
		"We're repainting the kitchen next month. Yesterday I bought brushes.",
		"Nothing to see here at all.",
		"two weeks ago, a few days ago and the day after tomorrow",
	}
	want := make([]string, len(texts))
	for i, text := range texts {
		want[i] = Annotate(text, thursday)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 200; k++ {
				i := (g + k) % len(texts)
				if got := Annotate(texts[i], thursday); got != want[i] {
					t.Errorf("concurrent Annotate(%q) = %q, want %q", texts[i], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkAnnotate measures the cost paid on every append: a turn of about
// 150 characters with nothing to resolve, and one with two anchors.
func BenchmarkAnnotate(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"150 chars no anchor", "Thanks, that sounds lovely. I have been reading a lot about gardening lately and I think tomatoes would do well on the balcony if it gets sun."},
		{"150 chars two anchors", "I ran the race last Saturday and my legs still hurt. We plan to drive down to the coast next month if the weather holds up, fingers crossed!"},
		// A long turn of many spans, as sentences and as one sentence: the
		// span family reads what it asks of the text before once, so the
		// time per byte stays that of a short turn (a pasted log of these
		// once took seconds).
		{"86 KB of spans, sentences", strings.Repeat("We spoke about the previous week or so. ", 2000)},
		{"86 KB of spans, one sentence", strings.Repeat("we spoke about the previous week or so and ", 2000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				_ = Annotate(bc.text, thursday)
			}
		})
	}
}

// nextSentenceByByte is nextSentence as it was first written, a byte at a
// time: the reference the word-run version is held to.
func nextSentenceByByte(text string, from int) (to int, head bool) {
	var buf [12]byte
	n, long := 0, false
	i := from
	for ; i <= len(text); i++ {
		var c byte
		if i < len(text) {
			c = text[i]
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' {
			if n < len(buf) {
				buf[n] = c
				n++
			} else {
				long = true
			}
			continue
		}
		if !head && !long && n >= 3 {
			head = headWord(string(buf[:n]))
		}
		if !head && isASCIIDigit(c) && (i == from || !isASCIIDigit(text[i-1])) {
			head = dateDigits(text, i)
		}
		n, long = 0, false
		if i == len(text) || sentenceEnd(c) {
			break
		}
	}
	for i < len(text) && sentenceEnd(text[i]) {
		i++
	}
	return i, head
}

func TestNextSentenceCutsAsByteByByte(t *testing.T) {
	pieces := []string{"Today", "TONIGHT", "tomorrow", "yesterdays", "Mondays", "week", "Thanksgiving",
		"thanksgivings", "a", "I", "we", "went", "15th", "5/20", "2023-05-20", "12", "x1", "é", "Ünter",
		" ", "  ", ".", "!", "?", ";", "\n", ",", "'", "-", "\x00", "March", "mar", "dec", "Xmas", "fall"}
	rng := rand.New(rand.NewPCG(29, 2))
	for range 20_000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		text := b.String()
		for from := 0; from <= len(text); from++ {
			to, head := nextSentence(text, from)
			wantTo, wantHead := nextSentenceByByte(text, from)
			if to != wantTo || head != wantHead {
				t.Fatalf("nextSentence(%q, %d) = %d, %v; want %d, %v", text, from, to, head, wantTo, wantHead)
			}
		}
	}
}
