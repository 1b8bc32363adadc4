package mcp

import (
	"fmt"
	"unicode/utf8"
)

// checkArguments refuses a tool call's raw JSON arguments when they are not
// valid UTF-8, or when a string in them escapes half of a UTF-16 surrogate
// pair (\ud800 alone), which is no character. A JSON decoder takes either
// and hands the handler U+FFFD in its place, so a turn would be stored
// with words the client never sent. The SDK has checked the arguments
// against the tool's schema already; this reads only what it lets through,
// and treats anything it does not recognise as not its concern.
func checkArguments(raw []byte) error {
	if !utf8.Valid(raw) {
		return fmt.Errorf("%w: the arguments are not valid UTF-8", errArgument)
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString:
			if i+1 < len(raw) && raw[i+1] == 'u' {
				r, ok := hex4(raw, i+2)
				if ok && 0xDC00 <= r && r <= 0xDFFF {
					return fmt.Errorf("%w: the arguments escape an unpaired surrogate (\\u%04x), which is no character", errArgument, r)
				}
				if ok && 0xD800 <= r && r <= 0xDBFF {
					low, lok := rune(0), false
					if i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
						low, lok = hex4(raw, i+8)
					}
					if !lok || low < 0xDC00 || low > 0xDFFF {
						return fmt.Errorf("%w: the arguments escape an unpaired surrogate (\\u%04x), which is no character", errArgument, r)
					}
					i += 6 // past the high half; the loop steps over the low one's backslash below
				}
			}
			i++ // the escaped character
		}
	}
	return nil
}

// hex4 reads the four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
