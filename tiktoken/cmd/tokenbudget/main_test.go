package main

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const synthetic = "../../../testdata/synthetic.json"

// TestAnExactBudgetFillsWhatTheEstimateLeaves runs two setups on one
// synthetic conversation's worth of data at a small budget: the exact
// measure never passes the budget and fills more of it than the estimate,
// which leans towards counting too many.
func TestAnExactBudgetFillsWhatTheEstimateLeaves(t *testing.T) {
	if _, err := os.Stat(synthetic); err != nil {
		// A module fetched on its own (as the consumer build gets it)
		// comes without the repository's data.
		t.Skipf("the repository's synthetic set is not here: %v", err)
	}
	var out bytes.Buffer
	require.NoError(t, run([]string{"-tokens", "1000", "-data", synthetic}, &out, &bytes.Buffer{}))
	rows := map[string][]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) == 9 && cells[0] == "1000" {
			rows[cells[1]] = cells
		}
	}
	require.Len(t, rows, 4, out.String())
	fill := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		require.NoError(t, err)
		return v
	}
	for _, fam := range []string{"o200k", "cl100k"} {
		exact, approx := rows[fam+" (exact)"], rows["approx "+fam]
		assert.Equal(t, "0", exact[8], "%s: an exact budget is never passed", fam)
		assert.LessOrEqual(t, fill(exact[7]), 100.0, fam)
		assert.Greater(t, fill(exact[7]), fill(approx[7]), "%s: the exact measure fills more of the budget", fam)
		assert.Greater(t, fill(exact[7]), 90.0, fam)
	}
	assert.Regexp(t, regexp.MustCompile(`\| 1000 \| o200k \(exact\) \| 0\.\d{3} \| 0\.\d{3} \|`), out.String())
}

func TestBadFlagsAreRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-measure", "words"},
		{"-family", "cl100k"},
		{"-measure", "approx", "-family", "p50k"},
		{"-tokens", "-5"},
		{"-data", "no-such-file.json"},
		{"stray"},
	} {
		assert.Error(t, run(args, &bytes.Buffer{}, &bytes.Buffer{}), "%q", args)
	}
}
