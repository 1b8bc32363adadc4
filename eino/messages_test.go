package byhearteino_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/byheart/byheart"
	byhearteino "github.com/byheart/byheart/eino"
)

func TestMessages(t *testing.T) {
	call := &byheart.Call{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
	tests := []struct {
		name   string
		res    byheart.Result
		want   []schema.Message
		stable int
	}{
		{"a reply's calls ride on its assistant message, each result after it",
			byheart.Result{Messages: []byheart.Message{
				{Role: byheart.User, Parts: []byheart.Part{{Text: "weather?"}}},
				{Role: byheart.Assistant, Parts: []byheart.Part{{Text: "Looking."}}},
				{Role: byheart.ToolCall, Parts: []byheart.Part{{Text: "[called get_weather]", Call: call}}},
				{Role: byheart.ToolResult, Parts: []byheart.Part{{Text: "framed 18", Call: &byheart.Call{ID: "c1", Name: "get_weather"}}}},
			}, StableUpto: 3},
			[]schema.Message{
				{Role: schema.User, Content: "weather?"},
				{Role: schema.Assistant, Content: "Looking.", ToolCalls: []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
				{Role: schema.Tool, Content: "framed 18", ToolCallID: "c1", ToolName: "get_weather"},
			}, 2},
		{"a call without its result is its text",
			byheart.Result{Messages: []byheart.Message{
				{Role: byheart.User, Parts: []byheart.Part{{Text: "weather?"}}},
				{Role: byheart.ToolCall, Parts: []byheart.Part{{Text: "[called get_weather]", Call: call}}},
				{Role: byheart.User, Parts: []byheart.Part{{Text: "never mind"}}},
			}, StableUpto: 2},
			[]schema.Message{
				{Role: schema.User, Content: "weather?"},
				{Role: schema.Assistant, Content: "[called get_weather]"},
				{Role: schema.User, Content: "never mind"},
			}, 2},
		{"a composition starting with the assistant is opened for the user",
			byheart.Result{Messages: []byheart.Message{
				{Role: byheart.Assistant, Parts: []byheart.Part{{Text: "Reply."}}},
				{Role: byheart.User, Parts: []byheart.Part{{Text: "Question?"}}},
			}, StableUpto: 1},
			[]schema.Message{
				{Role: schema.User, Content: byhearteino.Opening},
				{Role: schema.Assistant, Content: "Reply."},
				{Role: schema.User, Content: "Question?"},
			}, 2},
		{"text after a reply's calls joins their message, which its results follow",
			byheart.Result{Messages: []byheart.Message{
				{Role: byheart.User, Parts: []byheart.Part{{Text: "weather?"}}},
				{Role: byheart.ToolCall, Parts: []byheart.Part{{Text: "[called get_weather]", Call: call}}},
				{Role: byheart.Assistant, Parts: []byheart.Part{{Text: "Still looking."}}},
				{Role: byheart.ToolResult, Parts: []byheart.Part{{Text: "framed 18", Call: &byheart.Call{ID: "c1", Name: "get_weather"}}}},
			}, StableUpto: 2},
			[]schema.Message{
				{Role: schema.User, Content: "weather?"},
				{Role: schema.Assistant, Content: "Still looking.", ToolCalls: []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
				{Role: schema.Tool, Content: "framed 18", ToolCallID: "c1", ToolName: "get_weather"},
			}, 1},
		{"calls sharing an id in one request get ids of their own",
			byheart.Result{Messages: []byheart.Message{
				{Role: byheart.ToolCall, Parts: []byheart.Part{{Text: "[called get_weather]", Call: call}}},
				{Role: byheart.ToolResult, Parts: []byheart.Part{{Text: "framed 18", Call: &byheart.Call{ID: "c1", Name: "get_weather"}}}},
				{Role: byheart.ToolCall, Parts: []byheart.Part{{Text: "[called get_weather]", Call: call}}},
				{Role: byheart.ToolResult, Parts: []byheart.Part{{Text: "framed 19", Call: &byheart.Call{ID: "c1", Name: "get_weather"}}}},
			}, StableUpto: 3},
			[]schema.Message{
				{Role: schema.User, Content: byhearteino.Opening},
				{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
				{Role: schema.Tool, Content: "framed 18", ToolCallID: "c1", ToolName: "get_weather"},
				{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: "byheart_call_2", Type: "function", Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
				{Role: schema.Tool, Content: "framed 19", ToolCallID: "byheart_call_2", ToolName: "get_weather"},
			}, 4},
		{"nothing", byheart.Result{StableUpto: -1}, nil, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, stable := byhearteino.Messages(tt.res)
			require.Len(t, got, len(tt.want))
			for i := range got {
				assert.Equal(t, tt.want[i], *got[i])
			}
			assert.Equal(t, tt.stable, stable)
		})
	}
}

func TestAMultiPartMessageIsKeptAsItsTextWithItsOtherPartsDescribed(t *testing.T) {
	mem := byheart.New(byheart.Options{})
	agentMessages := []*schema.Message{{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "What is in this picture?"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{}},
		{Type: schema.ChatMessagePartTypeText, Text: "It is from Tuesday."},
	}}}
	given := map[int]*schema.Message{}
	require.NoError(t, byhearteino.AppendMessages(mem, agentMessages, nil, time.Now(), given))
	turn, err := mem.Turn(0)
	require.NoError(t, err)
	assert.Equal(t, "What is in this picture?\n\n[image attachment, not kept]\n\nIt is from Tuesday.", turn.Text)
	assert.Equal(t, map[int]*schema.Message{0: agentMessages[0]}, given, "kept to be sent as it came while it is current")
}

func TestDescriptionsSayWhatWasSent(t *testing.T) {
	url, data, b64 := "https://example.com/a.png", "data:image/png;base64,AAAA", "AAAAAAAA"
	long := "https://example.com/" + strings.Repeat("x", 300)
	for _, tc := range []struct {
		part schema.MessageInputPart
		want string
	}{
		{schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{
			MessagePartCommon: schema.MessagePartCommon{URL: &url, MIMEType: "image/png"}}}, "[image/png attachment, https://example.com/a.png, not kept]"},
		{schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{
			MessagePartCommon: schema.MessagePartCommon{URL: &data}}}, "[image attachment, inline data, not kept]"},
		{schema.MessageInputPart{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{
			MessagePartCommon: schema.MessagePartCommon{Base64Data: &b64, MIMEType: "audio/wav"}}}, "[audio/wav attachment, 6 bytes, not kept]"},
		{schema.MessageInputPart{Type: schema.ChatMessagePartTypeFileURL, File: &schema.MessageInputFile{Name: "q3.pdf"}}, "[file attachment, “q3.pdf”, not kept]"},
		{schema.MessageInputPart{Type: schema.ChatMessagePartTypeVideoURL, Video: &schema.MessageInputVideo{
			MessagePartCommon: schema.MessagePartCommon{URL: &long}}}, "[video attachment, " + long[:200] + "…, not kept]"},
	} {
		mem := byheart.New(byheart.Options{})
		require.NoError(t, byhearteino.AppendMessages(mem, []*schema.Message{{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{tc.part}}}, nil, time.Now(), nil))
		turn, err := mem.Turn(0)
		require.NoError(t, err)
		assert.Equal(t, tc.want, turn.Text)
	}
}
