package main

// The vocabulary of the assistant-shaped conversations (asst.go): what a
// project of each kind is about, all written for this project. A domain's
// subjects are the parts of a project a user keeps coming back to; its
// terms are the words answers about them keep using; its tools are the
// named things both speakers mention.

// domain is one kind of project.
type domain struct {
	kind     string
	projects []string // what the project is, as the user first describes it
	subjects []string // its parts, each with its article
	terms    []string // the words its answers keep using
	tools    []string
	// langs weighs the languages of its answers' code blocks.
	langs []string
	// codeShare is the percent of answers that hold a code block.
	codeShare int
	// events are what happens to a subject ({s}) on a day: past tense,
	// the base form a question asks with, and the past in other words.
	events [][3]string
	// attrs are the facts a user states about a subject.
	attrs []attr
	// recs are what the assistant recommends about a subject.
	recs []rec
	// problems are what goes wrong in a subject, for questions on order.
	problems []string
	// person is the index in attrs of the fact that names a person, and
	// whose names a subject by that person ({0}), for questions that need
	// both the person's fact and another.
	person int
	whose  string
}

// attr is one kind of fact about a subject: {s} is the subject, {0} the
// value. ask is the question, both asks about two subjects ({s} and {s2})
// at once; direct says the fact in the question's words, para in others
// (sharing at most the subject), bare names only the value, answering
// cue, which the assistant's previous answer closes with.
type attr struct {
	ask, both, answer string
	direct, para      []string
	bare, cue         []string
	values            []string
}

// rec is one kind of thing the assistant recommends: say is the sentence
// in its answer, ask the question that needs it and alt the same question
// in other words, values what it says.
type rec struct {
	say, ask, alt string
	values        []string
}

