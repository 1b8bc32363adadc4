// Package agenthistory builds conversations for the tests of byheart's SDK
// adapters. Append draws random agent conversations: steps of tool calls
// and results whose call ids are drawn to trip an adapter that gives calls
// ids of its own. They are empty, repeated from step to step, refused by a
// provider (a dot, a slash, a space), or shaped as the ids
// byheart.Result.CallIDs makes, while every turn is one
// byheart.Memory.AppendTurn accepts. Plans writes a plain chat about
// prices, long enough to overflow a small budget.
package agenthistory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/byheart/byheart"
)

// Append appends n random exchanges to mem, drawn from rng: a question,
// and often a step of up to five calls, some of whose results come back,
// in any order, and some of which the next question leaves unanswered;
// now and then a note; an answer. It fails only if mem refuses a turn.
func Append(rng *rand.Rand, mem *byheart.Memory, n int) error {
	for range n {
		turns := []byheart.Turn{{Role: byheart.User, Text: fmt.Sprintf("what about the roses, question %d?", rng.IntN(1000))}}
		if rng.IntN(4) > 0 {
			turns = append(turns, step(rng)...)
		}
		if rng.IntN(6) == 0 {
			turns = append(turns, byheart.Turn{Role: byheart.Note, Text: "a document about the garden arrived",
				Source: byheart.Source{Name: "upload:garden.pdf"}})
		}
		if rng.IntN(3) > 0 {
			turns = append(turns, byheart.Turn{Role: byheart.Assistant, Text: "the roses need water"})
		}
		for _, t := range turns {
			if _, err := mem.AppendTurn(t); err != nil {
				return fmt.Errorf("agenthistory: %w", err)
			}
		}
	}
	return nil
}

// step is an assistant's reply with its calls and the results that come
// back for them.
func step(rng *rand.Rand) []byheart.Turn {
	out := []byheart.Turn{{Role: byheart.Assistant, Text: "let me look"}}
	var ids []string
	waiting := map[string]bool{}
	for range 1 + rng.IntN(5) {
		id := callID(rng)
		if waiting[id] {
			id = "" // a step's waiting calls have distinct ids, but for the empty one
		}
		waiting[id] = id != ""
		ids = append(ids, id)
		out = append(out, byheart.Turn{Role: byheart.ToolCall, Tool: "search", CallID: id, Text: `{"q":"roses"}`})
	}
	for _, i := range rng.Perm(len(ids)) {
		if rng.IntN(6) == 0 {
			continue // this one never returns
		}
		out = append(out, byheart.Turn{Role: byheart.ToolResult, CallID: ids[i], Text: fmt.Sprintf("roses result %d", i),
			Source: byheart.Source{Name: "web:roses.example", Authenticated: rng.IntN(2) == 0}})
	}
	return out
}

// callID draws a call id.
func callID(rng *rand.Rand) string {
	switch rng.IntN(10) {
	case 0, 1:
		return ""
	case 2, 3:
		return fmt.Sprintf("byheart_call_%d", rng.IntN(150))
	case 4:
		return fmt.Sprintf("byheart_call_%d_%d", rng.IntN(150), 2+rng.IntN(2))
	case 5:
		return []string{"call.1/x", "call 2", "toolu_ü"}[rng.IntN(3)]
	}
	return fmt.Sprintf("c%d", rng.IntN(4))
}

// Compositions builds the random history of seed, exchanges exchanges long,
// and calls check with what a memory composes of it after each exchange: a
// Compose for a question, and a Continue when the history ends with a turn
// an agent continues after (a result, a note, the user's), each with the
// number of calls that byheart pairs with a result, which an adapter must
// send as calls answered by their results. The memory's budget, drawn from
// seed, ranges from a few turns to all of them. It fails only if byheart
// does.
func Compositions(seed uint64, exchanges int, check func(r byheart.Result, pairs int)) error {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 25))
	mem := byheart.New(byheart.Options{Budget: []int{400, 1200, 3000, 100000}[seed%4], Chunk: 150})
	for range exchanges {
		if err := Append(rng, mem, 1); err != nil {
			return err
		}
		r, err := mem.Compose(ctx, "roses in the garden")
		if err != nil {
			return err
		}
		check(r, pairs(r))
		if last, _ := mem.Turn(mem.Len() - 1); last.Role == byheart.Assistant || last.Role == byheart.ToolCall {
			continue // the model's turn to answer, not to continue
		}
		if r, err = mem.Continue(ctx); err != nil {
			return err
		}
		check(r, pairs(r))
	}
	return nil
}

// pairs is the number of calls r pairs with a result.
func pairs(r byheart.Result) int {
	n := 0
	for c, res := range r.Pairs() {
		if res > c {
			n++
		}
	}
	return n
}

// Plans appends n exchanges to mem: question i asks about the pricing of
// plan i, and its answer says plan i costs 40+i euro a month.
func Plans(mem *byheart.Memory, n int) error {
	for i := range n {
		if _, err := mem.Append(byheart.User, fmt.Sprintf("Question %d about the pricing of plan %d and its monthly fee.", i, i)); err != nil {
			return fmt.Errorf("agenthistory: %w", err)
		}
		if _, err := mem.Append(byheart.Assistant, fmt.Sprintf("Answer %d: plan %d costs %d euro a month.", i, i, 40+i)); err != nil {
			return fmt.Errorf("agenthistory: %w", err)
		}
	}
	return nil
}

