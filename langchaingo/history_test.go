package byheartlangchaingo

import (
	"testing"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/tmc/langchaingo/llms"
)

func TestChatMessages(t *testing.T) {
	user := func(texts ...string) byheart.Message { return message(byheart.User, texts) }
	assistant := func(texts ...string) byheart.Message { return message(byheart.Assistant, texts) }
	tests := []struct {
		name string
		in   []byheart.Message
		want []llms.ChatMessage
	}{
		{
			name: "a first query leaves no history",
			in:   []byheart.Message{user("query")},
			want: []llms.ChatMessage{},
		},
		{
			name: "below the budget every turn is a message of its role and the query is left for the chain",
			in:   []byheart.Message{user("hi"), assistant("hello"), user("query")},
			want: []llms.ChatMessage{llms.HumanChatMessage{Content: "hi"}, llms.AIChatMessage{Content: "hello"}},
		},
		{
			name: "above the budget the memory block, the tail and outside material come in order as parts of their role",
			in: []byheart.Message{
				user("[memory block]", "tail question"), assistant("tail answer"),
				user("[outside material]", "query"),
			},
			want: []llms.ChatMessage{
				llms.HumanChatMessage{Content: "[memory block]"}, llms.HumanChatMessage{Content: "tail question"},
				llms.AIChatMessage{Content: "tail answer"}, llms.HumanChatMessage{Content: "[outside material]"},
			},
		},
		{
			name: "a tool call is the assistant's; a tool result and a note are human messages, in byheart's frame",
			in: []byheart.Message{
				user("look it up"), message(byheart.ToolCall, []string{"[called search] {}"}),
				message(byheart.ToolResult, []string{"«byheart tool result» of search: found"}),
				message(byheart.Note, []string{"«byheart note» from upload: a file"}), user("query"),
			},
			want: []llms.ChatMessage{
				llms.HumanChatMessage{Content: "look it up"}, llms.AIChatMessage{Content: "[called search] {}"},
				llms.HumanChatMessage{Content: "«byheart tool result» of search: found"},
				llms.HumanChatMessage{Content: "«byheart note» from upload: a file"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, chatMessages(byheart.Result{Messages: tt.in, StableUpto: -1}))
		})
	}
}

func message(role byheart.Role, texts []string) byheart.Message {
	m := byheart.Message{Role: role}
	for _, text := range texts {
		m.Parts = append(m.Parts, byheart.Part{Text: text})
	}
	return m
}
