package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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
	require.NoError(t, run([]string{"-locomo", tinyPath(t), "-budget", "50"}, &out, &errs))
	for _, heading := range []string{
		"## Evidence recall at 50 characters", "## Temporal", "## Live replay at 50 characters",
		"## External admission", "### Rule 4 end to end", "## Speed", "## Languages: evidence recall beside the English twin",
		"## The reference's published claims (theirs)",
	} {
		assert.Contains(t, out.String(), heading)
	}
	assert.Contains(t, out.String(), `1 evidence ids that name no turn (s-1 qa[2] "D9:9")`)
	assert.Contains(t, errs.String(), "eval: recall", "progress goes to stderr")
	assert.NotContains(t, out.String(), "eval: recall")
}

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
