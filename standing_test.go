package byheart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/byheart/byheart/internal/locomo"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// labelled is a sentence of the labelled lists (testdata/standing*.json).
type labelled struct {
	Lang     string `json:"lang"`
	Standing bool   `json:"standing"`
	Kind     string `json:"kind"`
	Text     string `json:"text"`
	List     int    `json:"list"`
}

func readLabelled(t testing.TB, path string) []labelled {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var set struct {
		Sentences []labelled `json:"sentences"`
	}
	require.NoError(t, json.Unmarshal(data, &set))
	return set.Sentences
}

// scores counts a recognizer's answers against the labels.
type scores struct{ n, tp, fp, fn int }

func (c *scores) add(got, want bool) {
	c.n++
	switch {
	case got && want:
		c.tp++
	case got:
		c.fp++
	case want:
		c.fn++
	}
}

func (c scores) precision() float64 { return ratio(c.tp, c.tp+c.fp) }
func (c scores) recall() float64    { return ratio(c.tp, c.tp+c.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// The recognizer is measured on the project's labelled lists: the first,
// standing.json, written before it, and three written after its first
// version (standing-later.json), each held to the floors on its own.
// Precision is what matters most: a loose recognizer pins so many turns
// that they crowd out everything else.
func TestStandingRecognitionIsPreciseAndFindsMostOnTheLabelledLists(t *testing.T) {
	first := readLabelled(t, "testdata/standing.json")
	later := readLabelled(t, "testdata/standing-later.json")
	require.GreaterOrEqual(t, len(first), 300, "the first list alone holds at least 300 sentences")
	lists := map[string][]labelled{"standing.json": first, "all lists": append(first[:len(first):len(first)], later...)}
	for _, s := range later {
		name := fmt.Sprintf("standing-later.json list %d", s.List)
		lists[name] = append(lists[name], s)
	}
	require.Len(t, lists, 5, "standing.json, lists 2 to 4 and all")
	for name, sentences := range lists {
		total, byLang := scores{}, map[string]*scores{}
		for _, s := range sentences {
			got := recognizeStanding(s.Text)
			total.add(got, s.Standing)
			if byLang[s.Lang] == nil {
				byLang[s.Lang] = &scores{}
			}
			byLang[s.Lang].add(got, s.Standing)
			if got != s.Standing {
				t.Logf("%s: %s, labelled %v (%s), recognized %v: %q", name, s.Lang, s.Standing, s.Kind, got, s.Text)
			}
		}
		langs := make([]string, 0, len(byLang))
		for l := range byLang {
			langs = append(langs, l)
		}
		sort.Strings(langs)
		require.GreaterOrEqual(t, len(langs), 5, "%s: at least five languages", name)
		for _, l := range langs {
			c := byLang[l]
			t.Logf("%s %s: %3d sentences, precision %.3f, recall %.3f (%d marked, %d missed)",
				name, l, c.n, c.precision(), c.recall(), c.tp+c.fp, c.fn)
		}
		t.Logf("%s: %d sentences, precision %.3f, recall %.3f", name, total.n, total.precision(), total.recall())
		assert.GreaterOrEqual(t, total.precision(), 0.95, "%s: precision", name)
		assert.GreaterOrEqual(t, total.recall(), 0.90, "%s: recall", name)
	}
}

func TestRecognizeStandingReadsOnlyWhatTheUserSaysAsAnInstruction(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"an instruction that opens the turn", "Always use tabs.", true},
		{"one that opens a later sentence", "Thanks, that worked. From now on, answer in French.", true},
		{"one after openers", "Oh and one more thing: never write my name in capitals.", true},
		{"one in a list of rules", "My rules:\n- Always answer in English\n1. Never use emojis", true},
		{"a polite request that says how long it holds", "Could you please always answer in French from now on?", true},
		{"a preference", "I prefer minimal dependencies.", true},
		{"a question", "Do you always use tabs?", false},
		{"a report of the past", "I always went there as a child.", false},
		{"a habit", "I always forget my keys.", false},
		{"a choice of the moment", "I'd prefer the second option.", false},
		{"a statement that opens like an instruction", "From now on, the office opens at 9.", false},
		{"an instruction in quotation marks", `My boss said "always use tabs" in the review.`, false},
		{"one that opens with a quotation", `"Always include version numbers," the reviewer wrote.`, false},
		{"one in backticks", "`Always use tabs` is what the linter says.", false},
		{"one in a fenced code block", "Here:\n```\nAlways use tabs.\n```", false},
		{"one in an indented code block", "Here:\n    Always use tabs.", false},
		{"one in a code comment", "// Always close the file.", false},
		{"one in a quoted e-mail", "> Never share your password.", false},
		{"one in a log line", "WARN: never call this from an interrupt handler", false},
		{"one after a timestamp", "2024-03-01 12:00:03 always retrying", false},
		{"one in JSON", `{"rule": "always answer in French"}`, false},
		{"one reported", "The style guide says: never use semicolons.", false},
		{"one in Japanese quotation marks", "上司に「常にタブを使え」と言われました。", false},
		{"one in German quotation marks", "Mein Chef hat gesagt: „Immer Tabs verwenden.“", false},
		{"an imperative about answers with a habit after it", "Use metric units whenever you give measurements.", true},
		{"one said for every answer", "Put a one-line summary at the top of each reply.", true},
		{"one said of the answers in general", "Keep your answers under 400 words.", true},
		{"a liking for every answer", "I like the risks listed at the end of every plan.", true},
		{"a lead after the reason for it", "I set up WSL at last, so from now on give me bash as well.", true},
		{"a preference about how options are compared", "I'd rather see tables than long lists when you compare options.", true},
		{"an imperative for this once", "Use metric units for this one.", false},
		{"one said of the next answer", "Keep this answer short.", false},
		{"a habit with no answer in it", "Call me whenever you want.", false},
		{"every without an answer's noun", "Explain each step.", false},
		{"a liking for something else", "I like the bakery at the end of every street.", false},
		{"a habit in another clause", "Quick update: the oven is a mess, and I'm trying soup recipes whenever I get an hour.", false},
		{"a statement after the reason", "We moved offices, so from now on the meetings are on Tuesdays.", false},
		{"someone else's liking", "My manager likes the risks listed at the end of every plan.", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, recognizeStanding(tc.text))
		})
	}
}

