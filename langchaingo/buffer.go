package byheartlangchaingo

import (
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// bufferString renders messages as langchaingo's buffer string does, one
// "Prefix: text" entry per message joined by newlines, except that every
// line of a message after its first is indented by two spaces. A message's
// own text can then never start a line at the margin, where the speaker
// prefixes are, so no turn can forge another speaker's line, whatever it
// contains: line breaks of any kind (LF, CR, VT, FF, the file, group and
// record separators, U+0085, U+2028, U+2029) are followed by the indent,
// and whatever lookalike letters or invisible characters follow stay
// inside the indented line.
func bufferString(messages []llms.ChatMessage, humanPrefix, aiPrefix string) string {
	var b strings.Builder
	for i, m := range messages {
		if i > 0 {
			b.WriteByte('\n')
		}
		prefix := humanPrefix
		if m.GetType() == llms.ChatMessageTypeAI {
			prefix = aiPrefix
		}
		b.WriteString(prefix)
		b.WriteString(": ")
		writeIndented(&b, m.GetContent())
	}
	return b.String()
}

// writeIndented writes s with two spaces after every line break. A CR LF
// pair is one break.
func writeIndented(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); {
		n := breakAt(s, i)
		if n == 0 {
			i++
			continue
		}
		i += n
		b.WriteString(s[start:i])
		b.WriteString("  ")
		start = i
	}
	b.WriteString(s[start:])
}

// breakAt returns the length in bytes of the line break that starts at
// s[i], or 0 if none does. The breaks are the Unicode mandatory breaks and
// the separators that common line splitters (Python's str.splitlines among
// them) also break at.
func breakAt(s string, i int) int {
	switch c := s[i]; {
	case c >= '\n' && c <= '\r', c >= '\x1c' && c <= '\x1e':
		if c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			return 2
		}
		return 1
	case c == 0xC2: // U+0085
		if i+1 < len(s) && s[i+1] == 0x85 {
			return 2
		}
	case c == 0xE2: // U+2028, U+2029
		if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}
