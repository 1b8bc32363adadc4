// Package agentturn appends what an agent framework accepted to a
// byheart.Memory, which refuses some of it: a call id shared by two calls
// of one reply, a tool name or call id that is not one line of printable
// text, invalid UTF-8, a turn too large for a store. The framework adapters
// (adk/, eino/, trpc/) run inside the framework's run and must never abort
// it for those, so they append through Append, which maps each to what
// byheart takes, the same way every time. Describe is the line that stands
// for a part byheart cannot hold (an image, a file).
package agentturn

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// MaxName is the most bytes a tool name or call id keeps (see Name), and
// Unnamed the tool of a call that names none.
const (
	MaxName = 256
	Unnamed = "(unnamed)"
)

// NoOutput is the text of a tool's response that has none: the
// frameworks send an empty one (a tool that returned nothing, a call the
// run stopped), and it still answers its call.
const NoOutput = "(no output)"

// ClipMark ends a turn cut to fit a limit, as byheart's own clipping ends a
// turn cut to fit a budget.
const ClipMark = " […]"

// Name is s as a tool name or call id byheart takes: s itself when it is
// at most MaxName bytes of printable UTF-8 on one line; else s with every
// other character escaped as Go escapes it in a string literal, and, when
// that is longer than MaxName, its start and a hash of s. A call and its
// response, named alike, are mapped alike.
func Name(s string) string {
	if len(s) <= MaxName && utf8.ValidString(s) && strings.IndexFunc(s, notPrint) < 0 {
		return s
	}
	q := strconv.QuoteToASCII(s)
	q = q[1 : len(q)-1]
	if len(q) <= MaxName {
		return q
	}
	sum := sha256.Sum256([]byte(s))
	return q[:MaxName-17] + "~" + hex.EncodeToString(sum[:8])
}

func notPrint(r rune) bool { return !unicode.IsPrint(r) }

// fit cuts t so that its text, tool, call id and source together take at
// most limit bytes, keeping the start of its text and ending it with
// ClipMark on a character boundary.
func fit(t byheart.Turn, limit int) byheart.Turn {
	if len(t.Source.Name) > MaxName*4 {
		t.Source.Name = clip(t.Source.Name, MaxName*4)
	}
	room := limit - len(t.Tool) - len(t.CallID) - len(t.Source.Name)
	if len(t.Text) > room {
		t.Text = clip(t.Text, room)
	}
	return t
}

