package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tinyPath(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "tiny.json")
	require.NoError(t, os.WriteFile(path, []byte(tinyFile), 0o644))
	return path
}

func TestRunPrintsEverySectionAsMarkdown(t *testing.T) {
	var out, errs bytes.Buffer
	tiny := tinyPath(t)
	require.NoError(t, run([]string{"-locomo", tiny, "-assistant", tiny, "-budget", "50"}, &out, &errs))
	for _, heading := range []string{
		"## Evidence recall at 50 characters", "## Temporal", "## Live replay at 50 characters",
		"## External admission", "### Rule 4 end to end", "## Speed", "## Languages: evidence recall beside the English twin",
		"## Two shapes of conversation", "## The reference's published claims (theirs)",
	} {
		assert.Contains(t, out.String(), heading)
	}
	assert.Contains(t, out.String(), `1 evidence ids that name no turn (s-1 qa[2] "D9:9")`)
	assert.NotContains(t, errs.String(), "eval: recall", "no progress when stderr is no terminal and -progress is not given")
	assert.NotContains(t, out.String(), "eval: recall")
}

// TestProgressShowsOneLineASectionWhoseCountsStayWithinTotals runs every
// section with -progress (stderr is a buffer, no terminal) and reads its
// lines: one a section, each with all its runs done, none past its total.
func TestProgressShowsOneLineASectionWhoseCountsStayWithinTotals(t *testing.T) {
	var errs bytes.Buffer
	tiny := tinyPath(t)
	require.NoError(t, run([]string{"-locomo", tiny, "-assistant", tiny, "-budget", "50", "-svg", t.TempDir(), "-progress"}, io.Discard, &errs))
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(errs.String()), "\n") {
		if strings.HasPrefix(line, "eval: wrote ") {
			continue
		}
		m := progressLine.FindStringSubmatch(line)
		require.NotNil(t, m, "%q is no progress line", line)
		assert.False(t, seen[m[1]], "section %s has a second line", m[1])
		seen[m[1]] = true
		assert.Equal(t, m[2], m[3], "%s ended with runs left: %q", m[1], line)
	}
	for _, section := range []string{"recall", "replay", "policies", "external", "pictures", "multilingual", "attacks", "shapes"} {
		assert.True(t, seen[section], "no line for %s in\n%s", section, errs.String())
	}
}

// TestLiveProgressRewritesOneLine draws the lines a terminal would show:
// each section's frames rewrite one line, and no count passes its total,
// though the section's runs are started in several batches.
func TestLiveProgressRewritesOneLine(t *testing.T) {
	var w bytes.Buffer
	p := &progress{w: &w, live: true}
	for _, batch := range []int{3, 5} {
		p.start("attacks, quote, arm", batch)
		for range batch {
			time.Sleep(time.Millisecond)
			p.done()
		}
	}
	p.start("replay", 2)
	p.done()
	p.done()
	p.end()
	lines := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
	require.Len(t, lines, 2, "one line a section: %q", w.String())
	for _, line := range lines {
		frames := strings.Split(strings.TrimPrefix(line, "\r"), "\r")
		for _, f := range frames {
			m := progressLine.FindStringSubmatch(strings.TrimRight(f, " "))
			require.NotNil(t, m, "%q", f)
			done, _ := strconv.Atoi(m[2])
			total, _ := strconv.Atoi(m[3])
			assert.LessOrEqual(t, done, total, "%q", f)
		}
		last := progressLine.FindStringSubmatch(strings.TrimRight(frames[len(frames)-1], " "))
		assert.Equal(t, last[2], last[3], "the last frame shows the section done: %q", line)
	}
	assert.Contains(t, lines[0], "eval: attacks")
	assert.Contains(t, lines[0], "8/8 runs")
}

var progressLine = regexp.MustCompile(`^eval: (\S+) +\[[#.]+\] (\d+)/(\d+) runs, [0-9.]+s( \(.*\))?$`)

func TestRunJSONHoldsOnlyTheChosenSections(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"-locomo", tinyPath(t), "-json", "-only", "recall, temporal"}, &out, &bytes.Buffer{}))
	var got map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Contains(t, got, "recall")
	assert.Contains(t, got, "temporal")
	assert.NotContains(t, got, "replay")
	assert.NotContains(t, got, "external")
	assert.NotContains(t, got, "speed")
	assert.EqualValues(t, 20000, got["budget"])
	data := got["data"].(map[string]any)
	assert.EqualValues(t, 2, data["conversations"])
	assert.EqualValues(t, 5, data["turns"])
}

func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-only", "recall,bogus"},
		{"-budget", "0"},
		{"-budget", "many"},
		{"stray"},
		{"-locomo", "no-such-file.json"},
	} {
		assert.Error(t, run(args, &bytes.Buffer{}, &bytes.Buffer{}), "%q", args)
	}
}
