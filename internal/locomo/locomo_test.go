package locomo

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyFile is a two-sample file in the locomo10.json shape, with turn ids
// under the project's own field name (the test renames them), and the quirks
// the published data has: a packed evidence entry, an id that names no turn,
// a bare-number answer, an adversarial answer, a photo caption, sessions out
// of order and fields the loader does not know. The benchmark program's
// tests run on it too.
var tinyFile = readFile("testdata/tiny.json")

func readFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func TestParseReadsThePublishedShape(t *testing.T) {
	for name, file := range map[string]string{
		"LoCoMo's turn ids":     strings.ReplaceAll(tinyFile, `"id":`, strconv.Quote(TurnIDField)+":"),
		"the project's own ids": tinyFile,
	} {
		t.Run(name, func(t *testing.T) { checkTinyFile(t, file) })
	}
}

func checkTinyFile(t *testing.T, file string) {
	ds, err := Parse([]byte(file))
	require.NoError(t, err)
	require.Len(t, ds.Convs, 2)

	c := ds.Convs[0]
	assert.Equal(t, "s-1", c.ID)
	assert.Equal(t, "Ana", c.SpeakerA)
	assert.Equal(t, "Bo", c.SpeakerB)
	require.Len(t, c.Turns, 4)
	assert.Equal(t, []string{"D1:1", "D1:2", "D2:1", "D2:2"}, []string{c.Turns[0].ID, c.Turns[1].ID, c.Turns[2].ID, c.Turns[3].ID}, "sessions go in number order")
	assert.Equal(t, []int{1, 1, 2, 2}, []int{c.Turns[0].Session, c.Turns[1].Session, c.Turns[2].Session, c.Turns[3].Session})
	assert.Equal(t, Turn{ID: "D1:1", Session: 1, Speaker: "Ana", ByA: true, Text: "I ran a race last Saturday.",
		When: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)}, c.Turns[0])
	assert.False(t, c.Turns[1].ByA, "speaker_b's turn")
	assert.Equal(t, time.Date(2023, 6, 10, 9, 5, 0, 0, time.UTC), c.Turns[3].When)
	assert.Equal(t, "Look at this! [shares a photo: a photo of a red kite]", c.Turns[3].Text)

	require.Len(t, c.Questions, 4, "a question without evidence is read too")
	assert.Equal(t, Question{Text: "When did Ana run?", Answer: "The saturday before 8 May 2023", Category: 2, Evidence: []int{0}}, c.Questions[0])
	assert.Equal(t, "2023", c.Questions[1].Answer, "a bare number is an answer too")
	assert.Equal(t, []int{0, 2}, c.Questions[1].Evidence, "a packed entry holds two ids")
	assert.Equal(t, "multi-session", c.Questions[1].Kind, "kind is read when present")
	assert.Empty(t, c.Questions[2].Kind, "kind is optional")
	assert.Equal(t, "a kite", c.Questions[2].Answer)
	assert.Equal(t, []int{3}, c.Questions[2].Evidence, "an id that names no turn is left out")
	assert.Empty(t, c.Questions[3].Evidence)

	assert.Equal(t, []string{`s-1 qa[2] "D9:9"`}, ds.BadEvidence)
	assert.Empty(t, ds.Convs[1].Questions, "qa is optional")
}

func TestParseNamesWhatIsWrongAndWhere(t *testing.T) {
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
		{"kind not a string", sample(okConv, `{"question": "q", "answer": "a", "evidence": ["D1:1"], "category": 1, "kind": ["fact"]}`), []string{"qa[0].kind: want a string, found a list"}},
		{"evidence not a list", sample(okConv, `{"question": "q", "answer": "a", "evidence": "D1:1", "category": 1}`), []string{"qa[0].evidence: want a list of turn id strings"}},
		{"qa not a list", `[{"sample_id": "bad-1", "conversation": {` + okConv + `}, "qa": {}}]`, []string{"qa: want a list of questions, found an object"}},
		{"session number past int", sample(`"speaker_a": "A", "speaker_b": "B", "session_99999999999999999999": []`, ``), []string{"conversation.session_99999999999999999999", "out of range"}},
		{"duplicate sample", `[{"sample_id": "x", "conversation": {` + okConv + `}}, {"sample_id": "x", "conversation": {` + okConv + `}}]`, []string{`sample 1 "x"`, "already used by sample 0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	_, err := Load("testdata/does-not-exist.json")
	require.Error(t, err)

	path := t.TempDir() + "/bad.json"
	require.NoError(t, os.WriteFile(path, []byte("[1]"), 0o644))
	_, err = Load(path)
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
		got, err := ParseSessionTime(s)
		if assert.NoError(t, err, s) {
			assert.Equal(t, want, got, s)
		}
	}
	got, err := ParseSessionTime("8 May, 2023")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC), got)

	_, err = ParseSessionTime("the day after tomorrow")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"the day after tomorrow"`)
}

// FuzzParse feeds Parse arbitrary bytes: it refuses them with an error or
// returns a dataset whose every evidence index names one of its turns.
func FuzzParse(f *testing.F) {
	f.Add([]byte(tinyFile))
	f.Add([]byte(strings.ReplaceAll(tinyFile, `"id":`, `"dia_id":`)))
	f.Add([]byte(`[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "2023-05-01", "session_1": [{"speaker": "A", "id": "1", "text": "hi"}]}, "qa": [{"question": "q", "answer": 1, "evidence": ["1;1, 1"], "category": 1}]}]`))
	f.Add([]byte(`[{"sample_id": 7, "conversation": {"session_99999999999999999999": []}}]`))
	f.Add([]byte("[\n  {\"sample_id\": \"x\",,}\n]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := Parse(data)
		if err != nil {
			require.Nil(t, ds)
			require.NotEmpty(t, err.Error())
			return
		}
		require.NotEmpty(t, ds.Convs)
		for _, c := range ds.Convs {
			require.NotEmpty(t, c.Turns)
			require.NotEqual(t, c.SpeakerA, c.SpeakerB)
			for _, tu := range c.Turns {
				require.Equal(t, tu.ByA, tu.Speaker == c.SpeakerA)
				require.NotEmpty(t, strings.TrimSpace(tu.Text))
			}
			for _, q := range c.Questions {
				require.Contains(t, Categories, q.Category)
				for i, e := range q.Evidence {
					require.True(t, e >= 0 && e < len(c.Turns), "evidence %d of %d turns", e, len(c.Turns))
					require.True(t, i == 0 || q.Evidence[i-1] < e, "evidence ascending without repeats")
				}
			}
		}
	})
}