// clip cuts s to at most n bytes, ClipMark included.
func clip(s string, n int) string {
	i := max(n-len(ClipMark), 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + ClipMark
}

// Append appends t to mem, mapped to what byheart takes, and returns it as
// appended. Invalid UTF-8 becomes U+FFFD; a tool name or call id goes
// through Name, a call without a tool is Unnamed's, and a response without
// text is NoOutput. A call whose id
// another call of the step still waiting has is given the id followed by
// "~2" (or "~3", ...), one no waiting call has; a response goes to the
// first waiting call with its id, or with its id and such a suffix, of its
// tool, so each response answers its own call. A response that answers no
// call waiting in the step (a resumed long-running call, say, or one
// without an id whose turn among the calls without one has not come) is
// kept as a note from its source, so the model still sees it, framed. With
// a limit above zero, t is cut to take at most limit bytes (see fit). Any
// other turn byheart refuses is Append's error.
func Append(mem *byheart.Memory, t byheart.Turn, limit int) (byheart.Turn, error) {
	t.Text = strings.ToValidUTF8(t.Text, "\uFFFD")
	t.Source.Name = strings.ToValidUTF8(t.Source.Name, "\uFFFD")
	t.Tool, t.CallID = Name(t.Tool), Name(t.CallID)
	if t.Role == byheart.ToolCall && t.Tool == "" {
		t.Tool = Unnamed
	}
	if t.Role == byheart.ToolResult && t.Text == "" {
		t.Text = NoOutput
	}
	if limit > 0 {
		t = fit(t, limit)
	}
	_, err := mem.AppendTurn(t)
	switch {
	case err == nil:
		return t, nil
	case t.Role == byheart.ToolCall && errors.Is(err, byheart.ErrTool):
		t.CallID = fresh(waiting(mem), t.CallID)
		if limit > 0 {
			t = fit(t, limit)
		}
		_, err = mem.AppendTurn(t)
		return t, err
	case t.Role == byheart.ToolResult && (errors.Is(err, byheart.ErrTool) || errors.Is(err, byheart.ErrNoCall)):
		if id, ok := answered(waiting(mem), t); ok && id != t.CallID {
			mapped := t
			mapped.CallID = id
			if limit > 0 {
				mapped = fit(mapped, limit)
			}
			if _, err := mem.AppendTurn(mapped); err == nil {
				return mapped, nil
			}
		}
		note := byheart.Turn{Role: byheart.Note, Text: t.Text, Time: t.Time, Source: t.Source}
		if note.Source.Name == "" {
			note.Source.Name = "tool:" + t.Tool
		}
		_, err = mem.AppendTurn(note)
		return note, err
	}
	return t, err
}

// waiting are the calls of mem's current step that no response answered
// yet, oldest first. A step is a run of assistant turns and calls, then
// the responses to them; byheart pairs a response with the first call
// waiting with its id.
func waiting(mem *byheart.Memory) []byheart.Turn {
	n := mem.Len()
	role := func(i int) byheart.Role {
		t, _ := mem.Turn(i)
		return t.Role
	}
	start := n
	for start > 0 && role(start-1) == byheart.ToolResult {
		start--
	}
	for start > 0 && (role(start-1) == byheart.Assistant || role(start-1) == byheart.ToolCall) {
		start--
	}
	var open []byheart.Turn
	for i := start; i < n; i++ {
		t, _ := mem.Turn(i)
		switch t.Role {
		case byheart.ToolCall:
			open = append(open, t)
		case byheart.ToolResult:
			for j, c := range open {
				if c.CallID == t.CallID {
					open = append(open[:j], open[j+1:]...)
					break
				}
			}
		}
	}
	return open
}

// fresh is id followed by the first of "~2", "~3", ... that no call in
// open has.
func fresh(open []byheart.Turn, id string) string {
	for k := 2; ; k++ {
		next := id + "~" + strconv.Itoa(k)
		if !hasID(open, next) {
			return next
		}
	}
}

func hasID(open []byheart.Turn, id string) bool {
	for _, c := range open {
		if c.CallID == id {
			return true
		}
	}
	return false
}

// answered is the id of the call in open that response r answers: the
// first of r's tool whose id is r's, or r's with a suffix fresh gives.
func answered(open []byheart.Turn, r byheart.Turn) (string, bool) {
	for _, c := range open {
		if c.Tool != r.Tool && r.Tool != "" {
			continue
		}
		if c.CallID == r.CallID || suffixed(c.CallID, r.CallID) {
			return c.CallID, true
		}
	}
	return "", false
}

// suffixed reports whether id is base followed by "~" and a number.
func suffixed(id, base string) bool {
	rest, ok := strings.CutPrefix(id, base+"~")
	if !ok || rest == "" {
		return false
	}
	_, err := strconv.Atoi(rest)
	return err == nil
}

// Attachment is what a description of a part byheart cannot hold says of
// it (see Describe).
type Attachment struct {
	Kind string // its kind ("image", "file"), said when MIME is empty
	MIME string
	Name string // a file's name
	URL  string // its address; a data: URL holds the data itself
	Size int    // the bytes of data it holds inline, said when it has no URL
}

// MaxURL is the most characters of an address a description quotes.
const MaxURL = 200

// Describe is the text that stands in byheart's memory for a part it
// cannot hold: "[image/png attachment, https://example.com/a.png, not
// kept]", with the file's name, its address (unless it holds the data
// itself, "inline data") or the size of its data when a has them. byheart
// holds text, and every adapter describes a part the same way.
func Describe(a Attachment) string {
	what := []string{strings.TrimSpace(a.Kind + " attachment")}
	if a.MIME != "" {
		what[0] = a.MIME + " attachment"
	}
	if a.Name != "" {
		what = append(what, "“"+a.Name+"”")
	}
	switch {
	case a.URL != "" && !strings.HasPrefix(a.URL, "data:"):
		url := a.URL
		if utf8.RuneCountInString(url) > MaxURL {
			url = string([]rune(url)[:MaxURL]) + "…"
		}
		what = append(what, url)
	case a.URL != "":
		what = append(what, "inline data")
	case a.Size > 0:
		what = append(what, strconv.Itoa(a.Size)+" bytes")
	}
	return "[" + strings.Join(append(what, "not kept"), ", ") + "]"
}

// Sent reports whether p is a turn of text said at when, as byheart sends
// one as a part of its own: its text as said (invalid UTF-8 as Append
// makes it), or with its relative dates resolved beside them (see
// byheart.Annotate). An adapter that puts the message a framework gave in
// place of such a part checks with Sent that the part is that message's.
// A turn holding a line that could pass for one of byheart's markers is
// sent with that line neutralised, and is not recognised.
func Sent(p byheart.Part, text string, when time.Time) bool {
	if p.Kind != byheart.PartTurn {
		return false
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	return p.Text == text || (!when.IsZero() && p.Text == byheart.Annotate(text, when))
}

// NewestUser is the index of mem's newest user turn and the turn, or -1
// when mem holds none: the turn of the message that started an agent's
// run, whose parts an adapter sends as the framework gave them.
func NewestUser(mem *byheart.Memory) (int, byheart.Turn) {
	for i := mem.Len() - 1; i >= 0; i-- {
		if t, err := mem.Turn(i); err == nil && t.Role == byheart.User {
			return i, t
		}
	}
	return -1, byheart.Turn{}
}

// LastUserPart is the place of res's last part that is a user turn of its
// own: k its index among all of res's parts, msg its message and part its
// index there; k is -1 when there is none. While the newest user turn is
// sent as a part of its own (always, unless a long tool step made byheart
// rebuild and quote it in the memory block) it is this one: check with
// Sent.
func LastUserPart(res byheart.Result) (k, msg, part int) {
	k, msg, part = -1, -1, -1
	n := 0
	for i, m := range res.Messages {
		for j, p := range m.Parts {
			if m.Role == byheart.User && p.Kind == byheart.PartTurn {
				k, msg, part = n, i, j
			}
			n++
		}
	}
	return k, msg, part
}
