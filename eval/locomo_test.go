package main

import (
	"os"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/locomo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyFile is internal/locomo's two-sample fixture, with the quirks of the
// published data; the loader's own tests say what it holds.
var tinyFile = func() string {
	data, err := os.ReadFile("../internal/locomo/testdata/tiny.json")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

func TestLoadFileTakesSpeakerAAsTheUserAndCountsQuestionsWithoutEvidence(t *testing.T) {
	path := tinyPath(t)
	ds, err := loadFile(path)
	require.NoError(t, err)
	assert.Equal(t, path, ds.Source)
	require.Len(t, ds.Convs, 2)

	c := ds.Convs[0]
	require.Len(t, c.Turns, 4)
	assert.Equal(t, []byheart.Role{byheart.User, byheart.Assistant, byheart.Assistant, byheart.User},
		[]byheart.Role{c.Turns[0].Role, c.Turns[1].Role, c.Turns[2].Role, c.Turns[3].Role}, "speaker_a is the user")
	first := c.Turns[0]
	assert.Equal(t, "D1:1", first.DiaID)
	assert.Equal(t, time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), first.When)
	assert.Equal(t, byheart.Annotate(first.Text, first.When), first.Annotated)
	assert.NotEqual(t, first.Text, first.Annotated, "the turn's relative date is resolved")
	assert.Equal(t, collapse(first.Annotated), first.flatAnnotated)

	require.Len(t, c.Questions, 3, "the question without evidence counts nowhere")
	assert.Equal(t, question{Text: "When did Ana run?", Answer: "The saturday before 8 May 2023", Category: 2, Evidence: []int{0}}, c.Questions[0])
	assert.Equal(t, 1, ds.NoEvidence)
	assert.Equal(t, []string{`s-1 qa[2] "D9:9"`}, ds.BadEvidence)
}

func TestLoadFileNamesTheFile(t *testing.T) {
	path := t.TempDir() + "/bad.json"
	require.NoError(t, os.WriteFile(path, []byte("[1]"), 0o644))
	_, err := loadFile(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+": sample 0")
}

func FuzzParseLoCoMo(f *testing.F) {
	f.Add(tinyFile)
	f.Add(`[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "A", "id": "D1:1", "text": "hi"}]}, "qa": [{"question": "q", "answer": 7, "evidence": ["D1:1; D1:1", "D"], "category": 2}]}]`)
	f.Add(`[{"sample_id": "x", "conversation": {}}]`)
	f.Fuzz(func(t *testing.T, data string) {
		src, err := locomo.Parse([]byte(data))
		if err != nil {
			return
		}
		ds := fromLoCoMo(src)
		for _, c := range ds.Convs {
			for _, q := range c.Questions {
				require.NotEmpty(t, q.Evidence, "a question without evidence counts nowhere")
				require.Contains(t, categoryNames, q.Category)
				for _, e := range q.Evidence {
					require.True(t, e >= 0 && e < len(c.Turns), "evidence %d of %d turns", e, len(c.Turns))
				}
			}
			for _, turn := range c.Turns {
				require.Contains(t, []byheart.Role{byheart.User, byheart.Assistant}, turn.Role)
			}
		}
	})
}
