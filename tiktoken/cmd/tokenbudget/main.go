// Command tokenbudget measures byheart's evidence recall under a budget in
// tokens, counted by the estimate (byheart.ApproxTokens) or exactly (this
// module's O200k and Cl100k), and how much of the budget each composition
// then fills in real tokens. It lives in the tiktoken module, not beside
// the benchmark in eval/, so that the core module never requires the
// tokenizer.
//
// Usage, from the tiktoken directory:
//
//	go run ./cmd/tokenbudget                            # 5,000 and 2,500 tokens, every measure, the synthetic data
//	go run ./cmd/tokenbudget -tokens 5000 -measure o200k
//	go run ./cmd/tokenbudget -measure approx -family cl100k -data ../../shared/locomo/locomo-dev.json
//
// For each budget and measure it composes for every question of categories
// 1–4 (byheart fresh: Stability -1; byheart default: the kept context, the
// questions asked in order on one memory) and reports the share of each
// question's evidence turns whose text reached the context, and the
// context's size (everything but the query, which the budget covers) by the
// estimate and exactly, with the share of the budget each fills.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"unicode"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/locomo"
	byhearttiktoken "github.com/byheart/byheart/tiktoken"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tokenbudget:", err)
		os.Exit(1)
	}
}

// family is a tokenizer family: its exact count and byheart's estimate.
type family struct {
	name     string
	exact    func(string) int
	estimate func(string) int
}

var families = map[string]family{
	"o200k":  {"o200k", byhearttiktoken.O200k, byheart.ApproxTokens(byheart.O200k)},
	"cl100k": {"cl100k", byhearttiktoken.Cl100k, byheart.ApproxTokens(byheart.Cl100k)},
}

// setup is one row's way of counting the budget.
type setup struct {
	fam   family
	exact bool // the budget counts exact tokens, not the estimate
}

func (s setup) String() string {
	if s.exact {
		return s.fam.name + " (exact)"
	}
	return "approx " + s.fam.name
}

func (s setup) measure() func(string) int {
	if s.exact {
		return s.fam.exact
	}
	return s.fam.estimate
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tokenbudget", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tokens := fs.Int("tokens", 0, "the budget in tokens (default: 5000 and 2500)")
	measure := fs.String("measure", "", "what counts the budget: approx, o200k or cl100k (default: each, approx for both families)")
	fam := fs.String("family", "", "with -measure approx, the family it estimates and is compared with: o200k or cl100k (default: both)")
	data := fs.String("data", "../testdata/synthetic.json", "conversations in LoCoMo's shape")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	setups, err := chooseSetups(*measure, *fam)
	if err != nil {
		return err
	}
	budgets := []int{5000, 2500}
	if *tokens < 0 {
		return fmt.Errorf("-tokens must be positive, got %d", *tokens)
	}
	if *tokens > 0 {
		budgets = []int{*tokens}
	}
	ds, err := locomo.Load(*data)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Evidence recall, categories 1–4, with the budget in tokens (%s: %d conversations)\n\n", *data, len(ds.Convs))
	fmt.Fprintln(stdout, "| budget | counted by | recall, fresh | recall, default | estimate per composition | exact per composition | budget filled, estimate | budget filled, exact | over budget, exact |")
	fmt.Fprintln(stdout, "|---:|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, b := range budgets {
		for _, s := range setups {
			var fresh, kept tally
			if err := each(ds.Convs, func(c *locomo.Conversation) (tally, error) {
				return measureConversation(c, b, s, -1)
			}, &fresh); err != nil {
				return err
			}
			if err := each(ds.Convs, func(c *locomo.Conversation) (tally, error) {
				return measureConversation(c, b, s, 0)
			}, &kept); err != nil {
				return err
			}
			n := float64(fresh.compositions)
			fmt.Fprintf(stdout, "| %d | %s | %.3f | %.3f | %.0f | %.0f | %.1f%% | %.1f%% | %d |\n", b, s,
				fresh.recall(), kept.recall(), float64(fresh.estimate)/n, float64(fresh.exact)/n,
				100*float64(fresh.estimate)/n/float64(b), 100*float64(fresh.exact)/n/float64(b), fresh.over)
		}
	}
	fmt.Fprintln(stdout, "\nThe sizes are byheart fresh's, whose compositions fill the budget; \"over budget\" counts compositions whose exact count passes it.")
	return nil
}

