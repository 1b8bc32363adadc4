package byheart

import (
	"strings"
	"testing"
	"time"
)

// The families added by the grammar's second pass, said on Thursday 25 May
// 2023 unless a case says otherwise.

func TestAnnotateTenseDecidesTheDirection(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "a bare weekday in a past sentence is the latest one", text: "I saw her Tuesday and we talked.",
			want: "I saw her Tuesday [23 May 2023] and we talked."},
		{name: "a bare weekday in a future sentence is the next one", text: "We're flying out Monday.",
			want: "We're flying out Monday [29 May 2023]."},
		{name: "a plan points ahead", text: "I plan to visit on Sunday.", want: "I plan to visit on Sunday [28 May 2023]."},
		{name: "since a weekday always looks back", text: "It has rained since Monday.",
			want: "It has rained since Monday [22 May 2023]."},
		{name: "until a weekday looks ahead without a past verb", text: "The shop is shut until Monday.",
			want: "The shop is shut until Monday [29 May 2023]."},
		{name: "a sentence with both tenses is left alone", text: "I told him I'll come on Saturday.",
			want: "I told him I'll come on Saturday."},
		{name: "an adjective in -ed is no past tense", text: "I'm so excited for Saturday.", want: "I'm so excited for Saturday."},
		{name: "a weekday inside a name is left alone", text: "We went shopping on Black Friday and met Wednesday Addams.",
			want: "We went shopping on Black Friday and met Wednesday Addams."},
		{name: "a habit is left alone", text: "Every Saturday I swam, and one Sunday I ran.", want: "Every Saturday I swam, and one Sunday I ran."},
		{name: "a weekday of a named week", text: "We met Friday last week.", want: "We met Friday last week [19 May 2023]."},
		{name: "her as an object is no owner", text: "I'll see her next week.", want: "I'll see her next week [week of 29 May 2023]."},
		{name: "her as an owner makes a span", text: "It was her last week at work.", want: "It was her last week at work."},
		{name: "the weekend with a past verb", text: "I fixed the fence over the weekend.",
			want: "I fixed the fence over the weekend [weekend of 20 May 2023]."},
		{name: "the weekend with no verb that says is left alone", text: "I work on the weekend.", want: "I work on the weekend."},
	})
}

func TestAnnotateDaysOfTheMonth(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "a month and an ordinal ahead", text: "Her birthday is June 3rd.", want: "Her birthday is June 3rd [3 June 2023]."},
		{name: "a day before its month", text: "We met on 3 May.", want: "We met on 3 May [3 May 2023]."},
		{name: "the day of the month", text: "It opens on the 3rd of June.", want: "It opens on the 3rd of June [3 June 2023]."},
		{name: "an ordinal word with of", text: "I'll be there on the fifth of July.", want: "I'll be there on the fifth of July [5 July 2023]."},
		{name: "a month name with a day after a preposition", text: "The flight was on May 5.", want: "The flight was on May 5 [5 May 2023]."},
		{name: "a short month name with a day", text: "Due Jun 12, so I will hurry.", want: "Due Jun 12 [12 June 2023], so I will hurry."},
		{name: "with no verb that says, the far nearer one", text: "Dinner on the 26th?", want: "Dinner on the 26th [26 May 2023]?"},
		{name: "with no verb that says and no nearer one, both", text: "Around November 20th, I think.",
			want: "Around November 20th [20 November 2022 or 20 November 2023], I think."},
		{name: "a date with its year is already whole", text: "We met on June 3rd, 2021 and on 5 May 2022.",
			want: "We met on June 3rd, 2021 and on 5 May 2022."},
		{name: "an ordinal that counts floors or quarters is no day", text: "She lives on the 15th floor; we were down in the 4th.",
			want: "She lives on the 15th floor; we were down in the 4th."},
		{name: "a bare number before a month word needs its capital", text: "I may 5 times have said it", want: "I may 5 times have said it"},
		{name: "a leap day in a year that has none is skipped to the last one", when: on(2023, time.March, 10),
			text: "We married on February 29th.", want: "We married on February 29th [29 February 2020]."},
		{name: "the 31st skips the months that lack it", when: on(2023, time.May, 2),
			text: "It closed on the 31st.", want: "It closed on the 31st [31 March 2023]."},
	})
}

