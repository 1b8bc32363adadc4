package main

import (
	"strconv"
	"time"
)

// The facts planted in the synthetic conversations, all written for this
// project. Templates take {0}, {1}, … for slot values and {name} for the
// speaker a question is about.
//
// Real conversations rarely say a fact in the words a later question uses,
// so each fact can be said three ways (see sayStyle): directly, in the
// question's words; paraphrased, sharing about one of them; or barely,
// sharing none, answering the other speaker's cue, which does carry the
// question's words. The cue and the echo (the other speaker's reply) are
// what a stretch of the conversation holds and a single turn does not.

// factKind is one kind of single-hop fact (category 4; some are asked again
// about the other speaker, category 5).
type factKind struct {
	slots  [][]string
	ask    []string // the question
	answer string
	direct []string // said in the question's words
	para   []string // paraphrased: about one of the question's words
	bare   []string // none of the question's words: it answers a cue
	cue    []string // the other speaker raises the subject, in the question's words
	echo   []string // the other speaker replies
	// subject names the fact's thread without its answer: the speaker
	// comes back to it in small talk, so the question's words are in
	// many turns besides the evidence, as in a real conversation.
	subject []string
	// named says the question names a value of the fact ({0}), so asking
	// it about the other speaker points at this fact alone.
	named bool
}

