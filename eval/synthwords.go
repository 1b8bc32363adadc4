package main

import (
	"strconv"
	"time"
)

// The vocabulary and templates the synthetic conversations are written from,
// all written for this project. Templates take {0}, {1}, … for slot values
// and {name} for a speaker; small talk takes {activity}, {thing}, {mood},
// {when}, {question} and {feeling}.

var firstNames = []string{
	"Ines", "Tomas", "Priya", "Darius", "Maren", "Kofi", "Lena", "Rafael", "Yuki", "Oskar",
	"Amara", "Felix", "Noor", "Jonah", "Sabine", "Mateo", "Greta", "Idris", "Hana", "Luca",
}

var greetings = []string{
	"Hey {name}! How's your week going?",
	"Hi {name}, long time no talk!",
	"Morning {name}! Got a minute to catch up?",
	"{name}! I was just thinking about you.",
	"Hello {name}, how have you been?",
}

var greetingReplies = []string{
	"Hey {name}! Pretty good, busy as always. You?",
	"Hi {name}! Things are calm for once. What's new with you?",
	"Good to hear from you, {name}! I've been all over the place lately.",
	"Hey! I'm doing well, thanks. How about you, {name}?",
}

var farewells = []string{
	"I should get going, talk soon!",
	"Anyway, I have to run. Catch up later?",
	"Okay, dinner is calling. Bye for now!",
	"This was nice, {name}. Let's not wait so long next time.",
}

var farewellReplies = []string{
	"Sure, take care!",
	"Talk soon, {name}!",
	"Bye! Say hi to everyone for me.",
	"Definitely. Have a good one, {name}!",
}

var reactions = []string{
	"Wow, that's huge news!",
	"No way! Tell me more about that.",
	"That's wonderful, I'm really happy for you.",
	"Oh, I did not see that coming!",
	"Ha, that's so you.",
	"Congratulations, seriously!",
	"That's amazing. How do you feel about it?",
	"Wait, really? That's fantastic.",
}

var statements = []string{
	"I spent {when} {activity}, and {thing} turned out to be {mood}.",
	"Not much new here, mostly {activity} and keeping an eye on {thing}.",
	"Lately I've been {activity}. {thing} has been {mood}, honestly.",
	"Quick update from my side: {thing} is {mood}, and I'm still {activity} whenever I get a free hour.",
	"You know what I did with {when}? {activity}. It was {mood}.",
	"I've decided {activity} is my new thing. So far {thing} has been {mood}.",
	"Between work and everything else I barely had time, but I squeezed in an hour of {activity}.",
	"Funny thing: {thing} was {mood} again, so I spent {when} {activity}.",
	"My plan for {when} is simple: {activity}, nothing else.",
}

var replies = []string{
	"That sounds {feeling}! {question}",
	"Ha, I can picture it. {question}",
	"I tried {activity} once and gave up after a week, so I'm impressed.",
	"Good for you. I keep meaning to get into {activity} myself.",
	"Oh, {thing} always seems to need attention, doesn't it?",
	"Honestly, that's exactly the kind of week I need. {question}",
	"Nice! {question}",
}

var moods = []string{
	"a bit of a mess", "better than I expected", "really satisfying", "harder than it looks",
	"oddly relaxing", "a small disaster", "pretty great", "more work than I planned",
	"surprisingly fun", "a nice change of pace",
}

var feelings = []string{"lovely", "exhausting", "like a lot of fun", "peaceful", "ambitious", "brilliant", "very you"}

var whens = []string{
	"the whole weekend", "most of Sunday", "a couple of evenings", "the morning",
	"my lunch breaks", "an entire afternoon", "Saturday",
}

var tails = []string{
	"Anyway, how are things on your end?",
	"It's been a good distraction from work.",
	"I'll send you pictures when it's done.",
	"My neighbors probably think I'm a little obsessed.",
	"Tell me if you ever want to join.",
	"I'm trying not to overthink it.",
	"It's the little things, right?",
}

