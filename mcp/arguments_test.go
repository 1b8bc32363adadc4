package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckArgumentsRefusesWhatADecoderWouldReplace(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		ok        bool
	}{
		{"plain text", `{"text":"hello"}`, true},
		{"a surrogate pair", `{"text":"\ud83d\ude00"}`, true},
		{"a pair in capitals", `{"text":"\uD83D\uDE00"}`, true},
		{"a replacement character said outright", `{"text":"\ufffd` + "\uFFFD" + `"}`, true},
		{"an escaped backslash before u", `{"text":"\\ud800"}`, true},
		{"an escaped quote", `{"text":"say \"\ud800\" not"}`, false},
		{"a surrogate escaped in a key", `{"\udc00":1}`, false},
		{"a lone high surrogate at the end", `{"text":"\ud800"}`, false},
		{"a lone low surrogate", `{"text":"\udfff"}`, false},
		{"a high surrogate before a plain character", `{"text":"\ud800a"}`, false},
		{"two high surrogates", `{"text":"\ud800\ud800"}`, false},
		{"a truncated escape", `{"text":"\ud80`, true},
		{"invalid UTF-8", "{\"text\":\"\xc3\x28\"}", false},
		{"an encoded surrogate", "{\"text\":\"\xed\xa0\x80\"}", false},
		{"a lone low surrogate past an escaped backslash", `{"text":"\\\udc00"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkArguments([]byte(tc.raw)); (err == nil) != tc.ok {
				t.Errorf("checkArguments(%q) = %v, want ok %v", tc.raw, err, tc.ok)
			}
		})
	}
}

// FuzzCheckArguments holds checkArguments to what encoding/json does: for
// valid JSON of valid UTF-8, it refuses exactly the arguments whose
// decoding holds a U+FFFD that the text neither holds nor escapes.
func FuzzCheckArguments(f *testing.F) {
	for _, s := range []string{`{"text":"\ud83d\ude00"}`, `{"text":"\ud800"}`, `{"a":["\\\udc00", "\ufffd"]}`, `{"\ud800\u0041":0}`, `"\uDBFF\uDFFF"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		err := checkArguments(raw)
		if !utf8.Valid(raw) {
			if err == nil {
				t.Fatalf("checkArguments(%q) accepts invalid UTF-8", raw)
			}
			return
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		replaced := replacements(v) > strings.Count(string(raw), "\uFFFD")+escapedReplacements(raw)
		if replaced != (err != nil) {
			t.Fatalf("checkArguments(%q) = %v, but decoding replaces a character: %v", raw, err, replaced)
		}
	})
}

// replacements counts the U+FFFD in the strings and keys of a decoded
// JSON value.
func replacements(v any) int {
	switch v := v.(type) {
	case string:
		return strings.Count(v, "\uFFFD")
	case []any:
		n := 0
		for _, e := range v {
			n += replacements(e)
		}
		return n
	case map[string]any:
		n := 0
		for k, e := range v {
			n += strings.Count(k, "\uFFFD") + replacements(e)
		}
		return n
	}
	return 0
}

// escapedReplacements counts the escapes \ufffd in valid JSON: a u after
// an odd run of backslashes.
func escapedReplacements(raw []byte) int {
	n := 0
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			i++
			continue
		}
		run := 0
		for i < len(raw) && raw[i] == '\\' {
			run++
			i++
		}
		if run%2 == 1 && i+5 <= len(raw) && strings.EqualFold(string(raw[i:i+5]), "ufffd") {
			n++
		}
	}
	return n
}