func TestAnnotateMonthsWithPrepositions(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "back in a month is the latest one before this", text: "Back in March we moved.", want: "Back in March [March 2023] we moved."},
		{name: "since a month", text: "I've been here since January.", want: "I've been here since January [since January 2023]."},
		{name: "until a month ahead", text: "I'm away until September.", want: "I'm away until September [September 2023]."},
		{name: "by a month in the past", text: "I had finished by April.", want: "I had finished by April [April 2023]."},
		{name: "in a month says no year and is left alone", text: "I was born in March.", want: "I was born in March."},
		{name: "a month with a year is whole", text: "since March 2020", want: "since March 2020"},
	})
}

func TestAnnotateNumericDates(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "ISO 8601", text: "Paid on 2023-05-20.", want: "Paid on 2023-05-20 [20 May 2023]."},
		{name: "day first with a year", text: "Due 20/5/2023.", want: "Due 20/5/2023 [20 May 2023]."},
		{name: "month first with a short year", text: "Due 5/20/23.", want: "Due 5/20/23 [20 May 2023]."},
		{name: "either order gives both", text: "Due 5/6/2023.", want: "Due 5/6/2023 [6 May or 5 June 2023]."},
		{name: "without a year after on when the order is certain", text: "See you on 6/20.", want: "See you on 6/20 [20 June 2023]."},
		{name: "without a year and either order is left alone", text: "See you on 6/7.", want: "See you on 6/7."},
		{name: "fractions and scores are no dates", text: "I scored 9/10 and ate 1/2 of it, open 24/7.",
			want: "I scored 9/10 and ate 1/2 of it, open 24/7."},
		{name: "impossible dates are left alone", text: "2023-02-30 and 31/4/2023 and 2023-13-01",
			want: "2023-02-30 and 31/4/2023 and 2023-13-01"},
		{name: "ranges and longer runs are left alone", text: "2020-2023, 1/2/3/4, 2023-05-20-7",
			want: "2020-2023, 1/2/3/4, 2023-05-20-7"},
	})
}

func TestAnnotateHolidays(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "last Christmas", text: "last Christmas", want: "last Christmas [25 December 2022]"},
		{name: "next Christmas Eve", text: "next Christmas Eve", want: "next Christmas Eve [24 December 2023]"},
		{name: "this Halloween", text: "this Halloween", want: "this Halloween [31 October 2023]"},
		{name: "for Valentine's Day in a past sentence", text: "He gave me roses for Valentine's Day.",
			want: "He gave me roses for Valentine's Day [14 February 2023]."},
		{name: "New Year's Eve ahead", text: "We'll party on New Year's Eve.", want: "We'll party on New Year's Eve [31 December 2023]."},
		{name: "the Fourth of July", text: "I'll grill on the Fourth of July.", want: "I'll grill on the Fourth of July [4 July 2023]."},
		{name: "Easter by the computus", text: "We hid eggs at Easter.", want: "We hid eggs at Easter [9 April 2023]."},
		{name: "Thanksgiving is the fourth Thursday of November", text: "I'll cook for Thanksgiving.",
			want: "I'll cook for Thanksgiving [23 November 2023]."},
		{name: "Memorial Day is the last Monday of May", text: "We went camping over Memorial Day.",
			want: "We went camping over Memorial Day [30 May 2022]."},
		{name: "Mother's Day is the second Sunday of May", text: "I called her on Mother's Day.",
			want: "I called her on Mother's Day [14 May 2023]."},
		{name: "on the day itself it is today", when: on(2023, time.December, 25), text: "We opened gifts on Christmas.",
			want: "We opened gifts on Christmas [25 December 2023]."},
		{name: "a holiday as a noun's modifier is left alone", text: "I bought a Christmas tree and a new year planner.",
			want: "I bought a Christmas tree and a new year planner."},
		{name: "a holiday with no verb that says is left alone", text: "Christmas is my favourite.", want: "Christmas is my favourite."},
	})
}