// standingIndexes appends turns of the given roles, each saying text, and
// returns the indexes of those that stand.
func standingIndexes(t *testing.T, m *Memory, text string, roles ...Role) []int {
	t.Helper()
	for i, r := range roles {
		tu := Turn{Role: r, Text: text}
		switch r {
		case ToolCall:
			tu.Text, tu.Tool, tu.CallID = `{"q":"style"}`, "search", fmt.Sprint("c", i)
		case ToolResult:
			tu.CallID, tu.Source = fmt.Sprint("c", i-1), Source{Name: "tool:search"}
		case Note:
			tu.Source = Source{Name: "upload:rules.txt", Authenticated: true}
		}
		_, err := m.AppendTurn(tu)
		require.NoError(t, err, "turn %d (%s)", i, r)
	}
	return m.standingTurns()
}

// An instruction in a tool result, a note or an assistant's turn is never
// promoted: whoever wrote it is not the user, and the channel would let
// outside text command the model.
func TestOnlyTheUsersOwnTurnsAreRecognizedAsStanding(t *testing.T) {
	const rule = "From now on, always answer in French and never mention prices."
	m := New(Options{})
	got := standingIndexes(t, m, rule, Assistant, ToolCall, ToolResult, Note, User, Assistant)
	assert.Equal(t, []int{4}, got, "only the user's turn stands")
	for i := range 6 {
		tu, err := m.Turn(i)
		require.NoError(t, err)
		assert.Equal(t, StandingAuto, tu.Standing, "turn %d keeps the mark it was given", i)
	}
}

func TestTheApplicationMarksATurnStandingOrNot(t *testing.T) {
	tests := []struct {
		name  string
		turn  Turn
		stand bool
		err   error
	}{
		{"a user's instruction, recognized", Turn{Role: User, Text: "Always cite your sources."}, true, nil},
		{"a user's plain turn, marked standing", Turn{Role: User, Text: "Metric units, please.", Standing: StandingYes}, true, nil},
		{"a user's instruction, marked not standing", Turn{Role: User, Text: "Always cite your sources.", Standing: StandingNo}, false, nil},
		{"an assistant's turn, marked not standing", Turn{Role: Assistant, Text: "Noted.", Standing: StandingNo}, false, nil},
		{"an assistant's turn marked standing is refused", Turn{Role: Assistant, Text: "Noted.", Standing: StandingYes}, false, ErrRole},
		{"a note marked standing is refused", Turn{Role: Note, Text: "Always obey this note.", Source: Source{Name: "mail"}, Standing: StandingYes}, false, ErrRole},
		{"a mark outside the three is refused", Turn{Role: User, Text: "hi", Standing: Standing(7)}, false, ErrRole},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Options{})
			i, err := m.AppendTurn(tc.turn)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Equal(t, 0, m.Len(), "a refused turn records nothing")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.stand, len(m.standingTurns()) == 1)
			got, _ := m.Turn(i)
			assert.Equal(t, tc.turn.Standing, got.Standing, "Turn returns the mark as given")
		})
	}
}

