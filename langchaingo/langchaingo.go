// Package byheartlangchaingo is a langchaingo chain memory
// (github.com/tmc/langchaingo/schema.Memory) backed by a byheart.Memory, and
// a way to send what byheart composes through llms.Model.GenerateContent.
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
// memory.WithHumanPrefix, memory.WithAIPrefix, memory.WithChatHistory) with
// the same defaults, so a chain configured for the buffer keeps working.
//
// Where the buffer hands the chain every past message, this memory hands it
// what byheart composes for the chain's input: the whole history while it fits
// the budget, and above it the relevant stretches and the turns since, in an
// order whose beginning repeats byte for byte from call to call, so a
// provider's prompt cache keeps working even though langchaingo renders it
// into a prompt string.
//
// # Chat histories
//
// With memory.WithChatHistory, the chat history (langchaingo's SQL, Redis or
// any other schema.ChatMessageHistory) stays the record of the conversation,
// as it is for the buffer: SaveContext adds each exchange to it, Clear clears
// it, and before every call the byheart.Memory takes in the messages the
// history has gained since, so a conversation persisted there survives a
// restart and sees what other processes added. The history must hold human
// and AI messages only; any other kind is reported as ErrHistory rather than
// left out without a word. Empty messages carry nothing and are skipped.
//
// It lives in its own module so that importing the core byheart package never
// pulls langchaingo into a build.
package byheartlangchaingo

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"
)

// ErrHistory reports a chat history that cannot be a byheart conversation:
// it holds a message that is neither a human nor an AI message.
var ErrHistory = errors.New("byheartlangchaingo: chat history message is neither human nor AI")

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
	history        schema.ChatMessageHistory // nil without memory.WithChatHistory

	mu   sync.Mutex
	conv *byheart.Memory
	// synced is how many of the history's messages conv holds; -1 until
	// the first sync of a resumed conversation has counted them.
	synced int
}

var _ schema.Memory = (*Memory)(nil)

// New returns a chain memory for a new, empty conversation kept by
// byheart.New(opts), or for the conversation in the chat history given with
// memory.WithChatHistory. The buffer options configure it as they configure
// memory.NewConversationBuffer.
func New(opts byheart.Options, bufferOptions ...memory.ConversationBufferOption) *Memory {
	m := Resume(byheart.New(opts), opts, bufferOptions...)
	m.synced = 0
	return m
}

// Resume returns a chain memory that continues the conversation conv, for
// instance one restored with byheart.FromJSON(data, opts). opts should be the
// options conv was made with: Clear uses them to start over. With
// memory.WithChatHistory, conv must hold the history's first conv.Len()
// non-empty messages; the messages after them are added on first use, and
// if the history holds fewer, the conversation is rebuilt from the history.
func Resume(conv *byheart.Memory, opts byheart.Options, bufferOptions ...memory.ConversationBufferOption) *Memory {
	buf := memory.NewConversationBuffer()
	buf.ChatHistory = nil // to tell whether an option sets one
	for _, o := range bufferOptions {
		o(buf)
	}
	return &Memory{
		opts:           opts,
		returnMessages: buf.ReturnMessages,
		inputKey:       buf.InputKey,
		outputKey:      buf.OutputKey,
		humanPrefix:    buf.HumanPrefix,
		aiPrefix:       buf.AIPrefix,
		memoryKey:      buf.MemoryKey,
		history:        buf.ChatHistory,
		conv:           conv,
		synced:         -1,
	}
}

// Conversation returns the byheart.Memory that currently holds the
// conversation, to persist it with ToJSON or to Redact a turn. With a chat
// history, the history holds the text too: remove it there as well.
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

// LoadMemoryVariables composes the conversation for the chain's input and
// returns it under the memory key, without the input itself, which the
// chain's prompt adds. The input is the value under the input key, or the
// only input; a chain with several inputs and no input key is composed for
// all its text inputs together, since the buffer, which ignores the inputs
// here, serves such chains too.
//
// The history comes as []llms.ChatMessage when the memory was made with
// memory.WithReturnMessages(true), and otherwise as one string of
// "Human: ..." and "AI: ..." entries in which every line of a message after
// its first is indented by two spaces, so no message can forge another
// speaker's line. Every user-role part (the memory block and any outside
// material included) is a human message, every assistant part an AI
// message.
func (m *Memory) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	query, err := queryOf(inputs, m.inputKey)
	if err != nil {
		return nil, err
	}
	res, err := m.Compose(ctx, query)
	if err != nil {
		return nil, err
	}
	history := chatMessages(res)
	if m.returnMessages {
		return map[string]any{m.memoryKey: history}, nil
	}
	return map[string]any{m.memoryKey: bufferString(history, m.humanPrefix, m.aiPrefix)}, nil
}

// queryOf picks the text to compose for from a chain's inputs.
func queryOf(inputs map[string]any, key string) (string, error) {
	if key != "" || len(inputs) <= 1 {
		return memory.GetInputValue(inputs, key)
	}
	keys := make([]string, 0, len(inputs))
	for k, v := range inputs {
		if _, ok := v.(string); ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "", fmt.Errorf("%w: no input is text", memory.ErrInvalidInputValues)
	}
	sort.Strings(keys)
	texts := make([]string, len(keys))
	for i, k := range keys {
		texts[i] = inputs[k].(string)
	}
	return strings.Join(texts, "\n"), nil
}

