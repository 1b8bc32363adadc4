package byheart

// Retrieval: the pruned top-k search and the spread selection against
// exhaustive scoring, and evidence found across inflections, scripts and
// compounds. The recall floors that pin retrieval on LoCoMo and the
// synthetic set are the benchmark's guards (eval/eval_test.go), and the
// compositions they rest on are pinned byte for byte by
// compose_golden_test.go.

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRankingMatchesExhaustive(t *testing.T) {
	t.Parallel()
	// The defaults; then every query searched, as a long conversation's
	// are; then searches so shallow that fills go deeper, score stretches
	// one by one and fall back to scoring every posting.
	d := defaults
	depths := [][3]int{{d.firstK, d.maxK, d.smallQuery}, {d.firstK, d.maxK, 0}, {1, 4, 0}, {2, 1 << 30, 0}}
	eachRankShape(t, func(t *testing.T, m *Memory) {
		for _, depth := range depths {
			t.Run(fmt.Sprintf("k=%d-%d-%d", depth[0], depth[1], depth[2]), func(t *testing.T) {
				m.tune.firstK, m.tune.maxK, m.tune.smallQuery = depth[0], depth[1], depth[2]
				testRanking(t, m)
			})
		}
	})
}

// TestBestSpreadIsTopK checks the ranking's pruned search by full scores
// (own plus the neighbour share) against a sort of every stretch, at depths
// from one to past the number of stretches. TestIndexBestIsTopK in
// bm25_test.go does the same for the index's search by own scores.
func TestBestSpreadIsTopK(t *testing.T) {
	t.Parallel()
	eachRankShape(t, func(t *testing.T, m *Memory) {
		for _, query := range rankQueries(m, 3) {
			testBest(t, m, query, exhaustive(m, query), func(lim, room, k int) ([]hit, bool) {
				rk := bm25Ranker{}.ranking(&m.state, query)
				return rk.bestSpread(lim, room, k, nil)
			})
		}
	})
}

// TestBestScoredIsTopK is TestBestSpreadIsTopK once every posting of the
// query is scored, when the best stretches are read from the scores
// (bestScored) rather than searched for, in rooms that most stretches fit
// and in rooms that few do, and read from the stretches that fit
// (bestFitting) in every room.
func TestBestScoredIsTopK(t *testing.T) {
	t.Parallel()
	eachRankShape(t, func(t *testing.T, m *Memory) {
		for _, query := range rankQueries(m, 3) {
			want := exhaustive(m, query)
			testBest(t, m, query, want, func(lim, room, k int) ([]hit, bool) {
				rk := bm25Ranker{}.ranking(&m.state, query)
				m.ix.scoreAll(rk.q)
				return rk.bestSpread(lim, room, k, nil)
			})
			testBest(t, m, query, want, func(lim, room, k int) ([]hit, bool) {
				rk := bm25Ranker{}.ranking(&m.state, query)
				m.ix.scoreAll(rk.q)
				return rk.bestFitting(lim, room, k, nil)
			})
		}
	})
}

// TestBestSpreadAnswersAgainAsItWouldSearch asks one ranking for the best
// stretches again and again, in rooms and depths a composition's fills
// ask for in turn, so that answers given again from the last one are
// checked against a sort of every stretch like searched ones.
func TestBestSpreadAnswersAgainAsItWouldSearch(t *testing.T) {
	t.Parallel()
	eachRankShape(t, func(t *testing.T, m *Memory) {
		r := rand.New(rand.NewPCG(3, uint64(len(m.str))))
		for _, query := range rankQueries(m, 3) {
			want := exhaustive(m, query)
			rk := bm25Ranker{}.ranking(&m.state, query)
			for range 40 {
				lim := len(m.str) - 1 - r.IntN(2)
				room := []int{1 << 30, 20000, 8000, 1100, 400, 100}[r.IntN(6)]
				k := []int{1, 3, 12, 48}[r.IntN(4)]
				var all []hit
				for s := 0; s < lim; s++ {
					if want[s] > 0 && m.str[s].size <= room {
						all = append(all, hit{s, want[s]})
					}
				}
				sortHits(all)
				got, complete := rk.bestSpread(lim, room, k, nil)
				require.Equal(t, fmt.Sprint(all[:min(k, len(all))]), fmt.Sprint(got), "query %q lim %d room %d k %d", query, lim, room, k)
				if complete {
					require.LessOrEqual(t, len(all), k, "complete, with more than k %d", k)
				} else if len(all) < k {
					t.Fatalf("fewer than k %d found, so all were", k)
				}
			}
		}
	})
}