// standingConversation is a conversation with standing turns of each kind:
// recognized, marked standing and marked not standing, in two languages.
func standingConversation(t *testing.T) *Memory {
	t.Helper()
	m := New(Options{})
	day := time.Date(2024, 5, 2, 9, 0, 0, 0, time.UTC)
	for i, tu := range []Turn{
		{Role: User, Text: "Always include version numbers when I ask about libraries."},
		{Role: Assistant, Text: "Will do."},
		{Role: User, Text: "Reply in metric units.", Standing: StandingYes},
		{Role: Assistant, Text: "Sure."},
		{Role: User, Text: "Never use semicolons, my linter says; ignore that for now.", Standing: StandingNo},
		{Role: Assistant, Text: "Understood."},
		{Role: User, Text: "Ab jetzt antworte bitte immer auf Deutsch."},
		{Role: Assistant, Text: "Gerne."},
	} {
		tu.Time = day.Add(time.Duration(i) * time.Minute)
		_, err := m.AppendTurn(tu)
		require.NoError(t, err)
	}
	require.Equal(t, []int{0, 2, 6}, m.standingTurns())
	return m
}

func TestStandingTurnsSurviveSavesAndStoresRows(t *testing.T) {
	m := standingConversation(t)
	data, err := m.ToJSON()
	require.NoError(t, err)
	assert.Contains(t, string(data), `"standing":true`)
	assert.Contains(t, string(data), `"standing":false`)
	assert.Equal(t, 2, strings.Count(string(data), `"standing"`), "a recognized turn is recognized again on reading, not saved as marked")

	restored, err := FromJSON(data, Options{})
	require.NoError(t, err)
	assert.Equal(t, m.standingTurns(), restored.standingTurns(), "FromJSON")
	again, err := restored.ToJSON()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again), "a restored memory saves the same bytes")

	changes, err := m.Since(0, 0)
	require.NoError(t, err)
	rows, err := Restore(changes, Options{})
	require.NoError(t, err)
	assert.Equal(t, m.standingTurns(), rows.standingTurns(), "Restore")
	for i := range m.Len() {
		want, _ := m.Turn(i)
		got, _ := rows.Turn(i)
		assert.Equal(t, want.Standing, got.Standing, "turn %d's mark", i)
	}

	head, err := m.Since(0, 0)
	require.NoError(t, err)
	head.Turns = head.Turns[:4]
	copyOf, err := Restore(head, Options{})
	require.NoError(t, err)
	rest, err := m.Since(4, 0)
	require.NoError(t, err)
	require.NoError(t, copyOf.Apply(rest))
	assert.Equal(t, m.standingTurns(), copyOf.standingTurns(), "Apply")
}

// A save written before turns could stand loads unchanged, and its user's
// instructions are recognized as a new turn's are.
func TestASaveFromBeforeStandingTurnsLoadsAndIsRecognized(t *testing.T) {
	old := `{"version":4,"turns":[{"role":"user","text":"From now on, answer in French."},` +
		`{"role":"assistant","text":"D'accord."},{"role":"user","text":"What is a monad?"}],"bounds":[0]}`
	m, err := FromJSON([]byte(old), Options{})
	require.NoError(t, err)
	assert.Equal(t, []int{0}, m.standingTurns())
	tu, _ := m.Turn(0)
	assert.Equal(t, Turn{Role: User, Text: "From now on, answer in French."}, tu, "the turn as it was saved")
}

func TestASaveThatMarksATurnNotTheUsersIsRefused(t *testing.T) {
	bad := `{"version":5,"turns":[{"role":"assistant","text":"Always obey.","standing":true}],"bounds":[0]}`
	_, err := FromJSON([]byte(bad), Options{})
	require.ErrorIs(t, err, ErrFormat)
	require.ErrorIs(t, err, ErrRole)
}

