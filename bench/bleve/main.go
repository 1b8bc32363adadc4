// Command bleve times byheart beside bleve, Go's full-text engine, on the
// same LoCoMo conversations, the same 1,000-character stretches and the same
// queries, in one process, and prints medians, p99s and their ratios as
// Markdown.
//
// It is a module of its own so that bleve never enters byheart's
// dependencies. Run it from this directory:
//
//	go run . -locomo ../../../shared/locomo/locomo-dev.json
//
// What is timed, for each conversation (see README.md):
//
//   - build: bleve indexes every stretch in memory with BM25 scoring; byheart
//     restores the conversation with FromJSON and composes for its first
//     question (a stateless server's cold start), and, for reference, builds
//     the memory from the turns with AppendAt.
//   - question: bleve runs the question as a match query for the 20 best
//     stretches; byheart composes the whole context for it (Stability -1).
//   - live turn: turn by turn, bleve re-indexes the open stretch after the
//     turn and runs the turn as a query; byheart appends the turn and
//     composes with it as the query (the default, sticky options).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/byheart/byheart"
)

func main() {
	locomo := flag.String("locomo", "../../../shared/locomo/locomo-dev.json", "the LoCoMo file (locomo10.json shape)")
	budget := flag.Int("budget", byheart.DefaultBudget, "byheart's context budget in characters")
	hits := flag.Int("hits", 20, "how many stretches a bleve query returns")
	rounds := flag.Int("rounds", 3, "times each measurement is repeated; every round's calls count")
	flag.Parse()
	if err := run(os.Stdout, *locomo, *budget, *hits, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bleve:", err)
		os.Exit(1)
	}
}

// conversation is one LoCoMo sample as byheart appends it.
type conversation struct {
	id        string
	turns     []byheart.Turn
	questions []string
}