var singleHop = []factKind{
	{ // a pet
		slots:   [][]string{{"beagle", "tabby cat", "rabbit", "parrot", "greyhound", "tortoise", "ferret", "spaniel", "guinea pig", "husky"}, {"Biscuit", "Juniper", "Pickle", "Moss", "Clementine", "Waffles", "Pepper", "Nimbus", "Tofu", "Dumpling", "Marbles"}},
		ask:     []string{"What did {name} name the {0} adopted from the shelter?", "What is the name of the {0} {name} adopted?"},
		answer:  "{1}",
		direct:  []string{"Big news: I adopted a {0} from the shelter and named it {1}.", "I finally adopted a {0} from the animal shelter! Its name is {1}, and it already rules the house."},
		para:    []string{"Say hello to {1}! The rescue let me bring the little {0} home on Friday, and we're both still adjusting.", "There's a {0} asleep on my feet as I type. {1} came home with me from the rescue this weekend."},
		bare:    []string{"We signed the papers this morning. I'm calling her {1}, and she has already claimed the sofa.", "Yes! {1} came home with me. She spent the first night under the bed, poor thing."},
		cue:     []string{"Did you go back to the shelter to meet that {0} you liked?", "So, are you adopting the {0} from the shelter or not?"},
		echo:    []string{"{1} is a perfect name for a {0}. Send pictures, please!", "Aww, a {0}! I can't wait to meet {1}."},
		subject: []string{"the {0} from the shelter", "my new {0}"},
		named:   true,
	},
	{ // music lessons
		slots:   [][]string{{"cello", "banjo", "trumpet", "ukulele", "accordion", "harp", "drums", "flute", "violin", "saxophone"}, {"Mr. Abernathy", "Odile", "Gus", "Mrs. Okafor", "Rosalind", "Bartholomew", "Fenna", "Ignatius", "Mirela"}},
		ask:     []string{"Who teaches {name} to play the {0}?", "What is the name of {name}'s {0} teacher?"},
		answer:  "{1}",
		direct:  []string{"I signed up for {0} lessons, and my teacher is a retired sailor called {1}.", "My new {0} teacher, {1}, is strict but really good. I play every evening now."},
		para:    []string{"{1} says I'm the most stubborn {0} student she has ever had. I'm taking that as a compliment.", "Week three with the {0}. {1} makes me practise scales for half an hour before we touch a real song."},
		bare:    []string{"Slowly! {1} makes me repeat the same four bars until my fingers hurt, but I can hear the progress.", "It's humbling. {1} keeps saying patience is half of music, and I keep running out of it."},
		cue:     []string{"How are the {0} lessons going?", "Are you still learning to play the {0}?"},
		echo:    []string{"{1} sounds like a great teacher. I'd love to hear you play the {0} one day.", "Ha, every music teacher says that."},
		subject: []string{"my {0} lessons", "learning the {0}"},
		named:   true,
	},
	{ // a book
		slots:   [][]string{{"The Copper Orchard", "Salt and Meridian", "The Hollow Clockmaker", "Northern Tides", "The Glass Cartographer", "Ashes of the Harbor", "The Last Beekeeper of Orm", "Paper Lanterns at Dusk", "A Map of Quiet Rivers", "The Winter Almanac"}},
		ask:     []string{"Which book did {name} call the best they had read that year?", "What is the best book {name} read that year?"},
		answer:  "{0}",
		direct:  []string{"I just finished {0} and it's easily the best book I've read this year.", "Best novel of the year so far: {0}. I'd recommend it to anyone."},
		para:    []string{"If you need something for the train, get {0}. I couldn't put it down.", "{0} kept me up until two in the morning. The ending is perfect."},
		bare:    []string{"{0}. Stayed up way too late with it and I have no regrets.", "Oh, easy: {0}. I'm already lending my copy to my sister."},
		cue:     []string{"Read any good books lately?", "I need a good book for my holiday. What's the best one you've read this year?"},
		echo:    []string{"Adding {0} to my list right now.", "I've heard good things about {0}!"},
		subject: []string{"my reading list", "the books I've read this year"},
	},
	{ // an allergy
		slots:   [][]string{{"walnuts", "shellfish", "birch pollen", "kiwi", "penicillin", "sesame", "strawberries", "dust mites", "latex", "mustard"}},
		ask:     []string{"What is {name} allergic to?", "What did the tests show {name} is allergic to?"},
		answer:  "{0}",
		direct:  []string{"The doctor finally figured it out: I'm allergic to {0}.", "Mystery solved, I'm allergic to {0}. The doctor showed me the test results."},
		para:    []string{"Turns out my body can't handle {0}. The results came back this week and explain the rashes.", "No more {0} for me, ever. The clinic confirmed it on Tuesday."},
		bare:    []string{"It was {0} all along! I've had to clear out half the kitchen.", "Came back positive for {0}, which explains so much about those itchy summers."},
		cue:     []string{"Did the tests show what you're allergic to?", "So what are you allergic to, in the end?"},
		echo:    []string{"Oh no, {0} is in so many things. Be careful!", "At least now you know what to avoid."},
		subject: []string{"the allergy tests", "my allergy"},
	},
	{ // a painted vehicle
		slots:   [][]string{{"scooter", "van", "cargo bike", "canoe", "camper trailer", "motorbike", "rowing boat"}, {"mustard yellow", "teal", "cherry red", "forest green", "lilac", "burnt orange", "navy blue", "sky blue"}},
		ask:     []string{"What color did {name} paint the secondhand {0}?", "What color is {name}'s {0} now?"},
		answer:  "{1}",
		direct:  []string{"I bought a secondhand {0} and painted it {1}.", "The {0} got a new coat of paint: {1}. It looks brand new."},
		para:    []string{"The old {0} is {1} now. Three coats, but you can't miss it anywhere.", "You won't recognize the {0}. {1} from top to bottom!"},
		bare:    []string{"Finished it on Sunday: {1}, top to bottom. My neighbor stopped to stare.", "Done at last. I went with {1}, and I think it suits it."},
		cue:     []string{"How's the {0} project coming along? Did you pick a color?", "Have you painted that {0} yet?"},
		echo:    []string{"{1}? Bold choice. I love it.", "I need to see this {0} in person."},
		subject: []string{"the {0}", "painting the {0}"},
		named:   true,
	},
	{ // a job
		slots:   [][]string{{"data analyst", "pastry chef", "museum guide", "paramedic", "landscape architect", "sound engineer", "translator", "pharmacist", "lab technician", "copy editor"}, {"Harbor Lane Studios", "Brightwell Labs", "Kestrel Foods", "Nimbus Transit", "Oakridge Clinic", "Saltmarsh Press", "Tallgrass Energy", "Vireo Design", "Larkspur Logistics", "Copperfield Bakery"}},
		ask:     []string{"Which company hired {name} as a {0}?", "Where did {name} get the job as a {0}?"},
		answer:  "{1}",
		direct:  []string{"It's official, I accepted an offer to work as a {0} at {1}.", "{1} offered me the {0} job and I said yes!"},
		para:    []string{"First week as a {0} done. {1} has the friendliest office I've ever seen.", "I'm officially a {0}. {1} even gave me a desk by the window."},
		bare:    []string{"{1} called back! I start on Monday, and I'm nervous and thrilled.", "They said yes! Monday is my first day at {1}."},
		cue:     []string{"Any news from those {0} interviews?", "Did you hear back about the {0} position?"},
		echo:    []string{"A {0} at {1}, that's a big step. Congratulations!", "They're lucky to have you."},
		subject: []string{"the {0} job", "my job search"},
		named:   true,
	},
	{ // a club
		slots:   [][]string{{"chess", "knitting", "astronomy", "film", "running", "poetry", "birdwatching", "pottery", "choir"}, {"the old fire station", "the back room of a bakery", "the community hall on Elm Street", "the rooftop of the library", "a boathouse by the canal", "the botanical garden cafe", "the basement of the town museum"}},
		ask:     []string{"Where does {name}'s {0} club meet?", "Where do the members of {name}'s {0} club get together?"},
		answer:  "{1}",
		direct:  []string{"I joined a {0} club, and we meet every Thursday at {1}.", "The {0} club meets at {1} now, which is much closer to me."},
		para:    []string{"Thursday nights are for {0} now. A dozen of us squeeze into {1} and lose track of time.", "I found my {0} people! We gather at {1} once a week."},
		bare:    []string{"We get {1} to ourselves every Thursday. Twelve regulars, plus whoever wanders in.", "It's at {1}, of all places. The coffee is terrible and I love it."},
		cue:     []string{"Did you end up joining that {0} club?", "How's the {0} club? Where do you all meet?"},
		echo:    []string{"{1} sounds like a cozy spot for a {0} club.", "I might tag along one Thursday."},
		subject: []string{"the {0} club", "my {0} club friends"},
		named:   true,
	},
	{ // a signature dish
		slots:   [][]string{{"lentil stew", "mushroom risotto", "fish tacos", "stuffed peppers", "apple crumble", "chickpea curry", "pumpkin soup", "bean chili"}, {"smoked paprika", "cardamom", "nutmeg", "sumac", "fennel seed", "cinnamon", "star anise", "saffron"}},
		ask:     []string{"What is the secret ingredient in {name}'s {0}?", "What spice does {name} put in the {0}?"},
		answer:  "{1}",
		direct:  []string{"My signature dish these days is {0}, and the secret is a pinch of {1}.", "The secret ingredient in my {0}? {1}, always."},
		para:    []string{"Everyone asks why my {0} tastes different. A little {1}, that's all.", "I'll tell you, but keep it quiet: {1} in the {0}."},
		bare:    []string{"A pinch of {1}, right at the end. Don't tell anyone.", "It's {1}. My grandfather swore by it and he was right."},
		cue:     []string{"You have to tell me the secret of your {0}.", "What do you put in your {0} that makes it so good?"},
		echo:    []string{"{1} in {0}? I'm trying that this weekend.", "I knew there was something in there!"},
		subject: []string{"my {0}", "cooking {0}"},
		named:   true,
	},
	{ // a trip
		slots:   [][]string{{"Lisbon", "Kyoto", "Reykjavik", "Montreal", "Valparaiso", "Tbilisi", "Edinburgh", "Hanoi", "Krakow", "Oaxaca"}, {"glass observatory", "floating market", "old lighthouse", "ice caves", "tram museum", "cliffside monastery", "night market", "botanical maze"}},
		ask:     []string{"What does {name} want to see in {0}?", "What sight is {name} most excited about in {0}?"},
		answer:  "the {1}",
		direct:  []string{"We booked a trip to {0}, mostly so I can finally see the {1}.", "In {0} the first thing I want to see is the {1}."},
		para:    []string{"Flights to {0} are booked! I've been dreaming about the {1} for years.", "The whole {0} plan is really an excuse to visit the {1}."},
		bare:    []string{"Honestly, the {1}. I've had a postcard of it on my fridge since I was a kid.", "Mostly the {1}. Everything else is a bonus."},
		cue:     []string{"So what's the plan for {0}? Anything you're dying to see?", "Have you figured out what to see in {0}?"},
		echo:    []string{"The {1} in {0}! Take a million photos.", "That's been on my list forever."},
		subject: []string{"the {0} trip", "planning {0}"},
		named:   true,
	},
	{ // a neighbor
		slots:   [][]string{{"Walter", "Esme", "Horatio", "Agnes", "Leopold", "Minerva", "Cornelius", "Dorothea"}, {"submarine engineer", "opera singer", "circus acrobat", "lighthouse keeper", "clockmaker", "court stenographer", "airline pilot", "ship's cook"}},
		ask:     []string{"What did {name}'s neighbor {0} do before retiring?", "What was the career of {name}'s neighbor {0}?"},
		answer:  "{1}",
		direct:  []string{"Our new neighbor {0} turns out to be a retired {1}.", "My neighbor {0} told me they used to be a {1} before retiring."},
		para:    []string{"{0} from next door spent forty years as a {1}. The stories are endless.", "Guess what {0} next door did for a living? {1}!"},
		bare:    []string{"A {1} for thirty years, can you imagine? There's a story for every occasion.", "A {1}! That explains the odd hours and the collection in the garage."},
		cue:     []string{"Have you met the new neighbor yet, {0}?", "What's the story with {0} next door?"},
		echo:    []string{"A retired {1}? I'd listen to those stories all day.", "{0} sounds like a character."},
		subject: []string{"{0} next door", "our neighbor {0}"},
		named:   true,
	},
	{ // an anniversary present
		slots:   [][]string{{"hand-carved chess set", "telescope", "vintage record player", "hot air balloon ride", "custom star map", "pottery class voucher", "leather-bound journal", "weekend cooking course"}},
		ask:     []string{"What did {name} give their partner for their anniversary?", "What anniversary present did {name} choose?"},
		answer:  "a {0}",
		direct:  []string{"For our anniversary I gave my partner a {0}, and it was a hit.", "The anniversary present this year was a {0}, and my partner loved it."},
		para:    []string{"Ten years together, so I went big: a {0}. There may have been happy tears.", "I surprised my other half with a {0}. Best decision I made all year."},
		bare:    []string{"A {0}! I hid it in the car for a week.", "I went with a {0} in the end, and it landed perfectly."},
		cue:     []string{"Did you figure out a present for your anniversary?", "What are you getting your partner for the anniversary?"},
		echo:    []string{"A {0}, how romantic!", "That's so thoughtful."},
		subject: []string{"the anniversary", "our anniversary plans"},
	},
	{ // a desk plant
		slots:   [][]string{{"snake plant", "tiny bonsai", "string of pearls", "peace lily", "jade plant", "maidenhair fern", "rubber tree", "spider plant"}},
		ask:     []string{"What plant did {name} buy for their desk at work?", "Which plant sits on {name}'s office desk?"},
		answer:  "a {0}",
		direct:  []string{"I bought a {0} for my desk at work and it's already thriving.", "My desk at the office finally has a plant: a {0}."},
		para:    []string{"There's a {0} next to my monitor now, and my coworkers keep watering it when I'm not looking.", "Brought a {0} into work. It's the greenest thing on our floor."},
		bare:    []string{"A {0}, and somehow it's thriving under those awful lights.", "Went with a {0}. Hard to kill, which matters with my track record."},
		cue:     []string{"Did you get something green for your desk in the end?", "You said your office needs a plant. Did you buy one?"},
		echo:    []string{"A {0} is a good choice for an office.", "Office plants make such a difference."},
		subject: []string{"my office desk", "the plants at work"},
	},
	{ // a move
		slots:   [][]string{{"Riverside", "Old Town", "Millbrook", "Harbor Heights", "the Arts Quarter", "Willow Park", "Northgate", "Cedar Hill"}},
		ask:     []string{"Which neighborhood did {name} move to?", "Where is {name}'s new apartment?"},
		answer:  "{0}",
		direct:  []string{"We finally moved to {0}, and the new apartment has a balcony!", "We moved! Our new apartment is in {0}, right by the bakery."},
		para:    []string{"The boxes are unpacked at last. {0} feels like home already.", "Living in {0} means I can walk to work now."},
		bare:    []string{"Keys are in my hand! It's in {0}, third floor, no elevator.", "{0}! Small kitchen, huge windows, noisy pigeons."},
		cue:     []string{"Have you picked a neighborhood to move to yet?", "Is the hunt for a new apartment going any better? Still set on moving?"},
		echo:    []string{"{0} is lovely, great choice.", "I'll bring a plant for the new place."},
		subject: []string{"the new apartment", "the move"},
	},
	{ // a baby in the family
		slots:   [][]string{{"sister", "brother", "cousin", "best friend"}, {"Otto", "Wren", "Ilse", "Theo", "Maya", "Ezra", "Lotte", "Niko"}},
		ask:     []string{"What is the name of {name}'s {0}'s baby?", "What did {name}'s {0} name the new baby?"},
		answer:  "{1}",
		direct:  []string{"My {0} had the baby! They named it {1}.", "There's a new baby in the family: my {0}'s little {1}."},
		para:    []string{"Little {1} arrived on Tuesday, and my {0} is already exhausted and glowing.", "I held my {0}'s newborn today. {1} has the tiniest hands."},
		bare:    []string{"{1}, after our great-grandfather. Seven pounds and very loud.", "They went with {1}! Everybody is over the moon."},
		cue:     []string{"Has your {0} had the baby yet?", "Any news about your {0}'s baby?"},
		echo:    []string{"{1} is a beautiful name.", "Congratulations to the whole family!"},
		subject: []string{"my {0}'s baby", "the new baby"},
		named:   true,
	},
	{ // a project in the garage
		slots:   [][]string{{"canoe", "harpsichord", "treehouse", "telescope mount", "rocking chair", "pinball machine", "bookshelf wall", "wooden sailboat"}},
		ask:     []string{"What is {name} building in the garage?", "What project is {name} building by hand?"},
		answer:  "a {0}",
		direct:  []string{"I'm building a {0} in the garage, one weekend at a time.", "The garage is full of sawdust because I'm building a {0}."},
		para:    []string{"The {0} is about half done. My hands are covered in glue and splinters.", "Spent Sunday sanding panels for the {0}. It's starting to look real."},
		bare:    []string{"It's a {0}! Don't laugh, I have drawings and everything.", "Remember those plans I showed you? I started cutting wood for the {0}."},
		cue:     []string{"What's all that noise coming from your garage?", "Are you still working on that project in the garage?"},
		echo:    []string{"A homemade {0}! You have to show me when it's done.", "That's ambitious, I love it."},
		subject: []string{"the garage project", "the project in the garage"},
	},
	{ // a concert
		slots:   [][]string{{"The Marble Pilots", "Velvet Harbor", "Sunday Static", "The Lanternfish", "Copper Moth", "Night Tram Choir", "Wildflower Radio", "The Quiet Engines"}},
		ask:     []string{"Which band did {name} see live?", "What concert did {name} go to?"},
		answer:  "{0}",
		direct:  []string{"I finally saw {0} live, and the concert was even better than the album.", "Went to see {0} live, and I still have no voice after that concert."},
		para:    []string{"{0} played a three-hour set and I sang along to every song.", "Front row for {0}! My ears are still ringing."},
		bare:    []string{"{0}! We danced until the lights came on.", "Best night in ages. {0} closed with my favorite song."},
		cue:     []string{"How was the concert?", "Did you go see that band you love?"},
		echo:    []string{"{0} live must have been amazing.", "I'm so jealous!"},
		subject: []string{"the concert", "live music"},
	},
	{ // an heirloom
		slots:   [][]string{{"pocket watch", "sewing machine", "brass compass", "recipe box", "silver teapot", "wooden chess board", "music box"}, {"grandmother", "great-aunt", "godmother", "aunt"}},
		ask:     []string{"What did {name} inherit from their {1}?", "Which family heirloom did {name}'s {1} leave them?"},
		answer:  "the {0}",
		direct:  []string{"My {1} left me her old {0}. I keep it on the shelf by my bed.", "I inherited my {1}'s {0}, and it still works."},
		para:    []string{"The {0} came to me after the funeral. My {1} used it every single day.", "I've been polishing the {0} that used to sit on my {1}'s mantelpiece."},
		bare:    []string{"The {0}. I cried when they gave it to me.", "Her {0}, the one I played with as a kid."},
		cue:     []string{"How are you doing since your {1} passed?", "Did your {1} leave you anything special?"},
		echo:    []string{"That {0} must mean so much to you.", "What a lovely thing to remember her by."},
		subject: []string{"my {1}'s things", "everything my {1} left"},
	},
	{ // a favorite hike
		slots:   [][]string{{"Foxglove Ridge", "the Miller Gorge", "Blackwater Falls", "the Heron Lakes loop", "Granite Point", "Sorrel Valley", "the Old Quarry path"}},
		ask:     []string{"What is {name}'s favorite place to hike?", "Where does {name} like to go hiking?"},
		answer:  "{0}",
		direct:  []string{"My favorite hike is {0}. I go there whenever I need to think.", "If I could hike one place forever, it'd be {0}."},
		para:    []string{"Walked {0} again on Saturday. Nothing clears my head like that trail.", "{0} at sunrise is my idea of church."},
		bare:    []string{"{0}, always. The view from the top is worth every blister.", "Oh, {0}, no question. I've been a hundred times."},
		cue:     []string{"Where's your favorite place to hike?", "Any hiking trails you'd recommend?"},
		echo:    []string{"{0}! I've been meaning to go.", "Take me with you next time."},
		subject: []string{"my favorite hike", "hiking"},
	},
}

