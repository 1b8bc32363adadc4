package byheart

// The vocabulary of the date grammar: every word list it reads.

// unit is a length of time a count can measure.
type unit uint8

const (
	uNone unit = iota
	uDay
	uWeek
	uWeekend
	uFortnight
	uMonth
	uYear
	uDecade
	uSeason  // a season by name ("two summers ago"); the name is in the word
	uWeekday // a weekday by name ("two Saturdays ago")
)

// unitOf reads a unit word, singular or plural.
func unitOf(w string) (u unit, plural bool) {
	switch w {
	case "day", "night":
		return uDay, false
	case "days", "nights":
		return uDay, true
	case "week":
		return uWeek, false
	case "weeks":
		return uWeek, true
	case "weekend":
		return uWeekend, false
	case "weekends":
		return uWeekend, true
	case "fortnight":
		return uFortnight, false
	case "fortnights":
		return uFortnight, true
	case "month":
		return uMonth, false
	case "months":
		return uMonth, true
	case "year":
		return uYear, false
	case "years":
		return uYear, true
	case "decade":
		return uDecade, false
	case "decades":
		return uDecade, true
	case "summers", "winters", "springs", "autumns", "falls":
		return uSeason, true
	}
	if len(w) > 1 && w[len(w)-1] == 's' && weekday(w[:len(w)-1]) >= 0 && len(w) > 6 {
		return uWeekday, true
	}
	return uNone, false
}

// weekday returns the Monday-based index of a weekday name, -1 otherwise.
// Abbreviations that are also words ("sat", "sun", "wed") are left out.
func weekday(w string) int {
	switch w {
	case "monday", "mon":
		return 0
	case "tuesday", "tue", "tues":
		return 1
	case "wednesday":
		return 2
	case "thursday", "thu", "thur", "thurs":
		return 3
	case "friday", "fri":
		return 4
	case "saturday":
		return 5
	case "sunday":
		return 6
	}
	return -1
}

// monthName returns the month number of a lower-case English month name, 0
// otherwise. Abbreviations are read only where a day number vouches for
// them; see monthAbbrev.
func monthName(w string) int {
	switch w {
	case "january":
		return 1
	case "february":
		return 2
	case "march":
		return 3
	case "april":
		return 4
	case "may":
		return 5
	case "june":
		return 6
	case "july":
		return 7
	case "august":
		return 8
	case "september":
		return 9
	case "october":
		return 10
	case "november":
		return 11
	case "december":
		return 12
	}
	return 0
}

// monthAbbrev reads the short month names that are not also words.
func monthAbbrev(w string) int {
	switch w {
	case "jan":
		return 1
	case "feb":
		return 2
	case "apr":
		return 4
	case "jun":
		return 6
	case "jul":
		return 7
	case "aug":
		return 8
	case "sep", "sept":
		return 9
	case "oct":
		return 10
	case "nov":
		return 11
	case "dec":
		return 12
	}
	return 0
}

// needsCapital marks month names that are also common words.
func needsCapital(w string) bool { return w == "may" || w == "march" || w == "august" }

// season returns the season index of a season name, singular or plural, -1
// otherwise.
func season(w string) int {
	switch w {
	case "winter", "winters":
		return 0
	case "spring", "springs":
		return 1
	case "summer", "summers":
		return 2
	case "fall", "autumn", "falls", "autumns":
		return 3
	}
	return -1
}

// numberWord reads the number words one to nineteen and the tens to ninety.
func numberWord(w string) int {
	switch w {
	case "one":
		return 1
	case "two":
		return 2
	case "three":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	case "six":
		return 6
	case "seven":
		return 7
	case "eight":
		return 8
	case "nine":
		return 9
	case "ten":
		return 10
	case "eleven":
		return 11
	case "twelve":
		return 12
	case "thirteen":
		return 13
	case "fourteen":
		return 14
	case "fifteen":
		return 15
	case "sixteen":
		return 16
	case "seventeen":
		return 17
	case "eighteen":
		return 18
	case "nineteen":
		return 19
	case "twenty":
		return 20
	case "thirty":
		return 30
	case "forty":
		return 40
	case "fifty":
		return 50
	case "sixty":
		return 60
	case "seventy":
		return 70
	case "eighty":
		return 80
	case "ninety":
		return 90
	}
	return 0
}

