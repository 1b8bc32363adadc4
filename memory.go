package byheart

import (
	"errors"
	"sync"
	"time"
	"unicode/utf8"
)

// Role says who spoke a turn. Only User and Assistant are accepted.
type Role string

// The two roles a conversation turn may have.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// Errors returned by Memory. Callers branch on them with errors.Is.
var (
	ErrRole   = errors.New("byheart: role must be \"user\" or \"assistant\"")
	ErrEmpty  = errors.New("byheart: turn text is empty")
	ErrUTF8   = errors.New("byheart: turn text is not valid UTF-8")
	ErrIndex  = errors.New("byheart: turn index out of range")
	ErrFormat = errors.New("byheart: malformed memory data")
)

// Options configures a Memory. The zero value is the recommended setup.
type Options struct {
	Budget         int
	Chunk          int
	Stability      float64
	Boundaries     func(tail []Turn) []int
	Retriever      Retriever
	External       External
	ExternalMargin float64
}

// Turn is one message of the conversation as it was appended.
type Turn struct {
	Role     Role
	Text     string
	Time     time.Time
	Redacted bool
}

// Memory holds one conversation. WIP skeleton.
type Memory struct {
	mu    sync.Mutex
	opt   Options
	turns []Turn
}

// New returns an empty Memory.
func New(opts Options) *Memory { return &Memory{opt: opts} }

// Append records a turn with no time of its own.
func (m *Memory) Append(role Role, text string) (int, error) {
	return m.AppendAt(role, text, time.Time{})
}

// AppendAt records a turn said at when.
func (m *Memory) AppendAt(role Role, text string, when time.Time) (int, error) {
	if role != User && role != Assistant {
		return -1, ErrRole
	}
	if text == "" {
		return -1, ErrEmpty
	}
	if !utf8.ValidString(text) {
		return -1, ErrUTF8
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if when.IsZero() && len(m.turns) > 0 {
		when = m.turns[len(m.turns)-1].Time
	}
	m.turns = append(m.turns, Turn{Role: role, Text: text, Time: when})
	return len(m.turns) - 1, nil
}
