package agentturn

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/byheart/byheart"
)

func TestNameKeepsWhatByheartTakesAndEscapesTheRest(t *testing.T) {
	long := strings.Repeat("x", MaxName+1)
	for _, tc := range []struct{ in, want string }{
		{"call_1", "call_1"},
		{"", ""},
		{"call\t1", `call\t1`},
		{"call\n1", `call\n1`},
		{"c\xff1", `c\xff1`},
		{"café", "café"},
		{"a\u202eb", `a\u202eb`}, // a bidi override is no printable character
	} {
		assert.Equal(t, tc.want, Name(tc.in), "%q", tc.in)
	}
	got := Name(long)
	assert.LessOrEqual(t, len(got), MaxName)
	assert.NotEqual(t, got, Name(long+"y"), "a hash keeps long names apart")
	assert.Equal(t, got, Name(long), "the same every time")
}

// call, result and user build turns for the tables below.
func call(tool, id string) byheart.Turn {
	return byheart.Turn{Role: byheart.ToolCall, Tool: tool, CallID: id, Text: "{}"}
}

func result(tool, id, text string) byheart.Turn {
	return byheart.Turn{Role: byheart.ToolResult, Tool: tool, CallID: id, Text: text}
}

func TestAppendTakesWhatAFrameworkAccepted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		turns []byheart.Turn
		want  []byheart.Turn // as appended, the role, tool, call id and text of each
	}{
		{"calls sharing an id, answered in order",
			[]byheart.Turn{call("get", "c1"), call("get", "c1"), result("get", "c1", "a"), result("get", "c1", "b")},
			[]byheart.Turn{call("get", "c1"), call("get", "c1~2"), result("get", "c1", "a"), result("get", "c1~2", "b")}},
		{"calls sharing an id, answered out of order, by tool",
			[]byheart.Turn{call("get", "c1"), call("put", "c1"), result("put", "c1", "p"), result("get", "c1", "g")},
			[]byheart.Turn{call("get", "c1"), call("put", "c1~2"), result("put", "c1~2", "p"), result("get", "c1", "g")}},
		{"a suffix a waiting call already has is passed over",
			[]byheart.Turn{call("get", "c1~2"), call("get", "c1"), call("get", "c1"), result("get", "c1", "a")},
			[]byheart.Turn{call("get", "c1~2"), call("get", "c1"), call("get", "c1~3"), result("get", "c1", "a")}},
		{"ids and tools byheart refuses",
			[]byheart.Turn{call("bad\ttool", "c\n1"), result("bad\ttool", "c\n1", "ok\xff")},
			[]byheart.Turn{call(`bad\ttool`, `c\n1`), result(`bad\ttool`, `c\n1`, "ok\uFFFD")}},
		{"a call without a tool",
			[]byheart.Turn{call("", "c1"), result("", "c1", "ok")},
			[]byheart.Turn{call(Unnamed, "c1"), result("", "c1", "ok")}},
		{"a response without text says so",
			[]byheart.Turn{call("get", "c1"), result("get", "c1", "")},
			[]byheart.Turn{call("get", "c1"), result("get", "c1", NoOutput)}},
		{"a response to no waiting call is a note",
			[]byheart.Turn{call("get", "c1"), result("get", "c9", "late")},
			[]byheart.Turn{call("get", "c1"), {Role: byheart.Note, Text: "late", Source: byheart.Source{Name: "tool:get"}}}},
		{"a response without an id whose call has not its turn is a note",
			[]byheart.Turn{call("get", ""), call("put", ""), result("put", "", "p")},
			[]byheart.Turn{call("get", ""), call("put", ""), {Role: byheart.Note, Text: "p", Source: byheart.Source{Name: "tool:put"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := byheart.New(byheart.Options{})
			_, err := mem.Append(byheart.User, "go")
			require.NoError(t, err)
			for i, turn := range tc.turns {
				got, err := Append(mem, turn, 0)
				require.NoError(t, err, "turn %d", i)
				assert.Equal(t, tc.want[i], got, "turn %d", i)
				stored, err := mem.Turn(mem.Len() - 1)
				require.NoError(t, err)
				if got.Role == byheart.ToolResult && got.Tool == "" {
					got.Tool = stored.Tool // byheart gives a result its call's tool
				}
				assert.Equal(t, got, stored, "turn %d is appended as returned", i)
			}
		})
	}
}

func TestAppendCutsATurnToItsLimitOnACharacter(t *testing.T) {
	mem := byheart.New(byheart.Options{})
	_, err := mem.Append(byheart.User, "go")
	require.NoError(t, err)
	_, err = Append(mem, call("get", "c1"), 0)
	require.NoError(t, err)
	got, err := Append(mem, result("get", "c1", "start "+strings.Repeat("é", 100)), 64)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(got.Text)+len(got.Tool)+len(got.CallID), 64)
	assert.True(t, strings.HasPrefix(got.Text, "start é"))
	assert.True(t, strings.HasSuffix(got.Text, "é"+ClipMark))
	assert.True(t, utf8.ValidString(got.Text))
}

