package byheart

// Helpers every test file of the package shares: appending and composing
// that must succeed, views of a Result, the conversations the tests run on
// (hand-written topics, a fixed sample, and the synthetic chat generator),
// and the composition oracle, which reads a memory block back by its
// documented layout and checks a Result against the memory it came from.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ── appending and composing ───────────────────────────────────────────

// roleOf alternates speakers: even turns are the user's.
func roleOf(i int) Role {
	if i%2 == 0 {
		return User
	}
	return Assistant
}

func mustAppend(t testing.TB, m *Memory, role Role, text string) int {
	t.Helper()
	i, err := m.Append(role, text)
	require.NoError(t, err)
	return i
}

func mustAppendAt(t testing.TB, m *Memory, role Role, text string, when time.Time) int {
	t.Helper()
	i, err := m.AppendAt(role, text, when)
	require.NoError(t, err)
	return i
}

// fill appends n alternating turns of text followed by their number.
func fill(t testing.TB, m *Memory, n int, text string) {
	t.Helper()
	for i := 0; i < n; i++ {
		mustAppend(t, m, roleOf(i), fmt.Sprintf("%s %d", text, i))
	}
}

func compose(t testing.TB, m *Memory, query string) Result {
	t.Helper()
	r, err := m.Compose(context.Background(), query)
	require.NoError(t, err)
	return r
}

// setBounds rewrites the stretch boundaries wholesale, as a bench or a
// segmenter might.
func setBounds(m *Memory, bounds []int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.restretch(bounds)
}

// ── views of a Result ─────────────────────────────────────────────────

// flat returns the text of every part of r, in order.
func flat(r Result) []string {
	var out []string
	for _, msg := range r.Messages {
		for _, p := range msg.Parts {
			out = append(out, p.Text)
		}
	}
	return out
}

// contextOf is every part but the final one (the query), joined: what the
// memory is answerable for.
func contextOf(r Result) string {
	p := flat(r)
	if len(p) == 0 {
		return ""
	}
	return strings.Join(p[:len(p)-1], "\x00")
}

// contextRunes counts the characters of every part but the final query.
func contextRunes(r Result) int {
	p := flat(r)
	n := 0
	for _, s := range p[:max(len(p)-1, 0)] {
		n += utf8.RuneCountInString(s)
	}
	return n
}

// blockOf returns the memory block part of r, or "" when there is none.
func blockOf(r Result) string {
	for _, p := range flat(r) {
		if strings.HasPrefix(p, memoryHeader) {
			return p
		}
	}
	return ""
}

// prefixHeld asserts that cur repeats prev's parts up to prev.StableUpto byte
// for byte.
func prefixHeld(t *testing.T, prev, cur Result, msg string) {
	t.Helper()
	p, c := flat(prev), flat(cur)
	require.GreaterOrEqual(t, cur.StableUpto, prev.StableUpto, msg)
	require.Greater(t, len(c), prev.StableUpto, msg)
	assert.Equal(t, p[:prev.StableUpto+1], c[:prev.StableUpto+1], msg)
}

// mustJSON is ToJSON that must succeed.
func mustJSON(t tb, m *Memory) string {
	t.Helper()
	data, err := m.ToJSON()
	require.NoError(t, err)
	return string(data)
}

// ── conversations ─────────────────────────────────────────────────────

// topicWords gives each test topic words no other topic uses.
var topicWords = map[string][]string{
	"deploy":  {"deploy", "rollback", "migration", "kubernetes", "cluster", "canary"},
	"garden":  {"tomatoes", "compost", "seedlings", "greenhouse", "mulch", "basil"},
	"travel":  {"lisbon", "flight", "hotel", "passport", "tram", "luggage"},
	"music":   {"guitar", "chords", "concert", "piano", "rehearsal", "setlist"},
	"cooking": {"sourdough", "oven", "flour", "starter", "crust", "proofing"},
	"pricing": {"pricing", "invoice", "discount", "subscription", "euro", "annual"},
}

// topicTurn is the i-th turn of a conversation about topic.
func topicTurn(topic string, i int) string {
	w := topicWords[topic]
	return fmt.Sprintf("note %d: we kept coming back to the %s, the %s and the %s",
		i, w[i%len(w)], w[(i+1)%len(w)], w[(i+2)%len(w)])
}