func chooseSetups(measure, fam string) ([]setup, error) {
	if fam != "" && measure != "approx" {
		return nil, errors.New("-family goes with -measure approx")
	}
	switch measure {
	case "":
		return []setup{{families["o200k"], false}, {families["o200k"], true}, {families["cl100k"], false}, {families["cl100k"], true}}, nil
	case "o200k", "cl100k":
		return []setup{{families[measure], true}}, nil
	case "approx":
		if fam == "" {
			return []setup{{families["o200k"], false}, {families["cl100k"], false}}, nil
		}
		f, ok := families[fam]
		if !ok {
			return nil, fmt.Errorf("-family must be o200k or cl100k, got %q", fam)
		}
		return []setup{{f, false}}, nil
	}
	return nil, fmt.Errorf("-measure must be approx, o200k or cl100k, got %q", measure)
}

// tally sums one setup's compositions.
type tally struct {
	recallSum       float64
	questions       int
	compositions    int
	estimate, exact int // tokens of every composition's context, summed
	over            int // compositions whose exact count passes the budget
}

func (t tally) recall() float64 { return t.recallSum / float64(max(t.questions, 1)) }

// each measures every conversation, on one goroutine per CPU, and sums the
// tallies into sum.
func each(convs []*locomo.Conversation, measure func(*locomo.Conversation) (tally, error), sum *tally) error {
	tallies := make([]tally, len(convs))
	errs := make([]error, len(convs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, c := range convs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			tallies[i], errs[i] = measure(c)
		}()
	}
	wg.Wait()
	for _, t := range tallies {
		sum.recallSum += t.recallSum
		sum.questions += t.questions
		sum.compositions += t.compositions
		sum.estimate += t.estimate
		sum.exact += t.exact
		sum.over += t.over
	}
	return errors.Join(errs...)
}

// measureConversation appends the conversation, then composes for each
// question of categories 1–4 in order on that one memory.
func measureConversation(c *locomo.Conversation, budget int, s setup, stability float64) (tally, error) {
	mem := byheart.New(byheart.Options{Budget: budget, Measure: s.measure(), Stability: stability})
	for _, t := range c.Turns {
		role := byheart.Assistant
		if t.ByA {
			role = byheart.User
		}
		if _, err := mem.AppendAt(role, t.Text, t.When); err != nil {
			return tally{}, fmt.Errorf("%s %s: %w", c.ID, t.ID, err)
		}
	}
	var out tally
	for _, q := range c.Questions {
		if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
			continue
		}
		res, err := mem.Compose(context.Background(), q.Text)
		if err != nil {
			return tally{}, fmt.Errorf("%s: %w", c.ID, err)
		}
		var texts []string
		estimate, exact := 0, 0
		for _, m := range res.Messages {
			for _, p := range m.Parts {
				if p.Kind == byheart.PartQuery {
					continue
				}
				texts = append(texts, p.Text)
				estimate += s.fam.estimate(p.Text)
				exact += s.fam.exact(p.Text)
			}
		}
		sent := collapse(strings.Join(texts, "\n"))
		found := 0
		for _, e := range q.Evidence {
			t := c.Turns[e]
			if strings.Contains(sent, collapse(t.Text)) || strings.Contains(sent, collapse(byheart.Annotate(t.Text, t.When))) {
				found++
			}
		}
		out.recallSum += float64(found) / float64(len(q.Evidence))
		out.questions++
		out.compositions++
		out.estimate += estimate
		out.exact += exact
		if exact > budget {
			out.over++
		}
	}
	return out, nil
}

// collapse turns every run of white space into one space, so a turn
// quoted in a memory block, its lines indented, is still found.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}