var topics = []*topic{
	{ // gardening
		activities: []string{"repotting the herbs", "weeding the vegetable beds", "building a trellis for the beans", "starting tomatoes from seed", "turning the compost"},
		things:     []string{"the balcony garden", "the compost heap", "the new raised bed", "the lavender by the door", "the slug problem"},
		questions:  []string{"Are you growing anything from seed this year?", "How do you keep the slugs away?", "Do you have room for another bed?"},
		photos:     []string{"a wooden tray of small seedlings on a windowsill", "a raised garden bed with tomato plants"},
	},
	{ // cooking
		activities: []string{"trying out new soup recipes", "baking sourdough", "making dumplings from scratch", "learning to cook curry properly", "meal prepping for the week"},
		things:     []string{"the bread starter", "my cast iron pan", "the spice drawer", "the new oven", "the farmers market"},
		questions:  []string{"What's the best thing you've cooked lately?", "Do you follow recipes or just improvise?", "Can you send me that recipe?"},
		photos:     []string{"a loaf of bread cooling on a rack", "a pot of soup on a stove"},
	},
	{ // cycling
		activities: []string{"riding the river trail", "fixing my bike's gears", "commuting by bike", "training for longer rides", "cleaning the bike chain"},
		things:     []string{"the new saddle", "the back tire", "the hill by the bridge", "my cycling jacket", "the bike lane downtown"},
		questions:  []string{"How far do you usually ride?", "Do you ride in the rain too?", "Is the river trail busy on weekends?"},
		photos:     []string{"a bicycle leaning against a brick wall", "a bike path along a river"},
	},
	{ // board games
		activities: []string{"hosting game nights", "learning a new strategy game", "painting miniatures", "playing chess online", "teaching my friends a card game"},
		things:     []string{"the rulebook", "the expansion box", "our game group", "the dice tower", "the kitchen table"},
		questions:  []string{"Who usually wins at your game nights?", "Is that game hard to learn?", "How long does one round take?"},
		photos:     []string{"a board game spread out on a table", "small painted figurines on a desk"},
	},
	{ // home repairs
		activities: []string{"fixing the leaky tap", "painting the hallway", "putting up shelves", "sorting out the attic", "regrouting the bathroom tiles"},
		things:     []string{"the kitchen ceiling", "the ladder", "the paint job", "the toolbox", "the squeaky door"},
		questions:  []string{"Did you do it all yourself?", "What color did you go with?", "Was it as bad as you feared?"},
		photos:     []string{"a freshly painted hallway with a ladder", "a wall with new wooden shelves"},
	},
	{ // reading
		activities: []string{"reading before bed", "working through a stack of library books", "listening to audiobooks on walks", "rereading old favorites", "keeping a reading journal"},
		things:     []string{"my reading list", "the library app", "the book club", "my bedside lamp", "the secondhand bookshop"},
		questions:  []string{"What are you reading right now?", "Do you prefer paper or audiobooks?", "Any recommendations for me?"},
		photos:     []string{"a stack of books on a nightstand", "a cozy reading chair by a window"},
	},
	{ // work
		activities: []string{"wrapping up a report at work", "training the new hires", "sitting in long planning meetings", "reorganizing the team calendar", "answering emails late at night"},
		things:     []string{"the quarterly deadline", "my inbox", "the office coffee machine", "the new project", "my manager"},
		questions:  []string{"Is work calming down at all?", "Do you get along with the new team?", "When does the project wrap up?"},
		photos:     []string{"a laptop on a desk with a cup of coffee", "a whiteboard full of sticky notes"},
	},
	{ // outdoors
		activities: []string{"walking by the lake", "hiking the ridge path", "watching the storms roll in", "sitting out on the porch", "picking berries along the trail"},
		things:     []string{"the rain", "the morning fog", "the evening light", "the heat", "the wind off the hills"},
		questions:  []string{"Has the weather been kind to you?", "Where's your favorite place to walk?", "Do you go out even when it's cold?"},
		photos:     []string{"a foggy lake at sunrise", "a trail through a pine forest"},
	},
	{ // animals
		activities: []string{"walking the neighbor's dog", "cat-sitting for a friend", "helping out at the animal shelter", "watching birds at the feeder", "reading about bird migration"},
		things:     []string{"the bird feeder", "the leash", "the shelter", "the squirrel feud", "the dog park"},
		questions:  []string{"Do you think you'll get a pet someday?", "What birds have you spotted?", "Are the squirrels still stealing the seeds?"},
		photos:     []string{"a small bird perched on a feeder", "a dog running across a park"},
	},
	{ // music
		activities: []string{"practicing scales", "going to small concerts", "making playlists", "singing in the car", "learning songs by ear"},
		things:     []string{"the old piano", "my record player", "the concert hall", "the new playlist", "the neighbors' drum kit"},
		questions:  []string{"What have you been listening to?", "Do you still play anything?", "Any good concerts coming up?"},
		photos:     []string{"a crowd in front of a small stage", "an upright piano with sheet music"},
	},
	{ // films and TV
		activities: []string{"catching up on a detective series", "watching old black and white films", "going to the cinema", "rewatching a comedy show", "hunting for documentaries"},
		things:     []string{"the season finale", "the soundtrack", "the popcorn", "the dubbing", "the plot twist"},
		questions:  []string{"Would you recommend it?", "Did you see the ending coming?", "Are you watching anything good right now?"},
		photos:     []string{"a cinema ticket and a bucket of popcorn", "a television showing a paused film"},
	},
	{ // fitness
		activities: []string{"swimming laps before work", "doing yoga in the living room", "running intervals", "lifting at the gym", "stretching every morning"},
		things:     []string{"my sore shoulder", "the pool", "the yoga mat", "my new running watch", "the gym schedule"},
		questions:  []string{"How do you stay motivated?", "Do you work out in the mornings or evenings?", "Is your shoulder any better?"},
		photos:     []string{"running shoes on a doorstep", "a yoga mat in a sunny living room"},
	},
	{ // travel planning
		activities: []string{"looking at train routes", "planning a weekend away", "sorting out my passport", "reading travel blogs", "comparing cheap flights"},
		things:     []string{"the train timetable", "the suitcase", "the map on my wall", "the packing list", "the guesthouse booking"},
		questions:  []string{"Where would you go if you could go anywhere?", "Do you like planning trips or just going?", "Have you booked anything yet?"},
		photos:     []string{"a map with pins on a wall", "an open suitcase on a bed"},
	},
	{ // family
		activities: []string{"helping my parents move furniture", "babysitting my nephew", "calling my grandmother", "planning a family dinner", "sorting through old photo albums"},
		things:     []string{"the family group chat", "the birthday cake", "the old photo box", "the guest room", "my little nephew"},
		questions:  []string{"How is everyone in your family?", "Do you see your parents often?", "Is your grandmother doing well?"},
		photos:     []string{"a family dinner table set for eight", "an old photo album open on a table"},
	},
}

