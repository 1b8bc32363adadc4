package main

import (
	"fmt"
	"strings"

	"github.com/byheart/byheart"
)

// Leave one conversation out: the way the benchmark chooses rule 3's one
// constant, Stability, the share of a query's weight beyond what any
// stretch matches by chance that a stretch must match to be recalled past
// a kept context. On the live chat with questions, for each conversation
// in turn, the setting of the grid with the best recall on the other
// conversations, among those whose bill stays within locoBill of plain
// RAG's there, is chosen, and measured on the one left out. The spread of what is chosen and of what it gives on the held-out
// conversation says how far the choice generalises.

// locoGrid is the Stability values the choice is made among, a step of
// 0.0125: at 0.025 the bill the choice may spend fell between two steps
// (0.27x and 0.31x of plain RAG's at 0.15 and 0.125), leaving recall the
// bill had paid for unbought.
var locoGrid = []float64{0.05, 0.0625, 0.075, 0.0875, 0.1, 0.1125, 0.125, 0.1375, 0.15, 0.1625, 0.175, 0.1875, 0.2, 0.2125, 0.225, 0.2375,
	0.25, 0.2625, 0.275, 0.2875, 0.3, 0.3125, 0.325, 0.3375, 0.35, 0.3625, 0.375, 0.3875, 0.4}

// locoBill is the most of plain RAG's effective tokens per call a chosen
// setting may cost.
const locoBill = 0.30

// locoRow is one held-out conversation.
type locoRow struct {
	HeldOut   string  `json:"held_out"`
	Chosen    float64 `json:"chosen_stability"`
	Recall14  float64 `json:"recall_1_4"`
	MultiHop  float64 `json:"multi_hop"`
	BillRatio float64 `json:"bill_vs_plain_rag"`
	// TrainRecall is the chosen setting's recall on the other conversations.
	TrainRecall float64 `json:"train_recall_1_4"`
}

// locoPoint is one grid setting over every conversation.
type locoPoint struct {
	Stability float64 `json:"stability"`
	Recall14  float64 `json:"recall_1_4"`
	BillRatio float64 `json:"bill_vs_plain_rag"`
}

// locoResult is the leave-one-out section.
type locoResult struct {
	Budget int         `json:"budget"`
	Rows   []locoRow   `json:"rows"`
	Grid   []locoPoint `json:"grid"`
}

func measureLOCO(ds *dataset, budget int, lat *latencies, prog *progress) (*locoResult, error) {
	n := len(locoGrid) + 1 // the grid, then plain RAG
	bills := make([]replayTally, len(ds.Convs)*n)
	recalls := make([]recallTally, len(ds.Convs)*n)
	err := parallel(len(bills), lat, prog, "loco", func(j int, lat *latencies) (err error) {
		conv, g := ds.Convs[j/n], j%n
		m := plainRAG
		if g < len(locoGrid) {
			s := locoGrid[g]
			m = method{name: fmt.Sprint(s), selects: true, make: func(budget int, lat *latencies) composer {
				return newByheart(byheart.Options{Budget: budget, Stability: s}, lat)
			}}
		}
		bills[j], recalls[j], err = liveConversation(conv, m, budget, lat, schedule(conv))
		return err
	})
	if err != nil {
		return nil, err
	}
	// pooled sums setting g's tallies over the conversations keep says.
	pooled := func(g int, keep func(c int) bool) (recallRow, float64) {
		var r recallTally
		var b, rag replayTally
		for c := range ds.Convs {
			if keep(c) {
				r.merge(recalls[c*n+g])
				b.merge(bills[c*n+g])
				rag.merge(bills[c*n+n-1])
			}
		}
		return r.row(""), ratio(b.effective, 1) / rag.effective
	}
	res := &locoResult{Budget: budget}
	for g, s := range locoGrid {
		row, bill := pooled(g, func(int) bool { return true })
		res.Grid = append(res.Grid, locoPoint{s, row.Recall14, bill})
	}
	for out, conv := range ds.Convs {
		train := func(c int) bool { return c != out }
		best, bestRecall, cheapest, cheapestBill := -1, 0.0, 0, 0.0
		for g := range locoGrid {
			row, bill := pooled(g, train)
			if g == 0 || bill < cheapestBill {
				cheapest, cheapestBill = g, bill
			}
			if bill <= locoBill && row.Recall14 > bestRecall {
				best, bestRecall = g, row.Recall14
			}
		}
		if best < 0 {
			best = cheapest // nothing fits the bill: the cheapest setting
		}
		trainRow, _ := pooled(best, train)
		row, bill := pooled(best, func(c int) bool { return c == out })
		res.Rows = append(res.Rows, locoRow{HeldOut: conv.ID, Chosen: locoGrid[best], Recall14: row.Recall14,
			MultiHop: row.Categories[0].Recall, BillRatio: bill, TrainRecall: trainRow.Recall14})
	}
	return res, nil
}

func writeLOCO(b *strings.Builder, r *locoResult) {
	fmt.Fprintf(b, "\n## Leave one conversation out: choosing Stability at %s characters\n\n", thousands(float64(r.Budget)))
	fmt.Fprintf(b, "On the live chat with questions, for each conversation, the Stability of %v with the best recall (categories 1–4) on the other conversations among those costing at most %.2f× plain RAG's effective tokens per call there, measured on the one left out.\n\n", locoGrid, locoBill)
	b.WriteString("| held out | chosen Stability | recall 1–4 on the other conversations | recall 1–4 held out | multi-hop held out | × plain RAG held out |\n|---|---:|---:|---:|---:|---:|\n")
	lo, hi := 1.0, 0.0
	for _, row := range r.Rows {
		fmt.Fprintf(b, "| %s | %g | %.3f | %.3f | %.3f | %.2f |\n", row.HeldOut, row.Chosen, row.TrainRecall, row.Recall14, row.MultiHop, row.BillRatio)
		lo, hi = min(lo, row.Recall14), max(hi, row.Recall14)
	}
	fmt.Fprintf(b, "\nHeld-out recall spreads from %.3f to %.3f.\n\n", lo, hi)
	b.WriteString("Every setting of the grid over all conversations:\n\n| Stability | recall 1–4 | × plain RAG |\n|---:|---:|---:|\n")
	for _, p := range r.Grid {
		fmt.Fprintf(b, "| %g | %.3f | %.2f |\n", p.Stability, p.Recall14, p.BillRatio)
	}
}