// hopKind is one kind of multi-hop fact (category 1): two turns, sessions
// apart, each holding half the answer. The first is said in the question's
// words; the second, like most second hops in real conversations, shares few
// of them.
type hopKind struct {
	slots  [][]string
	ask    string
	answer string
	first  []string
	second []string // the second half; some share one of the question's words
	cue    []string // the other speaker asks after the second half, in the question's words
	// pair says the two halves are two values drawn from one list, so slot
	// 0 gives both {0} and {1}.
	pair bool
}

var multiHop = []hopKind{
	{ // a friend's new life
		slots: [][]string{
			{"cousin", "oldest friend", "college roommate", "childhood friend", "old bandmate", "former flatmate"},
			{"Dora", "Viktor", "Sunny", "Beatrix", "Anselm", "Marisol", "Quentin", "Ottilie", "Casimir", "Liesl"},
			{"Halifax", "Perth", "Marseille", "Bergen", "Cape Town", "Tucson", "Bologna", "Osaka"},
			{"a ferry captain", "a beekeeper", "a radio host", "a glassblower", "a park ranger", "a tattoo artist", "a ski instructor", "an archivist"},
		},
		ask:    "What work did {name}'s {0} find after moving to {2}?",
		answer: "{3}",
		first:  []string{"My {0} {1} just moved to {2} for a fresh start.", "{1}, my {0}, packed up everything and moved to {2}."},
		second: []string{"{1} finally found work, as {3} of all things!", "{1} called: {3} now, can you believe it?", "Heard from {1}. Turns out they're {3} these days and loving it.", "{1} found work in {2} at last, as {3}."},
		cue:    []string{"How is your {0} getting on in {2}?", "Did your {0} find work in {2} yet?"},
	},
	{ // new sports
		slots:  [][]string{{"rock climbing", "fencing", "kayaking", "archery", "curling", "paddleboarding"}, {"roller derby", "bouldering", "squash", "sailing", "water polo", "table tennis"}},
		ask:    "Which sports has {name} tried for the first time?",
		answer: "{0} and {1}",
		first:  []string{"I tried {0} for the first time, and my arms are still shaking.", "First time ever doing {0} today. I'm hooked."},
		second: []string{"Guess who signed up for {1}? Me! Loved every minute.", "My coworkers dragged me to {1} and I was surprisingly decent.", "Tried {1} for the first time, and I'm already looking for a club."},
		cue:    []string{"Tried any new sports lately?", "Still trying new sports?"},
	},
	{ // work trips
		slots:  [][]string{{"Rotterdam", "Lyon", "Gdansk", "Porto", "Leeds", "Graz", "Aarhus", "Seville", "Turin", "Ghent"}},
		pair:   true,
		ask:    "Which cities did {name} travel to for work?",
		answer: "{0} and {1}",
		first:  []string{"Work is sending me to {0} for a conference.", "I have a work trip to {0} coming up, three days of meetings."},
		second: []string{"Back from {1}! The client dinners ran long but the food made up for it.", "Greetings from a hotel in {1}. The meetings are endless.", "Another work trip, this time to {1}."},
		cue:    []string{"Are you traveling for work again?", "Where did work send you this time?"},
	},
	{ // languages
		slots:  [][]string{{"Portuguese", "Korean", "Finnish", "Turkish", "Swahili", "Dutch", "Greek", "Icelandic"}},
		pair:   true,
		ask:    "Which languages is {name} learning?",
		answer: "{0} and {1}",
		first:  []string{"I started learning {0} on my phone, ten minutes a day.", "I'm learning {0} now, so I can talk to my in-laws."},
		second: []string{"My {1} tutor says my accent is finally improving.", "Started evening classes in {1}. My brain is full.", "Learning {1} too now, because apparently one language wasn't enough."},
		cue:    []string{"How's the language learning going?", "Are you still learning languages on the train?"},
	},
	{ // cooking for the family
		slots:  [][]string{{"paella", "lasagna", "dumplings", "moussaka", "pierogi", "tagine", "shepherd's pie", "enchiladas"}},
		pair:   true,
		ask:    "What dishes has {name} cooked for family gatherings?",
		answer: "{0} and {1}",
		first:  []string{"I made {0} for my parents' anniversary dinner, and the whole family went quiet eating it.", "I cooked {0} for the family gathering on Sunday."},
		second: []string{"Everyone at the reunion asked for seconds of my {1}.", "My aunt wants the recipe for my {1} now.", "For the family lunch I cooked {1} and there were no leftovers."},
		cue:    []string{"What did you cook for the family this time?", "Were you on cooking duty at the family gathering again?"},
	},
	{ // the kids' hobbies
		slots:  [][]string{{"robotics", "ballet", "magic tricks", "skateboarding", "gymnastics", "origami", "stargazing", "karate"}},
		pair:   true,
		ask:    "What hobbies have {name}'s kids picked up?",
		answer: "{0} and {1}",
		first:  []string{"My daughter has become obsessed with {0}, and the hobby has taken over the living room.", "The kids have a new hobby: {0}, every day after school."},
		second: []string{"Now my son wants to try {1} too. Where do they get the energy?", "Guess who announced over breakfast that he's doing {1} now? My youngest.", "The kids have another new hobby: {1}."},
		cue:    []string{"What are the kids into these days?", "Any new hobbies for the kids?"},
	},
	{ // renovations
		slots:  [][]string{{"kitchen", "bathroom", "attic", "hallway", "basement", "spare bedroom"}},
		pair:   true,
		ask:    "Which rooms has {name} renovated?",
		answer: "the {0} and the {1}",
		first:  []string{"We gutted the {0} and renovated it from scratch.", "The {0} renovation is finally finished, new floor and all."},
		second: []string{"The {1} is done too. New tiles, new light, and I'm broke.", "Spent the whole month in the {1} with a paint roller. It looks amazing.", "Next room renovated: the {1}."},
		cue:    []string{"Which room are you renovating next?", "How are the renovations going?"},
	},
}