var codeDomain = &domain{
	kind: "code",
	projects: []string{
		"a Go service that reconciles card payments against the bank's daily statements",
		"the backend of a booking app for climbing gyms",
		"an internal tool that turns support tickets into weekly reports",
		"a small SaaS that sends invoice reminders",
	},
	subjects: []string{
		"the ingest worker", "the billing API", "the rate limiter", "the job queue", "the auth middleware",
		"the search index", "the export pipeline", "the webhook handler", "the session cache", "the migration runner",
		"the metrics exporter", "the config loader", "the retry policy", "the admin dashboard", "the notification service",
		"the audit log", "the reconciliation job", "the upload endpoint",
	},
	terms: []string{
		"latency", "timeouts", "retries", "throughput", "the schema", "deadlocks", "memory use", "goroutines",
		"the connection pool", "indexes", "queries", "tests", "benchmarks", "deploys", "rollbacks", "logging",
		"error handling", "concurrency", "batch size", "backpressure", "idempotency", "tracing", "load", "alerts",
	},
	tools:     []string{"PostgreSQL", "Redis", "Kafka", "Docker", "Kubernetes", "GitHub Actions", "Prometheus", "Grafana", "Terraform", "SQLite", "NATS", "gRPC", "sqlc", "pgx"},
	langs:     []string{"go", "go", "go", "sql", "bash", "yaml", "python", "go", "sql", "bash"},
	codeShare: 94,
	events: [][3]string{
		{"shipped {s} to production", "ship {s} to production", "got {s} live for real users"},
		{"had an outage in {s}", "have the outage in {s}", "were down for an hour because of {s}"},
		{"started rewriting {s}", "start rewriting {s}", "threw away the old code of {s} and began again"},
		{"merged the refactor of {s}", "merge the refactor of {s}", "landed the big cleanup PR for {s}"},
		{"rolled back {s}", "roll back {s}", "reverted {s} to the previous release"},
		{"load-tested {s}", "load-test {s}", "hammered {s} with fake traffic"},
	},
	attrs: []attr{
		{ask: "How many replicas does {s} run in production?", both: "How many replicas do {s} and {s2} run in production?", answer: "{0}",
			direct: []string{"{S} runs {0} replicas in production right now.", "In production we run {0} replicas of {s}."},
			para:   []string{"We keep {0} copies of {s} up behind the load balancer when it's live.", "There are {0} pods of {s} serving traffic at the moment."},
			bare:   []string{"{0}. We bumped it after the last incident.", "It's {0} at the moment, and I'd rather not go higher."},
			cue:    []string{"How many replicas of {s} do you run in production?"},
			values: []string{"3", "4", "6", "8", "12", "5", "9"}},
		{ask: "Which port does {s} listen on?", both: "Which ports do {s} and {s2} listen on?", answer: "{0}",
			direct: []string{"{S} listens on port {0}.", "Note that {s} listens on port {0}, not the default."},
			para:   []string{"{S} is bound to {0} on every box.", "We expose {s} on {0} internally."},
			bare:   []string{"{0}, same on staging.", "It's {0}. Don't ask why."},
			cue:    []string{"Which port is {s} listening on?"},
			values: []string{"8081", "9090", "7443", "8443", "5055", "6380", "9411"}},
		{ask: "Which PostgreSQL version is {s} on?", both: "Which PostgreSQL versions are {s} and {s2} on?", answer: "PostgreSQL {0}",
			direct: []string{"{S} is on PostgreSQL {0}.", "The PostgreSQL version behind {s} is {0}."},
			para:   []string{"The database {s} talks to is still Postgres {0}.", "{S} sits on a {0} cluster."},
			bare:   []string{"{0}. We never got round to upgrading.", "We're on {0} there."},
			cue:    []string{"Which Postgres release is {s} running against?"},
			values: []string{"13.9", "14.2", "15.4", "16.1", "12.17", "14.11"}},
		{ask: "Who owns {s} on the team?", both: "Who owns {s} and {s2} on the team?", answer: "{0}",
			direct: []string{"{0} owns {s} on our team.", "On the team, {s} is owned by {0}."},
			para:   []string{"{0} is the one who gets paged for {s}.", "Anything about {s} goes through {0}."},
			bare:   []string{"That's {0}. She wrote most of it.", "{0}, though he's on holiday this week."},
			cue:    []string{"Who on your side is responsible for {s}?"},
			values: []string{"Wiebke", "Anselm", "Corin", "Thandiwe", "Ravi", "Solveig", "Emeka", "Ludmila"}},
		{ask: "What timeout does {s} use for upstream calls?", both: "What timeouts do {s} and {s2} use for upstream calls?", answer: "{0}",
			direct: []string{"{S} uses a {0} timeout for upstream calls.", "The upstream call timeout in {s} is {0}."},
			para:   []string{"{S} gives up on the bank after {0}.", "We cut {s}'s outbound requests off at {0}."},
			bare:   []string{"{0}, hard-coded.", "It's {0} right now."},
			cue:    []string{"What's the upstream timeout set to in {s}?"},
			values: []string{"750 ms", "2 seconds", "5 seconds", "1.5 seconds", "300 ms", "10 seconds"}},
		{ask: "Which cloud region hosts {s}?", both: "Which cloud regions host {s} and {s2}?", answer: "{0}",
			direct: []string{"{S} is hosted in the {0} region.", "The cloud region for {s} is {0}."},
			para:   []string{"{S} lives in {0} with everything else.", "We deploy {s} to {0} only."},
			bare:   []string{"{0}, for the data residency rules.", "All of it is in {0}."},
			cue:    []string{"Which region do you deploy {s} to?"},
			values: []string{"eu-west-1", "eu-central-1", "us-east-2", "ap-southeast-2", "europe-north1", "us-west-2"}},
		{ask: "What batch size does {s} use?", both: "What batch sizes do {s} and {s2} use?", answer: "{0}",
			direct: []string{"{S} uses a batch size of {0}.", "The batch size in {s} is {0} rows."},
			para:   []string{"{S} pulls {0} records at a time.", "{S} commits every {0} items."},
			bare:   []string{"{0} at the moment.", "{0}, which felt safe."},
			cue:    []string{"How many rows does {s} take per batch?"},
			values: []string{"250", "500", "1,000", "2,000", "100", "5,000"}},
	},
	recs: []rec{
		{say: "To find it, run `{0}` and look at the first report it prints.", ask: "What command did you suggest for finding the data race in {s}?", alt: "How did you tell me to track down the bug in {s}?",
			values: []string{"go test -race -count=20 ./internal/ingest/...", "go test -race -run TestWorkerDrain ./...", "GORACE=halt_on_error=1 go test -race ./..."}},
		{say: "I would set the pool to `{0}` and watch the wait count for a day.", ask: "What connection pool size did you recommend for {s}?", alt: "How many database connections should {s} hold, according to you?",
			values: []string{"max_conns=24", "max_conns=40", "pool_max_conns=16", "max_conns=32"}},
		{say: "Name the new package `{0}`, so the import path says what it holds.", ask: "What did you suggest calling the new package for {s}?", alt: "What name did you come up with for the module {s} gets?",
			values: []string{"ledgerstore", "retrybudget", "feedparse", "quotakeep", "evtsink"}},
		{say: "For profiling, `{0}` gives you a flame graph in a minute.", ask: "Which command did you give me for profiling {s}?", alt: "How can I see where {s} spends its CPU time?",
			values: []string{"go tool pprof -http=:8099 cpu.out", "go test -cpuprofile cpu.out -bench BenchmarkIngest", "curl -o heap.out localhost:6060/debug/pprof/heap"}},
		{say: "Set `{0}` in the deployment and the restarts should stop.", ask: "Which setting did you tell me to change to stop {s} restarting?", alt: "How do I stop {s} from crash-looping?",
			values: []string{"GOMEMLIMIT=900MiB", "terminationGracePeriodSeconds: 45", "GOMAXPROCS=2", "readinessProbe.periodSeconds: 15"}},
	},
	person: 3, whose: "the part of the project {0} owns",
	problems: []string{"timeouts", "duplicate rows", "a memory leak", "502 errors", "slow queries", "a flaky test", "dropped messages", "a deadlock"},
}

