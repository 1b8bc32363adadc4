// Package storetest holds what every store.Store must pass, for the store
// modules' tests to run on their database: Run, the conformance tests, and
// Benchmark, the stateless and warm requests. It builds its conversations
// with Chat and uses no database of its own.
package storetest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/byheart/byheart"
)

// words are what Chat's turns are made of: enough distinct ones that
// stretches differ and a query picks some over others.
var words = strings.Fields(`garden tomato basil compost seedling greenhouse mulch deploy rollback
migration cluster canary lisbon flight hotel passport tram luggage guitar chord concert piano
rehearsal setlist sourdough oven flour starter crust proofing pricing invoice discount
subscription euro annual dentist appointment calendar weekend marathon training knee physio
birthday present sister cousin wedding venue budget mortgage bank loan paint kitchen tiles
plumber boiler winter heating novel chapter library author poem museum exhibition ticket`)

var fillers = strings.Fields(`the a we I you it was is to and of about that then so really maybe
just still again later yesterday tomorrow last next week month because but with for on`)

// Chat returns n turns of a synthetic conversation, the same for the same
// seed: users and assistants taking turns a minute apart, with a pause of
// a day every fifty turns and, every ninth exchange, an agent step (a tool
// call and its result, from an authenticated source).
func Chat(seed uint64, n int) []byheart.Turn {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	when := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	out := make([]byheart.Turn, 0, n)
	for len(out) < n {
		i := len(out)
		when = when.Add(time.Minute)
		if i%50 == 49 {
			when = when.Add(24 * time.Hour)
		}
		switch {
		case i%18 == 1 && len(out)+3 <= n:
			id := fmt.Sprintf("call-%d", i)
			out = append(out,
				byheart.Turn{Role: byheart.ToolCall, Tool: "search", CallID: id, Text: `{"q":"` + sentence(r, 3) + `"}`, Time: when},
				byheart.Turn{Role: byheart.ToolResult, CallID: id, Tool: "search", Text: sentence(r, 14), Time: when,
					Source: byheart.Source{Name: "tool:search", Authenticated: true}},
				byheart.Turn{Role: byheart.Assistant, Text: sentence(r, 10+r.IntN(12)), Time: when})
		case i%2 == 0:
			out = append(out, byheart.Turn{Role: byheart.User, Text: sentence(r, 6+r.IntN(16)), Time: when})
		default:
			out = append(out, byheart.Turn{Role: byheart.Assistant, Text: sentence(r, 10+r.IntN(20)), Time: when})
		}
	}
	return out[:n]
}

// sentence is n words, one in three of them a content word.
func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for k := range n {
		if k > 0 {
			b.WriteByte(' ')
		}
		if r.IntN(3) == 0 {
			b.WriteString(words[r.IntN(len(words))])
		} else {
			b.WriteString(fillers[r.IntN(len(fillers))])
		}
	}
	b.WriteByte('.')
	return b.String()
}
