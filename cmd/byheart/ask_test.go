package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const question = "What did Ana name the beagle she adopted?"

// composed is what the library itself composes for question on the chat
// file with opts: what ask has to report.
func composed(t *testing.T, opts byheart.Options) byheart.Result {
	t.Helper()
	conv, err := read(chatFile)
	require.NoError(t, err)
	m, err := conv.memory(chatFile, opts)
	require.NoError(t, err)
	r, err := m.Compose(context.Background(), question)
	require.NoError(t, err)
	return r
}

func askOutput(t *testing.T, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(append([]string{"ask"}, args...), &out, &errs)
	require.Equal(t, 0, code, errs.String())
	return out.String()
}

var (
	partRow    = regexp.MustCompile(`(?m)^\s+(\d+)  (user|assistant)\s+([\d,]+)\s+([\d,]+)  .*$`)
	stretchRow = regexp.MustCompile(`(?m)^\s+(\d+)  (\d+)–(\d+)\s+([\d,]+)  .*?(\d+\.\d\d)  (.*)$`)
)

func TestAskListsEveryPartWithItsSizeAndTheBreakpoint(t *testing.T) {
	opts := byheart.Options{Budget: 900, Chunk: 300, Stability: -1}
	r := composed(t, opts)
	out := askOutput(t, "-budget", "900", "-chunk", "300", "-stability", "-1", chatFile, question)

	parts := flatten(r)
	rows := partRow.FindAllStringSubmatch(out, -1)
	require.Len(t, rows, len(parts), out)
	for i, row := range rows {
		assert.Equal(t, strconv.Itoa(i), row[1])
		assert.Equal(t, string(parts[i].role), row[2])
		assert.Equal(t, thousands(len([]rune(parts[i].text))), row[3], "part %d characters", i)
	}
	require.GreaterOrEqual(t, r.StableUpto, 0)
	assert.Contains(t, rows[r.StableUpto][0], "← cache breakpoint")
	assert.Contains(t, rows[len(rows)-1][0], "← the question")
	assert.Contains(t, out, "Rebuilt for this call: yes")
}

func TestAskListsTheStretchesThatReachedTheContext(t *testing.T) {
	r := composed(t, byheart.Options{Budget: 900, Chunk: 300, Stability: -1})
	out := askOutput(t, "-budget", "900", "-chunk", "300", "-stability", "-1", chatFile, question)
	rows := stretchRow.FindAllStringSubmatch(out, -1)
	require.Len(t, rows, len(r.Included), out)
	best, bestScore := "", -1.0
	for i, row := range rows {
		assert.Equal(t, strconv.Itoa(r.Included[i]), row[2], "stretches in time order, by their first turn")
		score, err := strconv.ParseFloat(row[5], 64)
		require.NoError(t, err)
		if score > bestScore {
			best, bestScore = row[6], score
		}
	}
	assert.Equal(t, "name, beagle, adopted", best, "the stretch where the beagle was adopted scores best, matching the question's words")
}

func TestAskPrintsThePartsInFullWithText(t *testing.T) {
	r := composed(t, byheart.Options{Budget: 900, Chunk: 300, Stability: -1})
	out := askOutput(t, "-budget", "900", "-chunk", "300", "-stability", "-1", "-text", chatFile, question)
	for _, p := range flatten(r) {
		assert.Contains(t, out, p.text)
	}
	assert.Contains(t, out, "named him Pickle", "the evidence reaches the model")
}

func TestAskJSONIsTheLibrarysResult(t *testing.T) {
	want := composed(t, byheart.Options{Budget: 900, Chunk: 300, Stability: -1})
	out := askOutput(t, "-json", "-budget", "900", "-chunk", "300", "-stability", "-1", chatFile, question)
	var got byheart.Result
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, want, got)
}

func TestAskOnASavedMemoryMatchesItsConversation(t *testing.T) {
	saved, _ := savedChat(t)
	args := []string{"-budget", "900", "-chunk", "300", "-stability", "-1"}
	fromLines := askOutput(t, append(args, chatFile, question)...)
	fromSaved := askOutput(t, append(args, saved, question)...)
	assert.Equal(t, strings.Replace(fromLines, chatFile, saved, 1), fromSaved)
}

func TestAskBelowTheBudgetSendsEveryTurn(t *testing.T) {
	out := askOutput(t, chatFile, question)
	rows := partRow.FindAllStringSubmatch(out, -1)
	assert.Len(t, rows, 34+1, "every turn as its own part, then the question")
}