// ordinalWord reads an ordinal word up to "thirtieth" as a day of the
// month, 0 otherwise.
func ordinalWord(w string) int {
	switch w {
	case "first":
		return 1
	case "second":
		return 2
	case "third":
		return 3
	case "fourth":
		return 4
	case "fifth":
		return 5
	case "sixth":
		return 6
	case "seventh":
		return 7
	case "eighth":
		return 8
	case "ninth":
		return 9
	case "tenth":
		return 10
	case "eleventh":
		return 11
	case "twelfth":
		return 12
	case "thirteenth":
		return 13
	case "fourteenth":
		return 14
	case "fifteenth":
		return 15
	case "sixteenth":
		return 16
	case "seventeenth":
		return 17
	case "eighteenth":
		return 18
	case "nineteenth":
		return 19
	case "twentieth":
		return 20
	case "thirtieth":
		return 30
	}
	return 0
}

// ordinal reads a day of the month written with digits and a suffix
// ("15th", "1st", "22nd"), 0 otherwise.
func ordinal(w string) int {
	if len(w) < 3 || len(w) > 4 {
		return 0
	}
	n, k := 0, 0
	for ; k < len(w) && '0' <= w[k] && w[k] <= '9'; k++ {
		n = n*10 + int(w[k]-'0')
	}
	switch w[k:] {
	case "st", "nd", "rd", "th":
		if k > 0 && n >= 1 && n <= 31 {
			return n
		}
	}
	return 0
}

// digits reads w as a whole number of at most max digits, -1 otherwise.
func digits(w string, max int) int {
	if len(w) == 0 || len(w) > max {
		return -1
	}
	n := 0
	for k := 0; k < len(w); k++ {
		if w[k] < '0' || w[k] > '9' {
			return -1
		}
		n = n*10 + int(w[k]-'0')
	}
	return n
}

// hedge lists words before a count that turn it into a bound or a range.
func hedge(w string) bool {
	switch w {
	case "than", "over", "under", "least", "most", "or", "to":
		return true
	}
	return false
}

// rough lists words before a count that make it approximate: "around 3
// years ago" is [about 2020].
func rough(w string) bool {
	switch w {
	case "about", "around", "roughly", "approximately", "nearly", "almost", "maybe", "probably":
		return true
	}
	return false
}

// determiner lists words that make "last", "this" and "next" (and a weekday
// or a holiday) count from something other than the moment of speech: "the
// last week", "my next year", "the next day", "every Saturday".
func determiner(w string) bool {
	switch w {
	case "the", "a", "an", "my", "your", "his", "her", "our", "their", "its",
		"that", "this", "these", "those", "every", "each", "whose", "very", "any", "some":
		return true
	}
	return false
}

// pronounIs lists the words whose "'s" is "is" or "has", never an owner.
func pronounIs(w string) bool {
	switch w {
	case "it", "that", "what", "here", "there", "where", "when", "who", "how",
		"he", "she", "let", "everything", "nothing", "something":
		return true
	}
	return false
}

// datePreposition lists the words that put a date in a sentence: "on the
// 15th", "since March", "for Christmas".
func datePreposition(w string) bool {
	switch w {
	case "on", "at", "for", "over", "since", "until", "till", "til", "by", "before", "after",
		"around", "during", "from", "through", "throughout", "in", "of":
		return true
	}
	return false
}

// dayPreposition lists the words that make a bare ordinal a day of the
// month: "on the 15th", "by the 3rd" (but "in the 4th" is a quarter).
func dayPreposition(w string) bool {
	switch w {
	case "on", "since", "until", "till", "til", "by", "before", "after", "from":
		return true
	}
	return false
}

// spanPreposition lists the words that open a span running up to now or on
// from it: "in the past week", "over the next few months".
func spanPreposition(w string) bool {
	switch w {
	case "in", "over", "during", "for", "within", "throughout", "through", "across", "of":
		return true
	}
	return false
}

func modal(w string) bool {
	switch w {
	case "will", "would", "could", "should", "might", "must", "may", "shall", "can":
		return true
	}
	return hasAnySuffix(w, "'ll", "\u2019ll", "'d", "\u2019d")
}

func adverb(w string) bool {
	switch w {
	case "not", "never", "always", "just", "already", "really", "only", "actually", "now":
		return true
	}
	return false
}

// lasting lists past participles of verbs that describe a state or a habit.
func lasting(w string) bool {
	switch w {
	case "been", "had", "known", "lived", "worked", "played", "used", "owned",
		"studied", "stayed", "waited", "practiced", "practised", "loved", "wanted",
		"taught", "done", "kept", "volunteered", "trained", "danced", "painted",
		"collected", "run", "felt", "followed", "dreamed", "dreamt", "struggled",
		"dated", "cooked", "written", "seen", "talked", "spoken", "heard", "met",
		"lost", "missed", "attended", "led", "managed", "helped", "saved", "grown":
		return true
	}
	return false
}