// singleHop facts are said in one turn and asked about in one question
// (category 4); some are asked again about the other speaker (category 5).
var singleHop = []struct {
	say, ask, answer string
	slots            [][]string
}{
	{"Big news: I adopted a {0} from the shelter and named it {1}.", "What did {name} name the {0} adopted from the shelter?", "{1}",
		[][]string{{"tabby cat", "beagle", "rabbit", "parrot", "tortoise", "greyhound", "ferret", "guinea pig"}, {"Biscuit", "Juniper", "Pickle", "Moss", "Clementine", "Waffles", "Pepper", "Nimbus", "Tofu", "Saffron"}}},
	{"I signed up for {0} lessons, and my teacher is a retired sailor called {1}.", "Who teaches {name} to play the {0}?", "{1}",
		[][]string{{"cello", "banjo", "trumpet", "ukulele", "accordion", "harp", "drums", "flute"}, {"Mr. Abernathy", "Odile", "Gus", "Mrs. Okafor", "Rosalind", "Bartholomew", "Fenna"}}},
	{"I just finished {0} and it's easily the best book I've read this year.", "Which book did {name} call the best they had read that year?", "{0}",
		[][]string{{"The Copper Orchard", "Salt and Meridian", "The Hollow Clockmaker", "Northern Tides", "The Glass Cartographer", "Ashes of the Harbor", "The Last Beekeeper of Orm", "Paper Lanterns at Dusk"}}},
	{"The doctor finally figured it out: I'm allergic to {0}.", "What did the doctor find out {name} is allergic to?", "{0}",
		[][]string{{"walnuts", "shellfish", "birch pollen", "kiwi", "penicillin", "sesame", "strawberries", "dust mites"}}},
	{"I bought a secondhand {0} and painted it {1}.", "What color did {name} paint the secondhand {0}?", "{1}",
		[][]string{{"scooter", "van", "cargo bike", "canoe", "camper trailer", "motorbike"}, {"mustard yellow", "teal", "cherry red", "forest green", "lilac", "burnt orange", "navy blue"}}},
	{"It's official, I accepted an offer to work as a {0} at {1}.", "Which company hired {name} as a {0}?", "{1}",
		[][]string{{"data analyst", "pastry chef", "museum guide", "paramedic", "landscape architect", "sound engineer", "translator", "pharmacist"}, {"Harbor Lane Studios", "Brightwell Labs", "Kestrel Foods", "Nimbus Transit", "Oakridge Clinic", "Saltmarsh Press", "Tallgrass Energy", "Vireo Design"}}},
	{"I joined a {0} club, and we meet every Thursday at {1}.", "Where does {name}'s {0} club meet?", "{1}",
		[][]string{{"chess", "knitting", "astronomy", "film", "running", "poetry", "birdwatching"}, {"the old fire station", "the back room of a bakery", "the community hall on Elm Street", "the rooftop of the library", "a boathouse by the canal", "the botanical garden cafe"}}},
	{"My signature dish these days is {0}, and the secret is a pinch of {1}.", "What is the secret ingredient in {name}'s {0}?", "{1}",
		[][]string{{"lentil stew", "mushroom risotto", "fish tacos", "stuffed peppers", "apple crumble", "chickpea curry", "pumpkin soup"}, {"smoked paprika", "cardamom", "nutmeg", "sumac", "fennel seed", "cinnamon", "star anise"}}},
	{"We booked a trip to {0}, mostly so I can finally see the {1}.", "What does {name} want to see in {0}?", "the {1}",
		[][]string{{"Lisbon", "Kyoto", "Reykjavik", "Montreal", "Valparaiso", "Tbilisi", "Edinburgh", "Hanoi"}, {"glass observatory", "floating market", "old lighthouse", "ice caves", "tram museum", "cliffside monastery", "night market"}}},
	{"Our new neighbor {0} turns out to be a retired {1}.", "What did {name}'s new neighbor {0} do before retiring?", "{1}",
		[][]string{{"Walter", "Esme", "Horatio", "Agnes", "Leopold", "Minerva", "Cornelius"}, {"submarine engineer", "opera singer", "circus acrobat", "lighthouse keeper", "clockmaker", "court stenographer", "airline pilot"}}},
	{"For our anniversary I gave my partner a {0}, and it was a hit.", "What did {name} give their partner for their anniversary?", "a {0}",
		[][]string{{"hand-carved chess set", "telescope", "vintage record player", "hot air balloon ride", "custom star map", "pottery class voucher", "leather-bound journal"}}},
	{"I bought a {0} for my desk at work and it's already thriving.", "What plant did {name} buy for their desk at work?", "a {0}",
		[][]string{{"snake plant", "tiny bonsai", "string of pearls", "peace lily", "jade plant", "maidenhair fern"}}},
}

