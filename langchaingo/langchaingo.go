// Package byheartlangchaingo is a langchaingo chain memory
// (github.com/tmc/langchaingo/schema.Memory) backed by a byheart.Memory.
//
// It replaces langchaingo's conversation buffer in one line:
//
//	chain := chains.NewConversation(llm, memory.NewConversationBuffer())
//
// becomes
//
//	chain := chains.NewConversation(llm, byheartlangchaingo.New(byheart.Options{}))
//
// New takes the buffer's own options (memory.WithReturnMessages,
// memory.WithMemoryKey, memory.WithInputKey, memory.WithOutputKey,
// memory.WithHumanPrefix, memory.WithAIPrefix) with the same defaults, so a
// chain configured for the buffer keeps working. memory.WithChatHistory is
// ignored: byheart keeps the history.
//
// Where the buffer hands the chain every past message, this memory hands it
// what byheart composes for the chain's input: the whole history while it fits
// the budget, and above it the relevant stretches and the turns since, in an
// order whose beginning repeats byte for byte from call to call, so a
// provider's prompt cache keeps working even though langchaingo renders it
// into a prompt string.
//
// It lives in its own module so that importing the core byheart package never
// pulls langchaingo into a build.
package byheartlangchaingo

import (
	"context"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"
)

// Memory is a langchaingo chain memory backed by a byheart.Memory. It is safe
// for concurrent use, but like any chain memory it holds one conversation:
// give each conversation its own.
type Memory struct {
	// OnExternalError, when set, receives the error of a failing
	// byheart.External source. The composition goes on without the outside
	// material either way, so a chain never fails for it. Set it before the
	// Memory is used.
	OnExternalError func(error)

	opts           byheart.Options
	returnMessages bool
	inputKey       string
	outputKey      string
	humanPrefix    string
	aiPrefix       string
	memoryKey      string

	mu   sync.Mutex
	conv *byheart.Memory
}

var _ schema.Memory = (*Memory)(nil)

// New returns a chain memory for a new, empty conversation kept by
// byheart.New(opts). The buffer options configure it as they configure
// memory.NewConversationBuffer.
func New(opts byheart.Options, bufferOptions ...memory.ConversationBufferOption) *Memory {
	return Resume(byheart.New(opts), opts, bufferOptions...)
}

// Resume returns a chain memory that continues the conversation conv, for
// instance one restored with byheart.FromJSON(data, opts). opts should be the
// options conv was made with: Clear uses them to start over.
func Resume(conv *byheart.Memory, opts byheart.Options, bufferOptions ...memory.ConversationBufferOption) *Memory {
	buf := memory.NewConversationBuffer(bufferOptions...)
	return &Memory{
		opts:           opts,
		returnMessages: buf.ReturnMessages,
		inputKey:       buf.InputKey,
		outputKey:      buf.OutputKey,
		humanPrefix:    buf.HumanPrefix,
		aiPrefix:       buf.AIPrefix,
		memoryKey:      buf.MemoryKey,
		conv:           conv,
	}
}

// Conversation returns the byheart.Memory that currently holds the
// conversation, to persist it with ToJSON or to Redact a turn.
func (m *Memory) Conversation() *byheart.Memory {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conv
}

// GetMemoryKey returns the key under which LoadMemoryVariables returns the
// history ("history" unless memory.WithMemoryKey says otherwise).
func (m *Memory) GetMemoryKey(context.Context) string { return m.memoryKey }

// MemoryVariables returns the one variable this memory fills: the memory key.
func (m *Memory) MemoryVariables(context.Context) []string { return []string{m.memoryKey} }

// LoadMemoryVariables composes the conversation for the chain's input, the
// value under the input key (or the only input when no key is set), and
// returns it under the memory key, without the input itself, which the chain's
// prompt adds. The history comes as []llms.ChatMessage when the memory was made
// with memory.WithReturnMessages(true), and otherwise as one string of
// "Human: ..." and "AI: ..." lines. Every user-role part (the memory block and
// any outside material included) is a human message, every assistant part an
// AI message.
func (m *Memory) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	query, err := memory.GetInputValue(inputs, m.inputKey)
	if err != nil {
		return nil, err
	}
	res, err := m.Conversation().Compose(ctx, query)
	if err != nil {
		return nil, err
	}
	if res.ExternalErr != nil && m.OnExternalError != nil {
		m.OnExternalError(res.ExternalErr)
	}
	history := chatMessages(res)
	if m.returnMessages {
		return map[string]any{m.memoryKey: history}, nil
	}
	text, err := llms.GetBufferString(history, m.humanPrefix, m.aiPrefix)
	if err != nil {
		return nil, err
	}
	return map[string]any{m.memoryKey: text}, nil
}

// chatMessages turns every part of res but the final query into a chat
// message of its role, in order.
func chatMessages(res byheart.Result) []llms.ChatMessage {
	var out []llms.ChatMessage
	for _, msg := range res.Messages {
		for _, p := range msg.Parts {
			if msg.Role == byheart.Assistant {
				out = append(out, llms.AIChatMessage{Content: p.Text})
			} else {
				out = append(out, llms.HumanChatMessage{Content: p.Text})
			}
		}
	}
	if len(out) > 0 {
		out = out[:len(out)-1]
	}
	return out
}

// SaveContext appends the chain's input as a user turn and its output as an
// assistant turn, the values chosen by the input and output keys as
// memory.ConversationBuffer chooses them. An empty output is not a turn and is
// skipped; an input or output that byheart would refuse (an empty input, text
// that is not UTF-8) is reported before anything is written.
func (m *Memory) SaveContext(_ context.Context, inputs, outputs map[string]any) error {
	in, err := memory.GetInputValue(inputs, m.inputKey)
	if err != nil {
		return err
	}
	out, err := memory.GetInputValue(outputs, m.outputKey)
	if err != nil {
		return err
	}
	if in == "" {
		return fmt.Errorf("byheartlangchaingo: chain input: %w", byheart.ErrEmpty)
	}
	if !utf8.ValidString(in) || !utf8.ValidString(out) {
		return fmt.Errorf("byheartlangchaingo: chain input or output: %w", byheart.ErrUTF8)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.conv.Append(byheart.User, in); err != nil {
		return err
	}
	if out == "" {
		return nil
	}
	_, err = m.conv.Append(byheart.Assistant, out)
	return err
}

// Clear starts a new, empty conversation: the memory switches to
// byheart.New with the options it was made with. byheart has no way to empty a
// Memory, so the previous one is left as it was; whoever still holds it (see
// Conversation) keeps the old conversation. To make a turn unreachable for
// good, use byheart.Memory.Redact instead.
func (m *Memory) Clear(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conv = byheart.New(m.opts)
	return nil
}