// pastEvents are what temporal facts report: as said, in the past; as asked,
// in the base form; and as the other speaker brings it up.
var pastEvents = []struct{ past, base, noun string }{
	{"ran a half marathon", "run a half marathon", "the half marathon"},
	{"passed my driving test", "pass the driving test", "your driving test"},
	{"went to a pottery workshop", "go to a pottery workshop", "the pottery workshop"},
	{"saw the northern lights", "see the northern lights", "the northern lights trip"},
	{"repaired the old sailboat", "repair the old sailboat", "the sailboat repair"},
	{"gave a piano recital", "give a piano recital", "your piano recital"},
	{"won the pub quiz", "win the pub quiz", "the pub quiz"},
	{"planted an apple tree", "plant an apple tree", "the apple tree"},
	{"visited a glassblowing studio", "visit a glassblowing studio", "the glassblowing studio"},
	{"gave a talk at the library", "give a talk at the library", "your library talk"},
	{"finished the patchwork quilt", "finish the patchwork quilt", "the patchwork quilt"},
	{"went ice skating with my cousins", "go ice skating with cousins", "ice skating with your cousins"},
	{"sold a painting at the craft fair", "sell a painting at the craft fair", "the craft fair"},
	{"baked a wedding cake for a friend", "bake a wedding cake for a friend", "the wedding cake"},
	{"went to a jazz festival", "go to a jazz festival", "the jazz festival"},
	{"climbed Mount Harrow", "climb Mount Harrow", "the Mount Harrow climb"},
	{"adopted a rescue hen", "adopt a rescue hen", "the rescue hen"},
	{"ran a charity bake sale", "run a charity bake sale", "the charity bake sale"},
	{"started a book club", "start a book club", "the new book club"},
	{"went whale watching", "go whale watching", "whale watching"},
	{"got my first tattoo", "get a first tattoo", "your first tattoo"},
	{"played in a chess tournament", "play in a chess tournament", "the chess tournament"},
	{"learned to surf", "learn to surf", "surfing lessons"},
	{"hosted a dinner party for the neighbors", "host a dinner party for the neighbors", "your dinner party"},
}