func irregularPast(w string) bool {
	switch w {
	case "was", "were", "did", "had", "went", "got", "came", "ran", "saw", "made", "took",
		"met", "told", "said", "gave", "found", "left", "felt", "thought", "bought", "brought",
		"caught", "taught", "won", "lost", "spent", "sent", "built", "kept", "slept", "ate",
		"drank", "wrote", "drove", "flew", "swam", "sang", "began", "heard", "paid", "sat",
		"stood", "held", "led", "fell", "grew", "knew", "threw", "wore", "rode", "broke",
		"chose", "spoke", "woke", "hung", "dug", "fought", "forgot", "hid", "lit", "meant",
		"rang", "sold", "shot", "shook", "stole", "struck", "swore", "tore", "understood",
		"wasn't", "weren't", "didn't", "hadn't", "wasn\u2019t", "weren\u2019t", "didn\u2019t", "hadn\u2019t":
		return true
	}
	return false
}

// notPast lists words ending in -ed that are not past tenses.
func notPast(w string) bool {
	switch w {
	case "indeed", "speed", "breed", "proceed", "succeed", "exceed", "hundred", "sacred", "naked",
		"wicked", "need", "seed", "feed", "bed", "red", "shed", "weed", "bleed", "greed", "wed", "ted",
		"excited", "interested", "tired", "scared", "bored", "worried", "pleased", "thrilled", "stressed",
		"supposed", "amazed", "surprised", "concerned", "involved", "prepared", "obsessed", "inspired",
		"motivated", "determined", "limited", "advanced", "talented", "detailed", "related", "based", "beloved":
		return true
	}
	return false
}

// copula lists the forms of "be" and words that stand before an adjective:
// an -ed word after one ("I'm excited", "so tired") is no past tense.
func copula(w string) bool {
	switch w {
	case "am", "is", "are", "be", "been", "being", "feel", "feels", "feeling", "get", "getting",
		"so", "very", "really", "too", "super", "pretty", "quite", "totally", "kinda", "more", "most":
		return true
	}
	return hasAnySuffix(w, "'m", "\u2019m", "'re", "\u2019re")
}

// holiday is a named day: the words that name it and its date in a year.
type holiday struct {
	words []string // lower case, possessives removed: "valentine" for "Valentine's"
	on    func(y int) (civil, bool)
}

// holidays are the named days Annotate resolves: fixed dates, and the US
// floating ones by their US rule (Thanksgiving, Mother's Day, ...). The
// longest names come first so "Christmas Eve" wins over "Christmas".
var holidays = []holiday{
	{[]string{"christmas", "eve"}, fixedDay(12, 24)},
	{[]string{"christmas", "day"}, fixedDay(12, 25)},
	{[]string{"christmas"}, fixedDay(12, 25)},
	{[]string{"xmas"}, fixedDay(12, 25)},
	{[]string{"boxing", "day"}, fixedDay(12, 26)},
	{[]string{"new", "year", "eve"}, fixedDay(12, 31)},
	{[]string{"new", "year", "day"}, fixedDay(1, 1)},
	{[]string{"halloween"}, fixedDay(10, 31)},
	{[]string{"valentine", "day"}, fixedDay(2, 14)},
	{[]string{"valentine"}, fixedDay(2, 14)},
	{[]string{"patrick", "day"}, fixedDay(3, 17)},
	{[]string{"april", "fools", "day"}, fixedDay(4, 1)},
	{[]string{"april", "fool", "day"}, fixedDay(4, 1)},
	{[]string{"independence", "day"}, fixedDay(7, 4)},
	{[]string{"fourth", "of", "july"}, fixedDay(7, 4)},
	{[]string{"juneteenth"}, fixedDay(6, 19)},
	{[]string{"bonfire", "night"}, fixedDay(11, 5)},
	{[]string{"veterans", "day"}, fixedDay(11, 11)},
	{[]string{"veteran", "day"}, fixedDay(11, 11)},
	{[]string{"easter", "sunday"}, easter},
	{[]string{"easter"}, easter},
	{[]string{"thanksgiving"}, nthWeekday(11, 3, 4)},
	{[]string{"memorial", "day"}, nthWeekday(5, 0, -1)},
	{[]string{"labor", "day"}, nthWeekday(9, 0, 1)},
	{[]string{"mother", "day"}, nthWeekday(5, 6, 2)},
	{[]string{"father", "day"}, nthWeekday(6, 6, 3)},
}

// holidayHead reports whether w can open a holiday's name.
func holidayHead(w string) bool {
	switch w {
	case "christmas", "xmas", "boxing", "new", "halloween", "valentine", "patrick", "april",
		"independence", "fourth", "juneteenth", "bonfire", "veterans", "veteran", "easter",
		"thanksgiving", "memorial", "labor", "mother", "father":
		return true
	}
	return false
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }
