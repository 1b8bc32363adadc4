// This file reads the JSON values of a sample and says, in its errors,
// what was found where.

package locomo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// object decodes raw as a JSON object, naming path when it is something else.
func object(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%s: want an object, found %s", path, jsonKind(raw))
	}
	return obj, nil
}

// text reads obj[key] as a string; numbers are taken as their literal, since
// the published data writes some answers as bare numbers. path names obj in
// messages ("" at the top of a sample).
func text(obj map[string]json.RawMessage, key, path string, required bool) (string, error) {
	raw, ok := obj[key]
	if !ok || string(raw) == "null" {
		if !required {
			return "", nil
		}
		if path == "" {
			return "", fmt.Errorf("missing %q", key)
		}
		return "", fmt.Errorf("%s: missing %q", path, key)
	}
	at := key
	if path != "" {
		at = path + "." + key
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if required && strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("%s: is empty", at)
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("%s: want a string, found %s", at, jsonKind(raw))
}

// jsonKind names the kind of a JSON value for error messages.
func jsonKind(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "":
		return "nothing"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "a list"
	case s[0] == '"':
		return "a string " + s
	case s == "null":
		return "null"
	case s == "true" || s == "false":
		return "a boolean"
	default:
		return "a number " + s
	}
}

// tokenKind names the first token of a file that is not a list.
func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return string(v)
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// jsonError turns a decoding error into one that says where the file breaks.
func jsonError(data []byte, err error) error {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		line, col := position(data, int(syntax.Offset))
		return fmt.Errorf("line %d, column %d: not valid JSON: %v", line, col, err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the file ends in the middle of the JSON")
	}
	return err
}

// skipSeparators moves past the white space and comma a decoder leaves
// before the next value, so that line numbers point at the value itself.
func skipSeparators(data []byte, off int) int {
	for off < len(data) && (data[off] == ',' || data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t') {
		off++
	}
	return off
}

func lineOf(data []byte, off int) int {
	line, _ := position(data, off)
	return line
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}