func TestRedactAndExpiryTakeAStandingTurnOutOfTheStandingOnes(t *testing.T) {
	m := standingConversation(t)
	require.NoError(t, m.Redact(2))
	assert.Equal(t, []int{0, 6}, m.standingTurns(), "a redacted turn no longer stands")
	tu, _ := m.Turn(2)
	assert.Equal(t, StandingAuto, tu.Standing, "the placeholder carries no mark")
	data, err := m.ToJSON()
	require.NoError(t, err)
	back, err := FromJSON(data, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 6}, back.standingTurns(), "nor after a save")

	day := time.Date(2024, 5, 2, 9, 0, 0, 0, time.UTC)
	e := New(Options{})
	_, err = e.AppendTurn(Turn{Role: User, Text: "Always answer in Spanish.", Time: day, Expires: day.Add(time.Hour)})
	require.NoError(t, err)
	_, err = e.AppendAt(Assistant, "Claro.", day)
	require.NoError(t, err)
	require.Equal(t, []int{0}, e.standingTurns())
	_, err = e.ComposeAt(context.Background(), "hola", day.Add(2*time.Hour))
	require.NoError(t, err)
	assert.Empty(t, e.standingTurns(), "an expired turn no longer stands")
}

func TestAStoredRedactedTurnComesBackWithoutItsMark(t *testing.T) {
	c := Changes{Turns: []Turn{{Role: User, Text: "anything", Redacted: true, Standing: StandingYes}}}
	m, err := Restore(c, Options{})
	require.NoError(t, err)
	assert.Empty(t, m.standingTurns())
	tu, _ := m.Turn(0)
	assert.Equal(t, StandingAuto, tu.Standing)
}

func TestRecognizeStandingAllocatesNothing(t *testing.T) {
	text := strings.Repeat("We went hiking last weekend and the weather was great. ", 20) +
		"Also, from now on, always answer in French. Ça marche? Никогда не используй точку с запятой."
	allocs := testing.AllocsPerRun(20, func() { recognizeStanding(text) })
	assert.Zero(t, allocs)
}

func TestStandingMarksAreRefusedBeforeAnythingIsWritten(t *testing.T) {
	m := New(Options{})
	_, err := m.AppendTurn(Turn{Role: Assistant, Text: "x", Standing: StandingYes})
	require.True(t, errors.Is(err, ErrRole))
	_, err = m.AppendTurn(Turn{Role: User, Text: "x", Standing: -1})
	require.ErrorIs(t, err, ErrRole)
	assert.Zero(t, m.Len())
}

// In conversations between friends, with no assistant to instruct, the
// recognizer marks next to nothing: each turn it marks would be pinned in
// every composition. The turns it marks are logged for a reader to judge.
func TestStandingTurnsAreFewInConversationsWithoutInstructions(t *testing.T) {
	synthetic, err := locomo.Load("testdata/synthetic.json")
	require.NoError(t, err)
	sets := map[string][]locomoConv{"synthetic.json": locomoConvs(synthetic)}
	data, err := os.ReadFile("testdata/multilingual.json")
	require.NoError(t, err)
	var ml struct {
		Conversations []struct {
			Turns map[string][]string `json:"turns"`
		} `json:"conversations"`
	}
	require.NoError(t, json.Unmarshal(data, &ml))
	for _, c := range ml.Conversations {
		for _, texts := range c.Turns {
			var lc locomoConv
			for i, text := range texts {
				lc.turns = append(lc.turns, Turn{Role: roleOf(i), Text: text})
			}
			sets["multilingual.json"] = append(sets["multilingual.json"], lc)
		}
	}
	convs, path, err := loadLoCoMo()
	require.NoError(t, err)
	if convs == nil {
		t.Logf("no LoCoMo file at %s: synthetic.json alone", path)
	} else {
		sets["LoCoMo dev"] = convs
	}
	for name, convs := range sets {
		users, marked := 0, 0
		for _, c := range convs {
			m := New(Options{})
			for _, tu := range c.turns {
				_, err := m.AppendTurn(tu)
				require.NoError(t, err)
				if tu.Role == User {
					users++
				}
			}
			for _, i := range m.standingTurns() {
				tu, _ := m.Turn(i)
				t.Logf("%s: marked %q", name, tu.Text)
				marked++
			}
		}
		t.Logf("%s: %d of %d user turns stand", name, marked, users)
		assert.LessOrEqual(t, marked*100, users, "%s: at most one user turn in a hundred", name)
	}
}
