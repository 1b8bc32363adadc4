// Command eval is byheart's benchmark. In one run, on the same conversations
// and queries for every method, it shows what byheart sends a model and what
// that costs, against what users would pick instead: a recency window (what a
// token-buffer memory sends), plain RAG over single turns, and the full
// history. It makes no model calls and needs no network.
//
// Usage:
//
//	go run ./eval                                  # the project's synthetic data, pictures into eval/plots
//	go run ./eval -locomo ../shared/locomo/locomo-dev.json
//	go run ./eval -locomo FILE -svg out            # the pictures of a LoCoMo run into out/
//	go run ./eval -budget 10000 -only recall,replay -json
//	go run ./eval -gen testdata/synthetic.json     # regenerate the synthetic data
//	go run ./eval -only multilingual -share 0.2    # languages beside their English twins
//	go run ./eval -only attacks                    # poisoned tool text, and benign tool use
//	go run ./eval -only window                     # histories ten times as long
//	go run ./eval -only bill                       # their bill when users pause, beside compaction
//	go run ./eval -only shapes                     # short turns beside long user–assistant conversations
//	go run ./eval -gen-assistant testdata/assistant.json # regenerate the assistant-shaped data
//
// The sections are recall, temporal, replay, live, loco, window, bill,
// policies, external, speed, multilingual, attacks and shapes;
// eval/README.md says what each measures. All but window and bill run by
// default; they play histories ten times LoCoMo's length, minutes of their
// own, and run with -only. The
// multilingual section reads its own set (testdata/multilingual.json, or
// -multilingual FILE), and the attacks section its own suite
// (testdata/attacks.json, or -attacks FILE); the shapes section measures
// the run's data beside the assistant-shaped set (testdata/assistant.json,
// or -assistant FILE), and the window and bill sections chain that set's
// conversations beside the run's. Tables go to stdout as Markdown, or as one
// JSON object with -json. Progress goes to stderr when it is a terminal, one
// line a section rewritten in place (-progress: one line a section
// elsewhere too). The pictures are SVG plots
// of recall by budget, the cost of each call along a conversation, its
// running total, and recall against cost.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

// sectionNames are the sections -only chooses from, in the order they run.
var sectionNames = []string{"recall", "temporal", "replay", "live", "loco", "window", "bill", "policies", "external", "speed", "multilingual", "attacks", "shapes"}

// syntheticPath is where the project's own data lives, and plotsPath where
// the pictures of a run on it go, from the module root.
const (
	syntheticPath = "testdata/synthetic.json"
	plotsPath     = "eval/plots"
)

func run(args []string, stdout, stderr io.Writer) error {
	start := time.Now()
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	locomo := fs.String("locomo", "", "a file in LoCoMo's locomo10.json shape (default: the project's synthetic data, "+syntheticPath+")")
	budget := fs.Int("budget", 20000, "context budget in characters")
	asJSON := fs.Bool("json", false, "print one JSON object instead of Markdown tables")
	only := fs.String("only", "", "run only these sections, comma-separated: "+strings.Join(sectionNames, ","))
	gen := fs.String("gen", "", "write the synthetic data to this file and exit")
	assistant := fs.String("assistant", "", "shapes, window and bill sections: the assistant-shaped set (default: "+assistantPath+")")
	genAssistant := fs.String("gen-assistant", "", "write the assistant-shaped data to this file and exit")
	svg := fs.String("svg", "", "write the pictures as SVG files into this folder (default: "+plotsPath+" for the synthetic data, none for -locomo; -svg= for none)")
	multilingual := fs.String("multilingual", "", "the multilingual set (default: "+multilingualPath+")")
	share := fs.Float64("share", defaultShare, "multilingual section: the budget as a share of each conversation's length")
	attacks := fs.String("attacks", "", "the attack suite (default: "+attacksPath+")")
	showProgress := fs.Bool("progress", false, "report progress on stderr even when it is not a terminal (one line per section)")
	out := addOutFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q; see -h", fs.Args())
	}
	if out.verify != "" {
		return verifyCommand(out.verify, stdout)
	}
	if err := out.ready(fs); err != nil {
		return err
	}
	defer out.discard()
	if *gen != "" {
		return writeSynthetic(*gen)
	}
	if *genAssistant != "" {
		return writeAssistant(*genAssistant)
	}
	if *budget <= 0 {
		return fmt.Errorf("-budget must be positive, got %d", *budget)
	}
	if !(*share > 0 && *share <= 1) {
		return fmt.Errorf("-share must be in (0, 1], got %g", *share)
	}
	sections, err := chooseSections(*only)
	if err != nil {
		return err
	}
	path := *locomo
	if path == "" {
		if path, err = findSynthetic(); err != nil {
			return err
		}
	}
	ds, err := loadFile(path)
	if err != nil {
		return err
	}
	prog := newProgress(stderr, *showProgress)
	defer prog.end()
	// The assistant-shaped set is read once, when the first section that
	// needs it runs, so a run that chains no history holds it only for the
	// shapes section.
	var asst *dataset
	var chains []shape
	if sections["window"] || sections["bill"] {
		if asst, err = loadAssistant(ds, *assistant); err != nil {
			return err
		}
		chains = chainShapes(ds, *locomo == "", asst)
	}
	res, err := measure(ds, *budget, sections, chains, prog)
	if err != nil {
		return err
	}
	svgDir, data := picturesDir(fs, *svg, *locomo), []string{path}
	if out.dir != "" {
		svgDir = out.stage
	}
	if err := pictures(ds, res, svgDir, prog); err != nil {
		return err
	}
	if sections["multilingual"] {
		if *multilingual == "" {
			if *multilingual, err = findMultilingual(); err != nil {
				return err
			}
		}
		if res.Multilingual, err = measureMultilingual(*multilingual, *share, prog); err != nil {
			return fmt.Errorf("multilingual: %w", err)
		}
		data = append(data, *multilingual)
	}
	if sections["attacks"] {
		if *attacks == "" {
			if *attacks, err = findAttacks(); err != nil {
				return err
			}
		}
		if res.Attacks, err = measureAttacks(*attacks, ds, *budget, prog); err != nil {
			return fmt.Errorf("attacks: %w", err)
		}
		data = append(data, *attacks)
	}
	if sections["shapes"] {
		if asst == nil {
			if asst, err = loadAssistant(ds, *assistant); err != nil {
				return err
			}
		}
		if res.Shapes, err = measureShapes([]*dataset{ds, asst}, prog); err != nil {
			return fmt.Errorf("shapes: %w", err)
		}
	}
	if asst != nil && asst != ds {
		data = append(data, asst.Source)
	}
	if res.Speed != nil {
		res.Speed.Seconds = time.Since(start).Seconds()
	}
	if out.dir != "" {
		if err := out.finish(res, args, data); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
		fmt.Fprintf(stderr, "eval: wrote %s (%s verifies it: go run ./eval -verify %s)\n", out.dir, receiptName, out.dir)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return writeMarkdown(stdout, res)
}

