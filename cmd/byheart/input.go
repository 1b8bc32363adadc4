package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/byheart/byheart"
)

// A conversation comes in one of two forms:
//
//   - JSON Lines, one turn per line: {"role": "user", "text": "…", "time":
//     "2023-05-08T13:56:00Z"}, where role is user or assistant, text is the
//     turn as said and time, optional, is RFC 3339; an agent's turns have
//     the roles tool_call, tool_result and note, with "tool", "call_id",
//     "source" and "authenticated" as byheart.Turn has them; blank lines
//     are skipped;
//   - a memory saved with Memory.ToJSON, which keeps its stretches and its
//     kept selection.
//
// A file that is one JSON object with a saved memory's "turns" is read as
// a saved memory; anything else as JSON Lines.

// inputTurn is one line of a JSON Lines conversation.
type inputTurn struct {
	Role          string  `json:"role"`
	Text          *string `json:"text"`
	Time          string  `json:"time"`
	Tool          string  `json:"tool"`
	CallID        string  `json:"call_id"`
	Source        string  `json:"source"`
	Authenticated bool    `json:"authenticated"`
}

// roles are the roles a line may have.
var roles = []byheart.Role{byheart.User, byheart.Assistant, byheart.ToolCall, byheart.ToolResult, byheart.Note}

// maxLine bounds one line of input, so a file without line breaks cannot
// take all the memory there is.
const maxLine = 16 << 20

// numbered is a turn and the line it was read from.
type numbered struct {
	byheart.Turn
	line int
}

// readTurns reads a JSON Lines conversation. An error names the file and
// the line: "chat.jsonl:7: …".
func readTurns(r io.Reader, name string) ([]numbered, error) {
	br := bufio.NewReader(r)
	var turns []numbered
	for n := 1; ; n++ {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			t, perr := parseTurn(line)
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, perr)
			}
			turns = append(turns, numbered{t, n})
		}
		if errors.Is(err, io.EOF) {
			return turns, nil
		}
	}
}

// readLine returns the next line without its line break; io.EOF comes with
// the last one.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("longer than %d bytes", maxLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), err
		}
	}
}

func parseTurn(line []byte) (byheart.Turn, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var in inputTurn
	if err := dec.Decode(&in); err != nil {
		return byheart.Turn{}, fmt.Errorf("not a turn (want {\"role\": …, \"text\": …}): %w", err)
	}
	if dec.More() {
		return byheart.Turn{}, errors.New("more than one JSON value on the line")
	}
	role := byheart.Role(in.Role)
	if !slices.Contains(roles, role) {
		return byheart.Turn{}, fmt.Errorf("role %q is none of %q", in.Role, roles)
	}
	if in.Text == nil {
		return byheart.Turn{}, errors.New(`no "text"`)
	}
	t := byheart.Turn{Role: role, Text: *in.Text, Tool: in.Tool, CallID: in.CallID,
		Source: byheart.Source{Name: in.Source, Authenticated: in.Authenticated}}
	if in.Time != "" {
		when, err := time.Parse(time.RFC3339, in.Time)
		if err != nil {
			return byheart.Turn{}, fmt.Errorf("time %q is not RFC 3339 (like 2023-05-08T13:56:00Z)", in.Time)
		}
		t.Time = when
	}
	return t, nil
}

// conversation is a file read: its turns, by the line they came from, and
// the file itself when it is a saved memory.
type conversation struct {
	turns []numbered
	saved []byte
}

// read reads the conversation in path.
func read(path string) (*conversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if isSavedMemory(data) {
		m, err := byheart.FromJSON(data, byheart.Options{})
		if err != nil {
			return nil, fmt.Errorf("%s: not a memory byheart can restore: %w", path, err)
		}
		c := &conversation{saved: data, turns: make([]numbered, m.Len())}
		for i := range c.turns {
			t, err := m.Turn(i)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			c.turns[i] = numbered{t, 1}
		}
		return c, nil
	}
	turns, err := readTurns(bytes.NewReader(data), path)
	if err != nil {
		return nil, err
	}
	if len(turns) == 0 {
		return nil, fmt.Errorf("%s: no turns", path)
	}
	// A turn without a time was said when the one before it was, as
	// AppendAt has it.
	for i := 1; i < len(turns); i++ {
		if turns[i].Time.IsZero() {
			turns[i].Time = turns[i-1].Time
		}
	}
	return &conversation{turns: turns}, nil
}

// newest is the newest turn's time: the clock of a call that gives none.
func (c *conversation) newest() time.Time {
	if len(c.turns) == 0 {
		return time.Time{}
	}
	return c.turns[len(c.turns)-1].Time
}

// memory returns a Memory configured by opts holding the conversation: the
// saved one restored, or the turns appended in order.
func (c *conversation) memory(path string, opts byheart.Options) (*byheart.Memory, error) {
	if c.saved != nil {
		return byheart.FromJSON(c.saved, opts)
	}
	m := byheart.New(opts)
	for _, t := range c.turns {
		if _, err := m.AppendTurn(t.Turn); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, t.line, err)
		}
	}
	return m, nil
}

// isSavedMemory reports whether data is one JSON object with the "turns"
// of a saved memory; a turn of JSON Lines never has them.
func isSavedMemory(data []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return false
	}
	_, ok := obj["turns"]
	return ok
}