var planningDomain = &domain{
	kind: "planning",
	projects: []string{
		"a two-day community conference for about three hundred people",
		"the launch of our small company's second product",
		"moving our eight-person office to a new city",
		"a charity hiking weekend with sponsors and volunteers",
	},
	subjects: []string{
		"the venue", "the catering", "the speaker lineup", "the ticketing", "the travel grants", "the volunteer rota",
		"the sponsorship deck", "the launch timeline", "the marketing emails", "the budget sheet", "the hotel block",
		"the registration form", "the accessibility plan", "the floor plan", "the merchandise order", "the press kit",
		"the opening keynote", "the shuttle buses",
	},
	terms: []string{
		"the deadline", "costs", "headcount", "the contract", "the deposit", "risks", "milestones", "stakeholders",
		"the schedule", "capacity", "invoices", "vendors", "contingency", "the timeline", "approvals", "logistics",
		"priorities", "dependencies", "the budget", "communication", "sign-off", "lead times",
	},
	tools:     []string{"Airtable", "Notion", "Google Sheets", "Trello", "Eventbrite", "Mailchimp", "Slack", "Asana", "Calendly", "Typeform"},
	langs:     []string{"yaml", "python", "text", "sql", "bash"},
	codeShare: 34,
	events: [][3]string{
		{"signed the contract for {s}", "sign the contract for {s}", "put our names on the paperwork for {s}"},
		{"sent out {s}", "send out {s}", "got {s} into everyone's inbox"},
		{"met the supplier about {s}", "meet the supplier about {s}", "sat down with the people doing {s}"},
		{"finalised {s}", "finalise {s}", "locked {s} for good"},
		{"paid the deposit for {s}", "pay the deposit for {s}", "transferred the first instalment for {s}"},
		{"got sign-off on {s}", "get sign-off on {s}", "had {s} approved by the board"},
	},
	attrs: []attr{
		{ask: "What is the budget for {s}?", both: "What are the budgets for {s} and {s2}?", answer: "{0}",
			direct: []string{"The budget for {s} is {0}.", "We've set {s}'s budget at {0}."},
			para:   []string{"We can spend {0} on {s}, no more.", "Finance gave us {0} for {s}."},
			bare:   []string{"{0}, and that's firm.", "{0} all in."},
			cue:    []string{"How much can you spend on {s}?"},
			values: []string{"€4,500", "€12,000", "$7,800", "£3,200", "€950", "$18,500"}},
		{ask: "Who is handling {s}?", both: "Who is handling {s} and {s2}?", answer: "{0}",
			direct: []string{"{0} is handling {s}.", "{S} is being handled by {0}."},
			para:   []string{"{0} took {s} on at Monday's meeting.", "{S} sits with {0} now."},
			bare:   []string{"{0} has it.", "{0}, who volunteered."},
			cue:    []string{"Who on your team is taking care of {s}?"},
			values: []string{"Wiebke", "Anselm", "Corin", "Thandiwe", "Ravi", "Solveig", "Emeka", "Ludmila"}},
		{ask: "Which supplier did we pick for {s}?", both: "Which suppliers did we pick for {s} and {s2}?", answer: "{0}",
			direct: []string{"We picked {0} as the supplier for {s}.", "The supplier for {s} is {0}."},
			para:   []string{"{0} won the quote for {s}.", "{S} is going to {0}."},
			bare:   []string{"{0}, they were cheapest.", "We went with {0}."},
			cue:    []string{"Who did you end up going with for {s}?"},
			values: []string{"Harbour & Vine", "Bluebell Events", "Kestrel Print", "Northgate Hire", "Lumen Audio", "Saltmarsh Catering"}},
		{ask: "How many people is {s} planned for?", both: "How many people are {s} and {s2} planned for?", answer: "{0}",
			direct: []string{"{S} is planned for {0} people.", "We're planning {s} for {0} people."},
			para:   []string{"{S} has to work for {0} attendees.", "Count on {0} guests for {s}."},
			bare:   []string{"{0}, give or take.", "Around {0}."},
			cue:    []string{"How many guests should {s} cover?"},
			values: []string{"120", "340", "75", "260", "48", "500"}},
		{ask: "Where will {s} take place?", both: "Where will {s} and {s2} take place?", answer: "{0}",
			direct: []string{"{S} will take place at {0}.", "The place for {s} is {0}."},
			para:   []string{"{S} is happening at {0}.", "We booked {0} for {s}."},
			bare:   []string{"At {0}.", "{0}, the one by the river."},
			cue:    []string{"Where is {s} happening?"},
			values: []string{"the Old Tram Depot", "Hall B of the Messe", "the Rope Works", "Ferry Street Studios", "the Corn Exchange", "the Glasshouse"}},
		{ask: "What is the deadline for {s}?", both: "What are the deadlines for {s} and {s2}?", answer: "{0}",
			direct: []string{"The deadline for {s} is {0}.", "{S} has a hard deadline of {0}."},
			para:   []string{"{S} must be done by {0}.", "We need {s} wrapped up before {0}."},
			bare:   []string{"{0}, no slack.", "By {0}."},
			cue:    []string{"When does {s} have to be ready?"},
			values: []string{"the 14th of March", "the end of April", "the 2nd of June", "the 30th of September", "the 8th of November", "the 20th of January"}},
	},
	recs: []rec{
		{say: "I'd book the `{0}` option: it leaves room in the contingency line.", ask: "Which option did you recommend for {s}?", alt: "Which package did you think was best for {s}?",
			values: []string{"half-day package", "standard tier", "flexible cancellation", "early-bird block"}},
		{say: "Keep a contingency of {0} on this line; it is what similar events end up needing.", ask: "What contingency did you suggest keeping for {s}?", alt: "How much spare money should I hold back for {s}?",
			values: []string{"12%", "15%", "8%", "20%"}},
		{say: "Send the reminder `{0}`; that is when people actually read them.", ask: "When did you say I should send the reminder about {s}?", alt: "What's the best moment to nudge people about {s}?",
			values: []string{"nine days before", "on a Tuesday morning", "two weeks out", "the Thursday before"}},
		{say: "Call the shared folder `{0}` so nobody has to ask where things are.", ask: "What did you suggest naming the shared folder for {s}?", alt: "Where should the documents for {s} live?",
			values: []string{"ops-2024-master", "event-runbook", "launch-control", "move-hq"}},
	},
	person: 1, whose: "the part {0} is handling",
	problems: []string{"a double booking", "a missed invoice", "a cancelled supplier", "a price rise", "a late delivery", "a permit problem", "a venue clash", "a budget overrun"},
}

