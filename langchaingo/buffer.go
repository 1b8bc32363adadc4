package byheartlangchaingo

import (
	"strings"

	"github.com/byheart/byheart"
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
		b.WriteString(byheart.Indent(m.GetContent()))
	}
	return b.String()
}