// pastEvents are what temporal facts report, in the past tense as said and
// in the base form the question uses.
var pastEvents = []struct{ past, base string }{
	{"ran a half marathon", "run a half marathon"},
	{"passed my driving test", "pass the driving test"},
	{"went to a pottery workshop", "go to a pottery workshop"},
	{"saw the northern lights", "see the northern lights"},
	{"repaired the old sailboat", "repair the old sailboat"},
	{"gave a piano recital", "give a piano recital"},
	{"won the pub quiz", "win the pub quiz"},
	{"planted an apple tree", "plant an apple tree"},
	{"visited a glassblowing studio", "visit a glassblowing studio"},
	{"gave a talk at the library", "give a talk at the library"},
	{"finished the patchwork quilt", "finish the patchwork quilt"},
	{"went ice skating with my cousins", "go ice skating with cousins"},
	{"sold a painting at the craft fair", "sell a painting at the craft fair"},
	{"baked a wedding cake for a friend", "bake a wedding cake for a friend"},
	{"went to a jazz festival", "go to a jazz festival"},
}

// relativeDates are how temporal facts (category 2) are said, relative to
// the session's date, and how the gold answer is computed from it. phrase
// picks LoCoMo's "The Friday before 25 May 2023" over the plain day.
var relativeDates = []struct {
	say    string
	answer func(day time.Time, weekday time.Weekday, phrase bool) string
}{
	{"Guess what, I {0} yesterday!", func(d time.Time, _ time.Weekday, _ bool) string { return dayString(d.AddDate(0, 0, -1)) }},
	{"Yesterday I finally {0}, can you believe it?", func(d time.Time, _ time.Weekday, _ bool) string { return dayString(d.AddDate(0, 0, -1)) }},
	{"Last {weekday} I {0}. What a day that was.", lastWeekday},
	{"I {0} last {weekday} and I'm still smiling about it.", lastWeekday},
	{"Two days ago I {0}, and it went better than I hoped.", func(d time.Time, _ time.Weekday, _ bool) string { return dayString(d.AddDate(0, 0, -2)) }},
	{"I {0} last month, did I ever tell you?", func(d time.Time, _ time.Weekday, _ bool) string {
		return time.Date(d.Year(), d.Month()-1, 1, 0, 0, 0, 0, time.UTC).Format("January 2006")
	}},
	{"I {0} last year, and I'd love to do it again.", func(d time.Time, _ time.Weekday, _ bool) string { return strconv.Itoa(d.Year() - 1) }},
	{"I {0} last week, it was quite something.", func(d time.Time, _ time.Weekday, _ bool) string { return "The week before " + dayString(d) }},
}