func TestAnnotateSpansAndNewCounts(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "the past few days is about", text: "I've been tired for the past few days.",
			want: "I've been tired for the past few days [since about 22 May 2023]."},
		{name: "over the last three years is told to the month", text: "Prices rose over the last three years.",
			want: "Prices rose over the last three years [since May 2020]."},
		{name: "within the next N days", text: "I'll reply within the next 3 days.",
			want: "I'll reply within the next 3 days [until 28 May 2023]."},
		{name: "within N weeks", text: "It will ship within two weeks.", want: "It will ship within two weeks [until 8 June 2023]."},
		{name: "the coming week", text: "I'm busy in the coming week.", want: "I'm busy in the coming week [until 1 June 2023]."},
		{name: "the next week in a past story counts from the story", text: "In the next week, she found a job.",
			want: "In the next week, she found a job."},
		{name: "the past week in a past-perfect story counts from the story", text: "She had rested in the past week.",
			want: "She had rested in the past week."},
		{name: "several is about three", text: "several days ago", want: "several days ago [about 22 May 2023]"},
		{name: "around a count is about", text: "around 3 years ago", want: "around 3 years ago [about 2020]"},
		{name: "a few days back", text: "a few days back", want: "a few days back [about 22 May 2023]"},
		{name: "two decades ago", text: "two decades ago", want: "two decades ago [about 2003]"},
		{name: "in N days with is", text: "The exam is in three days.", want: "The exam is in three days [28 May 2023]."},
		{name: "a week from today", text: "a week from today", want: "a week from today [week of 29 May 2023]"},
		{name: "in two summers", text: "in two summers' time", want: "in two summers' time [summer 2024]"},
	})
}

// TestAnnotateLeavesOtherLanguagesAlone holds the English grammar to its
// word: sentences in other languages come back unchanged, even where their
// words look like English date words: German "am" (English "am") before
// "3 April", "Die", "Tag", "mai", "Monate", "semaine", Dutch "april", and
// numbers, dashes and slashes that read as dates in any language.
func TestAnnotateLeavesOtherLanguagesAlone(t *testing.T) {
	for _, text := range []string{
		"Letzte Woche war ich in Berlin, und vor drei Tagen habe ich Anna getroffen.",
		"Am 3 April waren wir in Wien, im August am Meer.",
		"Die Tage im Juli: 20 Juli, 2023-05-20, 5/20/2023.",
		"Am Samstag gehen wir ins Kino; die Party ist am 15. Mai.",
		"Ich habe 2 Monate gewartet, seit März wohne ich hier.",
		"La semaine dernière, je suis allé à Paris, il y a trois jours.",
		"On se voit samedi prochain, le 3 mai, ou en mars.",
		"Hace dos semanas fui a Madrid; el próximo lunes vuelvo.",
		"Mañana es el 5 de mayo, y ayer fue domingo.",
		"Nos vemos el 15 de julio o el 2023-07-15; en April no.",
		"Op 3 april ben ik jarig, en in mei ook.",
		"На прошлой неделе я был в Москве, а три дня назад вернулся.",
		"В субботу, 15 мая, мы пойдём в театр.",
		"上周我去了北京，三天前回来了。",
		"下个星期六是5月20日。",
		"先週、東京に行きました。三日前に帰りました。",
		"来週の土曜日は5月20日です。",
	} {
		t.Run(text, func(t *testing.T) {
			if got := Annotate(text, thursday); got != text {
				t.Errorf("Annotate(%q) = %q, want it unchanged", text, got)
			}
		})
	}
}

// The third pass: one reading for a day without its year, and spans that
// need no preposition.

func TestAnnotateReadsADayWithoutItsYearOneWay(t *testing.T) {
	nov20 := on(2026, time.November, 20)
	runAnnotate(t, []annotateCase{
		{name: "a present sentence takes the next one", when: nov20, text: "The launch date is the 3rd of March.",
			want: "The launch date is the 3rd of March [3 March 2027]."},
		{name: "an acknowledgement in -ed is no past tense", when: nov20, text: "Launch on 3 March, noted.",
			want: "Launch on 3 March [3 March 2027], noted."},
		{name: "no verb that says: the nearer one", when: nov20, text: "We launch on 3 March.",
			want: "We launch on 3 March [3 March 2027]."},
		{name: "the month first", when: nov20, text: "We launch on March 3.", want: "We launch on March 3 [3 March 2027]."},
		{name: "the month first with an ordinal", when: nov20, text: "We launch on March 3rd.",
			want: "We launch on March 3rd [3 March 2027]."},
		{name: "a numeric day and month that read alike both ways", when: nov20, text: "We launch on 3/3.",
			want: "We launch on 3/3 [3 March 2027]."},
		{name: "a numeric day and month that could swap is left alone", when: nov20, text: "We launch on 3/4.",
			want: "We launch on 3/4."},
		{name: "after for, a past verb is when the booking was made", when: nov20, text: "I booked the venue for 3 March.",
			want: "I booked the venue for 3 March [3 March 2027]."},
		{name: "after about, a past verb is when the telling was", when: nov20, text: "I told the team about the 3rd of March.",
			want: "I told the team about the 3rd of March [3 March 2027]."},
		{name: "a past verb still takes the latest one", when: nov20, text: "I went to Rome on 15 June.",
			want: "I went to Rome on 15 June [15 June 2026]."},
		{name: "a future takes the next one even when it is farther", when: nov20, text: "I'm going to Rome on 15 June.",
			want: "I'm going to Rome on 15 June [15 June 2027]."},
		{name: "half a year away either way, both", when: nov20, text: "Around 21 May, I think.",
			want: "Around 21 May [21 May 2026 or 21 May 2027], I think."},
	})
}