// Compose brings the conversation up to date with the chat history, if
// any, and composes it for query, reporting a failing External source to
// OnExternalError. It is what LoadMemoryVariables sends; for
// llms.Model.GenerateContent, turn the Result into messages with Contents.
func (m *Memory) Compose(ctx context.Context, query string) (byheart.Result, error) {
	m.mu.Lock()
	err := m.sync(ctx)
	conv := m.conv
	m.mu.Unlock()
	if err != nil {
		return byheart.Result{}, err
	}
	// Asked now: after a pause longer than a provider's prompt cache
	// lives, the memory rebuilds for the question rather than cache the old
	// context again.
	res, err := conv.ComposeAt(ctx, query, time.Now())
	if err != nil {
		return byheart.Result{}, err
	}
	if res.ExternalErr != nil && m.OnExternalError != nil {
		m.OnExternalError(res.ExternalErr)
	}
	return res, nil
}

// chatMessages turns every part of res but the final query into a chat
// message of its role, in order: the assistant's words and tool calls are AI
// messages, everything else (tool results and notes among it, framed by
// byheart) human messages.
func chatMessages(res byheart.Result) []llms.ChatMessage {
	var out []llms.ChatMessage
	for _, msg := range res.Messages {
		for _, p := range msg.Parts {
			if msg.Role == byheart.Assistant || msg.Role == byheart.ToolCall {
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

// SaveContext records the chain's input as a user turn and its output as an
// assistant turn, the values chosen by the input and output keys as
// memory.ConversationBuffer chooses them (so a chain with several inputs
// needs memory.WithInputKey, as it does with the buffer). See Save.
func (m *Memory) SaveContext(ctx context.Context, inputs, outputs map[string]any) error {
	in, err := memory.GetInputValue(inputs, m.inputKey)
	if err != nil {
		return err
	}
	out, err := memory.GetInputValue(outputs, m.outputKey)
	if err != nil {
		return err
	}
	return m.Save(ctx, in, out)
}

// Save records an exchange: input as a user turn and output as an assistant
// turn, in the chat history first when there is one. An empty output is
// not a turn and is skipped; an input or output that byheart would refuse
// (an empty input, text that is not UTF-8) is reported before anything is
// written.
func (m *Memory) Save(ctx context.Context, input, output string) error {
	if input == "" {
		return fmt.Errorf("byheartlangchaingo: chain input: %w", byheart.ErrEmpty)
	}
	if !utf8.ValidString(input) || !utf8.ValidString(output) {
		return fmt.Errorf("byheartlangchaingo: chain input or output: %w", byheart.ErrUTF8)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.sync(ctx); err != nil {
		return err
	}
	if err := m.record(ctx, byheart.User, input); err != nil {
		return err
	}
	if output == "" {
		return nil
	}
	return m.record(ctx, byheart.Assistant, output)
}

// record adds one turn to the history, if any, and to the conversation.
func (m *Memory) record(ctx context.Context, role byheart.Role, text string) error {
	if m.history != nil {
		add := m.history.AddUserMessage
		if role == byheart.Assistant {
			add = m.history.AddAIMessage
		}
		if err := add(ctx, text); err != nil {
			return err
		}
		m.synced++
	}
	// A live chain saves an exchange as it happens: its time lets the
	// memory resolve relative dates ("last Saturday") and tell a pause.
	_, err := m.conv.AppendAt(role, text, time.Now())
	return err
}

// sync appends to the conversation the messages the chat history gained
// since the last sync, and starts over from the history when it lost
// messages (cleared or rewritten elsewhere). The caller holds m.mu.
func (m *Memory) sync(ctx context.Context) error {
	if m.history == nil {
		return nil
	}
	msgs, err := m.history.Messages(ctx)
	if err != nil {
		return err
	}
	if m.synced < 0 {
		m.synced = holding(msgs, m.conv.Len())
	}
	if m.synced < 0 || m.synced > len(msgs) {
		m.conv = byheart.New(m.opts)
		m.synced = 0
	}
	for ; m.synced < len(msgs); m.synced++ {
		msg := msgs[m.synced]
		role := byheart.User
		switch msg.GetType() {
		case llms.ChatMessageTypeHuman:
		case llms.ChatMessageTypeAI:
			role = byheart.Assistant
		default:
			return fmt.Errorf("%w: message %d is a %s message", ErrHistory, m.synced, msg.GetType())
		}
		if msg.GetContent() == "" {
			continue
		}
		if _, err := m.conv.Append(role, msg.GetContent()); err != nil {
			return fmt.Errorf("byheartlangchaingo: chat history message %d: %w", m.synced, err)
		}
	}
	return nil
}

// holding is how many of msgs hold the first n non-empty messages, or -1
// when msgs has fewer.
func holding(msgs []llms.ChatMessage, n int) int {
	for i, msg := range msgs {
		if n == 0 {
			return i
		}
		if msg.GetContent() != "" {
			n--
		}
	}
	if n == 0 {
		return len(msgs)
	}
	return -1
}

// Clear starts a new, empty conversation: it clears the chat history, if
// any, and switches to byheart.New with the options the memory was made
// with. byheart has no way to empty a Memory, so the previous one is left as
// it was; whoever still holds it (see Conversation) keeps the old
// conversation. To make a turn unreachable for good, use
// byheart.Memory.Redact instead.
func (m *Memory) Clear(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.history != nil {
		if err := m.history.Clear(ctx); err != nil {
			return err
		}
	}
	m.conv = byheart.New(m.opts)
	m.synced = 0
	return nil
}
