package byheart

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// This file holds the conversations the speed benchmarks and the golden
// composition test run on: a synthetic chat generator, and a reader for the
// LoCoMo dev file when it sits beside the repository.

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

// fillTurns appends turns to m with their times.
func fillTurns(m *Memory, turns []Turn) {
	for _, t := range turns {
		if _, err := m.AppendAt(t.Role, t.Text, t.Time); err != nil {
			panic(err)
		}
	}
}

// locomoPath is the LoCoMo dev file beside the repository.
const locomoPath = "../shared/locomo/locomo-dev.json"

// locomoConv is one LoCoMo conversation as turns, with its questions.
type locomoConv struct {
	turns     []Turn
	questions []string
}

// loadLoCoMo reads the LoCoMo dev file as the benchmark program does:
// speaker_a is the user, each session's turns at its date, a shared image's
// caption after the text. It returns nil when the file is not there.
func loadLoCoMo() ([]locomoConv, error) {
	data, err := os.ReadFile(locomoPath)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string `json:"question"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(data, &samples); err != nil {
		return nil, err
	}
	var out []locomoConv
	for _, s := range samples {
		var a string
		if err := json.Unmarshal(s.Conversation["speaker_a"], &a); err != nil {
			return nil, err
		}
		var c locomoConv
		for n := 1; ; n++ {
			raw, ok := s.Conversation["session_"+strconv.Itoa(n)]
			if !ok {
				break
			}
			var stamp string
			if err := json.Unmarshal(s.Conversation["session_"+strconv.Itoa(n)+"_date_time"], &stamp); err != nil {
				return nil, err
			}
			when, err := time.Parse("3:04 pm on 2 January, 2006", stamp)
			if err != nil {
				return nil, err
			}
			var turns []struct {
				Speaker string `json:"speaker"`
				Text    string `json:"text"`
				Caption string `json:"blip_caption"`
			}
			if err := json.Unmarshal(raw, &turns); err != nil {
				return nil, err
			}
			for _, t := range turns {
				role := Assistant
				if t.Speaker == a {
					role = User
				}
				text := t.Text
				if t.Caption != "" {
					text += " [shares a photo: " + t.Caption + "]"
				}
				if text == "" {
					continue
				}
				c.turns = append(c.turns, Turn{Role: role, Text: text, Time: when})
			}
		}
		for _, q := range s.QA {
			c.questions = append(c.questions, q.Question)
		}
		out = append(out, c)
	}
	return out, nil
}