// TestIndexBestIsTopK checks the index's pruned search by own scores
// against a sort of every stretch, at depths from one to past the number of
// stretches, on the memories of selection_test.go's rankShapes.
func TestIndexBestIsTopK(t *testing.T) {
	t.Parallel()
	eachRankShape(t, func(t *testing.T, m *Memory) {
		for _, query := range rankQueries(m, 3) {
			testBest(t, m, query, exhaustiveOwn(m, query), func(lim, room, k int) ([]hit, bool) {
				fits := func(u int32) bool { return int(u) < lim && m.str[u].size <= room }
				return m.ix.best(m.ix.prepare(query), k, 1, fits, nil)
			})
		}
	})
}

func TestComposeFindsTheEvidenceInAnotherInflectionOrScript(t *testing.T) {
	cases := []struct {
		name, evidence, filler, other, query, want string
	}{
		{"Russian case", "Бабушка оставила мне тетрадь с рецептами.", "Сегодня снова идёт дождь, номер %d.",
			"дождь", "Что в тетради бабушки?", "тетрадь с рецептами"},
		{"German plural and umlaut", "Die Schnecken haben alle Tomaten gefressen.", "Heute regnet es wieder, Nummer %d.",
			"regnet", "Was ist mit der Tomate passiert?", "alle Tomaten"},
		{"Spanish verb and accent", "Ayer perdí la llave del coche en el parque.", "Hoy llueve otra vez, número %d.",
			"llueve", "¿Dónde perdiste las llaves?", "llave del coche"},
		{"a terse query", "Ayer perdí la llave del coche en el parque.", "Hoy llueve otra vez, número %d.",
			"llueve", "llaves coche", "llave del coche"},
		{"Chinese pair", "我在北京找到了一家很好的餐厅。", "今天又下雨了，天气预报说明天也会一直下雨，第%d次。",
			"天气预报", "北京的餐厅叫什么？", "北京"},
		{"German compound in the question", "Gestern war ich beim Arzt, meine Zähne tun weh.", "Heute regnet es wieder, Nummer %d.",
			"regnet", "Was hat der Zahnarzt gesagt?", "beim Arzt"},
		{"German compound with a linking s", "Der Kuchen zu meinem Geburtstag war riesig.", "Heute regnet es wieder, Nummer %d.",
			"regnet", "Wer hat den Geburtstagskuchen gebacken?", "Der Kuchen"},
		{"German compound in the turn, its head in the question", "Gestern war ich beim Zahnarzt, es tat weh.",
			"Heute regnet es wieder, Nummer %d.", "regnet", "Was hat der Arzt gesagt?", "beim Zahnarzt"},
		{"German compound in the turn, its head alone as the question", "Gestern war ich beim Zahnarzt, es tat weh.",
			"Heute regnet es wieder, Nummer %d.", "regnet", "Arzt?", "beim Zahnarzt"},
		{"German compound in the turn, its modifier in the question", "Meine neue Zahnbürste ist elektrisch.",
			"Heute regnet es wieder, Nummer %d.", "regnet", "Was ist mit meinen Zähnen?", "Zahnbürste"},
		{"German compounds sharing a modifier", "Mein Großvater hat mir das Schachspielen beigebracht.",
			"Heute regnet es wieder, Nummer %d.", "regnet", "Was weißt du über meine Großeltern?", "Mein Großvater"},
		{"Japanese verb forms", "昨日、駅前の電気屋で新しいカメラを買った。軽くて旅行にぴったり。", "今日もまた雨が降っている、天気予報では明日もずっと雨らしい、%d回目。",
			"天気予報", "カメラを買いましたか？", "カメラ"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New(Options{Budget: 400, Stability: -1})
			mustAppend(t, m, User, c.evidence)
			mustAppend(t, m, Assistant, "OK.")
			for i := range 16 {
				mustAppend(t, m, roleOf(i), fmt.Sprintf(c.filler, i))
			}
			setBounds(m, []int{0, 2, 4, 6, 8, 10, 12, 14, 16})
			require.NotContains(t, contextOf(compose(t, m, c.other)), c.want,
				"the oldest stretch must not come in for a query about the rest")
			assert.Contains(t, contextOf(compose(t, m, c.query)), c.want)
		})
	}
}
