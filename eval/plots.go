package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// The pictures: recall against the budget, the bill of every call along one
// conversation and its running total, and recall against cost. They draw
// the recall and replay sections, measured again at the budgets the
// pictures sweep.

// plotBudgets are the budgets the recall picture sweeps.
var plotBudgets = []int{5000, 10000, 20000, 30000, 40000}

// methodColors keep a method's color the same in every picture.
var methodColors = map[string]string{
	byheartFresh.name:   "#2a9d4b",
	byheartDefault.name: "#1f5fbf",
	recencyWindow.name:  "#e08a1e",
	plainRAG.name:       "#c0392b",
	fullHistory.name:    "#777777",
}

// The pictures' file names.
const (
	recallPicture     = "recall-by-budget.svg"
	tokensPicture     = "tokens-per-call.svg"
	cumulativePicture = "cumulative-cost.svg"
	paretoPicture     = "recall-vs-cost.svg"
)

// sweep holds the recall and replay sections by budget.
type sweep struct {
	recall map[int]*recallResult
	replay map[int]*replayResult
}

// measureSweep measures, at the budgets the pictures need, the sections res
// holds, reusing res's own runs at its budget.
func measureSweep(ds *dataset, res *results, prog *progress) (*sweep, error) {
	sw := &sweep{recall: map[int]*recallResult{}, replay: map[int]*replayResult{}}
	lat := &latencies{} // the speed section is already summed up
	if res.Recall != nil {
		sw.recall[res.Budget] = res.Recall
		err := measureMissing(sw.recall, plotBudgets, func(b int) (*recallResult, error) { return measureRecall(ds, b, lat, prog) })
		if err != nil {
			return nil, err
		}
	}
	if res.Replay != nil {
		sw.replay[res.Budget] = res.Replay
	}
	return sw, nil
}

// measureMissing measures every budget got lacks.
func measureMissing[R any](got map[int]*R, budgets []int, measure func(budget int) (*R, error)) error {
	for _, b := range budgets {
		if got[b] != nil {
			continue
		}
		r, err := measure(b)
		if err != nil {
			return err
		}
		got[b] = r
	}
	return nil
}

// picturesDir is where the pictures go: the -svg folder when the flag was
// given (empty for none); otherwise plotsPath for the synthetic data and
// none for a LoCoMo file, so that a run on other data never overwrites the
// pictures the repository ships.
func picturesDir(fs *flag.FlagSet, svg, locomo string) string {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "svg" })
	if given || locomo != "" {
		return svg
	}
	root, err := moduleRoot()
	if err != nil {
		return ""
	}
	return filepath.Join(root, plotsPath)
}

// pictures measures what the pictures need and writes them into dir; none
// when dir is empty.
func pictures(ds *dataset, res *results, dir string, prog *progress) error {
	if dir == "" {
		return nil
	}
	prog.stage("pictures")
	sw, err := measureSweep(ds, res, prog)
	prog.stage("")
	if err != nil {
		return fmt.Errorf("pictures: %w", err)
	}
	written, err := writePictures(dir, res, sw)
	if err != nil {
		return fmt.Errorf("pictures: %w", err)
	}
	for _, path := range written {
		prog.note("wrote " + path)
	}
	return nil
}