// The fuzz targets of the framework adapters (adk/, eino/, trpc/) play
// their input as a conversation through FuzzScript, which draws a call's
// id from FuzzIDs (or the ids a target gives) and its tool from FuzzTools:
// ids that repeat in one reply, are empty, are the adapter's own suffixed
// form, are too long, or hold a character byheart refuses or invalid
// UTF-8, and tools that are empty or hold a tab. FuzzSeeds start them.
var (
	FuzzIDs   = []string{"c1", "c1", "", "c\n1", "c1~2", strings.Repeat("x", 300), "c\xff1"}
	FuzzTools = []string{"get", "put", "", "bad\tname"}
	FuzzSeeds = [][]byte{
		{0, 1, 2, 0x21, 3, 0, 1, 3, 2, 0x33, 3, 1, 4, 0},
		{2, 0x45, 3, 2, 2, 0x11, 3, 3, 0, 9, 1, 0},
		{1, 1, 2, 0x77, 3, 0xff, 2, 0x07, 3, 0x80, 0, 0},
	}
)

// FuzzKind is what a step of FuzzScript's conversation is.
type FuzzKind int

// The kinds of step: the user's message, the model's reply with its
// calls, the responses to them, the model's reply of text alone.
const (
	FuzzUser FuzzKind = iota
	FuzzReply
	FuzzResponses
	FuzzText
)

// FuzzStep is a step of FuzzScript's conversation.
type FuzzStep struct {
	Kind FuzzKind
	At   time.Time // a minute after the step before
	Arg  byte      // the step's second byte, for an adapter's own draws

	// Text is the user's text (empty for an image alone), which names a
	// relative date and holds invalid UTF-8, or the model's reply.
	Text string
	// Image says the user's message holds an image, before its text when
	// ImageFirst.
	Image, ImageFirst bool
	// Calls are the reply's calls, or the calls the responses answer, in
	// the order the responses come; a response may name the id "nobody".
	Calls []FuzzCall
}

// FuzzCall is a call of a reply, or a response to one.
type FuzzCall struct {
	ID, Tool string
	N        int    // its place among its reply's calls, or its response's among the responses
	Output   string // a response's text; empty now and then, as frameworks send it
}

// FuzzScript plays data, two bytes a step, as at most 64 steps of a
// conversation that starts at the first's At: user messages of text, an
// image or both, either first; replies of up to four calls drawing their
// ids from ids and tools from FuzzTools; the responses to the newest
// reply's calls, in order or reversed, the first perhaps to no call; and
// replies of text alone.
func FuzzScript(data []byte, ids []string) []FuzzStep {
	start := time.Date(2025, 3, 4, 9, 0, 0, 0, time.UTC)
	var out []FuzzStep
	var calls []FuzzCall // the newest reply's
	for step := 0; len(data) >= 2 && step < 64; step++ {
		op, arg := data[0], data[1]
		data = data[2:]
		s := FuzzStep{At: start.Add(time.Duration(step) * time.Minute), Arg: arg}
		switch op % 5 {
		case 0, 1:
			s.Kind, s.Image, s.ImageFirst = FuzzUser, op%5 == 1, arg&2 != 0
			if op%5 == 0 || arg&1 != 0 {
				s.Text = fmt.Sprintf("message %d: the fence is due tomorrow \xfe", step)
			}
			calls = nil
		case 2:
			s.Kind = FuzzReply
			calls = nil
			for i := range int(arg % 5) {
				calls = append(calls, FuzzCall{ID: ids[(int(arg)+i)%len(ids)], Tool: FuzzTools[(int(arg>>3)+i)%len(FuzzTools)], N: i})
			}
			s.Calls = calls
		case 3:
			s.Kind = FuzzResponses
			for i := range calls {
				c := calls[i]
				if arg&1 != 0 {
					c = calls[len(calls)-1-i]
				}
				if arg&2 != 0 && i == 0 {
					c.ID = "nobody"
				}
				c.N, c.Output = i, fmt.Sprintf("out %d", i)
				if arg&4 != 0 && i == len(calls)-1 {
					c.Output = ""
				}
				s.Calls = append(s.Calls, c)
			}
			calls = nil
		default:
			s.Kind, s.Text = FuzzText, strings.Repeat("a reply ", int(arg))
		}
		out = append(out, s)
	}
	return out
}

// Sent is what CheckAnswered reads of a message of a request: the calls it
// carries, or, for a tool message, the call it answers (its id and tool).
type Sent struct {
	Calls  []FuzzCall
	Answer *FuzzCall
}

// CheckAnswered is nil when each call in msgs is answered by the tool
// messages right after its message (in any order), under an id no other
// call of msgs has, and no tool message comes without its call; else it
// says where that fails.
func CheckAnswered(msgs []Sent) error {
	seen := map[string]bool{}
	for i := 0; i < len(msgs); i++ {
		if a := msgs[i].Answer; a != nil {
			return fmt.Errorf("message %d: a tool message %q without its call", i, a.ID)
		}
		var want, got []string
		for _, c := range msgs[i].Calls {
			if seen[c.ID] {
				return fmt.Errorf("message %d: id %q twice in the request", i, c.ID)
			}
			seen[c.ID] = true
			want = append(want, c.ID+" "+c.Tool)
		}
		for i+1 < len(msgs) && msgs[i+1].Answer != nil {
			i++
			got = append(got, msgs[i].Answer.ID+" "+msgs[i].Answer.Tool)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			return fmt.Errorf("message %d: calls %q answered by %q", i, want, got)
		}
	}
	return nil
}
