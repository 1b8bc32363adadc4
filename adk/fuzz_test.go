package byheartadk

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/agenthistory"
	"github.com/byheart/byheart/internal/agentturn"
	"google.golang.org/genai"
)

// FuzzEventMapping plays a byte string as a session's events (see
// agenthistory.FuzzScript: user text that names a date and images, either
// first, model replies whose calls draw ids and tool names that repeat,
// are empty, ADK's own, or byheart refuses, and responses to them in or
// out of order, some naming no call) through the mapping the plugin
// appends them with, now and then under a store's small limit, and
// composes a request at its time after each: nothing is ever refused,
// every request pairs each call with its own response under an id no
// other call of the request has, and carries the user's current images.
func FuzzEventMapping(f *testing.F) {
	for _, seed := range agenthistory.FuzzSeeds {
		f.Add(seed)
	}
	ids := append([]string{"adk-1"}, agenthistory.FuzzIDs...)
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := byheart.New(byheart.Options{Budget: 600})
		var user *genai.Content
		var said time.Time // when the user's newest message came
		for step, s := range agenthistory.FuzzScript(data, ids) {
			c, author := &genai.Content{Role: genai.RoleModel}, "helper"
			switch s.Kind {
			case agenthistory.FuzzUser:
				c, author = &genai.Content{Role: genai.RoleUser}, genai.RoleUser
				if s.Text != "" {
					c.Parts = append(c.Parts, genai.NewPartFromText(s.Text))
				}
				if s.Image {
					c.Parts = append(c.Parts, &genai.Part{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{s.Arg}}})
				}
				if s.ImageFirst {
					slices.Reverse(c.Parts)
				}
				user, said = c, s.At
			case agenthistory.FuzzReply:
				c.Parts = append(c.Parts, genai.NewPartFromText("looking"))
				for _, call := range s.Calls {
					c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: call.ID, Name: call.Tool, Args: map[string]any{"i": call.N}}})
				}
			case agenthistory.FuzzResponses:
				c.Role, author = genai.RoleUser, genai.RoleUser
				for _, call := range s.Calls {
					c.Parts = append(c.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: call.ID, Name: call.Tool, Response: map[string]any{"v": call.Output}}})
				}
			case agenthistory.FuzzText:
				c.Parts = append(c.Parts, genai.NewPartFromText(s.Text))
			}
			ps, err := turns(c, author, s.At, nil)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			for _, p := range ps {
				limit := 0
				if s.Arg&4 != 0 {
					limit = 256 // a store's limit, so small that replies are cut
				}
				if _, err := agentturn.Append(mem, p.turn, limit); err != nil {
					t.Fatalf("step %d: %+v refused: %v", step, p.turn, err)
				}
			}
			if mem.Len() == 0 {
				continue
			}
			res, err := mem.ContinueAt(context.Background(), s.At)
			if err != nil {
				t.Fatal(err)
			}
			sent, bp := contents(res, nil, current(user, res, said))
			checkRequest(t, sent, bp, user, s.Kind == agenthistory.FuzzUser)
		}
	})
}

// checkRequest fails t unless every call in sent is answered by the content
// right after it (in the order the responses came), under an id it alone has, every response answers
// a call, the breakpoint is a part of sent, and no image but the user's
// current ones is there: all of them when the user spoke last, as the
// newest turns are always sent as parts of their own.
func checkRequest(t *testing.T, sent []*genai.Content, bp Breakpoint, user *genai.Content, last bool) {
	t.Helper()
	seen := map[string]bool{}
	images := 0
	var prev []string // the calls of the content before
	for i, c := range sent {
		var calls []string
		for _, p := range c.Parts {
			if p.InlineData != nil {
				images++
			}
			if p.FunctionCall != nil {
				calls = append(calls, p.FunctionCall.ID+" "+p.FunctionCall.Name)
				if id := p.FunctionCall.ID; id != "" {
					if seen[id] {
						t.Fatalf("content %d: id %q twice in the request", i, id)
					}
					seen[id] = true
				}
			}
		}
		if responses(c) != (len(prev) > 0) || len(prev) > 0 && fmt.Sprint(sorted(answers(c))) != fmt.Sprint(sorted(prev)) {
			t.Fatalf("content %d: %q answers calls %q", i, answers(c), prev)
		}
		prev = calls
	}
	if len(prev) > 0 {
		t.Fatalf("calls %q end the request unanswered", prev)
	}
	if bp.Content >= 0 && (bp.Content >= len(sent) || bp.Part >= len(sent[bp.Content].Parts)) {
		t.Fatalf("breakpoint %+v outside the request", bp)
	}
	own := 0
	if user != nil {
		for _, p := range user.Parts {
			if p.InlineData != nil {
				own++
			}
		}
	}
	if images > own || last && images != own {
		t.Fatalf("%d images sent, the user's message has %d", images, own)
	}
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

// answers lists c's function responses by id and name.
func answers(c *genai.Content) []string {
	var out []string
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse.ID+" "+p.FunctionResponse.Name)
		}
	}
	return out
}