// TestAnnotateGivesAnExchangeOneReadingOfADate is the exchange: a
// date said many ways by two speakers, in the present, the future, a past
// verb about the booking or the telling, gets one reading. A terse line
// with no English word in it ("March 3rd, then.") gets no note, which is no
// second reading.
func TestAnnotateGivesAnExchangeOneReadingOfADate(t *testing.T) {
	when := time.Date(2026, time.November, 20, 15, 0, 0, 0, time.UTC)
	exchange := []struct {
		text  string
		noted bool
	}{
		{"The launch date is the 3rd of March.", true},
		{"Launch on 3 March, noted.", true},
		{"We launch on 3 March, then.", true},
		{"Confirmed: the party is on March 3rd.", true},
		{"Great, I booked the venue for 3 March.", true},
		{"See you on 3/3!", true},
		{"I told the team about the 3rd of March.", true},
		{"We'll be ready by March 3.", true},
		{"3 March works for me.", true},
		{"March 3rd, then.", false},
	}
	first := ""
	for i, line := range exchange {
		got := Annotate(line.text, when.Add(time.Duration(i)*time.Minute))
		open, end := strings.Index(got, "["), strings.Index(got, "]")
		if open < 0 || end < open {
			if line.noted {
				t.Errorf("%q got no note: %q", line.text, got)
			}
			continue
		}
		r := got[open+1 : end]
		if first == "" {
			first = r
		}
		if r != first || strings.Contains(r, " or ") {
			t.Errorf("%q reads %q where the exchange read %q first", line.text, r, first)
		}
	}
}

func TestAnnotateSpansThatNeedNoPreposition(t *testing.T) {
	nov20 := on(2026, time.November, 20)
	runAnnotate(t, []annotateCase{
		{name: "the past week", when: nov20, text: "The past week was long.",
			want: "The past week [since 13 November 2026] was long."},
		{name: "the coming week", when: nov20, text: "The coming week is busy.",
			want: "The coming week [until 27 November 2026] is busy."},
		{name: "the past few days", when: nov20, text: "I spent the past few days in bed.",
			want: "I spent the past few days [since about 17 November 2026] in bed."},
		{name: "the past month after a verb", when: nov20, text: "Sales grew the past month.",
			want: "Sales grew the past month [since 20 October 2026]."},
		{name: "the previous month said from now counts back from the day said", when: nov20, text: "The previous month was hard.",
			want: "The previous month [since 20 October 2026] was hard."},
		{name: "the previous month after another month in the turn counts from that one", when: nov20,
			text: "My wedding was in June. The previous month was hectic.", want: "My wedding was in June. The previous month was hectic."},
		{name: "the next day in a story is left alone", when: nov20, text: "The next day we left.", want: "The next day we left."},
		{name: "a duration with in is no date", when: nov20, text: "We sorted it out in a week.", want: "We sorted it out in a week."},
		{name: "a duration with took is no date", when: nov20, text: "It took us a week to fix.", want: "It took us a week to fix."},
	})
}

