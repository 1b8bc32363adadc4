// Package recall runs memories side by side on the LoCoMo conversations
// and writes the evidence recall each reaches in a fixed context, for the
// benchmarks beside a framework's own memory (bench/adk, bench/trpc).
package recall

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/locomo"
)

// Searcher is one memory under test in a side-by-side recall run
// (bench/adk, bench/trpc): Search returns the texts of the entries the
// memory returns for a question about conv, in the order it returned
// them. The conversations are in the memory before the run.
type Searcher struct {
	Name   string
	Search func(ctx context.Context, conv *locomo.Conversation, question string) ([]string, error)
}

// scores is what one Searcher scored.
type scores struct {
	// recall sums per-question evidence recall by category, per round.
	recall    [][5]float64
	questions [5]int
	entries   int
	searches  []time.Duration
}

// Compare searches every question of categories 1 to 4 that names
// evidence in each searcher, rounds times, fills a context of room
// characters with the entries each returns, in its order (an entry that
// does not fit is passed over), and writes as Markdown the share of the
// evidence turns that reached the context, by category, and the time a
// search took.
func Compare(ctx context.Context, w io.Writer, ds *locomo.Dataset, room, rounds int, searchers []Searcher) error {
	all := make([]*scores, len(searchers))
	for i := range all {
		all[i] = &scores{}
	}
	questions, turns := 0, 0
	for _, conv := range ds.Convs {
		turns += len(conv.Turns)
	}
	for r := range rounds {
		for _, s := range all {
			s.recall = append(s.recall, [5]float64{})
		}
		for _, conv := range ds.Convs {
			for _, q := range conv.Questions {
				if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
					continue
				}
				if r == 0 {
					questions++
				}
				for i, sr := range searchers {
					s := all[i]
					start := time.Now()
					entries, err := sr.Search(ctx, conv, q.Text)
					s.searches = append(s.searches, time.Since(start))
					if err != nil {
						return fmt.Errorf("%s: %s: %w", sr.Name, conv.ID, err)
					}
					context := fill(entries, room)
					found := 0
					for _, e := range q.Evidence {
						if holds(context, conv.Turns[e]) {
							found++
						}
					}
					s.recall[r][q.Category] += float64(found) / float64(len(q.Evidence))
					if r == 0 {
						s.questions[q.Category]++
						s.entries += len(entries)
					}
				}
			}
		}
	}
	fmt.Fprintf(w, "LoCoMo: %d conversations, %d turns, %d questions of categories 1–4 with evidence; %d rounds; %s, %s/%s, GOMAXPROCS %d.\n\n",
		len(ds.Convs), turns, questions, rounds, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "| memory | recall 1–4 | 1 multi-hop | 2 temporal | 3 open-domain | 4 single-hop | entries per search | search p50 | search p99 |\n")
	fmt.Fprintf(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for i, s := range all {
		fmt.Fprintf(w, "| %s | **%s** | %s | %s | %s | %s | %.1f | %s | %s |\n", searchers[i].Name, s.overall(),
			s.category(1), s.category(2), s.category(3), s.category(4),
			float64(s.entries)/float64(max(questions, 1)), quantile(s.searches, 0.5), quantile(s.searches, 0.99))
	}
	fmt.Fprintf(w, "\nRecall: the share of a question's evidence turns whose text reaches the context, averaged over questions; "+
		"the entries a search returns fill %d characters in the order it returned them, an entry that does not fit is passed over. "+
		"A figure with a range varied between rounds (mean, then lowest–highest).\n", room)
	return nil
}

// fill is the context the entries make: their texts in order, each that
// fits in what room is left.
func fill(entries []string, room int) string {
	var b strings.Builder
	left := room
	for _, e := range entries {
		n := len([]rune(e)) + 1
		if n > left {
			continue
		}
		left -= n
		b.WriteString(e)
		b.WriteByte('\n')
	}
	return b.String()
}

// holds reports whether a turn reached the context: its words as said, or
// as byheart shows them, relative dates resolved and continuation lines
// indented.
func holds(context string, t locomo.Turn) bool {
	annotated := byheart.Annotate(t.Text, t.When)
	return strings.Contains(context, t.Text) || strings.Contains(context, annotated) ||
		strings.Contains(context, byheart.Indent(annotated))
}

func (s *scores) overall() string {
	var per []float64
	n := 0
	for c := 1; c <= 4; c++ {
		n += s.questions[c]
	}
	for _, r := range s.recall {
		sum := 0.0
		for c := 1; c <= 4; c++ {
			sum += r[c]
		}
		per = append(per, sum/float64(max(n, 1)))
	}
	return spread(per)
}

func (s *scores) category(c int) string {
	var per []float64
	for _, r := range s.recall {
		per = append(per, r[c]/float64(max(s.questions[c], 1)))
	}
	return spread(per)
}

// spread writes a figure that held in every round as itself, and one that
// varied as its mean and range.
func spread(v []float64) string {
	lo, hi := slices.Min(v), slices.Max(v)
	mean := 0.0
	for _, x := range v {
		mean += x / float64(len(v))
	}
	if fmt.Sprintf("%.3f", lo) == fmt.Sprintf("%.3f", hi) {
		return fmt.Sprintf("%.3f", mean)
	}
	return fmt.Sprintf("%.3f (%.3f–%.3f)", mean, lo, hi)
}

func quantile(d []time.Duration, q float64) string {
	if len(d) == 0 {
		return "—"
	}
	s := slices.Clone(d)
	slices.Sort(s)
	v := s[min(len(s)-1, int(q*float64(len(s))))]
	if v >= time.Millisecond {
		return fmt.Sprintf("%.2f ms", float64(v)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1f µs", float64(v)/float64(time.Microsecond))
}
