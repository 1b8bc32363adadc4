package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyFile is a two-sample file in the locomo10.json shape, with turn ids
// under the project's own field name (locomoFile renames them), and the quirks
// the published data has: a packed evidence entry, an id that names no turn,
// a bare-number answer, an adversarial answer, a photo caption, sessions out
// of order and fields the loader does not know.
const tinyFile = `[
  {
    "sample_id": "s-1",
    "extra": {"ignored": true},
    "conversation": {
      "speaker_a": "Ana",
      "speaker_b": "Bo",
      "session_2_date_time": "9:05 am on 10 June, 2023",
      "session_2": [
        {"speaker": "Bo", "id": "D2:1", "text": "I moved house last month."},
        {"speaker": "Ana", "id": "D2:2", "text": "Look at this!", "blip_caption": "a photo of a red kite", "img_url": ["x"]}
      ],
      "session_1_date_time": "1:56 pm on 8 May, 2023",
      "session_1": [
        {"speaker": "Ana", "id": "D1:1", "text": "I ran a race last Saturday."},
        {"speaker": "Bo", "id": "D1:2", "text": "Well done!"}
      ],
      "session_3": []
    },
    "qa": [
      {"question": "When did Ana run?", "answer": "The saturday before 8 May 2023", "evidence": ["D1:1"], "category": 2},
      {"question": "What year?", "answer": 2023, "evidence": ["D1:1; D2:1"], "category": 1},
      {"question": "What did Bo fly?", "adversarial_answer": "a kite", "evidence": ["D2:2", "D9:9"], "category": 5},
      {"question": "Nothing to go on", "answer": "x", "evidence": [], "category": 4}
    ]
  },
  {
    "sample_id": "s-2",
    "conversation": {
      "speaker_a": "Cy",
      "speaker_b": "Di",
      "session_1_date_time": "8:00 pm on 1 January, 2022",
      "session_1": [{"speaker": "Di", "id": "D1:1", "text": "Happy new year!"}]
    }
  }
]`

func TestParseLoCoMoReadsThePublishedShape(t *testing.T) {
	for name, file := range map[string]string{
		"LoCoMo's turn ids":     strings.ReplaceAll(tinyFile, `"id":`, strconv.Quote(locomoTurnID)+":"),
		"the project's own ids": tinyFile,
	} {
		t.Run(name, func(t *testing.T) { checkTinyFile(t, file) })
	}
}

func checkTinyFile(t *testing.T, file string) {
	ds, err := parseLoCoMo([]byte(file))
	require.NoError(t, err)
	require.Len(t, ds.Convs, 2)

	c := ds.Convs[0]
	assert.Equal(t, "s-1", c.ID)
	require.Len(t, c.Turns, 4)
	assert.Equal(t, []string{"D1:1", "D1:2", "D2:1", "D2:2"}, []string{c.Turns[0].DiaID, c.Turns[1].DiaID, c.Turns[2].DiaID, c.Turns[3].DiaID}, "sessions go in number order")
	assert.Equal(t, byheart.User, c.Turns[0].Role, "speaker_a is the user")
	assert.Equal(t, byheart.Assistant, c.Turns[1].Role, "speaker_b is the assistant")
	assert.Equal(t, time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), c.Turns[0].When)
	assert.Equal(t, time.Date(2023, 6, 10, 9, 5, 0, 0, time.UTC), c.Turns[3].When)
	assert.Equal(t, "Look at this! [shares a photo: a photo of a red kite]", c.Turns[3].Text)
	assert.Equal(t, byheart.Annotate(c.Turns[0].Text, c.Turns[0].When), c.Turns[0].Annotated)

	require.Len(t, c.Questions, 3, "the question without evidence counts nowhere")
	assert.Equal(t, question{Text: "When did Ana run?", Answer: "The saturday before 8 May 2023", Category: 2, Evidence: []int{0}}, c.Questions[0])
	assert.Equal(t, "2023", c.Questions[1].Answer, "a bare number is an answer too")
	assert.Equal(t, []int{0, 2}, c.Questions[1].Evidence, "a packed entry holds two ids")
	assert.Equal(t, "a kite", c.Questions[2].Answer)
	assert.Equal(t, []int{3}, c.Questions[2].Evidence)

	assert.Equal(t, []string{`s-1 qa[2] "D9:9"`}, ds.BadEvidence)
	assert.Equal(t, 1, ds.NoEvidence)
	assert.Empty(t, ds.Convs[1].Questions, "qa is optional")
}