// relativeDates are how temporal facts (category 2) are said, relative to
// the session's date, with the event ({0}) or, answering a cue, without it;
// and how the gold answer is computed from the session's day. phrase picks
// the "The Friday before 25 May 2023" form over the plain day.
var relativeDates = []struct {
	say, bare string
	answer    func(day time.Time, weekday time.Weekday, phrase bool) string
}{
	{"Guess what, I {0} yesterday!", "It was yesterday, actually! I'm still buzzing.",
		func(d time.Time, _ time.Weekday, _ bool) string { return dayString(d.AddDate(0, 0, -1)) }},
	{"Yesterday I finally {0}, can you believe it?", "Done, yesterday! I meant to text you right away.",
		func(d time.Time, _ time.Weekday, _ bool) string { return dayString(d.AddDate(0, 0, -1)) }},
	{"Last {weekday} I {0}. What a day that was.", "That was last {weekday}! I forgot to tell you.", lastWeekday},
	{"I {0} last {weekday} and I'm still smiling about it.", "Oh, last {weekday}. It went better than I hoped.", lastWeekday},
	{"Two days ago I {0}, and it went better than I hoped.", "Two days ago! My legs still feel it.",
		func(d time.Time, _ time.Weekday, _ bool) string { return dayString(d.AddDate(0, 0, -2)) }},
	{"I {0} last month, did I ever tell you?", "That happened last month, I thought I told you!",
		func(d time.Time, _ time.Weekday, _ bool) string {
			return time.Date(d.Year(), d.Month()-1, 1, 0, 0, 0, 0, time.UTC).Format("January 2006")
		}},
	{"I {0} last year, and I'd love to do it again.", "That was last year, and I'd do it again in a heartbeat.",
		func(d time.Time, _ time.Weekday, _ bool) string { return strconv.Itoa(d.Year() - 1) }},
	{"I {0} last week, it was quite something.", "Last week! It was quite something.",
		func(d time.Time, _ time.Weekday, _ bool) string { return "The week before " + dayString(d) }},
}