// lastWeekday answers "last Saturday" said on day, as a date or in LoCoMo's
// "The Saturday before 25 May 2023" form.
func lastWeekday(day time.Time, wd time.Weekday, phrase bool) string {
	if phrase {
		return "The " + wd.String() + " before " + dayString(day)
	}
	return dayString(weekdayBefore(day, wd))
}

// multiHop facts take two turns, sessions apart, to answer (category 1).
var multiHop = []struct {
	say         [2]string
	ask, answer string
	slots       [][]string
	speakers    []int // who says it, one question each
}{
	{
		say:    [2]string{"My {0} {1} just moved to {2} for a fresh start.", "{1} finally found work, as {3} of all things!"},
		ask:    "What work did {name}'s {0} find after moving to {2}?",
		answer: "{3}",
		slots: [][]string{
			{"cousin", "oldest friend", "college roommate", "childhood friend", "old bandmate", "former flatmate"},
			{"Dora", "Viktor", "Sunny", "Beatrix", "Anselm", "Marisol", "Quentin", "Ottilie"},
			{"Halifax", "Perth", "Marseille", "Bergen", "Cape Town", "Tucson", "Bologna", "Osaka"},
			{"a ferry captain", "a beekeeper", "a radio host", "a glassblower", "a park ranger", "a tattoo artist", "a ski instructor", "an archivist"},
		},
		speakers: []int{0, 1, 0},
	},
	{
		say:      [2]string{"I tried {0} for the first time, and my arms are still shaking.", "Guess who tried {1} for the first time? Me! I loved every minute."},
		ask:      "Which sports has {name} tried for the first time?",
		answer:   "{0} and {1}",
		slots:    [][]string{{"rock climbing", "fencing", "kayaking", "archery", "curling"}, {"paddleboarding", "roller derby", "bouldering", "squash", "sailing"}},
		speakers: []int{0, 1},
	},
}

// interests pair where someone volunteers with what they read about, for
// open-domain questions (category 3) whose answer takes an inference.
var interests = []struct{ place, field string }{
	{"animal shelter", "veterinary medicine"},
	{"community garden", "horticulture"},
	{"children's hospital", "pediatric nursing"},
	{"food bank", "nutrition science"},
	{"local radio station", "broadcast journalism"},
	{"history museum", "archaeology"},
	{"city observatory", "astrophysics"},
}