var studyDomain = &domain{
	kind: "study",
	projects: []string{
		"my statistics module this term",
		"preparing for a machine learning exam in the spring",
		"teaching myself the maths behind data science",
		"an evening course on algorithms",
	},
	subjects: []string{
		"linear regression", "gradient descent", "eigenvalues", "Bayes' theorem", "hypothesis testing",
		"confidence intervals", "the chain rule", "matrix factorisation", "Markov chains", "logistic regression",
		"principal components", "the central limit theorem", "overfitting", "cross-validation", "dynamic programming",
		"graph search", "maximum likelihood", "the bias-variance trade-off",
	},
	terms: []string{
		"the exam", "the problem set", "the derivation", "intuition", "the proof", "notation", "examples",
		"lecture notes", "variance", "probability", "the formula", "exercises", "revision", "flashcards",
		"assumptions", "the definition", "worked solutions", "the textbook", "edge cases", "a diagram",
	},
	tools:     []string{"NumPy", "Jupyter", "pandas", "scikit-learn", "Anki", "LaTeX", "R", "matplotlib", "SymPy", "Desmos"},
	langs:     []string{"python", "python", "python", "r", "text", "bash"},
	codeShare: 62,
	events: [][3]string{
		{"took the mock exam on {s}", "take the mock exam on {s}", "sat the practice paper covering {s}"},
		{"started the chapter on {s}", "start the chapter on {s}", "opened the book at {s} for the first time"},
		{"handed in the problem set on {s}", "hand in the problem set on {s}", "submitted the {s} homework"},
		{"had the tutorial on {s}", "have the tutorial on {s}", "went through {s} with the TA"},
		{"finished my notes on {s}", "finish my notes on {s}", "wrote up everything I know about {s}"},
	},
	attrs: []attr{
		{ask: "Which textbook am I using for {s}?", both: "Which textbooks am I using for {s} and {s2}?", answer: "{0}",
			direct: []string{"For {s} I'm using {0} as my textbook.", "My textbook for {s} is {0}."},
			para:   []string{"I'm reading {s} out of {0}.", "{0} is what the lecturer assigned for {s}."},
			bare:   []string{"{0}, the third edition.", "It's {0}."},
			cue:    []string{"Which book are you following for {s}?"},
			values: []string{"Halvorsen's Applied Statistics", "the Mirela Kovač notes", "Practical Inference by Ode", "Brightwater's Linear Algebra", "Numbers in Motion"}},
		{ask: "What did I score on the {s} quiz?", both: "What did I score on the {s} and {s2} quizzes?", answer: "{0}",
			direct: []string{"I scored {0} on the {s} quiz.", "My score on the {s} quiz was {0}."},
			para:   []string{"I got {0} on the little test about {s}.", "The {s} test came back at {0}."},
			bare:   []string{"{0}. Not great.", "{0}, better than I feared."},
			cue:    []string{"How did the {s} quiz go?"},
			values: []string{"62%", "71%", "48%", "85%", "93%", "56%"}},
		{ask: "How many hours a week do I spend on {s}?", both: "How many hours a week do I spend on {s} and {s2}?", answer: "{0} hours",
			direct: []string{"I spend {0} hours a week on {s}.", "Each week I put {0} hours into {s}."},
			para:   []string{"{S} gets {0} hours of my time every week.", "I block out {0} hours for {s}, weekly."},
			bare:   []string{"About {0}.", "{0} at most, with work."},
			cue:    []string{"How much time can you give {s} each week?"},
			values: []string{"3", "5", "7", "4", "6", "10"}},
		{ask: "Who is helping me with {s}?", both: "Who is helping me with {s} and {s2}?", answer: "{0}",
			direct: []string{"{0} is helping me with {s}.", "My help with {s} comes from {0}."},
			para:   []string{"I go over {s} with {0} on Thursdays.", "{0} explains {s} to me when I'm stuck."},
			bare:   []string{"{0}, from my study group.", "My friend {0}."},
			cue:    []string{"Is anyone going through {s} with you?"},
			values: []string{"Wiebke", "Anselm", "Corin", "Thandiwe", "Ravi", "Solveig", "Emeka", "Ludmila"}},
		{ask: "Which week of the course covers {s}?", both: "Which weeks of the course cover {s} and {s2}?", answer: "week {0}",
			direct: []string{"{S} is covered in week {0} of the course.", "The course covers {s} in week {0}."},
			para:   []string{"We get to {s} in week {0}.", "{S} is on the syllabus for week {0}."},
			bare:   []string{"Week {0}.", "{0}, I think, the week before reading week."},
			cue:    []string{"When does your course get to {s}?"},
			values: []string{"3", "5", "7", "9", "11", "4"}},
	},
	recs: []rec{
		{say: "Try the `{0}` exercise: it is the one that makes this click.", ask: "Which exercise did you recommend for {s}?", alt: "What should I practise to finally get {s}?",
			values: []string{"two-coin posterior", "shrinking step size", "hand-drawn residuals", "three-state chain"}},
		{say: "A good mnemonic here is `{0}`.", ask: "What mnemonic did you give me for {s}?", alt: "How can I remember {s} easily?",
			values: []string{"slope over spread", "prior times likelihood", "outside then inside", "fit, check, refit"}},
		{say: "Run `{0}` to check your answer numerically.", ask: "What command did you give me for checking {s} numerically?", alt: "How can I verify my {s} result on the computer?",
			values: []string{"python check.py --seed 7", "np.linalg.eig(A)", "Rscript sim.R 10000", "python -m doctest notes.py"}},
		{say: "Do {0} of these a day and stop there.", ask: "How many practice problems a day did you suggest for {s}?", alt: "What daily workload did you set me for {s}?",
			values: []string{"four", "six", "three", "eight"}},
	},
	person: 3, whose: "the topic {0} helps me with",
	problems: []string{"a sign error", "a confusing proof", "a wrong formula", "a missed assumption", "a bad grade", "a notation mix-up", "a failed simulation", "a shaky intuition"},
}

