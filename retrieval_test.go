package byheart

import (
	"fmt"
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