// lastWeekday answers "last Saturday" said on day, as a date or in the
// "The Saturday before 25 May 2023" form.
func lastWeekday(day time.Time, wd time.Weekday, phrase bool) string {
	if phrase {
		return "The " + wd.String() + " before " + dayString(day)
	}
	return dayString(weekdayBefore(day, wd))
}

// temporalCues bring an event up for a bare answer; {0} is its noun.
var temporalCues = []string{
	"Wait, when was {0} again?",
	"You never told me how {0} went!",
	"How did {0} go in the end?",
}

// inference is one kind of open-domain fact (category 3): the answer is
// not said but follows from what is, in turns that share little with the
// question.
type inference struct {
	ask     string
	answers []struct {
		answer   string
		evidence [2][]string // the two turns it follows from, one picked each
	}
}

var inferences = []inference{
	{
		ask: "What field might {name} consider studying, given how they spend their free time?",
		answers: []struct {
			answer   string
			evidence [2][]string
		}{
			{"veterinary medicine", [2][]string{{"I've been volunteering at the animal shelter every Saturday morning, it's the best part of my week.", "All my free time goes to the animal shelter these days, walking dogs and cleaning cages."}, {"I keep falling down rabbit holes reading about how vets treat injured wildlife.", "If I could study anything, it would be how to heal injured animals."}}},
			{"horticulture", [2][]string{{"I've started helping at the community garden on weekends, mostly weeding and hauling soil.", "I spend all my free time at the community garden now."}, {"Every night I read about soil and grafting fruit trees.", "I'd love to study how plants are bred, properly, at a university."}}},
			{"astrophysics", [2][]string{{"I volunteer at the city observatory on clear nights, pointing the big telescope for visitors.", "My free time is all stars lately: I help run the public nights at the observatory."}, {"I can't stop reading about black holes and how stars collapse.", "Sometimes I wonder whether I should study physics after all."}}},
			{"archaeology", [2][]string{{"I've been helping out at the history museum, cataloguing pottery shards in the basement.", "In my free time I sort old pottery shards at the history museum."}, {"I spend my evenings reading about ancient burial sites.", "I'd study ancient civilizations full time if I could."}}},
		},
	},
	{
		ask: "Would {name} rather spend a holiday in a big city or somewhere remote?",
		answers: []struct {
			answer   string
			evidence [2][]string
		}{
			{"somewhere remote", [2][]string{{"The noise downtown wears me out faster every year.", "Big cities drain me, honestly. Give me a lake and a book."}, {"Nothing beats a holiday with no phone signal and a view of the hills.", "My dream is a cabin where the nearest shop is an hour's walk away."}}},
			{"a big city", [2][]string{{"Give me traffic, museums and a different restaurant every night.", "I get restless after two days of quiet, I'm a city person."}, {"Nothing beats wandering a new subway map with no plan at all.", "My best holiday was all late-night streets and crowded markets in a big city."}}},
		},
	},
}