func TestAnnotateTheMomentOfSpeech(t *testing.T) {
	runAnnotate(t, []annotateCase{
		{name: "just and a past verb is about the day said", text: "I just launched an ad campaign!",
			want: "I just launched [about 25 May 2023] an ad campaign!"},
		{name: "just in a present perfect", text: "We've just moved to Boston.",
			want: "We've just moved [about 25 May 2023] to Boston."},
		{name: "just got takes the participle after it", text: "I just got accepted for an internship!",
			want: "I just got accepted [about 25 May 2023] for an internship!"},
		{name: "a name is a subject", text: "Yesterday was fine, and Gina just left for Rome.",
			want: "Yesterday [24 May 2023] was fine, and Gina just left for Rome."},
		{name: "a noun after an owner is a subject", text: "My sister just got married!",
			want: "My sister just got married [about 25 May 2023]!"},
		{name: "just after and in a sentence told from now", text: "I've been working hard and just teamed up with an artist.",
			want: "I've been working hard and just teamed up [about 25 May 2023] with an artist."},
		{name: "just after but in a present perfect", text: "I've had the story for ages but just got the guts to write it.",
			want: "I've had the story for ages but just got [about 25 May 2023] the guts to write it."},
		{name: "just meaning simply after and is left alone", text: "We sat down and just relaxed.", want: "We sat down and just relaxed."},
		{name: "just with a verb of wanting is a manner of speaking", text: "I just wanted to say hi.", want: "I just wanted to say hi."},
		{name: "just with a feeling is left alone", text: "It just made me smile.", want: "It just made me smile."},
		{name: "just with a lesson is left alone", text: "It just showed me that everyone has a story.",
			want: "It just showed me that everyone has a story."},
		{name: "just had to is an urge", text: "I just had to tell you.", want: "I just had to tell you."},
		{name: "just in a past perfect counts from the story", text: "I had just finished when she called.",
			want: "I had just finished when she called."},
		{name: "just beside another date in the sentence is left to it", text: "Last week we just relaxed.",
			want: "Last week [week of 15 May 2023] we just relaxed."},
		{name: "just beside another date in the turn is left to it", text: "Last week was wild. We just drove around.",
			want: "Last week [week of 15 May 2023] was wild. We just drove around."},
		{name: "just beside a year is left alone", text: "I just finished the course I began in 2019.",
			want: "I just finished the course I began in 2019."},
		{name: "just before a present verb is no date", text: "I just love this song.", want: "I just love this song."},
		{name: "just after a form of be is no date", text: "I'm just tired.", want: "I'm just tired."},
		{name: "a duration in the past tense is no date", text: "We just sorted it out in a week.",
			want: "We just sorted it out in a week."},
		{name: "currently is the day said", text: "I'm currently reading \"The Lean Startup\".",
			want: "I'm currently [25 May 2023] reading \"The Lean Startup\"."},
		{name: "at the moment is the day said", text: "I'm at the moment between jobs.",
			want: "I'm at the moment [25 May 2023] between jobs."},
		{name: "currently in a story told in the past is left alone", text: "He was currently away.", want: "He was currently away."},
		{name: "at the moment of an event in the past is left alone", text: "At the moment I saw him, I knew.",
			want: "At the moment I saw him, I knew."},
	})
}