var outsideRow = regexp.MustCompile(`(?m)^\s+(\d+)  (.{20})  \s*(-?\d+\.\d\d)\s+(-?\d+\.\d\d)\s+(\S+)  (yes|no|covered)\s+(yes|no)\s+.*$`)

func TestAskShowsWhatRuleFourDecidedOnEachItem(t *testing.T) {
	items, err := readItems("testdata/outside.json")
	require.NoError(t, err)
	for _, compare := range []string{"either", "stretch", "window", "coverage", "terms", "gain", "heaviest", "context", "either-query"} {
		t.Run(compare, func(t *testing.T) {
			opts := byheart.Options{Budget: 900, Chunk: 300, Stability: -1, ExternalCompare: comparisons[compare],
				External: byheart.ExternalFunc(func(context.Context, string) ([]byheart.Item, error) { return items, nil })}
			r := composed(t, opts)
			require.Len(t, r.Outside, 3, "the blank item is never weighed")
			out := askOutput(t, "-budget", "900", "-chunk", "300", "-stability", "-1", "-outside", "testdata/outside.json", "-compare", compare, chatFile, question)
			assert.Contains(t, out, "Outside material: 4 items offered, 3 weighed.")
			rows := outsideRow.FindAllStringSubmatch(out, -1)
			require.Len(t, rows, len(r.Outside), out)
			for i, a := range r.Outside {
				row := rows[i]
				assert.Equal(t, strconv.Itoa(a.Item), row[1])
				assert.Equal(t, a.Source, strings.TrimSpace(row[2]))
				assert.Equal(t, strconv.FormatFloat(a.Score, 'f', 2, 64), row[3])
				assert.Equal(t, strconv.FormatFloat(a.Against, 'f', 2, 64), row[4])
				assert.Equal(t, admitted(a), row[6])
				assert.Equal(t, yesNo(a.Sent), row[7])
			}
		})
	}
}

func TestAskRejectsABadOutsideFileOrComparison(t *testing.T) {
	for _, args := range [][]string{
		{"-outside", "testdata/no-such.json", chatFile, question},
		{"-outside", chatFile, chatFile, question},
		{"-compare", "nearest", chatFile, question},
	} {
		var out, errs bytes.Buffer
		assert.NotEqual(t, 0, run(append([]string{"ask"}, args...), &out, &errs), "%q", args)
		assert.NotEmpty(t, errs.String(), "%q says why", args)
	}
}

// An expired turn's words are shown nowhere in what ask prints: not on the
// row of an outside item (the item that quotes the turn is dropped, and
// each row names the item it weighed), and not among the question words a
// stretch matches, where the turn is scored as the library indexes it.
func TestAskShowsNoExpiredWord(t *testing.T) {
	const secret = "The kennel gate code is zephyrine 4711, good until noon."
	conv, err := read(chatFile)
	require.NoError(t, err)
	m := byheart.New(byheart.Options{})
	for i, tu := range conv.turns {
		_, err := m.AppendTurn(tu.Turn)
		require.NoError(t, err)
		if i == 2 {
			_, err := m.AppendTurn(byheart.Turn{Role: byheart.User, Text: secret, Time: tu.Time, Expires: tu.Time.Add(time.Hour)})
			require.NoError(t, err)
		}
	}
	dir := t.TempDir()
	data, err := m.ToJSON()
	require.NoError(t, err)
	saved := filepath.Join(dir, "saved.json")
	require.NoError(t, os.WriteFile(saved, data, 0o644))
	items := filepath.Join(dir, "items.json")
	require.NoError(t, os.WriteFile(items, []byte(`[
		{"text": "`+secret+` Logged at the gate.", "source": "gate log"},
		{"text": "Pickle the beagle was adopted from the Riverside shelter.", "source": "shelter records"},
		{"text": "Beagles need an hour of exercise a day.", "source": "breed guide"}]`), 0o644))

	q := "What did Ana name the beagle she adopted from the shelter, and the zephyrine gate code?"
	out := askOutput(t, "-outside", items, saved, q)
	require.Contains(t, out, "3 items offered, 2 weighed")
	var rest []string
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, q) { // the header quotes the question
			rest = append(rest, line)
		}
	}
	assert.NotContains(t, strings.Join(rest, "\n"), "zephyrine")
	assert.NotContains(t, strings.Join(rest, "\n"), "4711")
	assert.Contains(t, out, "Pickle the beagle was adopted", "the shelter's item is on its own row")
}