var writingDomain = &domain{
	kind: "writing",
	projects: []string{
		"a novel about two sisters who run a lighthouse",
		"my master's thesis on urban heat islands",
		"a series of long blog posts about restoring old bicycles",
		"a collection of linked short stories set in a port town",
	},
	subjects: []string{
		"the opening chapter", "the antagonist", "the storm scene", "the chapter outline", "the dialogue",
		"the ending", "the narrator's voice", "the query letter", "the synopsis", "the flashback", "the subplot",
		"the midpoint twist", "the worldbuilding notes", "the epilogue", "the sister's arc", "the title", "the prologue",
		"the literature review",
	},
	terms: []string{
		"pacing", "tone", "point of view", "tension", "the draft", "word count", "revision", "character",
		"the scene", "structure", "prose", "the theme", "conflict", "backstory", "the reader", "imagery",
		"rhythm", "motivation", "stakes", "voice",
	},
	tools:     []string{"Scrivener", "Google Docs", "Markdown", "Pandoc", "Vale", "Hemingway Editor", "ProWritingAid", "Obsidian", "Git", "LanguageTool"},
	langs:     []string{"markdown", "text", "yaml", "bash", "python"},
	codeShare: 24,
	events: [][3]string{
		{"finished the draft of {s}", "finish the draft of {s}", "typed the last line of {s}"},
		{"sent {s} to my editor", "send {s} to my editor", "let Jo at the agency see {s}"},
		{"rewrote {s}", "rewrite {s}", "started {s} again from a blank page"},
		{"read {s} aloud to my group", "read {s} aloud to my group", "performed {s} at the Tuesday circle"},
		{"cut {s} in half", "cut {s} in half", "trimmed {s} down hard"},
	},
	attrs: []attr{
		{ask: "How long is {s} supposed to be?", both: "How long are {s} and {s2} supposed to be?", answer: "{0}",
			direct: []string{"{S} is supposed to be {0} long.", "The target length for {s} is {0}."},
			para:   []string{"I want {s} to come in at {0}.", "{S} has to fit into {0}."},
			bare:   []string{"{0}, roughly.", "About {0}."},
			cue:    []string{"How long do you want {s} to be?"},
			values: []string{"4,000 words", "2,500 words", "800 words", "6,000 words", "1,200 words", "300 words"}},
		{ask: "Where is {s} set?", both: "Where are {s} and {s2} set?", answer: "{0}",
			direct: []string{"{S} is set in {0}.", "The setting of {s} is {0}."},
			para:   []string{"{S} happens in {0}.", "I put {s} in {0}."},
			bare:   []string{"{0}.", "In {0}, at night."},
			cue:    []string{"Where does {s} take place?"},
			values: []string{"the fish market", "the keeper's cottage", "a night ferry", "the harbour office", "the salt flats", "an empty cinema"}},
		{ask: "Who reads {s} first?", both: "Who reads {s} and {s2} first?", answer: "{0}",
			direct: []string{"{0} reads {s} first.", "The first reader of {s} is {0}."},
			para:   []string{"{0} gets {s} before anyone else.", "I send {s} to {0} as soon as it's done."},
			bare:   []string{"{0}, always.", "My friend {0}."},
			cue:    []string{"Who gets to see {s} first?"},
			values: []string{"Wiebke", "Anselm", "Corin", "Thandiwe", "Ravi", "Solveig", "Emeka", "Ludmila"}},
		{ask: "Which point of view is {s} written in?", both: "Which points of view are {s} and {s2} written in?", answer: "{0}",
			direct: []string{"{S} is written in {0}.", "The point of view of {s} is {0}."},
			para:   []string{"I tell {s} in {0}.", "{S} runs in {0}, which feels right."},
			bare:   []string{"{0}.", "{0}, for now."},
			cue:    []string{"Whose eyes do we see {s} through?"},
			values: []string{"close third person", "first person past", "first person present", "omniscient third", "second person", "alternating first person"}},
		{ask: "Which draft of {s} am I on?", both: "Which drafts of {s} and {s2} am I on?", answer: "draft {0}",
			direct: []string{"I'm on draft {0} of {s}.", "{S} is at draft {0}."},
			para:   []string{"This is the {0}th pass over {s}.", "{S} has been through {0} versions now."},
			bare:   []string{"Number {0}.", "{0}, if you count the one I threw away."},
			cue:    []string{"How many drafts of {s} have you done?"},
			values: []string{"4", "6", "3", "7", "5", "9"}},
	},
	recs: []rec{
		{say: "Cut it down to `{0}` and see whether the scene still stands.", ask: "How short did you tell me to cut {s}?", alt: "How much of {s} should go?",
			values: []string{"three paragraphs", "one page", "two beats", "a single exchange"}},
		{say: "A working title could be `{0}`.", ask: "What title did you suggest for {s}?", alt: "What could I call {s}?",
			values: []string{"The Keeper's Ledger", "Salt and Signal", "Low Water", "What the Lamp Saw"}},
		{say: "Run `{0}` before every submission.", ask: "Which command did you suggest running before I submit {s}?", alt: "What do I run on {s} before it goes out?",
			values: []string{"vale --glob='*.md' drafts/", "pandoc -o draft.docx draft.md", "wc -w chapters/*.md", "languagetool --language en-GB draft.txt"}},
		{say: "Use the `{0}` structure for it.", ask: "Which structure did you recommend for {s}?", alt: "How should {s} be shaped?",
			values: []string{"three-act", "braided", "reverse chronology", "frame story"}},
	},
	person: 2, whose: "the piece {0} reads first",
	problems: []string{"a plot hole", "a flat character", "a pacing sag", "a tense slip", "a rejection", "a continuity error", "a missing citation", "a tone clash"},
}

