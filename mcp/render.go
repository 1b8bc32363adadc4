package mcp

import (
	"strings"

	"github.com/byheart/byheart"
)

// Render returns the text the recall tool sends for a composition: its
// parts in order, one blank line between them, byheart's memory and
// outside parts as they are (they carry their own framing), and each turn
// sent natively under its speaker's label ("user: ", "assistant: ") as
// byheart's memory block quotes a turn: every line after its first
// indented, and a line that reads as a speaker's label opened with
// "[quoted] " (byheart.Indent, byheart.GuardLabels), so that nothing a
// turn says can pass for another turn. The query is left out: the client's
// model has it already.
func Render(res byheart.Result) string {
	var b strings.Builder
	for _, m := range res.Messages {
		for _, p := range m.Parts {
			if p.Kind == byheart.PartQuery {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			text := strings.TrimSuffix(p.Text, "\n")
			if p.Kind == byheart.PartTurn {
				b.WriteString(string(m.Role))
				b.WriteString(": ")
				text = byheart.Indent(byheart.GuardLabels(text, labels...))
			}
			b.WriteString(text)
		}
	}
	return b.String()
}

// labels are the speakers Render writes.
var labels = []string{string(byheart.User), string(byheart.Assistant), string(byheart.ToolCall), string(byheart.ToolResult), string(byheart.Note)}