// writePictures draws the pictures res and sw allow into dir and returns
// the files written.
func writePictures(dir string, res *results, sw *sweep) ([]string, error) {
	source := filepath.Base(res.Data.Source)
	var charts []struct {
		name string
		c    *chart
	}
	add := func(name string, c *chart) {
		charts = append(charts, struct {
			name string
			c    *chart
		}{name, c})
	}
	if len(sw.recall) > 0 {
		add(recallPicture, recallChart(sw, source))
	}
	if r := sw.replay[res.Budget]; r != nil && len(r.Along) > 0 {
		add(tokensPicture, alongChart(r, source, false))
		add(cumulativePicture, alongChart(r, source, true))
	}
	if res.Policies != nil && res.Recall != nil && res.Replay != nil {
		add(paretoPicture, paretoChart(res, source))
	}
	if len(charts) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, ch := range charts {
		path := filepath.Join(dir, ch.name)
		if err := os.WriteFile(path, []byte(ch.c.svg()), 0o644); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

func recallChart(sw *sweep, source string) *chart {
	budgets := sortedKeys(sw.recall)
	c := &chart{
		title:    "Evidence recall by budget",
		subtitle: fmt.Sprintf("%s: share of each question's evidence turns in the context, categories 1–4", source),
		xLabel:   "budget (characters of context)", yLabel: "evidence recall",
		xFormat: kilo, yFormat: fraction, yMin: 0, yMax: 1,
	}
	for i, m := range recallMethods {
		s := series{name: m.name, color: methodColors[m.name], dash: m.name == fullHistory.name}
		for _, b := range budgets {
			p := point{float64(b), sw.recall[b].Rows[i].Recall14}
			s.line = append(s.line, p)
			s.dots = append(s.dots, p)
		}
		c.series = append(c.series, s)
	}
	return c
}

// alongChart draws the calls of the first conversation's replay: the bill
// of each over a few sessions from its middle, where the history is well
// past the budget, or the running total over the whole conversation.
// Rebuilds of byheart default are marked, and faint lines mark where a
// session starts cold.
func alongChart(r *replayResult, source string, cumulative bool) *chart {
	from, to := 0, len(r.Along[0])
	c := &chart{
		title:    "Cumulative cost along one conversation",
		subtitle: fmt.Sprintf("%s, first conversation, live replay at %s characters", source, thousands(float64(r.Budget))),
		xLabel:   "call (one per user turn)", yLabel: "effective tokens, running total",
		xFormat: integer, yFormat: compact,
	}
	if !cumulative {
		var first int
		from, to, first = middleSessions(r.Along[0], alongSessions)
		c.title = "Effective tokens per call along one conversation"
		c.subtitle = fmt.Sprintf("%s, first conversation, sessions %d–%d, live replay at %s characters",
			source, first, first+alongSessions-1, thousands(float64(r.Budget)))
		c.yLabel = "effective tokens"
		c.yFormat = integer
	}
	sessions := series{name: "session starts", color: "#888888"}
	rebuilds := series{name: "rebuilds (default)", color: methodColors[byheartDefault.name]}
	for i, row := range r.Rows {
		s := series{name: row.Method, color: methodColors[row.Method]}
		total := 0.0
		for k, call := range r.Along[i] {
			total += call.Effective
			if k < from || k >= to {
				continue
			}
			p := point{float64(k + 1), call.Effective}
			if cumulative {
				p.y = total
			}
			s.line = append(s.line, p)
			if call.Rebuilt && row.Method == byheartDefault.name && !cumulative {
				rebuilds.dots = append(rebuilds.dots, p)
			}
			if call.Cold && i == 0 && !cumulative {
				sessions.vlines = append(sessions.vlines, p.x)
			}
		}
		c.series = append(c.series, s)
	}
	if !cumulative {
		c.series = append(c.series, rebuilds, sessions)
	}
	return c
}

// alongSessions is how many sessions the per-call picture shows: enough to
// see rebuilds and cold starts, few enough to tell the calls apart.
const alongSessions = 4

// middleSessions returns the calls [from, to) of n sessions from the middle
// of a replay, and the number of the first of them, counting from 1.
func middleSessions(calls []callCost, n int) (from, to, first int) {
	var starts []int
	for k, c := range calls {
		if c.Cold {
			starts = append(starts, k)
		}
	}
	if len(starts) <= n {
		return 0, len(calls), 1
	}
	i := (len(starts) - n) / 2
	to = len(calls)
	if i+n < len(starts) {
		to = starts[i+n]
	}
	return starts[i], to, i + 1
}

// paretoChart sets each rule 3 setting's recall (questions in order)
// against its cost (the live replay) at the run's budget, beside plain RAG
// and full history, and draws the front: the points no other beats on
// both. Each point is its own series, named in the legend, so no label
// sits on another.
func paretoChart(res *results, source string) *chart {
	c := &chart{
		title:    "Recall against cost",
		subtitle: fmt.Sprintf("%s, %s characters: recall (categories 1–4) against effective tokens per call in the live replay", source, thousands(float64(res.Budget))),
		xLabel:   "effective tokens per call", yLabel: "evidence recall",
		xFormat: integer, yFormat: fraction, yMin: 0, yMax: 1,
	}
	var all []point
	dot := func(name, color string, p point) {
		all = append(all, p)
		c.series = append(c.series, series{name: name, color: color, dots: []point{p}})
	}
	for _, row := range res.Policies.Rows {
		for _, p := range policies {
			if p.name == row.Policy {
				dot(p.short, p.color, point{row.EffectiveTokens, row.Recall14})
			}
		}
	}
	for _, m := range []method{plainRAG, fullHistory} {
		dot(m.name, methodColors[m.name], point{findReplay(res.Replay, m.name).EffectiveTokens, findRecall(res.Recall, m.name).Recall14})
	}
	c.series = append(c.series, series{name: "Pareto front", color: "#000000", dash: true, line: front(all)})
	return c
}

// front returns the points no other point beats on both cost (x, lower is
// better) and recall (y, higher is better), by cost.
func front(points []point) []point {
	sorted := slices.Clone(points)
	slices.SortFunc(sorted, func(a, b point) int {
		if a.x != b.x {
			if a.x < b.x {
				return -1
			}
			return 1
		}
		if a.y > b.y {
			return -1
		}
		if a.y < b.y {
			return 1
		}
		return 0
	})
	var out []point
	for _, p := range sorted {
		if len(out) == 0 || p.y > out[len(out)-1].y {
			out = append(out, p)
		}
	}
	return out
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func kilo(f float64) string     { return strconv.FormatFloat(f/1000, 'f', -1, 64) + "k" }
func fraction(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
func integer(f float64) string  { return thousands(f) }

// compact writes large numbers short: 1500000 as "1.5M", 250000 as "250k".
func compact(f float64) string {
	switch a := math.Abs(f); {
	case a >= 1e6:
		return strconv.FormatFloat(f/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(f/1e3, 'f', -1, 64) + "k"
	}
	return thousands(f)
}