func chooseSections(only string) (map[string]bool, error) {
	chosen := map[string]bool{}
	if only == "" {
		for _, s := range sectionNames {
			chosen[s] = s != "window" && s != "bill" // minutes of their own: run with -only
		}
		return chosen, nil
	}
	for _, s := range strings.Split(only, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(sectionNames, s) {
			return nil, fmt.Errorf("-only: unknown section %q (want some of %s)", s, strings.Join(sectionNames, ","))
		}
		chosen[s] = true
	}
	return chosen, nil
}

// findSynthetic locates the synthetic data from wherever in the module the
// program runs (go run ./eval from the root, go run . from eval/).
func findSynthetic() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("%w, so no %s; run inside the module or pass -locomo FILE", err, syntheticPath)
	}
	return filepath.Join(root, syntheticPath), nil
}

// moduleRoot is the nearest folder above the working directory that holds
// a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// results is everything one run measured; sections not run are nil.
type results struct {
	Data     dataInfo        `json:"data"`
	Budget   int             `json:"budget"`
	Recall   *recallResult   `json:"recall,omitempty"`
	Temporal *temporalResult `json:"temporal,omitempty"`
	Replay   *replayResult   `json:"replay,omitempty"`
	Live     *liveResult     `json:"live,omitempty"`
	LOCO     *locoResult     `json:"leave_one_out,omitempty"`
	Window   *windowResult   `json:"window,omitempty"`
	Bill     *billResult     `json:"bill,omitempty"`
	Policies *policyResult   `json:"policies,omitempty"`
	External *externalResult `json:"external,omitempty"`
	Speed    *speedResult    `json:"speed,omitempty"`
	// Multilingual measures retrieval in other languages on its own set.
	Multilingual *multilingualResult `json:"multilingual,omitempty"`
	// Attacks runs the attack suite, and benign tool use on the data.
	Attacks *attackResult `json:"attacks,omitempty"`
	// Shapes measures the run's data beside the assistant-shaped set.
	Shapes *shapesResult `json:"shapes,omitempty"`
	// Claims sets the reference's published numbers beside this run's.
	Claims []claim `json:"reference_claims,omitempty"`
}

// dataInfo says what was measured.
type dataInfo struct {
	Source        string   `json:"source"`
	Conversations int      `json:"conversations"`
	Turns         int      `json:"turns"`
	Questions     int      `json:"questions"`
	BadEvidence   []string `json:"skipped_evidence_ids"`
	NoEvidence    int      `json:"questions_without_evidence"`
}