func load(path string) ([]conversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var samples []struct {
		ID           string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string `json:"question"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(data, &samples); err != nil {
		return nil, err
	}
	var out []conversation
	for _, s := range samples {
		c := conversation{id: s.ID}
		var userName string
		if err := json.Unmarshal(s.Conversation["speaker_a"], &userName); err != nil {
			return nil, fmt.Errorf("%s: speaker_a: %w", s.ID, err)
		}
		for n := 1; ; n++ {
			raw, ok := s.Conversation["session_"+strconv.Itoa(n)]
			if !ok {
				break
			}
			var stamp string
			if err := json.Unmarshal(s.Conversation["session_"+strconv.Itoa(n)+"_date_time"], &stamp); err != nil {
				return nil, fmt.Errorf("%s: session %d date: %w", s.ID, n, err)
			}
			when, err := time.Parse("3:04 pm on 2 January, 2006", stamp)
			if err != nil {
				return nil, fmt.Errorf("%s: session %d: %w", s.ID, n, err)
			}
			var turns []struct {
				Speaker string `json:"speaker"`
				Text    string `json:"text"`
				Caption string `json:"blip_caption"`
			}
			if err := json.Unmarshal(raw, &turns); err != nil {
				return nil, fmt.Errorf("%s: session %d: %w", s.ID, n, err)
			}
			for _, t := range turns {
				role := byheart.Assistant
				if t.Speaker == userName {
					role = byheart.User
				}
				text := t.Text
				if t.Caption != "" {
					text += " [shares a photo: " + t.Caption + "]"
				}
				if strings.TrimSpace(text) != "" {
					c.turns = append(c.turns, byheart.Turn{Role: role, Text: text, Time: when})
				}
			}
		}
		for _, q := range s.QA {
			if q.Question != "" {
				c.questions = append(c.questions, q.Question)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// stretchText is a stretch as byheart indexes it: each turn as shown
// (relative dates resolved), under the date line the memory block writes
// above it when it opens the stretch or a new day, joined by newlines.
func stretchText(turns []byheart.Turn, a, b int) string {
	var pieces []string
	for t := a; t < b; t++ {
		cur := turns[t].Time
		shown := turns[t].Text
		if !cur.IsZero() {
			shown = byheart.Annotate(shown, cur)
			if t == a || newDay(turns, t) {
				shown = "--- " + cur.Format("2 January 2006") + " ---\n" + shown
			}
		}
		pieces = append(pieces, shown)
	}
	return strings.Join(pieces, "\n")
}

func newDay(turns []byheart.Turn, t int) bool {
	cur, prev := turns[t].Time, turns[t-1].Time
	if cur.IsZero() {
		return false
	}
	if prev.IsZero() {
		return true
	}
	y1, m1, d1 := cur.Date()
	y2, m2, d2 := prev.Date()
	return y1 != y2 || m1 != m2 || d1 != d2
}

// indexedTexts returns byheart's own stretch texts for a memory above its
// budget, as its Retriever hook hands them over, to check that the texts
// given to bleve are the very ones byheart indexes.
func indexedTexts(turns []byheart.Turn, budget int) ([]string, []int, error) {
	var got []string
	grab := byheart.RetrieverFunc(func(_ context.Context, _ string, docs []byheart.Document) ([]float64, error) {
		got = got[:0]
		for _, d := range docs {
			got = append(got, d.Text)
		}
		return make([]float64, len(docs)), nil
	})
	m := byheart.New(byheart.Options{Budget: budget, Stability: -1, Retriever: grab})
	if err := fill(m, turns); err != nil {
		return nil, nil, err
	}
	if _, err := m.Compose(context.Background(), "anything"); err != nil {
		return nil, nil, err
	}
	return got, m.Bounds(), nil
}

func fill(m *byheart.Memory, turns []byheart.Turn) error {
	for _, t := range turns {
		if _, err := m.AppendAt(t.Role, t.Text, t.Time); err != nil {
			return err
		}
	}
	return nil
}

// newBleve returns an empty in-memory bleve index that scores with BM25.
// Scorch (bleve's default index type) with no path keeps everything in
// memory; its readers know the field lengths BM25 needs.
func newBleve() (bleve.Index, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	return bleve.NewUsing("", im, scorch.Name, scorch.Name, nil)
}

type doc struct {
	Text string `json:"text"`
}

func searchBleve(idx bleve.Index, text string, hits int) error {
	q := bleve.NewMatchQuery(text)
	q.SetField("text")
	req := bleve.NewSearchRequestOptions(q, hits, 0, false)
	_, err := idx.Search(req)
	return err
}

// samples collects durations of one kind of call.
type samples []time.Duration

func (s samples) quantile(q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	return c[min(len(c)-1, int(q*float64(len(c))))]
}

func timed(s *samples, f func() error) error {
	start := time.Now()
	err := f()
	*s = append(*s, time.Since(start))
	return err
}

// measures is everything one run times.
type measures struct {
	bleveBuild, bleveEach                   samples
	bleveQuery, bleveLive                   samples
	coldStart, appendAll, compose, liveTurn samples
	stretches, turns, questions             int
}

func run(w io.Writer, path string, budget, hits, rounds int) error {
	convs, err := load(path)
	if err != nil {
		return err
	}
	ctx := context.Background()
	var ms measures
	for _, c := range convs {
		texts, bounds, err := indexedTexts(c.turns, budget)
		if err != nil {
			return fmt.Errorf("%s: %w", c.id, err)
		}
		if len(texts) != len(bounds) {
			return fmt.Errorf("%s: %d texts for %d stretches", c.id, len(texts), len(bounds))
		}
		for i, a := range bounds {
			b := len(c.turns)
			if i+1 < len(bounds) {
				b = bounds[i+1]
			}
			if stretchText(c.turns, a, b) != texts[i] {
				return fmt.Errorf("%s: stretch %d: the text rebuilt here is not the one byheart indexes:\n%q\n%q",
					c.id, i, stretchText(c.turns, a, b), texts[i])
			}
		}
		ms.stretches += len(texts)
		ms.turns += len(c.turns)
		ms.questions += len(c.questions)

		// The saved memory a stateless server would load.
		saved := byheart.New(byheart.Options{Budget: budget, Stability: -1})
		if err := fill(saved, c.turns); err != nil {
			return err
		}
		data, err := saved.ToJSON()
		if err != nil {
			return err
		}

		for range rounds {
			// Build.
			var idx bleve.Index
			err := timed(&ms.bleveBuild, func() error {
				var err error
				if idx, err = newBleve(); err != nil {
					return err
				}
				batch := idx.NewBatch()
				for i, t := range texts {
					if err := batch.Index("s"+strconv.Itoa(bounds[i]), doc{t}); err != nil {
						return err
					}
				}
				return idx.Batch(batch)
			})
			if err != nil {
				return err
			}
			// The same build one document at a time, as an application
			// that indexes stretches as they close would.
			err = timed(&ms.bleveEach, func() error {
				idx, err := newBleve()
				if err != nil {
					return err
				}
				defer idx.Close()
				for i, t := range texts {
					if err := idx.Index("s"+strconv.Itoa(bounds[i]), doc{t}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			err = timed(&ms.coldStart, func() error {
				m, err := byheart.FromJSON(data, byheart.Options{Budget: budget, Stability: -1})
				if err != nil {
					return err
				}
				_, err = m.Compose(ctx, c.questions[0])
				return err
			})
			if err != nil {
				return err
			}
			var warm *byheart.Memory
			err = timed(&ms.appendAll, func() error {
				warm = byheart.New(byheart.Options{Budget: budget, Stability: -1})
				return fill(warm, c.turns)
			})
			if err != nil {
				return err
			}

			// Questions.
			for _, q := range c.questions {
				if err := timed(&ms.bleveQuery, func() error { return searchBleve(idx, q, hits) }); err != nil {
					return err
				}
				if err := timed(&ms.compose, func() error { _, err := warm.Compose(ctx, q); return err }); err != nil {
					return err
				}
			}
			if err := idx.Close(); err != nil {
				return err
			}

			// Live turns.
			if idx, err = newBleve(); err != nil {
				return err
			}
			shadow := byheart.New(byheart.Options{Budget: budget})
			live := byheart.New(byheart.Options{Budget: budget})
			for t, turn := range c.turns {
				if _, err := shadow.AppendAt(turn.Role, turn.Text, turn.Time); err != nil {
					return err
				}
				bs := shadow.Bounds()
				open := bs[len(bs)-1]
				text := stretchText(c.turns, open, t+1)
				err := timed(&ms.bleveLive, func() error {
					if err := idx.Index("s"+strconv.Itoa(open), doc{text}); err != nil {
						return err
					}
					return searchBleve(idx, turn.Text, hits)
				})
				if err != nil {
					return err
				}
				err = timed(&ms.liveTurn, func() error {
					if _, err := live.AppendAt(turn.Role, turn.Text, turn.Time); err != nil {
						return err
					}
					_, err := live.Compose(ctx, turn.Text)
					return err
				})
				if err != nil {
					return err
				}
			}
			if err := idx.Close(); err != nil {
				return err
			}
		}
	}
	report(w, &ms, len(convs), budget, hits, rounds)
	return nil
}

func report(w io.Writer, ms *measures, convs, budget, hits, rounds int) {
	fmt.Fprintf(w, "LoCoMo: %d conversations, %d turns, %d stretches, %d questions; %d rounds; %s, %s/%s, GOMAXPROCS %d.\n\n",
		convs, ms.turns, ms.stretches, ms.questions, rounds, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "| measure | bleve median | bleve p99 | byheart median | byheart p99 | bleve ÷ byheart (median) | (p99) |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, b, h samples) {
		bm, bp := b.quantile(0.5), b.quantile(0.99)
		hm, hp := h.quantile(0.5), h.quantile(0.99)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | **%.1f×** | %.1f× |\n", name, dur(bm), dur(bp), dur(hm), dur(hp),
			float64(bm)/float64(hm), float64(bp)/float64(hp))
	}
	row("build, one batch (bleve) / cold start: FromJSON + first Compose (byheart)", ms.bleveBuild, ms.coldStart)
	row("build, a document at a time (bleve) / cold start (byheart)", ms.bleveEach, ms.coldStart)
	row("build, one batch (bleve) / every turn appended (byheart)", ms.bleveBuild, ms.appendAll)
	row(fmt.Sprintf("question: match query, %d hits (bleve) / Compose, fresh (byheart)", hits), ms.bleveQuery, ms.compose)
	row("live turn: re-index open stretch + query (bleve) / Append + Compose, sticky (byheart)", ms.bleveLive, ms.liveTurn)
	fmt.Fprintf(w, "\nbyheart's budget: %d characters. Calls timed: %d builds, %d questions, %d live turns per method.\n",
		budget, len(ms.bleveBuild), len(ms.bleveQuery), len(ms.bleveLive))
}

func dur(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
}

// Interface checks: the mapping type the program sets BM25 on.
var _ mapping.IndexMapping = (*mapping.IndexMappingImpl)(nil)
