package byheart

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// overTopics is a memory over a 2,000-character budget: runs of turns on
// three topics, and one early turn on a zeppelin.
func overTopics(t *testing.T, opt Options) *Memory {
	opt.Budget, opt.Chunk = 2000, 200
	m := New(opt)
	for i := range 60 {
		text := topicTurn([]string{"garden", "cooking", "travel"}[i/8%3], i)
		if i == 5 {
			text = "the zeppelin flew over the zeppelin hangar"
		}
		mustAppend(t, m, roleOf(i), text)
	}
	return m
}

// TestResultSaysWhyItRebuilt pins Result.Rebuild for each way a call
// comes to rebuild, and its absence when it did not.
func TestResultSaysWhyItRebuilt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		run  func(m *Memory) Result
		opt  Options
		want Rebuild
	}{
		{"a history that fits is not rebuilt", func(*Memory) Result {
			m := New(Options{})
			mustAppend(t, m, User, "hi")
			return compose(t, m, "hi")
		}, Options{}, ""},
		{"the first call over the budget", func(m *Memory) Result { return compose(t, m, "garden") }, Options{}, RebuildFirst},
		{"a kept context that serves is kept", func(m *Memory) Result {
			compose(t, m, "garden")
			return compose(t, m, "garden")
		}, Options{}, ""},
		{"a negative stability rebuilds every call", func(m *Memory) Result {
			compose(t, m, "garden")
			return compose(t, m, "garden")
		}, Options{Stability: -1}, RebuildFresh},
		{"a redaction drops the kept context", func(m *Memory) Result {
			compose(t, m, "garden")
			require.NoError(t, m.Redact(3))
			return compose(t, m, "garden")
		}, Options{}, RebuildRedacted},
		{"turns appended since outgrow the budget", func(m *Memory) Result {
			compose(t, m, "garden")
			for i := range 40 {
				mustAppend(t, m, roleOf(i), topicTurn("garden", 100+i))
			}
			return compose(t, m, "garden")
		}, Options{Stability: 1}, RebuildOverBudget},
		{"a weaker context that may not grow", func(m *Memory) Result {
			compose(t, m, "garden")
			return compose(t, m, "zeppelin")
		}, Options{Stability: 0.01, Recall: -1}, RebuildWeaker},
		{"a saved selection that does not match is dropped", func(m *Memory) Result {
			compose(t, m, "garden")
			var w map[string]any
			require.NoError(t, json.Unmarshal([]byte(mustJSON(t, m)), &w))
			w["selection"].(map[string]any)["keys"] = []int{1}
			data, _ := json.Marshal(w)
			m2, err := FromJSON(data, Options{Budget: 2000, Chunk: 200})
			require.NoError(t, err)
			return compose(t, m2, "garden")
		}, Options{}, RebuildRestored},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run(overTopics(t, tc.opt))
			require.Equal(t, tc.want, r.Rebuild)
			require.Equal(t, tc.want != "", r.Reselected())
		})
	}
}

// TestSpentAddsUpThePartsByKind pins that, in characters, Result.Spent is
// each kind's parts' exact size, and that every part says its kind.
func TestSpentAddsUpThePartsByKind(t *testing.T) {
	t.Parallel()
	m := overTopics(t, Options{External: ExternalFunc(func(context.Context, string) ([]Item, error) {
		return []Item{{Text: "zebra migration zebra facts", Source: "wiki"}}, nil
	}), ExternalMargin: 1000})
	compose(t, m, "garden")
	for i := range 6 {
		mustAppend(t, m, roleOf(i), topicTurn("cooking", 200+i))
	}
	r := compose(t, m, "zebra cooking")
	var want Spend
	kinds := map[PartKind]int{}
	for _, msg := range r.Messages {
		for _, p := range msg.Parts {
			want.add(p.Kind, utf8.RuneCountInString(p.Text))
			kinds[p.Kind]++
			switch p.Kind {
			case PartMemory:
				require.True(t, strings.HasPrefix(p.Text, memoryHeader))
			case PartRecalled:
				require.True(t, strings.HasPrefix(p.Text, recallHeader))
			case PartOutside:
				require.True(t, strings.HasPrefix(p.Text, externalHeader))
			case PartTurn:
				require.False(t, strings.HasPrefix(p.Text, "«byheart"))
			}
		}
	}
	require.Equal(t, want, r.Spent)
	require.Equal(t, 1, kinds[PartMemory], "%v", kinds)
	require.Equal(t, 1, kinds[PartOutside])
	require.Equal(t, 1, kinds[PartQuery])
	require.Positive(t, kinds[PartTurn])
	data, err := json.Marshal(r.Messages[0].Parts[0])
	require.NoError(t, err)
	require.Contains(t, string(data), `"kind":"memory"`)
	var back Part
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, PartMemory, back.Kind)
	require.Error(t, json.Unmarshal([]byte(`{"kind":"nonsense"}`), &back))
}

// TestLoggerWritesOneDebugLinePerCall pins the logger: one line per call
// at Debug, nothing when Debug is off.
func TestLoggerWritesOneDebugLinePerCall(t *testing.T) {
	t.Parallel()
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		var out strings.Builder
		m := New(Options{Logger: slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: level}))})
		mustAppend(t, m, User, "hello")
		compose(t, m, "hi")
		_, err := m.Continue(context.Background())
		require.NoError(t, err)
		if level > slog.LevelDebug {
			require.Empty(t, out.String())
			continue
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		require.Len(t, lines, 2)
		require.Contains(t, lines[0], `"call":"compose"`)
		require.Contains(t, lines[0], `"spent":5`)
		require.Contains(t, lines[1], `"call":"continue"`)
	}
}