func TestParseLoCoMoNamesWhatIsWrongAndWhere(t *testing.T) {
	sample := func(conv, qa string) string {
		return `[{"sample_id": "bad-1", "conversation": {` + conv + `}, "qa": [` + qa + `]}]`
	}
	okConv := `"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023",
	  "session_1": [{"speaker": "A", "id": "D1:1", "text": "hi"}]`
	cases := []struct {
		name, file string
		want       []string
	}{
		{"broken JSON", "[\n  {\"sample_id\": \"x\",,}\n]", []string{"line 2, column", "not valid JSON"}},
		{"truncated", `[{"sample_id": "x"`, []string{"ends in the middle"}},
		{"not a list", `{"sample_id": "x"}`, []string{"want a JSON list of samples", "an object"}},
		{"empty list", `[]`, []string{"empty"}},
		{"sample not an object", `[42]`, []string{"sample 0 (line 1)", "want an object, found a number 42"}},
		{"no sample_id", `[{"conversation": {}}]`, []string{"sample 0", `missing "sample_id"`}},
		{"no conversation", `[{"sample_id": "bad-1"}]`, []string{`sample 0 "bad-1"`, `missing "conversation"`}},
		{"no speaker_b", sample(`"speaker_a": "A"`, ``), []string{`sample 0 "bad-1"`, `conversation: missing "speaker_b"`}},
		{"same speakers", sample(`"speaker_a": "A", "speaker_b": "A"`, ``), []string{"both \"A\""}},
		{"session without time", sample(`"speaker_a": "A", "speaker_b": "B", "session_4": [{"speaker": "A", "id": "D4:1", "text": "hi"}]`, ``),
			[]string{`conversation: missing "session_4_date_time"`, "session 4 has turns"}},
		{"unreadable time", sample(`"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "teatime", "session_1": [{"speaker": "A", "id": "D1:1", "text": "hi"}]`, ``),
			[]string{`sample 0 "bad-1"`, "conversation.session_1_date_time", `cannot read "teatime"`}},
		{"session not a list", sample(`"speaker_a": "A", "speaker_b": "B", "session_1": "hi"`, ``), []string{"conversation.session_1: want a list of turns, found a string"}},
		{"stranger speaks", sample(`"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "C", "id": "D1:1", "text": "hi"}]`, ``),
			[]string{"conversation.session_1[0].speaker", `"C" is neither`, `"A", "B"`}},
		{"turn without text", sample(`"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "A", "id": "D1:1"}]`, ``),
			[]string{`conversation.session_1[0]: missing "text"`}},
		{"text not a string", sample(`"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "A", "id": "D1:1", "text": ["hi"]}]`, ``),
			[]string{"conversation.session_1[0].text: want a string, found a list"}},
		{"duplicate turn id", sample(`"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "A", "id": "D1:1", "text": "hi"}, {"speaker": "B", "id": "D1:1", "text": "yo"}]`, ``),
			[]string{"conversation.session_1[1]", `turn id "D1:1" was already used`}},
		{"no turns at all", sample(`"speaker_a": "A", "speaker_b": "B"`, ``), []string{"no session_N holds any turns"}},
		{"bad category", sample(okConv, `{"question": "q", "answer": "a", "evidence": ["D1:1"], "category": "two"}`), []string{`sample 0 "bad-1"`, `qa[0].category: want a number from 1 to 5, found "two"`}},
		{"category out of range", sample(okConv, `{"question": "q", "answer": "a", "evidence": ["D1:1"], "category": 7}`), []string{"qa[0].category", "found 7"}},
		{"no question", sample(okConv, `{"answer": "a", "evidence": ["D1:1"], "category": 1}`), []string{`qa[0]: missing "question"`}},
		{"evidence not a list", sample(okConv, `{"question": "q", "answer": "a", "evidence": "D1:1", "category": 1}`), []string{"qa[0].evidence: want a list of turn id strings"}},
		{"qa not a list", `[{"sample_id": "bad-1", "conversation": {` + okConv + `}, "qa": {}}]`, []string{"qa: want a list of questions, found an object"}},
		{"duplicate sample", `[{"sample_id": "x", "conversation": {` + okConv + `}}, {"sample_id": "x", "conversation": {` + okConv + `}}]`, []string{`sample 1 "x"`, "already used by sample 0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseLoCoMo([]byte(tc.file))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadFileNamesTheFile(t *testing.T) {
	_, err := loadFile("testdata/does-not-exist.json")
	require.Error(t, err)

	path := t.TempDir() + "/bad.json"
	require.NoError(t, os.WriteFile(path, []byte("[1]"), 0o644))
	_, err = loadFile(path)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), path+": sample 0"), err.Error())
}

func TestParseSessionTimeIsLenient(t *testing.T) {
	want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	for _, s := range []string{
		"1:56 pm on 8 May, 2023",
		"1:56 PM on 8 May 2023",
		"1:56pm on 8 May, 2023",
		"  1:56 pm   on 8 may, 2023 ",
		"1:56 pm on May 8, 2023",
		"13:56 on 8 May 2023",
		"2023-05-08 13:56",
	} {
		got, err := parseSessionTime(s)
		if assert.NoError(t, err, s) {
			assert.Equal(t, want, got, s)
		}
	}
	got, err := parseSessionTime("8 May, 2023")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC), got)

	_, err = parseSessionTime("the day after tomorrow")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"the day after tomorrow"`)
}

func FuzzParseLoCoMo(f *testing.F) {
	f.Add(tinyFile)
	f.Add(`[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "A", "id": "D1:1", "text": "hi"}]}, "qa": [{"question": "q", "answer": 7, "evidence": ["D1:1; D1:1", "D"], "category": 2}]}]`)
	f.Add(`[{"sample_id": "x", "conversation": {}}]`)
	f.Fuzz(func(t *testing.T, data string) {
		ds, err := parseLoCoMo([]byte(data))
		if err != nil {
			return
		}
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
