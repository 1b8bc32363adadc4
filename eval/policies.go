package main

import (
	"fmt"
	"strings"

	"github.com/byheart/byheart"
)

// policies are settings of byheart's rule 3 side by side: what each gives a
// model on questions asked in order (evidence recall) against what it costs
// on the live replay, so a reader sees why the default sits where it does.
var policies = []struct {
	name  string
	short string // the picture's legend
	color string
	opts  byheart.Options
}{
	{"fresh every query (Stability -1)", "fresh", methodColors[byheartFresh.name], byheart.Options{Stability: -1}},
	{"keep or rebuild (Stability 0.45, Recall -1: before logs)", "keep or rebuild", "#8e44ad", byheart.Options{Stability: 0.45, Recall: -1}},
	{"log, Stability 0.1", "Stability 0.1", "#6fa8dc", byheart.Options{Stability: 0.1}},
	{fmt.Sprintf("log, Stability %g (default)", byheart.DefaultStability), fmt.Sprintf("default (%g)", byheart.DefaultStability), methodColors[byheartDefault.name], byheart.Options{}},
	{"log, Stability 0.3", "Stability 0.3", "#0b2f6b", byheart.Options{Stability: 0.3}},
}

// policyRow is one setting's recall and bill.
type policyRow struct {
	Policy          string  `json:"policy"`
	Recall14        float64 `json:"recall_1_4"`
	EffectiveTokens float64 `json:"effective_tokens_per_call"`
	WarmHitRate     float64 `json:"warm_cache_hit_rate"`
	Rebuilds        int     `json:"rebuilds"`
	Calls           int     `json:"calls"`
	Overruns        int     `json:"over_budget"`
}

// policyResult is the policies section.
type policyResult struct {
	Budget int         `json:"budget"`
	Rows   []policyRow `json:"rows"`
}

func measurePolicies(ds *dataset, budget int, lat *latencies, prog *progress) (*policyResult, error) {
	n := len(policies)
	recalls := make([]recallTally, len(ds.Convs)*n)
	replays := make([]replayTally, len(ds.Convs)*n)
	err := parallel(len(recalls), lat, prog, "policies", func(j int, lat *latencies) (err error) {
		p := policies[j%n]
		m := method{name: p.name, selects: true, make: func(budget int, lat *latencies) composer {
			o := p.opts
			o.Budget = budget
			return newByheart(o, lat)
		}}
		if recalls[j], err = recallConversation(ds.Convs[j/n], m, budget, lat); err != nil {
			return err
		}
		replays[j], err = replayConversation(ds.Convs[j/n], m, budget, lat)
		return err
	})
	if err != nil {
		return nil, err
	}
	rc, rp := make([]recallTally, n), make([]replayTally, n)
	for j := range recalls {
		rc[j%n].merge(recalls[j])
		rp[j%n].merge(replays[j])
	}
	res := &policyResult{Budget: budget}
	for i, p := range policies {
		rec := rc[i].row(p.name)
		rep := rp[i].row(method{name: p.name, selects: true})
		res.Rows = append(res.Rows, policyRow{
			Policy: p.name, Recall14: rec.Recall14,
			EffectiveTokens: rep.EffectiveTokens, WarmHitRate: rep.WarmHitRate,
			Rebuilds: *rep.Rebuilds, Calls: rep.Calls, Overruns: rec.Overruns + rep.Overruns,
		})
	}
	return res, nil
}

func writePolicies(b *strings.Builder, r *policyResult) {
	fmt.Fprintf(b, "\n## Rule 3 settings: recall against cost at %s characters\n\n", thousands(float64(r.Budget)))
	b.WriteString("Evidence recall (categories 1–4) with the questions asked in order on one memory, beside the live replay's bill for the same setting.\n\n")
	b.WriteString("| setting | recall 1–4 | effective tokens per call | warm-call cache hits | rebuilds | over budget |\n|---|---:|---:|---:|---:|---:|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(b, "| %s | %.3f | %s | %.1f%% | %s of %s | %d |\n", row.Policy, row.Recall14,
			thousands(row.EffectiveTokens), 100*row.WarmHitRate, thousands(float64(row.Rebuilds)), thousands(float64(row.Calls)), row.Overruns)
	}
}