// topicMemory appends perTopic turns on each topic in order, each topic on a
// day of its own, and makes each topic one stretch.
func topicMemory(t testing.TB, opts Options, perTopic int, topics ...string) *Memory {
	t.Helper()
	m := New(opts)
	day := time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC)
	var bounds []int
	for k, topic := range topics {
		bounds = append(bounds, m.Len())
		for i := 0; i < perTopic; i++ {
			mustAppendAt(t, m, roleOf(m.Len()), topicTurn(topic, i), day.AddDate(0, 0, k).Add(time.Duration(i)*time.Minute))
		}
	}
	setBounds(m, bounds)
	return m
}

// sampleOpts configure sampleMemory's memory.
var sampleOpts = Options{Budget: 700, Chunk: 60}

// sampleQuery is the query sampleMemory composed for.
const sampleQuery = "what shoes did I wear for the marathon?"

// sampleMemory builds a memory with everything persistence carries: times,
// several stretches, a redaction and a kept selection.
func sampleMemory(t tb) *Memory {
	t.Helper()
	m := New(sampleOpts)
	day := time.Date(2023, 5, 20, 9, 30, 0, 0, time.UTC)
	texts := []string{
		"I ran the half marathon last Saturday.",
		"How did it go? Was the course hilly?",
		"Flat, and I finished in 1:52.",
		"That is a personal best, isn't it?",
		"Yes! Next I want to try trail running in the Alps.",
		"Which trail are you thinking of?",
		"The Tour du Mont Blanc, maybe next summer.",
		"My sister's address is 12 Elm Street.",
		"Noted. Anything else about the race?",
		"I wore the new blue shoes.",
	}
	texts = append(texts, texts...)
	for i, text := range texts {
		if i >= len(texts)/2 {
			text = "Again: " + text
		}
		_, err := m.AppendAt(roleOf(i), text, day.Add(time.Duration(i)*20*time.Minute))
		require.NoError(t, err)
	}
	require.NoError(t, m.Redact(7))
	_, err := m.Compose(context.Background(), sampleQuery)
	require.NoError(t, err)
	require.NotNil(t, m.sel, "the sample keeps a selection")
	require.NotEmpty(t, m.sel.block.keys)
	return m
}

// overBudget is a memory above its budget, when one is set, so every
// Compose ranks.
func overBudget(t *testing.T, opts Options) *Memory {
	t.Helper()
	m := New(opts)
	for i := range 20 {
		_, err := m.Append(roleOf(i), fmt.Sprintf("turn %d talks about topic %d at some length", i, i%3))
		require.NoError(t, err)
	}
	_, err := m.Compose(context.Background(), "topic 1")
	require.NoError(t, err)
	if opts.Budget > 0 {
		require.Greater(t, m.total, m.opt.Budget)
	}
	return m
}

// ── the synthetic chat ────────────────────────────────────────────────

// chatGen writes a synthetic chat that looks like real talk to an index: a
// vocabulary of a few thousand content words drawn with a Zipf law (a few
// words are everywhere, most are rare), mixed with the function words every
// sentence carries, in turns of about 130 characters, sittings of about 20
// turns, one sitting a day. A query made of one of its turns touches some
// stretches, not all of them, as a real user message does.
//
// It is deterministic: the same seed gives the same conversation on every
// platform and Go release (PCG and its Uint64 stream are specified, and the
// Zipf draw is done here, not by the standard library).
type chatGen struct {
	src   *rand.PCG
	vocab []string
	cdf   []float64 // cumulative Zipf weights over vocab
	when  time.Time
	left  int // turns left in the current sitting
	n     int // turns written
}

// chatVocab is how many content words the generator draws from.
const chatVocab = 6000

// functionWords are the filler every sentence carries; the tokenizer drops
// most of them as stop words, which is part of the work it does per turn.
// None of them is a relative date, so Annotate leaves the turns alone.
var functionWords = strings.Fields(`I the and to was it that you so my we with for on have just
really a of is in but this be at they what do not are there if me he she our about all
can would like think know got going been when your one them some get how much very`)

