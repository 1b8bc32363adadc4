package byheartadk

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/byheart/byheart"
	"google.golang.org/genai"
)

// Breakpoint is where a composition's stable prefix ends in the contents
// Contents built from it: the part Part of the content Content is the last
// one that repeats byte for byte until byheart rebuilds (the part
// Result.StableUpto names). Content is -1 when nothing is stable.
type Breakpoint struct {
	Content int
	Part    int
}

// clientCallID opens the ids ADK gives function calls a model returned
// without one. ADK clears such ids before a request reaches the model, and
// so does Contents, so the request is the one ADK would send.
const clientCallID = "adk-"

// Contents turns a composition into Gemini contents: user and assistant
// turns as "user" and "model" text parts; a tool call and the result that
// answers it (see byheart.Result.Pairs) as a FunctionCall part in the model
// content and a FunctionResponse part in the user content right after it,
// whose response is {"output": the result framed with its source, marked
// UNVERIFIED when that is not authenticated}; memory parts, outside material
// and notes as user text parts; a call or result without its partner as its
// framed text. Consecutive parts of one role share a content, except that a
// content of function responses holds nothing else, as Gemini requires.
// Every part of the composition is one part of the contents, so the
// Breakpoint is the part at res.Breakpoint(). A call and its result share
// the id byheart.Result.CallIDs gives them, unique in the request, or none
// when the call's own id is one ADK made up (see clientCallID).
// signatures, which may be nil, gives the thought signature to send back with
// a call, by call id. A call's arguments that are not a JSON object are sent
// as {"arguments": their text}. A composition that starts with the model is
// opened by Opening, a user content.
func Contents(res byheart.Result, signatures map[string][]byte) ([]*genai.Content, Breakpoint) {
	return contents(res, signatures, nil)
}

// contents is Contents with the parts given holds, by their index in the
// composition's parts, sent as they are in place of byheart's.
func contents(res byheart.Result, signatures map[string][]byte, given map[int]*genai.Part) ([]*genai.Content, Breakpoint) {
	pairs, ids := res.Pairs(), res.CallIDs(nil)
	bmsg, bpart, stable := res.Breakpoint()
	bp := Breakpoint{Content: -1, Part: -1}
	var out []*genai.Content
	k := 0
	for i, msg := range res.Messages {
		for j, p := range msg.Parts {
			role, part, response := genaiPart(msg.Role, p, pairs[k] >= 0, ids[k], signatures)
			if g := given[k]; g != nil {
				part = g
			}
			last := len(out) - 1
			if last < 0 || out[last].Role != role || responses(out[last]) != response {
				out = append(out, &genai.Content{Role: role})
				last++
			}
			out[last].Parts = append(out[last].Parts, part)
			if stable && i == bmsg && j == bpart {
				bp = Breakpoint{Content: last, Part: len(out[last].Parts) - 1}
			}
			k++
		}
	}
	if len(out) > 0 && out[0].Role == genai.RoleModel {
		out = append([]*genai.Content{genai.NewContentFromText(Opening, genai.RoleUser)}, out...)
		if bp.Content >= 0 {
			bp.Content++
		}
	}
	return out, bp
}

// Opening is the user content placed first when a composition starts with
// the model (its stretches did not reach back to the user's first words):
// Gemini wants a conversation to open with the user.
const Opening = "(The conversation so far begins with the assistant.)"

// responses reports whether c is a content of function responses.
func responses(c *genai.Content) bool {
	return len(c.Parts) > 0 && c.Parts[0].FunctionResponse != nil
}

// genaiPart is part p of a message of role as a Gemini part, in the role
// of its content, and whether it is a function response; id is the id a
// paired call and its response share in the request.
func genaiPart(role byheart.Role, p byheart.Part, paired bool, id string, signatures map[string][]byte) (string, *genai.Part, bool) {
	if p.Call != nil && strings.HasPrefix(p.Call.ID, clientCallID) {
		id = ""
	}
	switch {
	case role == byheart.ToolCall && paired && p.Call != nil:
		call := &genai.FunctionCall{ID: id, Name: p.Call.Name, Args: arguments(p.Call.Arguments)}
		return genai.RoleModel, &genai.Part{FunctionCall: call, ThoughtSignature: signatures[p.Call.ID]}, false
	case role == byheart.ToolResult && paired && p.Call != nil:
		resp := &genai.FunctionResponse{ID: id, Name: p.Call.Name, Response: map[string]any{"output": p.Text}}
		return genai.RoleUser, &genai.Part{FunctionResponse: resp}, true
	case role == byheart.Assistant || role == byheart.ToolCall:
		return genai.RoleModel, &genai.Part{Text: p.Text}, false
	default:
		return genai.RoleUser, &genai.Part{Text: p.Text}, false
	}
}

func arguments(text string) map[string]any {
	if text == "" {
		return nil
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(text), &args); err != nil || args == nil {
		return map[string]any{"arguments": text}
	}
	return args
}