// TestAnnotateSpansEveryUnitAndDirection is the span family with every
// unit, back and ahead, with and without a count, said on Friday 20
// November 2026.
func TestAnnotateSpansEveryUnitAndDirection(t *testing.T) {
	nov20 := on(2026, time.November, 20)
	runAnnotate(t, []annotateCase{
		// back: past, previous, last
		{name: "the past day", when: nov20, text: "The past day was long.", want: "The past day [since 19 November 2026] was long."},
		{name: "the past week", when: nov20, text: "I was sick the past week.", want: "I was sick the past week [since 13 November 2026]."},
		{name: "the past weekend", when: nov20, text: "The past weekend was long.",
			want: "The past weekend [weekend of 14 November 2026] was long."},
		{name: "the past fortnight", when: nov20, text: "The past fortnight was long.",
			want: "The past fortnight [since 6 November 2026] was long."},
		{name: "the past month", when: nov20, text: "The past month was long.", want: "The past month [since 20 October 2026] was long."},
		{name: "the past year is told to the month", when: nov20, text: "The past year was long.",
			want: "The past year [since November 2025] was long."},
		{name: "the past decade is told to the year", when: nov20, text: "The past decade was long.",
			want: "The past decade [since 2016] was long."},
		{name: "the past with a count", when: nov20, text: "The past 3 months were long.",
			want: "The past 3 months [since 20 August 2026] were long."},
		{name: "the past with a plural and no count is a few", when: nov20, text: "Over the past months I have grown.",
			want: "Over the past months [since about August 2026] I have grown."},
		{name: "the previous week", when: nov20, text: "I was sick the previous week.",
			want: "I was sick the previous week [since 13 November 2026]."},
		{name: "the previous weekend", when: nov20, text: "The previous weekend was fun.",
			want: "The previous weekend [weekend of 14 November 2026] was fun."},
		{name: "the previous year", when: nov20, text: "The previous year was hard.",
			want: "The previous year [since November 2025] was hard."},
		{name: "the previous with a count", when: nov20, text: "The previous two weeks were long.",
			want: "The previous two weeks [since 6 November 2026] were long."},
		{name: "in the previous month in the past tense", when: nov20, text: "In the previous month, sales fell.",
			want: "In the previous month [since 20 October 2026], sales fell."},
		{name: "the previous year after a year in the turn counts from it", when: nov20,
			text: "We moved in 2019. The previous year was hard.", want: "We moved in 2019. The previous year was hard."},
		{name: "the previous week in a past perfect counts from the story", when: nov20,
			text: "I had rested the previous week.", want: "I had rested the previous week."},
		{name: "a previous owner is no date", when: nov20, text: "The previous owner left.", want: "The previous owner left."},
		{name: "the last few days told from now", when: nov20, text: "The last few days have been hectic.",
			want: "The last few days [since about 17 November 2026] have been hectic."},
		{name: "the last week on its own is as often the final one", when: nov20, text: "The last week was long.",
			want: "The last week was long."},
		{name: "the last two weeks in a past story is left alone", when: nov20, text: "The last two weeks were long.",
			want: "The last two weeks were long."},
		{name: "the last week of a month is no span", when: nov20, text: "The last week of May was fun.",
			want: "The last week of May was fun."},
		// ahead: coming, upcoming, next
		{name: "the coming day", when: nov20, text: "The coming day is busy.", want: "The coming day [until 21 November 2026] is busy."},
		{name: "the coming weekend", when: nov20, text: "The coming weekend is busy.",
			want: "The coming weekend [weekend of 21 November 2026] is busy."},
		{name: "the coming month", when: nov20, text: "I'll travel the coming month.",
			want: "I'll travel the coming month [until 20 December 2026]."},
		{name: "the coming year", when: nov20, text: "The coming year is busy.", want: "The coming year [until November 2027] is busy."},
		{name: "the coming decade", when: nov20, text: "The coming decade will be wild.",
			want: "The coming decade [until 2036] will be wild."},
		{name: "the coming days are a few", when: nov20, text: "The coming days are busy.",
			want: "The coming days [until about 23 November 2026] are busy."},
		{name: "the coming months are a few", when: nov20, text: "The coming months are busy.",
			want: "The coming months [until about February 2027] are busy."},
		{name: "the upcoming week", when: nov20, text: "The upcoming week is busy.",
			want: "The upcoming week [until 27 November 2026] is busy."},
		{name: "in the upcoming weeks", when: nov20, text: "In the upcoming weeks we will see.",
			want: "In the upcoming weeks [until about 11 December 2026] we will see."},
		{name: "the next week said from now", when: nov20, text: "The next week is busy.",
			want: "The next week [until 27 November 2026] is busy."},
		{name: "the next fortnight", when: nov20, text: "The next fortnight is busy.",
			want: "The next fortnight [until 4 December 2026] is busy."},
		{name: "the next with a count", when: nov20, text: "The next three months are busy.",
			want: "The next three months [until 20 February 2027] are busy."},
		{name: "the next with a count in the future", when: nov20, text: "The next three days will be busy.",
			want: "The next three days [until 23 November 2026] will be busy."},
		{name: "the next day in a story is left alone", when: nov20, text: "The next day we left.", want: "The next day we left."},
		{name: "the coming week in a past story is left alone", when: nov20, text: "The coming week was busy.",
			want: "The coming week was busy."},
		{name: "the following week follows something else and is left alone", when: nov20, text: "The following week is busy.",
			want: "The following week is busy."},
		// durations: the tense makes them no date
		{name: "sorted out in two weeks is a duration", when: nov20, text: "We sorted it out in two weeks.",
			want: "We sorted it out in two weeks."},
		{name: "finished in a month is a duration", when: nov20, text: "I finished it in a month.", want: "I finished it in a month."},
		{name: "learned in a year is a duration", when: nov20, text: "I learned to swim in a year.", want: "I learned to swim in a year."},
		{name: "took a month is a duration", when: nov20, text: "It took a month.", want: "It took a month."},
		{name: "in a week ahead is a date", when: nov20, text: "I'll be there in a week.",
			want: "I'll be there in a week [week of 23 November 2026]."},
	})
}
