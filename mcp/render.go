package mcp

import (
	"strings"

	"github.com/byheart/byheart"
)

// Render returns the text the recall tool sends for a composition: its
// parts in order, each turn sent natively under its speaker's label
// ("user: ", "assistant: "), byheart's memory and outside parts as they
// are (they carry their own framing), one blank line between parts. The
// query is left out: the client's model has it already. Compose has
// guarded every line it quotes, natively or in a memory part, so none
// can pass for a label, a date line or a marker.
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
			if p.Kind == byheart.PartTurn {
				b.WriteString(string(m.Role))
				b.WriteString(": ")
			}
			b.WriteString(strings.TrimSuffix(p.Text, "\n"))
		}
	}
	return b.String()
}