// SplitAt splits contents at bp into the stable prefix, which an explicit
// Gemini cache (genai.CreateCachedContentConfig.Contents) can hold, and
// the rest, which a request naming that cache sends. A breakpoint inside a
// content splits it in two of the same role. Neither result shares a
// content with contents, so changing one changes nothing else.
func SplitAt(contents []*genai.Content, bp Breakpoint) (cached, rest []*genai.Content) {
	if bp.Content < 0 || bp.Content >= len(contents) {
		return nil, contents
	}
	for i, c := range contents {
		switch {
		case i < bp.Content:
			cached = append(cached, c)
		case i > bp.Content:
			rest = append(rest, c)
		default:
			n := min(bp.Part+1, len(c.Parts))
			cached = append(cached, &genai.Content{Role: c.Role, Parts: c.Parts[:n:n]})
			if n < len(c.Parts) {
				rest = append(rest, &genai.Content{Role: c.Role, Parts: c.Parts[n:]})
			}
		}
	}
	return cached, rest
}

// Sources says where a function's response came from and whether that
// source is authenticated; see Config.Sources.
type Sources func(resp *genai.FunctionResponse) byheart.Source

// piece is a turn a content holds, with what the plugin keeps beside it:
// a call's thought signature, and the part a description stands for.
type piece struct {
	turn      byheart.Turn
	signature []byte
	part      *genai.Part // the part turn describes; nil for text, calls and responses
}

// turns are the byheart turns a content holds, said by author at when:
// text parts as user turns (from the user) or assistant turns (from an
// agent), function calls as tool calls with their arguments as JSON, and
// function responses as tool results with their response as JSON. Any
// other part but a thought (inline data, a file, code to run) is a turn of
// its own that describes it (see describe): byheart holds text. Thoughts
// are left out.
func turns(c *genai.Content, author string, when time.Time, sources Sources) ([]piece, error) {
	if c == nil {
		return nil, nil
	}
	role := byheart.Assistant
	if author == genai.RoleUser || (author == "" && c.Role == genai.RoleUser) {
		role = byheart.User
	}
	var out []piece
	for _, p := range c.Parts {
		switch {
		case p == nil || p.Thought:
		case p.FunctionCall != nil:
			args, err := object(p.FunctionCall.Args, "arguments", p.FunctionCall.Name)
			if err != nil {
				return nil, err
			}
			out = append(out, piece{turn: byheart.Turn{Role: byheart.ToolCall, Tool: p.FunctionCall.Name,
				CallID: p.FunctionCall.ID, Text: args, Time: when}, signature: p.ThoughtSignature})
		case p.FunctionResponse != nil:
			text, err := object(p.FunctionResponse.Response, "response", p.FunctionResponse.Name)
			if err != nil {
				return nil, err
			}
			var src byheart.Source
			if sources != nil {
				src = sources(p.FunctionResponse)
			}
			out = append(out, piece{turn: byheart.Turn{Role: byheart.ToolResult, Tool: p.FunctionResponse.Name,
				CallID: p.FunctionResponse.ID, Text: text, Source: src, Time: when}})
		case strings.TrimSpace(p.Text) != "":
			out = append(out, piece{turn: byheart.Turn{Role: role, Text: p.Text, Time: when}})
		case p.Text == "" && !empty(p):
			out = append(out, piece{turn: byheart.Turn{Role: role, Text: describe(p), Time: when}, part: p})
		}
	}
	return out, nil
}

// describe is the text that stands in byheart's memory for a part it
// cannot hold: "[image/png attachment, 2048 bytes, not kept]", with the
// file's name or address when the part has one; "[executable code, not
// kept]" and the like for the rest.
func describe(p *genai.Part) string {
	var what []string
	switch {
	case p.InlineData != nil:
		what = []string{p.InlineData.MIMEType + " attachment", quoted(p.InlineData.DisplayName), fmt.Sprintf("%d bytes", len(p.InlineData.Data))}
	case p.FileData != nil:
		what = []string{p.FileData.MIMEType + " attachment", quoted(p.FileData.DisplayName), p.FileData.FileURI}
	case p.ExecutableCode != nil:
		what = []string{"executable code"}
	case p.CodeExecutionResult != nil:
		what = []string{"code execution result"}
	case p.ToolCall != nil:
		what = []string{"server tool call"}
	case p.ToolResponse != nil:
		what = []string{"server tool response"}
	default:
		what = []string{"part that is not text"}
	}
	what = append(what, "not kept")
	what = slices.DeleteFunc(what, func(s string) bool { return strings.TrimSpace(s) == "" })
	return "[" + strings.TrimPrefix(strings.Join(what, ", "), " ") + "]"
}

// quoted is name in quotation marks, or "" for none.
func quoted(name string) string {
	if name == "" {
		return ""
	}
	return "“" + name + "”"
}

// empty reports whether p holds nothing a model reads: no text, data,
// file, code or tool traffic (metadata alone, such as a video's offsets
// without its file).
func empty(p *genai.Part) bool {
	return p.InlineData == nil && p.FileData == nil && p.ExecutableCode == nil && p.CodeExecutionResult == nil &&
		p.ToolCall == nil && p.ToolResponse == nil
}

// object is a call's arguments or a response as the JSON byheart keeps,
// "{}" for none; what and name say which, should it not marshal.
func object(m map[string]any, what, name string) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("byheartadk: %s of %s: %w", what, name, err)
	}
	return string(data), nil
}
