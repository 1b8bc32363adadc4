package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var assistantFile = filepath.Join("..", assistantPath)

func TestAssistantDataIsRegeneratedByteForByte(t *testing.T) {
	requireRegenerated(t, assistantFile, asstSynthesize())
}

func TestAssistantDataHasTheShapeOfAssistantConversations(t *testing.T) {
	ds, err := loadFile(assistantFile)
	require.NoError(t, err)
	assert.Empty(t, ds.BadEvidence)
	assert.Zero(t, ds.NoEvidence)
	require.Len(t, ds.Convs, asstConversations)
	st := shapeStatsOf(ds)
	assert.GreaterOrEqual(t, st.MinChars, 450_000, "every budget measured stays well below a conversation")
	assert.InDelta(t, 3800, st.AnswerMedian, 300, "answers run to thousands of characters")
	assert.InDelta(t, 5300, st.AnswerP90, 500)
	assert.Greater(t, st.AnswerMax, 50_000, "one huge answer somewhere")
	assert.InDelta(t, 0.77, st.UserEvidence, 0.05, "most evidence is in the user's turns")
	for _, c := range ds.Convs {
		kinds := map[string]int{}
		for _, q := range c.Questions {
			kinds[q.Kind]++
			if q.Kind == kindAssistant {
				assert.False(t, c.Turns[q.Evidence[0]].Role == byheart.User, "%s: %q", c.ID, q.Text)
			}
		}
		for _, k := range []string{kindFact, kindUpdate, kindMulti, kindDate, kindDuration, kindOrder, kindAssistant} {
			assert.Positive(t, kinds[k], "%s has %s questions", c.ID, k)
		}
		assert.Equal(t, asstStandingQs, kinds[kindInstruction]+kinds[kindPreference], c.ID)
	}
}

// TestAssistantRecallMatchesRealConversations is the set's acceptance
// test: on it, per-turn BM25 (plain RAG) and stretch BM25 recall lie within
// 0.05 of what they measured on real long user–assistant conversations at
// each budget.
func TestAssistantRecallMatchesRealConversations(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the whole assistant-shaped set")
	}
	ds, err := loadFile(assistantFile)
	require.NoError(t, err)
	baselines := []method{plainRAG, stretchBM25}
	set, err := measureShapeSet(ds, baselines, &progress{w: io.Discard})
	require.NoError(t, err)
	for _, m := range baselines {
		var got []string
		for i, b := range shapeBudgets {
			row := set.row(m.name, b)
			got = append(got, fmt.Sprintf("%s: %.3f (real %.3f)", thousands(float64(b)), row.Recall, realAssistant[m.name][i]))
			assert.InDelta(t, realAssistant[m.name][i], row.Recall, 0.05, "%s at %d", m.name, b)
		}
		t.Logf("%-16s %s", m.name, strings.Join(got, "  "))
	}
}

// TestEveryTurnOfTheAssistantSetGoesOutNativelyByteForByte: the model's
// own answers, markdown, rules, tables and code that prints "user:" lines
// among them, and every user turn come back as they were said when sent
// as their own messages, the dates resolved beside relative ones aside
// (the annotated text is what is sent).
func TestEveryTurnOfTheAssistantSetGoesOutNativelyByteForByte(t *testing.T) {
	if testing.Short() {
		t.Skip("composes every conversation of the assistant-shaped set whole")
	}
	ds, err := loadFile(assistantFile)
	require.NoError(t, err)
	turns, marked := 0, 0
	for _, c := range ds.Convs {
		mem := byheart.New(byheart.Options{Budget: 1 << 30})
		for i := range c.Turns {
			tt := &c.Turns[i]
			_, err := mem.AppendAt(tt.Role, tt.Text, tt.When)
			require.NoError(t, err)
			if strings.Contains(tt.Text, "\n---") || strings.Contains(tt.Text, "\nuser:") || strings.Contains(tt.Text, "\nassistant:") {
				marked++
			}
		}
		r, err := mem.Compose(t.Context(), "anything")
		require.NoError(t, err)
		parts := resultCall(r).context()
		require.Len(t, parts, len(c.Turns), "%s: below the budget, every turn is a part of its own", c.ID)
		for i, p := range parts {
			require.Equal(t, c.Turns[i].Annotated, p.text, "%s: turn %d", c.ID, i)
			turns++
		}
	}
	t.Logf("%d turns byte for byte, %d of them with a markdown rule or a line opening with user: or assistant:", turns, marked)
	assert.Positive(t, marked, "the set holds the lines an older guard opened")
}