var domains = []*domain{codeDomain, planningDomain, studyDomain, writingDomain}

// asstUsers are the users of the assistant-shaped conversations.
var asstUsers = []string{"Maren", "Kofi", "Lena", "Rafael", "Yuki", "Oskar", "Amara", "Felix", "Noor", "Jonah", "Sabine", "Mateo"}

// requests are what a user asks of the assistant about a subject ({s}),
// using a term ({t}) and a tool ({tool}).
var requests = []string{
	"How should I handle {t} in {s}?",
	"Can you walk me through {t} for {s}? I keep getting it wrong.",
	"What's a cleaner way to organise {s} so that {t} stays manageable?",
	"I'm stuck on {s}: {t} is worse than I expected. Any ideas?",
	"Could you review my plan for {s} and point out problems with {t}?",
	"Give me a checklist for {s} before we go further.",
	"Why does {s} need so much attention to {t}?",
	"Compare two ways of dealing with {t} in {s}.",
	"Is {tool} a good fit for {s}, given {t}?",
	"What would you change first in {s} if {t} mattered most?",
	"Can you explain {t} again, this time in terms of {s}?",
	"Write me a first version of {s}, keeping {t} in mind.",
	"What are the usual mistakes with {t} when people set up {s}?",
	"Help me break {s} into smaller steps; {t} is the part I'm unsure about.",
	"How do I keep {p} out of {s}?",
	"We had {p} in {s} a while ago; how do I stop it coming back?",
	"What usually causes {p} around {s}?",
	"Which command or setting would you recommend for {s}?",
	"What would you suggest I run to check {s}?",
}

