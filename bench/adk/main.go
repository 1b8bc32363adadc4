// Command adk runs adk-go's in-memory memory.Service and byheart's (the
// byheartadk module's MemoryService) side by side on the LoCoMo
// conversations, in one process: every session of a conversation is stored
// in ADK's own in-memory session service and added to both memories, then
// each question is searched in both, and the entries each returns fill a
// 20,000-character context in the order it returned them. It prints, as
// Markdown, the evidence recall on categories 1 to 4 and the time a search
// takes.
//
//	go run . -locomo ../../../shared/locomo/locomo-dev.json
//
// It is a module of its own so that adk-go never enters byheart's
// dependencies.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"google.golang.org/adk/v2/memory"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/session"
	"google.golang.org/genai"

	"github.com/byheart/byheart"
	byheartadk "github.com/byheart/byheart/adk"
	"github.com/byheart/byheart/internal/locomo"
)

func main() {
	path := flag.String("locomo", "../../../shared/locomo/locomo-dev.json", "the LoCoMo file (locomo10.json shape)")
	room := flag.Int("context", 20_000, "characters of context the entries fill")
	rounds := flag.Int("rounds", 3, "times every question is searched; ADK's order is a map's, so each round differs")
	flag.Parse()
	err := run(os.Stdout, *path, *room, *rounds)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "adk: no LoCoMo file at %s; nothing to measure\n", *path)
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "adk:", err)
		os.Exit(1)
	}
}

const app = "locomo"

// service is one memory.Service under test, with what it scored.
type service struct {
	name string
	svc  memory.Service
	// recall sums per-question evidence recall by category, per round.
	recall    [][5]float64
	questions [5]int
	entries   int
	searches  []time.Duration
}

func run(w io.Writer, path string, room, rounds int) error {
	ds, err := locomo.Load(path)
	if err != nil {
		return err
	}
	ctx := context.Background()
	services := []*service{
		{name: "adk-go in-memory `memory.Service` (v2.2.0)", svc: memory.InMemoryService()},
		{name: "byheart `byheartadk.MemoryService`", svc: byheartadk.NewMemoryService(byheart.Options{Budget: room})},
	}
	sessions := session.InMemoryService()
	turns := 0
	for _, conv := range ds.Convs {
		stored, err := store(ctx, sessions, conv)
		if err != nil {
			return err
		}
		turns += len(conv.Turns)
		for _, s := range services {
			for _, sess := range stored {
				if err := s.svc.AddSessionToMemory(ctx, sess); err != nil {
					return fmt.Errorf("%s: %s: %w", s.name, conv.ID, err)
				}
			}
		}
	}
	questions := 0
	for r := range rounds {
		for _, s := range services {
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
				for _, s := range services {
					start := time.Now()
					res, err := s.svc.SearchMemory(ctx, &memory.SearchRequest{AppName: app, UserID: conv.ID, Query: q.Text})
					s.searches = append(s.searches, time.Since(start))
					if err != nil {
						return fmt.Errorf("%s: %s: %w", s.name, conv.ID, err)
					}
					context := fill(res.Memories, room)
					found := 0
					for _, e := range q.Evidence {
						if holds(context, conv.Turns[e]) {
							found++
						}
					}
					s.recall[r][q.Category] += float64(found) / float64(len(q.Evidence))
					if r == 0 {
						s.questions[q.Category]++
						s.entries += len(res.Memories)
					}
				}
			}
		}
	}
	fmt.Fprintf(w, "LoCoMo: %d conversations, %d turns, %d questions of categories 1–4 with evidence; %d rounds; %s, %s/%s, GOMAXPROCS %d.\n\n",
		len(ds.Convs), turns, questions, rounds, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "| memory | recall 1–4 | 1 multi-hop | 2 temporal | 3 open-domain | 4 single-hop | entries per search | search p50 | search p99 |\n")
	fmt.Fprintf(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range services {
		fmt.Fprintf(w, "| %s | **%s** | %s | %s | %s | %s | %.1f | %s | %s |\n", s.name, s.overall(),
			s.category(1), s.category(2), s.category(3), s.category(4),
			float64(s.entries)/float64(max(questions, 1)), quantile(s.searches, 0.5), quantile(s.searches, 0.99))
	}
	fmt.Fprintf(w, "\nRecall: the share of a question's evidence turns whose text reaches the context, averaged over questions; "+
		"the entries a search returns fill %d characters in the order it returned them, an entry that does not fit is passed over. "+
		"A figure with a range varied between rounds (mean, then lowest–highest).\n", room)
	return nil
}

// store keeps each LoCoMo session of conv as an ADK session of the user
// conv.ID, its first speaker's turns the user's and the second's the
// agent's, and returns them read back from the session service.
func store(ctx context.Context, svc session.Service, conv *locomo.Conversation) ([]session.Session, error) {
	var out []session.Session
	var cur session.Session
	last := -1
	for _, t := range conv.Turns {
		if t.Session != last {
			if cur != nil {
				out = append(out, cur)
			}
			created, err := svc.Create(ctx, &session.CreateRequest{AppName: app, UserID: conv.ID, SessionID: fmt.Sprintf("session-%d", t.Session)})
			if err != nil {
				return nil, err
			}
			cur, last = created.Session, t.Session
		}
		author, role := "user", genai.RoleUser
		if !t.ByA {
			author, role = "assistant", genai.RoleModel
		}
		ev := session.NewEvent(ctx, fmt.Sprintf("inv-%d", t.Session))
		ev.Author = author
		ev.Timestamp = t.When
		ev.LLMResponse = model.LLMResponse{Content: genai.NewContentFromText(t.Text, genai.Role(role))}
		if err := svc.AppendEvent(ctx, cur, ev); err != nil {
			return nil, err
		}
	}
	if cur != nil {
		out = append(out, cur)
	}
	for i, s := range out {
		got, err := svc.Get(ctx, &session.GetRequest{AppName: app, UserID: conv.ID, SessionID: s.ID()})
		if err != nil {
			return nil, err
		}
		out[i] = got.Session
	}
	return out, nil
}

// fill is the context the entries make: their texts in order, each that
// fits in what room is left.
func fill(entries []memory.Entry, room int) string {
	var b strings.Builder
	left := room
	for _, e := range entries {
		if e.Content == nil {
			continue
		}
		var text strings.Builder
		for _, p := range e.Content.Parts {
			text.WriteString(p.Text)
			text.WriteByte('\n')
		}
		n := len([]rune(text.String()))
		if n > left {
			continue
		}
		left -= n
		b.WriteString(text.String())
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

func (s *service) overall() string {
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

func (s *service) category(c int) string {
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
	switch {
	case v >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(v)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1f µs", float64(v)/float64(time.Microsecond))
	}
}