// measure runs the chosen sections on ds; window and bill chain shapes.
func measure(ds *dataset, budget int, sections map[string]bool, shapes []shape, prog *progress) (*results, error) {
	res := &results{Budget: budget, Data: dataInfo{
		Source: ds.Source, Conversations: len(ds.Convs),
		BadEvidence: ds.BadEvidence, NoEvidence: ds.NoEvidence,
	}}
	for _, c := range ds.Convs {
		res.Data.Turns += len(c.Turns)
		res.Data.Questions += len(c.Questions)
	}
	lat := &latencies{}
	steps := []struct {
		section string
		run     func() error
	}{
		{"recall", func() (err error) {
			res.Recall, err = measureRecall(ds, budget, lat, prog)
			return err
		}},
		{"temporal", func() error {
			res.Temporal = measureTemporal(ds)
			return nil
		}},
		{"replay", func() (err error) {
			res.Replay, err = measureReplay(ds, budget, lat, prog)
			return err
		}},
		{"live", func() (err error) {
			res.Live, err = measureLive(ds, budget, lat, prog)
			return err
		}},
		{"loco", func() (err error) {
			res.LOCO, err = measureLOCO(ds, budget, lat, prog)
			return err
		}},
		{"window", func() (err error) {
			res.Window, err = measureWindow(shapes, lat, prog)
			return err
		}},
		{"bill", func() (err error) {
			res.Bill, err = measureBill(shapes, budget, lat, prog)
			return err
		}},
		{"policies", func() (err error) {
			res.Policies, err = measurePolicies(ds, budget, lat, prog)
			return err
		}},
		{"external", func() (err error) {
			res.External, err = measureExternal(ds, budget, lat, prog)
			return err
		}},
	}
	var times []sectionTime
	for _, step := range steps {
		if !sections[step.section] {
			continue
		}
		start := time.Now()
		if err := step.run(); err != nil {
			return nil, fmt.Errorf("%s: %w", step.section, err)
		}
		times = append(times, sectionTime{step.section, time.Since(start).Seconds()})
	}
	if sections["speed"] {
		res.Speed = &speedResult{
			Compose:  summarize(lat.composes),
			Append:   summarize(lat.appends),
			Growth:   growth(lat),
			Sections: times,
		}
	}
	res.Claims = claims(res)
	return res, nil
}

func measureRecall(ds *dataset, budget int, lat *latencies, prog *progress) (*recallResult, error) {
	n := len(recallMethods)
	runs := make([]recallTally, len(ds.Convs)*n)
	err := parallel(len(runs), lat, prog, "recall", func(j int, lat *latencies) (err error) {
		runs[j], err = recallConversation(ds.Convs[j/n], recallMethods[j%n], budget, lat)
		return err
	})
	if err != nil {
		return nil, err
	}
	sums := make([]recallTally, n)
	for j, t := range runs {
		sums[j%n].merge(t)
	}
	res := &recallResult{Budget: budget}
	for i, m := range recallMethods {
		res.Rows = append(res.Rows, sums[i].row(m.name))
	}
	total := 0
	for _, c := range ds.Convs {
		total += conversationChars(c)
	}
	res.FullHistoryChars = float64(total) / float64(len(ds.Convs))
	return res, nil
}

func measureReplay(ds *dataset, budget int, lat *latencies, prog *progress) (*replayResult, error) {
	n := len(replayMethods)
	runs := make([]replayTally, len(ds.Convs)*n)
	err := parallel(len(runs), lat, prog, "replay", func(j int, lat *latencies) (err error) {
		runs[j], err = replayConversation(ds.Convs[j/n], replayMethods[j%n], budget, lat)
		return err
	})
	if err != nil {
		return nil, err
	}
	sums := make([]replayTally, n)
	for j, t := range runs {
		sums[j%n].merge(t)
	}
	res := &replayResult{Budget: budget}
	for i, m := range replayMethods {
		res.Rows = append(res.Rows, sums[i].row(m))
		res.Along = append(res.Along, runs[i].along)
	}
	return res, nil
}

func measureExternal(ds *dataset, budget int, lat *latencies, prog *progress) (*externalResult, error) {
	kb, err := findKnowledge()
	if err != nil {
		return nil, fmt.Errorf("knowledge base: %w", err)
	}
	runs := make([]externalTally, len(ds.Convs))
	err = parallel(len(runs), lat, prog, "external", func(j int, lat *latencies) (err error) {
		runs[j], err = externalConversation(ds, ds.Convs[j], kb, budget, lat)
		return err
	})
	if err != nil {
		return nil, err
	}
	var sum externalTally
	for _, t := range runs {
		sum.merge(t)
	}
	res := sum.result()
	res.Margins = leaveOneOut(runs)
	return res, nil
}

// parallel runs job(i) for every i in [0, n) on one goroutine per CPU. Each
// job gets latencies of its own, merged into lat in index order afterwards,
// so no lock sits inside a timed call and no result depends on scheduling.
func parallel(n int, lat *latencies, prog *progress, section string, job func(i int, lat *latencies) error) error {
	lats := make([]latencies, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	prog.start(section, n)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = job(i, &lats[i])
				prog.done()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i := range lats {
		lat.merge(&lats[i])
	}
	return errors.Join(errs...)
}