func TestDescribeSaysWhatWasSent(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("x", 300)
	for _, tc := range []struct {
		in   Attachment
		want string
	}{
		{Attachment{Kind: "image", MIME: "image/png", URL: "https://example.com/a.png"}, "[image/png attachment, https://example.com/a.png, not kept]"},
		{Attachment{Kind: "image", URL: "data:image/png;base64,AAAA"}, "[image attachment, inline data, not kept]"},
		{Attachment{Kind: "audio", MIME: "audio/wav", Size: 6}, "[audio/wav attachment, 6 bytes, not kept]"},
		{Attachment{Kind: "file", Name: "q3.pdf"}, "[file attachment, “q3.pdf”, not kept]"},
		{Attachment{Kind: "video", URL: long}, "[video attachment, " + long[:MaxURL] + "…, not kept]"},
		{Attachment{}, "[attachment, not kept]"},
	} {
		assert.Equal(t, tc.want, Describe(tc.in), "%+v", tc.in)
	}
}

func TestSentRecognisesATurnAsByheartSendsIt(t *testing.T) {
	when := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	mem := byheart.New(byheart.Options{})
	for _, text := range []string{"Can we paint it this weekend?", "A plain question.", "bad \xff byte"} {
		_, err := Append(mem, byheart.Turn{Role: byheart.User, Text: text, Time: when}, 0)
		require.NoError(t, err)
	}
	res, err := mem.ContinueAt(context.Background(), when)
	require.NoError(t, err)
	var parts []byheart.Part
	for _, m := range res.Messages {
		parts = append(parts, m.Parts...)
	}
	require.Len(t, parts, 3)
	assert.NotEqual(t, "Can we paint it this weekend?", parts[0].Text, "byheart resolves the date beside it")
	assert.True(t, Sent(parts[0], "Can we paint it this weekend?", when), "with its date resolved")
	assert.True(t, Sent(parts[1], "A plain question.", when), "as said")
	assert.True(t, Sent(parts[2], "bad \xff byte", when), "with invalid UTF-8 as Append makes it")
	assert.False(t, Sent(parts[1], "Can we paint it this weekend?", when), "another turn's part")
	assert.False(t, Sent(byheart.Part{Text: "A plain question.", Kind: byheart.PartMemory}, "A plain question.", when), "a part that is no turn of its own")
}

func TestNewestUserAndLastUserPartFindTheUsersNewestTurn(t *testing.T) {
	mem := byheart.New(byheart.Options{})
	i, _ := NewestUser(mem)
	assert.Equal(t, -1, i, "none in an empty memory")
	for _, turn := range []byheart.Turn{{Role: byheart.User, Text: "first"}, {Role: byheart.Assistant, Text: "ok"},
		{Role: byheart.User, Text: "second"}, {Role: byheart.Assistant, Text: "fine"}} {
		_, err := mem.AppendTurn(turn)
		require.NoError(t, err)
	}
	i, turn := NewestUser(mem)
	assert.Equal(t, 2, i)
	assert.Equal(t, "second", turn.Text)

	res := byheart.Result{Messages: []byheart.Message{
		{Role: byheart.User, Parts: []byheart.Part{{Text: "memory", Kind: byheart.PartMemory}, {Text: "first", Kind: byheart.PartTurn}}},
		{Role: byheart.Assistant, Parts: []byheart.Part{{Text: "ok", Kind: byheart.PartTurn}}},
		{Role: byheart.User, Parts: []byheart.Part{{Text: "second", Kind: byheart.PartTurn}, {Text: "an outside item", Kind: byheart.PartOutside}}},
	}}
	k, msg, part := LastUserPart(res)
	assert.Equal(t, []int{3, 2, 0}, []int{k, msg, part}, "the user's turn, not the outside item after it")
	res.Messages[0].Parts = res.Messages[0].Parts[:1]
	k, _, _ = LastUserPart(byheart.Result{Messages: res.Messages[:2]})
	assert.Equal(t, -1, k, "none when the user's turns are quoted in the memory block only")
}
