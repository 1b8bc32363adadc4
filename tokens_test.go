package byheart

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// refCount is one text with its token counts by the real tokenizers, as
// scripts/tokenref.js writes them.
type refCount struct {
	Set    string `json:"set"`
	Text   string `json:"text"`
	O200k  int    `json:"o200k"`
	Cl100k int    `json:"cl100k"`
}

// estimateError sums up how an estimate compares with real counts.
type estimateError struct {
	n                  int
	meanRel, worstOver float64
	worstUnder, under  float64
	total              float64 // estimated tokens / real tokens, over all texts
}

func compareCounts(refs []refCount, real func(refCount) int, est func(string) int) estimateError {
	var e estimateError
	var sumEst, sumReal float64
	for _, r := range refs {
		want := real(r)
		if want == 0 {
			continue
		}
		got := est(r.Text)
		rel := float64(got-want) / float64(want)
		e.n++
		e.meanRel += math.Abs(rel)
		e.worstOver = max(e.worstOver, rel)
		e.worstUnder = min(e.worstUnder, rel)
		if got < want {
			e.under++
		}
		sumEst += float64(got)
		sumReal += float64(want)
	}
	if e.n > 0 {
		e.meanRel /= float64(e.n)
		e.under /= float64(e.n)
		e.total = sumEst / sumReal
	}
	return e
}

// TestApproxTokensAgainstTokenizers reports how far ApproxTokens is from the
// real OpenAI tokenizers on the texts of BYHEART_TOKENREF, a file that
// scripts/tokenref.js writes (it needs node and the js-tiktoken package,
// which carries its vocabularies, so it runs offline). It skips without one.
func TestApproxTokensAgainstTokenizers(t *testing.T) {
	path := os.Getenv("BYHEART_TOKENREF")
	if path == "" {
		t.Skip("BYHEART_TOKENREF is not set")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sets := map[string][]refCount{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r refCount
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		sets[r.Set] = append(sets[r.Set], r)
		sets["all"] = append(sets["all"], r)
	}
	names := make([]string, 0, len(sets))
	for k := range sets {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, fam := range []struct {
		tk   Tokenizer
		real func(refCount) int
	}{{O200k, func(r refCount) int { return r.O200k }}, {Cl100k, func(r refCount) int { return r.Cl100k }}} {
		for _, name := range names {
			e := compareCounts(sets[name], fam.real, ApproxTokens(fam.tk))
			t.Logf("%-7s %-8s n=%5d  mean |err| %5.1f%%  worst over %+6.1f%%  worst under %+6.1f%%  under-counted %5.1f%% of texts  total %.3f×",
				fam.tk, name, e.n, 100*e.meanRel, 100*e.worstOver, 100*e.worstUnder, 100*e.under, e.total)
		}
	}
}

// TestApproxTokens pins the estimate for texts whose real counts are known.
func TestApproxTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fam  Tokenizer
		text string
		want int
	}{
		{"no text is no token", O200k, "", 0},
		{"a word is a token and a little, rounded up", O200k, "hello", 2},
		{"words and a comma cost a token each, as o200k counts them", O200k, "Hello Yuki, how have you been?", 9},
		{"digits go in threes", O200k, "1234567", 3},
		{"Gemini counts every digit", Gemini, "1234567", 8},
		{"a Han character is about a token, as cl100k counts them", Cl100k, "東京都", 4},
		{"Claude counts a fifth more than cl100k", Claude, strings.Repeat("word ", 100), 160},
		{"cl100k for the same", Cl100k, strings.Repeat("word ", 100), 130},
		{"an unknown family counts as Claude", Tokenizer(200), strings.Repeat("word ", 100), 160},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ApproxTokens(tc.fam)(tc.text))
		})
	}
	require.Equal(t, "o200k", O200k.String())
	require.Equal(t, "Tokenizer(9)", Tokenizer(9).String())
}
