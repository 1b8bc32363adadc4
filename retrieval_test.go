package byheart

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ── the stemmer and Terms ────────────────────────────────────────────

func TestStemMergesWordForms(t *testing.T) {
	groups := [][]string{
		{"moving", "movers", "moved", "move", "mover", "moves"},
		{"houses", "house"},
		{"quickly", "quick"},
		{"parties", "party"},
		{"running", "runs", "run"},
		{"dresses", "dress"},
		{"watches", "watch", "watched", "watching"},
	}
	for _, g := range groups {
		want := Terms(g[0])
		require.Len(t, want, 1, g[0])
		for _, w := range g[1:] {
			assert.Equal(t, want, Terms(w), "%q and %q must share a stem", g[0], w)
		}
	}
	assert.Equal(t, []string{"quick"}, Terms("quickly"))
}

func TestStemLeavesShortWordsNumbersAndNonASCIIAlone(t *testing.T) {
	for _, w := range []string{"was", "bus", "gas", "is", "2031", "55", "covid19", "café", "naïve", "straße"} {
		assert.Equal(t, w, string(stem([]byte(w))), "%q must not be cut", w)
	}
	assert.Equal(t, []string{"bus"}, Terms("bus"))
	assert.Equal(t, []string{"2031"}, Terms("2031"))
	assert.NotEqual(t, Terms("bus"), Terms("bu"))
}

func TestTermsLowercasesDropsStopWordsAndSplitsUnspacedScripts(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"The Movers ARRIVED on Tuesday", []string{"mov", "arriv", "tuesday"}},
		{"Ada's dog", Terms("Ada dog")},
		{"Ada’s dog", Terms("Ada dog")},
		{"I don't know, we didn’t go", []string{"know", "go"}},
		{"a 5 b x 2031", []string{"5", "2031"}},
		{"東京に行く", []string{"東", "京", "に", "行", "く"}},
		{"Москва, ПАМЯТЬ", []string{"москва", "память"}},
		{"what was it that you said?", nil},
		{"", nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Terms(c.text), "Terms(%q)", c.text)
	}
}

func TestStemmingChangesWhatMatches(t *testing.T) {
	// Room for the block's framing, one two-turn stretch and the last two
	// turns.
	m := New(Options{Budget: 550, Stability: -1})
	mustAppend(t, m, User, "the movers arrived on Tuesday with all the boxes")
	mustAppend(t, m, Assistant, "good, the boxes are heavy")
	for i := 0; i < 16; i++ {
		mustAppend(t, m, roleOf(i), fmt.Sprintf("weather report %d: rain, wind and a cold front", i))
	}
	setBounds(m, []int{0, 2, 4, 6, 8, 10, 12, 14, 16})
	require.NotContains(t, contextOf(compose(t, m, "unrelated")), "movers",
		"the oldest stretch must not come in unless the query matches it")

	r := compose(t, m, "when was the moving day?")
	assert.Contains(t, r.Included, 0, "\"moving\" must find \"movers\"")
	assert.Contains(t, contextOf(r), "the movers arrived")
}

// ── the index and its encoding cache ─────────────────────────────────

func TestRetrieverSeesEachStretchsCurrentText(t *testing.T) {
	var docs []Document
	ret := RetrieverFunc(func(_ context.Context, q string, d []Document) ([]float64, error) {
		docs = d
		out := make([]float64, len(d))
		for i, doc := range d {
			out[i] = float64(strings.Count(doc.Text, q))
		}
		return out, nil
	})
	checked := 0
	for _, hook := range []func([]Turn) []int{nil, func(tail []Turn) []int { return []int{len(tail) / 2} }} {
		m := New(Options{Budget: 150, Chunk: 120, Retriever: ret, Boundaries: hook})
		for i := 0; i < 40; i++ {
			mustAppend(t, m, roleOf(i), topicTurn([]string{"garden", "music"}[i%2], i))
			if i%3 != 0 {
				continue
			}
			docs = nil
			compose(t, m, "compost")
			if docs == nil {
				continue // below the budget: nothing to rank
			}
			checked++
			bounds := m.Bounds()
			require.Len(t, docs, len(bounds))
			for s, a := range bounds {
				b := m.Len()
				if s+1 < len(bounds) {
					b = bounds[s+1]
				}
				var lines []string
				for k := a; k < b; k++ {
					tu, err := m.Turn(k)
					require.NoError(t, err)
					lines = append(lines, tu.Text)
				}
				require.Equal(t, strings.Join(lines, "\n"), docs[s].Text,
					"after turn %d the retriever was shown stretch %d (turns %d-%d) with another text", i, s, a, b-1)
			}
		}
	}
	assert.Greater(t, checked, 20)
}
