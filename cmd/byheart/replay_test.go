package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/pricing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func replayOutput(t *testing.T, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(append([]string{"replay"}, args...), &out, &errs)
	require.Equal(t, 0, code, errs.String())
	return out.String()
}

// summary returns the two columns of a line of replay's summary table.
func summary(t *testing.T, out, label string) (string, string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + `\s+(\S+)\s+(\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, "no %q line in:\n%s", label, out)
	return m[1], m[2]
}

// number reads a number as the summary writes it: "12,345".
func number(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	require.NoError(t, err, s)
	return n
}

func TestReplayComposesBeforeEveryUserTurn(t *testing.T) {
	out := replayOutput(t, "-budget", "900", "-chunk", "300", "-calls", chatFile)
	calls := regexp.MustCompile(`(?m)^\s+\d+\s+\d+\s+[\d,]+\s+-?\d+ `).FindAllString(out, -1)
	assert.Len(t, calls, 17, "one call per user turn")
	assert.Contains(t, out, "17 calls")
	assert.Contains(t, out, "Cold starts: 3", "the first call and the two sessions days later")
	assert.Equal(t, 3, strings.Count(out, "cold\n")+strings.Count(out, "cold, rebuilt\n"))
}

func TestReplayPricesTheFullHistoryAsAProviderWould(t *testing.T) {
	out := replayOutput(t, "-budget", "900", "-chunk", "300", chatFile)
	conv, err := read(chatFile)
	require.NoError(t, err)
	// The chat is far below the 1,024 tokens a provider caches, so the
	// whole history is billed in full on every call.
	var total float64
	calls := 0
	for i, turn := range conv.turns {
		if turn.Role == byheart.User {
			total += pricing.Tokens(historyBlocks(conv.turns[:i], turn.Text))
			calls++
		}
	}
	prompt, fullPrompt := summary(t, out, "prompt tokens per call")
	effective, fullEffective := summary(t, out, "effective tokens per call")
	want := thousands(int(total/float64(calls) + 0.5))
	assert.Equal(t, want, fullPrompt)
	assert.Equal(t, want, fullEffective)
	assert.Equal(t, prompt, effective, "nothing byheart sends here is long enough to cache either")
}

// longChat writes a conversation of three sessions a week apart, long
// enough for a provider to cache, its turns a minute apart, and returns its
// path.
func longChat(t *testing.T) string { return chatEvery(t, time.Minute) }

// chatEvery is longChat with its turns step apart.
func chatEvery(t *testing.T, step time.Duration) string {
	t.Helper()
	var b strings.Builder
	day := time.Date(2023, 5, 1, 9, 0, 0, 0, time.UTC)
	topics := []string{"the garden", "the new job", "the beagle", "the half marathon", "the catalogue", "the river walk"}
	for s := range 3 {
		for i := range 100 {
			role := []string{"user", "assistant"}[i%2]
			text := fmt.Sprintf("Session %d, turn %d: a few words about %s, and how the week went otherwise, with enough detail to matter.", s+1, i+1, topics[(s+i)%len(topics)])
			line := fmt.Sprintf(`{"role": %q, "text": %q, "time": %q}`, role, text, day.Add(time.Duration(i)*step).Format(time.RFC3339))
			b.WriteString(line + "\n")
		}
		day = day.AddDate(0, 0, 7)
	}
	path := filepath.Join(t.TempDir(), "long.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

func TestReplayReadsTheCacheOnALongChat(t *testing.T) {
	out := replayOutput(t, "-budget", "8000", longChat(t))
	hits, fullHits := summary(t, out, "calls reading the cache")
	assert.NotEqual(t, "0.0%", hits, out)
	assert.NotEqual(t, "0.0%", fullHits, out)
	prompt, _ := summary(t, out, "prompt tokens per call")
	effective, _ := summary(t, out, "effective tokens per call")
	assert.Less(t, number(t, effective), number(t, prompt), "the cache makes calls cheaper than their prompt")
	rebuilds, _ := summary(t, out, "rebuilds")
	assert.NotEqual(t, "0", rebuilds, "at least the first call over the budget rebuilds")
}

func TestReplayGapDecidesWhenTheCacheIsCold(t *testing.T) {
	path := longChat(t)
	assert.Contains(t, replayOutput(t, "-budget", "8000", path), "Cold starts: 3")
	assert.Contains(t, replayOutput(t, "-budget", "8000", "-gap", "1m", path), "Cold starts: 150",
		"turns a minute apart: a one-minute cache expires before every call")
}

func TestReplayTTLDecidesWhenTheCacheIsColdAndWhatAWriteCosts(t *testing.T) {
	// User turns 20 minutes apart: a five-minute cache is cold on every call,
	// a one-hour cache only at the start of each session.
	slow := chatEvery(t, 10*time.Minute)
	fiveMinutes := replayOutput(t, "-budget", "8000", slow)
	hour := replayOutput(t, "-budget", "8000", "-ttl", "1h", slow)
	assert.Contains(t, fiveMinutes, "Cold starts: 150 (the first call, and each after a pause of 5m0s or more)")
	assert.Contains(t, hour, "Cold starts: 3 (the first call, and each after a pause of 1h0m0s or more)")
	hits, _ := summary(t, fiveMinutes, "calls reading the cache")
	assert.Equal(t, "0.0%", hits, "nothing outlives a 20-minute pause")
	hits, _ = summary(t, hour, "calls reading the cache")
	assert.NotEqual(t, "0.0%", hits, "an hour's entries do")
	assert.Contains(t, hour, "written at 2×, for an hour")

	// Turns a minute apart keep both warm: the same calls hit, and the
	// hour's writes cost 2× rather than 1.25×.
	fast := longChat(t)
	cheap, _ := summary(t, replayOutput(t, "-budget", "8000", fast), "effective tokens per call")
	dear, _ := summary(t, replayOutput(t, "-budget", "8000", "-ttl", "1h", fast), "effective tokens per call")
	assert.Greater(t, number(t, dear), number(t, cheap))
}

func TestReplayRefusesATTLTheProviderDoesNotOffer(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{"replay", "-ttl", "30m", longChat(t)}, &out, &errs))
	assert.Contains(t, errs.String(), `-ttl "30m" is neither 5m nor 1h`)
	assert.Empty(t, out.String())
}
