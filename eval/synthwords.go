package main

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

// threadMentions bring a speaker's own thread (see factKind.subject) back
// into small talk; threadQuestions are the other speaker asking after it.
var threadMentions = []string{
	"{subject} is taking up most of my evenings lately.",
	"Quick update on {subject}: nothing dramatic, but it's going well.",
	"I was telling my sister about {subject} and realized how much has changed.",
	"Between work and {subject}, my week disappeared.",
	"I keep thinking about {subject}, honestly. It's been good for me.",
	"Not much to report on {subject}, which is a relief for once.",
}

var threadQuestions = []string{
	"And how's {subject} going?",
	"Any news about {subject}?",
	"You haven't mentioned {subject} in a while. All good?",
}

// chatter is what people add to a message that says little: it lengthens
// turns as real ones are lengthened, with words many turns share.
var chatter = []string{
	"It's been one of those weeks where everything happens at once.",
	"I'll tell you the whole story next time we get coffee.",
	"Sorry, I'm typing this on the bus.",
	"The weather has been all over the place, so I've stayed in a lot.",
	"My phone has been acting up, so sorry if I go quiet.",
	"Anyway, enough about me for a second.",
	"I've been sleeping badly, so forgive the rambling.",
	"I can't believe how fast this year is going.",
	"My sister says hi, by the way.",
	"I need to get better at taking breaks.",
	"Half the office seems to be on holiday at the same time.",
	"I made way too much coffee this morning and now I can't sit still.",
	"It feels like ages since we properly caught up.",
	"I've been trying to spend less time on my phone, with mixed results.",
	"Some days I wish the weekend were three days long.",
	"I wrote it all down so I wouldn't forget to tell you.",
	"Life has been busy, but the good kind of busy.",
	"I keep meaning to call more often.",
}

// asides lengthen a statement with a second thought on the same topic.
var asides = []string{
	"I keep telling myself it's a hobby, not a second job.",
	"{thing} has a way of eating whole weekends.",
	"Part of me wants to quit, and part of me wants to do it every day.",
	"I even made a little checklist for it, which tells you how serious this is.",
	"It started as something to do on rainy days and now it's half my week.",
	"I'm learning more about {thing} than I ever expected to.",
	"My family thinks I've lost the plot, and they might be right.",
	"Next time I'll ask for help before I start, not halfway through.",
	"Every time I think I'm done, {thing} finds a new way to surprise me.",
	"Honestly, {activity} is cheaper than therapy.",
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
		things:     []string{"the balcony garden", "the compost heap", "the new raised bed", "the lavender by the door", "the slug problem", "the plant swap at work"},
		questions:  []string{"Are you growing anything from seed this year?", "How do you keep the slugs away?", "Do you have room for another bed?"},
		photos:     []string{"a wooden tray of small seedlings on a windowsill", "a raised garden bed with tomato plants"},
	},
	{ // cooking
		activities: []string{"trying out new soup recipes", "baking sourdough", "making dumplings from scratch", "learning to cook curry properly", "meal prepping for the week"},
		things:     []string{"the bread starter", "my cast iron pan", "the spice drawer", "the new oven", "the farmers market", "the family recipe book"},
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
		things:     []string{"the rulebook", "the expansion box", "our game group", "the dice tower", "the kitchen table", "the chess club across town"},
		questions:  []string{"Who usually wins at your game nights?", "Is that game hard to learn?", "How long does one round take?"},
		photos:     []string{"a board game spread out on a table", "small painted figurines on a desk"},
	},
	{ // home repairs
		activities: []string{"fixing the leaky tap", "painting the hallway", "putting up shelves", "sorting out the attic", "regrouting the bathroom tiles"},
		things:     []string{"the kitchen ceiling", "the ladder", "the paint job", "the toolbox", "the squeaky door", "the new apartment's wiring", "the garage workbench"},
		questions:  []string{"Did you do it all yourself?", "What color did you go with?", "Was it as bad as you feared?"},
		photos:     []string{"a freshly painted hallway with a ladder", "a wall with new wooden shelves"},
	},
	{ // reading
		activities: []string{"reading before bed", "working through a stack of library books", "listening to audiobooks on walks", "rereading old favorites", "keeping a reading journal"},
		things:     []string{"my reading list", "the library app", "the book club", "my bedside lamp", "the secondhand bookshop", "a novel everyone recommends"},
		questions:  []string{"What are you reading right now?", "Do you prefer paper or audiobooks?", "Any recommendations for me?"},
		photos:     []string{"a stack of books on a nightstand", "a cozy reading chair by a window"},
	},
	{ // work
		activities: []string{"wrapping up a report at work", "training the new hires", "sitting in long planning meetings", "reorganizing the team calendar", "answering emails late at night"},
		things:     []string{"the quarterly deadline", "my inbox", "the office coffee machine", "the new project", "my manager", "the job interviews", "my desk by the window"},
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
		things:     []string{"the bird feeder", "the leash", "the shelter", "the squirrel feud", "the dog park", "the rescue center", "the adoption forms"},
		questions:  []string{"Do you think you'll get a pet someday?", "What birds have you spotted?", "Are the squirrels still stealing the seeds?"},
		photos:     []string{"a small bird perched on a feeder", "a dog running across a park"},
	},
	{ // music
		activities: []string{"practicing scales", "going to small concerts", "making playlists", "singing in the car", "learning songs by ear"},
		things:     []string{"the old piano", "my record player", "the concert hall", "the new playlist", "the neighbors' drum kit", "my music teacher", "the concert tickets"},
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
		things:     []string{"the train timetable", "the suitcase", "the map on my wall", "the packing list", "the guesthouse booking", "the conference schedule"},
		questions:  []string{"Where would you go if you could go anywhere?", "Do you like planning trips or just going?", "Have you booked anything yet?"},
		photos:     []string{"a map with pins on a wall", "an open suitcase on a bed"},
	},
	{ // family
		activities: []string{"helping my parents move furniture", "babysitting my nephew", "calling my grandmother", "planning a family dinner", "sorting through old photo albums"},
		things:     []string{"the family group chat", "the birthday cake", "the old photo box", "the guest room", "my little nephew", "the new baby", "my grandmother's old things"},
		questions:  []string{"How is everyone in your family?", "Do you see your parents often?", "Is your grandmother doing well?"},
		photos:     []string{"a family dinner table set for eight", "an old photo album open on a table"},
	},
}
