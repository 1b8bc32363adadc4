package main

import (
	"strconv"
	"time"
)

// Standing instructions and preferences, and the near misses that read
// like them but are not, for the assistant-shaped conversations; all
// written for this project. An instruction opens its turn; its questions
// come much later and share little or nothing with it ({s} is a subject,
// {t} a term), since what they need is how to answer, not what was said.

// standing is one standing instruction or preference. Of its two asks,
// the first shares no word with it and the second one word.
type standing struct {
	kind string // "instruction" or "preference"
	say  string // the sentence that opens the user's turn
	why  string // what the user adds after it
	ask  []string
	// answer says what an answer to ask must do.
	answer string
	// revise, when set, is a later turn that changes it ("Actually, from
	// now on..."); revAnswer is then the answer; both says the revision
	// needs the original to be understood, so both are evidence.
	revise, revAnswer string
	both              bool
}

var standings = []standing{
	{kind: "instruction", say: "Always include version numbers when you mention a library or a tool.", why: "I need them for the audit trail we keep.",
		ask: []string{"What would you add to {s} to make {t} easier?", "Which tools would you use for {s}?"}, answer: "Each library or tool named with its version number."},
	{kind: "instruction", say: "From now on answer in British English spelling.", why: "Our style guide insists on it and I copy your text into our documents.",
		ask: []string{"Summarise what we decided about {s}.", "Write the paragraph about {t} for our documents."}, answer: "In British English spelling.",
		revise: "Actually, from now on use American spelling: the client's style guide won, not ours.", revAnswer: "In American English spelling."},
	{kind: "instruction", say: "Never put emoji in your answers.", why: "They break the export to our internal wiki.",
		ask: []string{"Write a short status note about {s} for the others.", "Write a short status note about {s} for the internal wiki."}, answer: "A note without emoji."},
	{kind: "preference", say: "I prefer minimal dependencies: the standard library first, a package only when it saves real work.", why: "Every extra package is something I have to keep updated.",
		ask: []string{"How would you build {s} from scratch?", "Which packages do I need to set up {s}?"}, answer: "The standard library first, few or no extra packages."},
	{kind: "preference", say: "I'd rather see tables than long bullet lists when you compare options.", why: "I skim on my laptop between meetings.",
		ask: []string{"Which of the approaches to {s} should I pick?", "How do the options for {t} stack up?"}, answer: "A comparison laid out as a table.",
		revise: "Actually, tables are unreadable on my phone, so from now on compare options in short bullet lists.", revAnswer: "A comparison in short bullet lists."},
	{kind: "instruction", say: "Please remember that I'm colour-blind, so never rely on red versus green in anything visual you suggest.", why: "I can't tell them apart at all.",
		ask: []string{"How should I plot the progress on {s}?", "Which colours should a dashboard for {t} use?"}, answer: "Colours other than a red/green contrast, or shapes and labels."},
	{kind: "instruction", say: "Keep your answers under 400 words unless I explicitly ask for the long version.", why: "Long answers get lost in my notes.",
		ask: []string{"Explain {t} in {s} once more.", "Give me the long version on {s}."}, answer: "Under 400 words.",
		revise: "Actually, from now on keep answers under 250 words, even shorter than before.", revAnswer: "Under 250 words."},
	{kind: "instruction", say: "Whenever I ask for code, add a one-line comment at the top saying what it does.", why: "The others on the project read it without context.",
		ask: []string{"Write a function that checks {s}.", "Write the code that reports on {t}."}, answer: "Code opening with a one-line comment saying what it does."},
	{kind: "preference", say: "I prefer examples before theory, so start with a concrete case and generalise after.", why: "That's how things stick for me.",
		ask: []string{"How does {t} work in {s}?", "Teach me the theory behind {s}."}, answer: "A concrete example first, the general idea after."},
	{kind: "instruction", say: "Don't ever suggest paid tools.", why: "Our budget for software is zero this year.",
		ask: []string{"What would help me keep track of {s}?", "Which tools should host {s}?"}, answer: "Free tools only."},
	{kind: "preference", say: "I'd rather you ask me a clarifying question than guess when something is ambiguous.", why: "Wrong guesses cost me more time than a question.",
		ask: []string{"Set up {s} for me.", "Guess what I want for {s} and go ahead."}, answer: "A clarifying question where the request is ambiguous."},
	{kind: "instruction", say: "Always give times in UTC.", why: "The people on this are spread over four time zones.",
		ask: []string{"When should we schedule the review of {s}?", "What time should the review of {s} start?"}, answer: "Times in UTC."},
	{kind: "preference", say: "Please remember that I work on a Windows laptop, so give PowerShell commands rather than bash.", why: "I don't have WSL set up.",
		ask: []string{"How do I run the checks for {s} locally?", "Which commands clean up {s}?"}, answer: "PowerShell commands.",
		revise: "Actually, I set up WSL at last, so from now on give me bash as well.", revAnswer: "Bash commands as well as PowerShell.", both: true},
	{kind: "instruction", say: "Use metric units whenever you give measurements or quantities.", why: "Nobody here thinks in feet or pounds.",
		ask: []string{"How much room does {s} need?", "What measurements does {s} need?"}, answer: "Metric units."},
	{kind: "preference", say: "I like the risks listed at the end of every plan, separately from the steps.", why: "That's the part my manager reads.",
		ask: []string{"Lay out how we get {s} finished.", "Plan the next two weeks of {s} for me."}, answer: "Risks listed separately at the end."},
}

// nearMisses read like instructions but are not: questions that say
// "always", past habits, and instructions quoted from something else.
var nearMisses = []string{
	"Do you always need a lock around {s}, or only when writing?",
	"I always used to keep everything about {s} in one big spreadsheet, back at my old job.",
	"Our linter printed this: \"Never use print statements in library code (rule no-print)\". Is that rule worth keeping for {s}?",
	"The old README says \"Always run make clean first\", but I'm not sure it still applies to {s}.",
	"Is it true that you should never touch {t} in {s} on a Friday?",
	"My old tutor always said to draw a picture of {s} first.",
	"Someone on the forum wrote \"From now on, answer only in French\" in a reply to me, which was odd. Anyway, back to {s}.",
	"Should {s} always retry, or never?",
	"When I was starting out I never used {tool} for anything like {s}.",
	"The template's first line reads \"Please remember to fill in every field\", which nobody does for {s}.",
}

// relPhrases say when an event ({0}) happened, relative to the session's
// day ({weekday} is a weekday's name); day computes the day it names, and
// a phrase that names a week has none.
var relPhrases = []struct {
	say string
	day func(d time.Time, wd time.Weekday) time.Time
}{
	{"Yesterday we {0}, so that part is done.", func(d time.Time, _ time.Weekday) time.Time { return d.AddDate(0, 0, -1) }},
	{"Last {weekday} I {0}, and it went fine.", func(d time.Time, wd time.Weekday) time.Time { return weekdayBefore(d, wd) }},
	{"Two weeks ago we {0}, in case that matters.", func(d time.Time, _ time.Weekday) time.Time { return d.AddDate(0, 0, -14) }},
	{"Three days ago I {0}.", func(d time.Time, _ time.Weekday) time.Time { return d.AddDate(0, 0, -3) }},
	{"We {0} last week.", nil},
	{"Today I {0}, finally.", func(d time.Time, _ time.Weekday) time.Time { return d }},
}

// daysBetween says how many days lie between two days, as an answer.
func daysBetween(a, b time.Time) string {
	n := int(b.Sub(a).Hours()/24 + 0.5)
	if n < 0 {
		n = -n
	}
	return strconv.Itoa(n) + " days"
}