func newChatGen(seed uint64) *chatGen {
	g := &chatGen{src: rand.NewPCG(seed, 0x9e3779b97f4a7c15)}
	g.vocab = chatWords(chatVocab)
	// Zipf-Mandelbrot with exponent 1.07 and offset 3, a usual fit for
	// the content words of talk.
	g.cdf = make([]float64, len(g.vocab))
	total := 0.0
	for i := range g.vocab {
		total += 1 / math.Pow(float64(i+3), 1.07)
		g.cdf[i] = total
	}
	for i := range g.cdf {
		g.cdf[i] /= total
	}
	g.when = time.Date(2023, time.January, 2, 9, 30, 0, 0, time.UTC)
	return g
}

// chatWords makes n distinct pronounceable words from syllables, in a fixed
// order; stop words and anything that reads as a date are left out.
func chatWords(n int) []string {
	onsets := []string{"b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "t", "v", "z", "br", "dr", "gl", "kr", "pl", "st", "tr"}
	vowels := []string{"a", "e", "i", "o", "u", "ai", "ou"}
	codas := []string{"", "n", "r", "l", "m", "k", "nt", "rd"}
	src := rand.NewPCG(1, 2)
	pick := func(xs []string) string { return xs[src.Uint64()%uint64(len(xs))] }
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		syl := 1 + int(src.Uint64()%3)
		for range syl {
			b.WriteString(pick(onsets))
			b.WriteString(pick(vowels))
		}
		b.WriteString(pick(codas))
		w := b.String()
		if len(w) < 3 || seen[w] {
			continue
		}
		if stopLangs[w]&(1<<english) != 0 {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

func (g *chatGen) float() float64 { return float64(g.src.Uint64()>>11) / (1 << 53) }

func (g *chatGen) intn(n int) int { return int(g.src.Uint64() % uint64(n)) }

func (g *chatGen) word() string {
	if g.intn(100) < 45 {
		return functionWords[g.intn(len(functionWords))]
	}
	u := g.float()
	return g.vocab[min(sort.SearchFloat64s(g.cdf, u), len(g.vocab)-1)]
}

// next returns the next turn: roles alternate, a sitting of 12 to 28 turns
// a minute or two apart, the next sitting on the following day.
func (g *chatGen) next() Turn {
	if g.left == 0 {
		if g.n > 0 {
			day := g.when.Truncate(24 * time.Hour).Add(24 * time.Hour)
			g.when = day.Add(time.Duration(8+g.intn(12)) * time.Hour).Add(time.Duration(g.intn(60)) * time.Minute)
		}
		g.left = 12 + g.intn(17)
	} else {
		g.when = g.when.Add(time.Duration(40+g.intn(100)) * time.Second)
	}
	g.left--
	role := User
	if g.n%2 == 1 {
		role = Assistant
	}
	g.n++
	return Turn{Role: role, Text: g.sentence(60 + g.intn(141)), Time: g.when}
}

// sentence writes words until the text is about n bytes long.
func (g *chatGen) sentence(n int) string {
	var b strings.Builder
	start := true
	for b.Len() < n {
		w := g.word()
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if start {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		start = false
		if b.Len() < n && g.intn(14) == 0 {
			p := []string{".", ",", "!", "?"}[g.intn(4)]
			b.WriteString(p)
			start = p != ","
		}
	}
	if g.intn(20) == 0 {
		b.WriteString(" " + strconv.Itoa(1+g.intn(300)))
	}
	b.WriteString([]string{".", "!", "?", "."}[g.intn(4)])
	// A copy of exactly the text's size, as a text decoded from a request
	// would be: the builder's spare capacity is not the memory's to keep.
	return strings.Clone(b.String())
}

// chat returns n turns of a fresh generator.
func chat(seed uint64, n int) []Turn {
	g := newChatGen(seed)
	out := make([]Turn, n)
	for i := range out {
		out[i] = g.next()
	}
	return out
}

// fillTurns appends turns to m as AppendTurn takes them.
func fillTurns(m *Memory, turns []Turn) {
	for _, t := range turns {
		if _, err := m.AppendTurn(t); err != nil {
			panic(err)
		}
	}
}

// ── collaborators ─────────────────────────────────────────────────────

// overlap is a deterministic Retriever: the number of the query's terms
// each document holds.
var overlap = RetrieverFunc(func(_ context.Context, query string, docs []Document) ([]float64, error) {
	q := map[string]bool{}
	for _, w := range Terms(query) {
		q[w] = true
	}
	out := make([]float64, len(docs))
	for i, d := range docs {
		for _, w := range Terms(d.Text) {
			if q[w] {
				out[i]++
			}
		}
	}
	return out, nil
})

// noteSource is an External that offers one note about whatever it is
// asked.
var noteSource = ExternalFunc(func(_ context.Context, query string) ([]Item, error) {
	return []Item{{Text: "Reference note on " + query, Source: "notes"}}, nil
})

// isSentinel reports whether err wraps one of the errors the package
// documents.
func isSentinel(err error) bool {
	for _, s := range []error{ErrRole, ErrEmpty, ErrUTF8, ErrIndex, ErrBoundaries, ErrRetriever,
		ErrExternal, ErrFormat, ErrVersion, ErrTooLarge, ErrTime, ErrTool, ErrNoCall} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// ── checks that run off the test goroutine ────────────────────────────

// tb is what the checks need of a test: a *testing.T, a *testing.F, or a
// collector for goroutines that must not call FailNow on the test.
type tb interface {
	require.TestingT
	Helper()
}

// collector gathers the failures of checks run off the test's goroutine;
// a fatal one ends that goroutine only.
type collector struct {
	mu   sync.Mutex
	errs []string
}

func (c *collector) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func (c *collector) FailNow() { runtime.Goexit() }

func (c *collector) Helper() {}

// ── the composition oracle ────────────────────────────────────────────

// lineBreaks holds every character some reader of the text takes as the end
// of a line: Go's and JavaScript's (LF, CR), Unicode's mandatory breaks (VT,
// FF, NEL, LS, PS) and Python's str.splitlines, which adds the file, group
// and record separators. CR LF is one break.
const lineBreaks = "\n\v\f\r\x1c\x1d\x1e\u0085\u2028\u2029"

// nextBreak returns the byte offset of the first line break in s at or
// after i and its length in bytes, or -1, 0 when there is none.
func nextBreak(s string, i int) (int, int) {
	j := strings.IndexAny(s[i:], lineBreaks)
	if j < 0 {
		return -1, 0
	}
	j += i
	if strings.HasPrefix(s[j:], "\r\n") {
		return j, 2
	}
	_, n := utf8.DecodeRuneInString(s[j:])
	return j, n
}

// lines splits s into lines at every break lineBreaks knows.
func lines(s string) []string {
	var out []string
	for i := 0; ; {
		j, n := nextBreak(s, i)
		if j < 0 {
			return append(out, s[i:])
		}
		out = append(out, s[i:j])
		i = j + n
	}
}

// indented is text as the memory block quotes it: two spaces after every
// line break.
func indented(text string) string {
	var b strings.Builder
	for i, r := range text {
		b.WriteRune(r)
		switch r {
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			b.WriteString("  ")
		case '\n', '\v', '\f', '\u0085', '\u2028', '\u2029':
			b.WriteString("  ")
		}
	}
	return b.String()
}

// unguard removes the guard from every line of s that opens with it, after
// the block's two-space indent or speaker label if there is one: what the
// model is shown, less the guard, is the text verbatim.
func unguard(s string) string {
	var b strings.Builder
	at := 0 // start of the current line
	for {
		for _, open := range []string{"", "  ", label(User), label(Assistant)} {
			if strings.HasPrefix(s[at:], open+quoteGuard) {
				b.WriteString(open)
				at += len(open) + len(quoteGuard)
				break
			}
		}
		j, n := nextBreak(s, at)
		if j < 0 {
			b.WriteString(s[at:])
			return b.String()
		}
		b.WriteString(s[at : j+n])
		at = j + n
	}
}

// blockEntry is one turn as read back from a memory block.
type blockEntry struct {
	Role     Role
	Text     string
	Date     string // the date line just before the turn without its newline; "" when none
	Standing bool   // the turn is in the block's section of standing turns
}

// parseBlock reads a memory block by its documented layout alone: the
// header line, then lines at the margin that are either a date line ("---"
// or "--- 2 January 2006 ---") or a speaker label opening a turn, each
// continuation line of a turn indented by two spaces after whatever break
// ended the line before, each turn ended by a newline, and the footer. A
// memory block may open, right after its header, with a section of
// standing turns between the standing header and footer, laid out alike.
func parseBlock(block string) ([]blockEntry, error) {
	header := memoryHeader
	if strings.HasPrefix(block, recallHeader) {
		header = recallHeader
	}
	if !strings.HasPrefix(block, header) {
		return nil, errors.New("block does not open with the memory header")
	}
	if !strings.HasSuffix(block, memoryFooter) || len(block) < len(header)+len(memoryFooter) {
		return nil, errors.New("block does not end with the memory footer")
	}
	body := block[len(header) : len(block)-len(memoryFooter)]
	var out []blockEntry
	date := ""
	section := header == memoryHeader && strings.HasPrefix(body, standingHeader)
	if section {
		body = body[len(standingHeader):]
	}
	for i := 0; i < len(body); {
		j, n := nextBreak(body, i)
		if j < 0 {
			return nil, fmt.Errorf("unterminated line at the margin: %q", body[i:])
		}
		line := body[i:j]
		var role Role
		switch {
		case section && line+body[j:j+n] == standingFooter:
			if date != "" {
				return nil, fmt.Errorf("date line %q with no standing turn after it", date)
			}
			section = false
			i = j + n
			continue
		case line+"\n" == partMark:
			// Below a date line, the mark of part of a longer stretch.
			if date == "" {
				return nil, fmt.Errorf("the part mark follows no date line")
			}
			i = j + n
			continue
		case line == "---" || strings.HasPrefix(line, "--- ") && strings.HasSuffix(line, " ---") && len(line) >= 8:
			if date != "" {
				return nil, fmt.Errorf("two date lines in a row: %q, %q", date, line)
			}
			if body[j:j+n] != "\n" {
				return nil, fmt.Errorf("date line %q ended by %q", line, body[j:j+n])
			}
			date = line
			i = j + n
			continue
		case strings.HasPrefix(line, "user: "):
			role, i = User, i+len("user: ")
		case strings.HasPrefix(line, "assistant: "):
			role, i = Assistant, i+len("assistant: ")
		case section:
			return nil, fmt.Errorf("line in the standing section is neither a date nor a user's turn: %q", line)
		case strings.HasPrefix(line, resultMarker) || strings.HasPrefix(line, noteMarker):
			// A head line that names the source; the text follows, indented.
			role = ToolResult
			if strings.HasPrefix(line, noteMarker) {
				role = Note
			}
			if strings.HasSuffix(line, withheld) && body[j:j+n] == "\n" {
				out = append(out, blockEntry{Role: role, Date: date})
				date, i = "", j+n
				continue
			}
			if body[j:j+n] != "\n" || !strings.HasPrefix(body[j+n:], "  ") {
				return nil, fmt.Errorf("the head %q is not followed by indented text", line)
			}
			i = j + n + 2
		default:
			return nil, fmt.Errorf("line at the margin is neither a date, a speaker nor the footer: %q", line)
		}
		text, next, err := readEntry(body, i)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", len(out), err)
		}
		i = next
		out = append(out, blockEntry{Role: role, Text: text, Date: date, Standing: section})
		date = ""
	}
	if section {
		return nil, errors.New("the standing section is not closed")
	}
	if date != "" {
		return nil, fmt.Errorf("date line %q with no turn after it", date)
	}
	return out, nil
}

// wantDateLine is the date line a turn gets when it opens a stretch or a day.
func wantDateLine(t time.Time) string {
	if t.IsZero() {
		return "---"
	}
	return "--- " + t.Format("2 January 2006") + " ---"
}

// sameDay reports whether two turn times fall on one calendar day as the
// block shows them (an undated turn never opens a day of its own).
func sameDay(cur, prev time.Time) bool {
	if cur.IsZero() {
		return true
	}
	if prev.IsZero() {
		return false
	}
	y1, m1, d1 := cur.Date()
	y2, m2, d2 := prev.Date()
	return y1 == y2 && m1 == m2 && d1 == d2
}

// blockEntries lists the entries a block of the stretches starting at keys,
// each cut at upto, must read back as. The caller holds m's lock or owns m.
func blockEntries(m *Memory, keys []int, upto int) []blockEntry {
	ends := make([]int, len(keys))
	for i, k := range keys {
		ends[i] = min(m.stretchEnd(m.stretchOf(k)), upto)
	}
	return quotedEntries(m, keys, ends, nil, nil)
}

// quotedEntries is what a memory part quoting turns [keys[i], ends[i])
// holds when it opens with a section showing the standing turns in
// section and leaves out of its runs the turns in skip (both ascending): a
// memory block leaves out those of its section, a recall those of the
// block before it.
func quotedEntries(m *Memory, keys, ends, section, skip []int) []blockEntry {
	var out []blockEntry
	for i, t := range section {
		e := blockEntry{Role: User, Text: guardBlock(m.turns[t].shown()), Standing: true}
		if i == 0 || !sameDay(m.when(t), m.when(section[i-1])) {
			e.Date = wantDateLine(m.when(t))
		}
		out = append(out, e)
	}
	for i, k := range keys {
		first := true
		for t := k; t < ends[i]; t++ {
			if slices.Contains(skip, t) {
				continue
			}
			e := blockEntry{Role: m.turns[t].Role(), Text: guardBlock(m.turns[t].shown())}
			switch tt := &m.turns[t]; {
			case tt.hidden():
				e.Text = ""
			case tt.Role() == ToolCall:
				// A call is the assistant's line, naming the tool.
				e.Role, e.Text = Assistant, guard(callText(tt))
			}
			if first || !sameDay(m.when(t), m.when(t-1)) {
				e.Date = wantDateLine(m.when(t))
			}
			first = false
			out = append(out, e)
		}
	}
	return out
}

// checkBlock renders the given stretches, reads the block back and
// checks that it holds exactly the turns that went in, that its size is
// counted right and that no turn's text put a line at the margin.
func checkBlock(t tb, m *Memory, keys []int, upto int) {
	t.Helper()
	ends := make([]int, len(keys))
	for i, k := range keys {
		ends[i] = min(m.stretchEnd(m.stretchOf(k)), upto)
	}
	block, size := m.renderBlock(keys, ends, nil, memoryHeader, nil)
	if len(keys) == 0 {
		require.Empty(t, block)
		return
	}
	require.Equal(t, utf8.RuneCountInString(block), size, "block size is counted in characters")
	got, err := parseBlock(block)
	require.NoError(t, err, "block:\n%q", block)
	want := blockEntries(m, keys, upto)
	require.Equal(t, want, got)
	margin, dates := 0, 0
	for _, line := range lines(block) {
		if !strings.HasPrefix(line, "  ") {
			margin++
		}
	}
	for _, e := range want {
		if e.Date != "" {
			dates++
		}
	}
	// header, one line per date, one per turn, footer.
	require.Equal(t, 2+dates+len(want), margin, "only labels, dates and markers stand at the margin")
}

// checkShape checks what holds for any composition, even one taken while
// other goroutines change the memory: the query goes last, the budget holds,
// roles alternate, the memory block reads back cleanly, and no line of any
// other part passes for framing unguarded.
func checkShape(t tb, budget int, query string, r Result) {
	t.Helper()
	require.NotEmpty(t, r.Messages)
	last := r.Messages[len(r.Messages)-1]
	require.Equal(t, User, last.Role)
	require.Equal(t, query, last.Parts[len(last.Parts)-1].Text)
	require.LessOrEqual(t, contextRunes(r), budget, "characters of all parts but the query")
	var roles []Role
	for i, msg := range r.Messages {
		require.NotEmpty(t, msg.Parts)
		require.True(t, msg.Role.valid(), "role %q", msg.Role)
		if i > 0 {
			require.NotEqual(t, r.Messages[i-1].Role, msg.Role, "consecutive messages of one role are merged")
		}
		for range msg.Parts {
			roles = append(roles, msg.Role)
		}
	}
	parts := flat(r)
	require.GreaterOrEqual(t, r.StableUpto, -1)
	require.Less(t, r.StableUpto, len(parts)-1, "the query is never stable")
	for i, p := range parts[:len(parts)-1] {
		switch {
		case strings.HasPrefix(p, memoryHeader):
			require.Zero(t, i, "the memory block comes first")
			_, err := parseBlock(p)
			require.NoError(t, err)
		case strings.HasPrefix(p, recallHeader):
			require.Positive(t, i, "recalled stretches follow what was sent before")
			_, err := parseBlock(p)
			require.NoError(t, err)
			require.Equal(t, r.StableUpto+1, i, "recalled stretches come right past the stable prefix")
		case strings.HasPrefix(p, externalHeader):
			require.Equal(t, len(parts)-2, i, "outside material comes just before the query")
		case roles[i] == ToolResult || roles[i] == Note:
			// Framed by byheart's own markers; tool_test.go reads them back.
		default:
			// A user's or an assistant's own turn: only a line that could
			// pass for a marker is opened (guard.go).
			for _, line := range lines(p) {
				if nativeGuard.flags(line) {
					require.True(t, strings.HasPrefix(line, quoteGuard), "part %d: a line passes for a marker: %q", i, line)
				}
			}
		}
	}
	for i := 1; i < len(r.Included); i++ {
		require.Less(t, r.Included[i-1], r.Included[i])
	}
}

// checkNative checks that part is turn i as it must go out natively: its
// shown text, guarded (and framed, for an agent turn), cut to the budget if
// larger, or to its share of it in a newest step that is.
func checkNative(t tb, m *Memory, i int, part string) {
	t.Helper()
	want := guardNative(m.turns[i].shown())
	if m.turns[i].Role().agent() {
		want = nativeTool(&m.turns[i])
	}
	budget := m.nativeCost(i) // the budget, or the newest step's share of it
	if utf8.RuneCountInString(want) <= budget {
		require.Equal(t, want, part, "turn %d", i)
		return
	}
	require.Equal(t, budget, utf8.RuneCountInString(part), "turn %d is cut to the budget", i)
	if budget >= utf8.RuneCountInString(clipMark) {
		require.True(t, strings.HasSuffix(part, clipMark))
		require.True(t, strings.HasPrefix(want, strings.TrimSuffix(part, clipMark)))
	}
}

// checkResult checks a composition against the memory it came from,
// which nothing else may change meanwhile: every turn in order below the
// budget; above it, the kept block with exactly its turns and then every
// turn since, natively, the newest always among them.
func checkResult(t tb, m *Memory, query string, r Result) {
	t.Helper()
	checkShape(t, m.opt.Budget, query, r)
	parts := flat(r)
	parts = parts[:len(parts)-1]
	if len(parts) > 0 && strings.HasPrefix(parts[len(parts)-1], externalHeader) {
		parts = parts[:len(parts)-1]
	}
	if m.total <= m.opt.Budget {
		require.NotContains(t, strings.Join(parts, ""), memoryHeader)
		require.Len(t, parts, len(m.turns), "below the budget every turn goes out natively")
		for i, p := range parts {
			checkNative(t, m, i, p)
		}
		return
	}
	sel := m.sel
	require.NotNil(t, sel)
	require.Less(t, sel.upto, len(m.turns), "the newest turn is always present")
	checkQuote := func(q quote, header string) {
		require.NotEmpty(t, parts)
		require.Equal(t, q.text, parts[0])
		require.True(t, strings.HasPrefix(parts[0], header), "a memory part opens with its header")
		got, err := parseBlock(parts[0])
		require.NoError(t, err)
		require.Equal(t, quotedEntries(m, q.keys, q.ends, q.standing, q.standing), got)
		parts = parts[1:]
	}
	require.Equal(t, sel.block.standing, r.Standing, "the result names the standing turns the block shows")
	require.Equal(t, sel.block.left, r.StandingLeft)
	if sel.block.text != "" {
		checkQuote(sel.block, memoryHeader)
	}
	for turn := sel.upto; turn < len(m.turns); turn++ {
		require.NotEmpty(t, parts, "every turn since the block goes out natively")
		checkNative(t, m, turn, parts[0])
		parts = parts[1:]
	}
	// Past the breakpoint, what the query recalled.
	quoted := map[int]bool{}
	if len(r.Recalled) > 0 {
		require.Len(t, parts, 1, "one recalled part past the log")
		require.True(t, strings.HasPrefix(parts[0], recallHeader), "a recalled part opens with its header")
		require.Equal(t, parts[0], flat(r)[r.StableUpto+1], "the recall goes right past the breakpoint")
		got, err := parseBlock(parts[0])
		require.NoError(t, err)
		ends := make([]int, len(r.Recalled))
		for i, k := range r.Recalled {
			ends[i] = min(m.stretchEnd(m.stretchOf(k)), sel.upto)
			for turn := k; turn < ends[i]; turn++ {
				if slices.Contains(sel.block.standing, turn) {
					continue // the block shows it among the standing turns
				}
				require.False(t, sel.block.covers(turn), "a recalled turn %d is in the block", turn)
				quoted[turn] = true
			}
		}
		require.Equal(t, quotedEntries(m, r.Recalled, ends, nil, sel.block.standing), got)
		parts = parts[1:]
	}
	require.Empty(t, parts, "nothing but the log, a recall, outside material and the query")
	q := &sel.block
	for _, turn := range q.standing {
		require.Less(t, turn, sel.upto, "a standing turn %d the block shows also goes out natively", turn)
		require.True(t, m.turns[turn].standing(), "turn %d stands", turn)
		quoted[turn] = true
	}
	for i, k := range q.keys {
		for turn := k; turn < q.ends[i]; turn++ {
			if slices.Contains(q.standing, turn) {
				continue
			}
			require.False(t, quoted[turn], "turn %d is quoted twice", turn)
			require.Less(t, turn, sel.upto, "a quoted turn %d also goes out natively", turn)
			quoted[turn] = true
		}
	}
}

// checkBounds checks the stretch boundaries' invariants.
func checkBounds(t tb, m *Memory) {
	t.Helper()
	b := m.Bounds()
	n := m.Len()
	if n == 0 {
		require.Empty(t, b)
		return
	}
	require.NotEmpty(t, b)
	require.Zero(t, b[0])
	for i := 1; i < len(b); i++ {
		require.Less(t, b[i-1], b[i])
	}
	require.Less(t, b[len(b)-1], n)
}

// checkRoundTrip round-trips m through JSON, checks that the copy writes the
// same JSON and composes the same context for query as m does, and returns
// the copy.
func checkRoundTrip(t tb, m *Memory, opts Options, query string) *Memory {
	t.Helper()
	data := mustJSON(t, m)
	m2, err := FromJSON([]byte(data), opts)
	require.NoError(t, err)
	require.Equal(t, data, mustJSON(t, m2), "a restored memory writes the same JSON")
	checkBounds(t, m2)
	r1, err1 := m.Compose(context.Background(), query)
	r2, err2 := m2.Compose(context.Background(), query)
	require.Equal(t, err1 == nil, err2 == nil)
	if err1 == nil {
		checkResult(t, m, query, r1)
		checkResult(t, m2, query, r2)
		require.Equal(t, unsaved(r1), unsaved(r2), "a restored memory composes the same context")
	}
	return m2
}

// unsaved is r as a copy restored from a save composes it: what dropped a
// kept selection (a redaction, a save whose selection did not match) is
// not saved, so the copy's rebuild is its first.
func unsaved(r Result) Result {
	if r.Rebuild == RebuildRedacted || r.Rebuild == RebuildRestored {
		r.Rebuild = RebuildFirst
	}
	return r
}

// readEntry reads the text of a block entry that starts at body[i], its
// continuation lines indented by two spaces, and returns it without the
// indents and the index of the line after it.
func readEntry(body string, i int) (string, int, error) {
	var text strings.Builder
	for {
		j, n := nextBreak(body, i)
		if j < 0 {
			return "", 0, errors.New("runs into the footer")
		}
		text.WriteString(body[i:j])
		k := j + n
		if strings.HasPrefix(body[k:], "  ") {
			text.WriteString(body[j:k])
			i = k + 2
			continue
		}
		if body[j:k] != "\n" {
			return "", 0, fmt.Errorf("break %q is followed by a line at the margin", body[j:k])
		}
		return text.String(), k, nil
	}
}

// list is a paged list's elements, in order.
func (p *paged[T]) list() []T {
	var out []T
	for _, pg := range p.pages {
		out = append(out, pg...)
	}
	return out
}