// followUps are requests that name nothing: they go on from the answer
// before, as users do.
var followUps = []string{
	"Ok, what's the next step?",
	"Can you go on from there?",
	"Makes sense. Show me how that would look in full.",
	"Right. And after that?",
	"Could you expand on the second point?",
	"Thanks, that helps. What would you do next?",
	"Fine, let's go with your first suggestion then.",
	"Hmm, I'm not convinced. Why that way?",
	"Can you rewrite that more simply?",
	"Good. Anything I'm forgetting?",
}

// requestContext is what users add to a request.
var requestContext = []string{
	"It's for {project}.",
	"I have about an hour tonight.",
	"We tried {tool} last time and it was painful.",
	"Keep it practical, I don't need the theory.",
	"My last attempt is further up.",
	"Assume I've read the basics.",
	"I want something I can show the others tomorrow.",
	"Nothing fancy, please.",
	"This is blocking the next step.",
	"I'd like to get this right before Friday.",
	"The earlier version worked but felt fragile.",
	"I'm a bit lost, to be honest.",
}

// proseSentences make up the paragraphs of answers; {s} and {s2} are
// subjects, {t} and {t2} terms, {tool} a tool.
var proseSentences = []string{
	"The short version is that {s} is where most of the trouble with {t} starts, so it is worth being deliberate about it.",
	"Before changing anything, look at how {s} deals with {t} today, because the fix depends on it.",
	"A common mistake is to treat {t} as a detail; in {s} it shapes almost every other decision.",
	"There are two reasonable approaches, and which one fits depends on how much {t2} you can tolerate.",
	"If {s} grows, {t} grows with it, so design for the size you expect in six months rather than today.",
	"{Tool} can help here, but only if you are clear about what {s} is responsible for.",
	"Keep {s} and {s2} separate: mixing them makes {t} much harder to reason about.",
	"The part that usually goes wrong is the hand-off between {s} and {s2}.",
	"It helps to write down what \"done\" means for {s} before worrying about {t2}.",
	"In practice, small and boring beats clever: a plain approach to {t} is easier to review.",
	"You already have most of what you need; the gap is in how {t} is checked.",
	"Think of {t} as a budget: every step of {s} spends some of it.",
	"This is also why {s2} felt fragile earlier: it inherited the same assumptions about {t}.",
	"Measure before and after, otherwise you cannot tell whether the change to {t} helped.",
	"None of this is specific to {tool}; the same reasoning applies to any setup like yours.",
	"If you only do one thing, make {t} visible, so that problems in {s} show up early.",
	"The trade-off is between {t} and {t2}, and there is no setting that wins on both.",
	"Write the simplest version first and let real use of {s} tell you where {t} hurts.",
	"Document the decision next to {s}, so the next person knows why {t} is handled this way.",
	"Once {s} is in shape, {s2} becomes much easier, because it relies on the same pieces.",
	"A useful check is to ask what happens to {s} when {t2} doubles.",
	"I'd avoid rewriting {s} wholesale; change one thing about {t} at a time.",
	"Most of the cost sits in {t}, not in {t2}, so that is where effort pays off.",
	"Your instinct about {s} is right; the detail to add is how it handles {t}.",
	"I'd recommend running the checks on {s} again after every change to {t}.",
	"The command to run is less important than running it every time {s} changes.",
	"My suggestion is to name each setting of {s} after what it controls, not after {tool}.",
	"What I recommended earlier for {s2} still holds, with one change for {t}.",
	"The default setting is rarely right for {s}; pick the size from what you measure.",
	"{p} in {s} usually comes from {t}, so start there.",
	"People often blame {tool} for {p}, when the cause is how {s} handles {t}.",
	"If {p} shows up again, run the same check and compare with what you saw last time.",
}

// headings open the sections of answers.
var headings = []string{
	"What is going on", "A better approach", "Step by step", "Trade-offs", "What I would do", "Checklist",
	"Why this works", "Common pitfalls", "An example", "Putting it together", "Options", "Next steps",
	"How to verify it", "Summary", "Details", "Before you start",
}

// bulletLeads open bullet items, bold, as answers like to.
var bulletLeads = []string{"Keep it small", "Check first", "Name things", "Watch out", "Measure", "Write it down", "Split it", "Automate", "Ask early", "Review", "Plan for failure", "Be explicit"}

// closings end answers.
var closings = []string{
	"If you paste what you have so far, I can go through it line by line.",
	"Let me know which of these fits, and I can expand on it.",
	"Happy to go deeper on any of these points.",
	"Try the first step and tell me what you see.",
	"I can turn this into a checklist if that is easier to follow.",
	"Tell me if I've misunderstood any of the constraints.",
}

// pasteIntros open a user turn that pastes code or a log.
var pasteIntros = []string{
	"Here's what I get when I run it:",
	"This is the current version, can you see the problem?",
	"The log from last night:",
	"Pasting the relevant part:",
	"Output below. What does this mean?",
}
