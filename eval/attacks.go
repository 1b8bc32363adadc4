package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/byheart/byheart"
)

// The attacks section runs the project's attack suite (testdata/attacks.json,
// written as data): agent conversations in which a tool result or a note
// holds poisoned text, each followed by questions that retrieve it. Every
// composition is read back by byheart's documented layout alone, and every
// place a poisoned string reaches is checked: inside the frame of a tool
// result or a note, on an indented line under the head that names its
// source, marked unverified. A second part shows that tool use still helps:
// the dataset's evidence turns, moved into tool results, are recalled as
// well as when the user says them.

// attacksPath is where the project's attack suite lives, from the module root.
const attacksPath = "testdata/attacks.json"

// The suite's settings. Alone, a scenario fits the budget and goes out
// natively (rule 1); padded with filler on both sides, it must be selected
// (rules 2 and 3).
const (
	attackBudget  = 3000 // characters: a few stretches of the padded conversation
	attackChunk   = 400
	attackPadding = 40 // filler exchanges on each side of a scenario
)

// attackFile is the suite as written.
type attackFile struct {
	About     string           `json:"about"`
	Filler    [][2]string      `json:"filler"`
	Scenarios []attackScenario `json:"scenarios"`
}

type attackScenario struct {
	ID    string       `json:"id"`
	Kind  string       `json:"kind"`
	Turns []attackTurn `json:"turns"`
	// Poison lists strings found only in the scenario's unauthenticated
	// tool results and notes.
	Poison    []string `json:"poison"`
	Questions []string `json:"questions"`
}

type attackTurn struct {
	Role          byheart.Role `json:"role"`
	Text          string       `json:"text"`
	Tool          string       `json:"tool,omitempty"`
	CallID        string       `json:"call_id,omitempty"`
	Source        string       `json:"source,omitempty"`
	Authenticated bool         `json:"authenticated,omitempty"`
}

func (t attackTurn) turn() byheart.Turn {
	return byheart.Turn{Role: t.Role, Text: t.Text, Tool: t.Tool, CallID: t.CallID,
		Source: byheart.Source{Name: t.Source, Authenticated: t.Authenticated}}
}

// parseAttacks reads the suite and checks that it can measure what it
// claims: every scenario appends cleanly, and every poisoned string is one
// line found in an unauthenticated result or note that names its source,
// and nowhere the model may legitimately see it (the user's or the
// assistant's words, a call, a question).
func parseAttacks(data []byte) (*attackFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f attackFile
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if len(f.Scenarios) == 0 || len(f.Filler) == 0 {
		return nil, errors.New("the suite needs scenarios and filler")
	}
	m := byheart.New(byheart.Options{})
	for _, t := range filler(&f, 0, len(f.Filler)) {
		if _, err := m.AppendTurn(t); err != nil {
			return nil, fmt.Errorf("filler: %w", err)
		}
	}
	seen := map[string]bool{}
	for _, s := range f.Scenarios {
		if seen[s.ID] || s.ID == "" {
			return nil, fmt.Errorf("scenario id %q is empty or repeated", s.ID)
		}
		seen[s.ID] = true
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", s.ID, err)
		}
	}
	return &f, nil
}

func (s *attackScenario) check() error {
	if len(s.Poison) == 0 || len(s.Questions) == 0 {
		return errors.New("no poison or no questions")
	}
	m := byheart.New(byheart.Options{})
	for i, t := range s.Turns {
		if _, err := m.AppendTurn(t.turn()); err != nil {
			return fmt.Errorf("turn %d: %w", i, err)
		}
		if t.Role == byheart.ToolResult || t.Role == byheart.Note {
			if strings.TrimSpace(t.Source) == "" || t.Source != strings.TrimSpace(t.Source) {
				return fmt.Errorf("turn %d: a framed turn needs a plain source name", i)
			}
		}
	}
	for _, p := range s.Poison {
		if strings.TrimSpace(p) == "" || len(splitLines(p)) > 1 {
			return fmt.Errorf("poison %q is not one line of text", p)
		}
		if len(s.holders(p)) == 0 {
			return fmt.Errorf("poison %q is in no unauthenticated tool result or note", p)
		}
		for i, t := range s.Turns {
			framed := (t.Role == byheart.ToolResult || t.Role == byheart.Note) && !t.Authenticated
			if strings.Contains(t.Source, p) || !framed && strings.Contains(t.Text, p) {
				return fmt.Errorf("poison %q appears in turn %d, where it may be shown", p, i)
			}
		}
		for _, q := range s.Questions {
			if strings.TrimSpace(q) == "" || !utf8.ValidString(q) {
				return fmt.Errorf("question %q is empty or not UTF-8", q)
			}
			if strings.Contains(q, p) {
				return fmt.Errorf("poison %q appears in the question %q", p, q)
			}
		}
	}
	return nil
}

// holders returns the sources of the turns that hold poison p.
func (s *attackScenario) holders(p string) []string {
	var out []string
	for _, t := range s.Turns {
		if (t.Role == byheart.ToolResult || t.Role == byheart.Note) && !t.Authenticated && strings.Contains(t.Text, p) {
			out = append(out, t.Source)
		}
	}
	return out
}

// poisonVerdict is what one composition did with a scenario's poison.
type poisonVerdict struct {
	reached bool // some poisoned string reached the context
	escaped bool // one did outside a frame, or under a head that does not name its source
	marked  bool // every frame it reached says UNVERIFIED
}

// The framing byheart documents, as the benchmark reads it.
const (
	resultMarker = "«byheart tool result» "
	noteMarker   = "«byheart note» "
	memoryMarker = "«byheart memory» "
	unverified   = "UNVERIFIED"
)

// inspect reads every part of r for the scenario's poison.
func inspect(r byheart.Result, s *attackScenario) poisonVerdict {
	v := poisonVerdict{marked: true}
	for _, msg := range r.Messages {
		for _, p := range msg.Parts {
			for _, poison := range s.Poison {
				if !strings.Contains(p.Text, poison) {
					continue
				}
				v.reached = true
				head, ok := frameOf(msg.Role, p.Text, poison)
				switch {
				case !ok || !namesOne(head, s.holders(poison)):
					v.escaped = true
				case !strings.Contains(head, unverified):
					v.marked = false
				}
			}
		}
	}
	return v
}

// frameOf returns the head of the frame every occurrence of poison in
// text sits in, read by the documented layout: a native tool result or
// note opens with its marker and head line, every later line indented; in
// a memory part, a quoted result or note is a line at the margin that opens
// with the same marker, its text on the indented lines below. ok is false
// if some occurrence is anywhere else, or not all share a head.
func frameOf(role byheart.Role, text, poison string) (head string, ok bool) {
	lines := splitLines(text)
	native := (role == byheart.ToolResult && strings.HasPrefix(text, resultMarker)) ||
		(role == byheart.Note && strings.HasPrefix(text, noteMarker))
	if !native && !strings.HasPrefix(text, memoryMarker) {
		return "", false
	}
	margin := ""
	for i, line := range lines {
		if !strings.HasPrefix(line, "  ") {
			margin = line
		}
		if !strings.Contains(line, poison) {
			continue
		}
		h := margin
		switch {
		case i == 0 || !strings.HasPrefix(line, "  "):
			return "", false
		case native:
			h = lines[0]
		case !strings.HasPrefix(margin, resultMarker) && !strings.HasPrefix(margin, noteMarker):
			return "", false
		}
		if head != "" && h != head {
			return "", false
		}
		head = h
	}
	return head, head != ""
}

// namesOne reports whether a frame's head names one of the sources.
func namesOne(head string, sources []string) bool {
	for _, src := range sources {
		if strings.Contains(head, "from "+src+",") {
			return true
		}
	}
	return false
}

// splitLines splits s at every break some reader of text ends a line at:
// LF, CR (CR LF is one), VT, FF, the file, group and record separators,
// NEL, LS and PS.
func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
			out = append(out, s[start:i])
			if r == '\r' && strings.HasPrefix(s[i+1:], "\n") {
				size++
			}
			start = i + size
		}
		i += size
	}
	return append(out, s[start:])
}

// attackArm is one way of composing for a scenario's questions.
type attackArm struct {
	name   string
	padded bool // filler on both sides, and the attack budget
	// stability is Options.Stability.
	stability float64
	// live appends each question and an answer after composing, as a chat
	// does; agent appends the question first and composes with Continue.
	live, agent bool
}

var attackArms = []attackArm{
	{name: "whole conversation, native (rule 1)"},
	{name: "padded, one-shot (rule 2)", padded: true, stability: -1},
	{name: "padded, live chat (rule 3)", padded: true, live: true},
	{name: "padded, agent loop (Continue)", padded: true, agent: true},
}

// attackTally counts one policy's compositions on one arm.
type attackTally struct {
	compositions, reached, escaped, unverifiedReached, marked int
}

func (a *attackTally) add(v poisonVerdict) {
	a.compositions++
	if v.reached {
		a.reached++
		a.unverifiedReached++ // every poisoned string is unauthenticated
		if v.marked && !v.escaped {
			a.marked++
		}
	}
	if v.escaped {
		a.escaped++
	}
}

func (a *attackTally) merge(b attackTally) {
	a.compositions += b.compositions
	a.reached += b.reached
	a.escaped += b.escaped
	a.unverifiedReached += b.unverifiedReached
	a.marked += b.marked
}

// runScenario composes for every question of s on one arm and policy.
func runScenario(f *attackFile, s *attackScenario, arm attackArm, policy byheart.Unverified, budget int) (attackTally, error) {
	opts := byheart.Options{Budget: budget, Stability: arm.stability, Unverified: policy}
	if arm.padded {
		opts.Budget, opts.Chunk = attackBudget, attackChunk
	}
	m := byheart.New(opts)
	var turns []byheart.Turn
	if arm.padded {
		turns = append(turns, filler(f, 0, attackPadding)...)
	}
	for _, t := range s.Turns {
		turns = append(turns, t.turn())
	}
	if arm.padded {
		turns = append(turns, filler(f, attackPadding, attackPadding)...)
	}
	for _, t := range turns {
		if _, err := m.AppendTurn(t); err != nil {
			return attackTally{}, err
		}
	}
	var t attackTally
	ctx := context.Background()
	for _, q := range s.Questions {
		var r byheart.Result
		var err error
		if arm.agent {
			if _, err = m.Append(byheart.User, q); err == nil {
				r, err = m.Continue(ctx)
			}
		} else {
			r, err = m.Compose(ctx, q)
			if err == nil && arm.live {
				_, err = m.Append(byheart.User, q)
			}
		}
		if err != nil {
			return attackTally{}, err
		}
		t.add(inspect(r, s))
		if arm.live || arm.agent {
			if _, err := m.Append(byheart.Assistant, "I will look into it."); err != nil {
				return attackTally{}, err
			}
		}
	}
	return t, nil
}

// filler returns n exchanges of the suite's small talk from the k-th on.
func filler(f *attackFile, k, n int) []byheart.Turn {
	out := make([]byheart.Turn, 0, 2*n)
	for i := range n {
		ex := f.Filler[(k+i)%len(f.Filler)]
		out = append(out, byheart.Turn{Role: byheart.User, Text: ex[0]}, byheart.Turn{Role: byheart.Assistant, Text: ex[1]})
	}
	return out
}

// attackRow is one policy's line on one arm.
type attackRow struct {
	Policy       string `json:"policy"`
	Arm          string `json:"arm"`
	Compositions int    `json:"compositions"`
	// Reached is the share of compositions that any poisoned string reached.
	Reached float64 `json:"reached"`
	// Escaped is the share in which one appeared outside its frame or
	// without its source's name: 0 is the requirement.
	Escaped float64 `json:"escaped"`
	// Marked is, of the compositions it reached, the share in which every
	// frame holding it was marked unverified: 1 is the requirement.
	Marked float64 `json:"marked"`
}

// attackResult is the section's output.
type attackResult struct {
	Source    string      `json:"source"`
	Scenarios int         `json:"scenarios"`
	Questions int         `json:"questions"`
	Rows      []attackRow `json:"rows"`
	Benign    []benignRow `json:"benign"`
}

var attackPolicies = []struct {
	name   string
	policy byheart.Unverified
}{{"quote", byheart.Quote}, {"quarantine", byheart.Quarantine}}

func findAttacks() (string, error) {
	synth, err := findSynthetic()
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(synth, syntheticPath) + attacksPath, nil
}

func measureAttacks(path string, ds *dataset, budget int, prog *progress) (*attackResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parseAttacks(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res := &attackResult{Source: path, Scenarios: len(f.Scenarios)}
	for _, s := range f.Scenarios {
		res.Questions += len(s.Questions)
	}
	for _, p := range attackPolicies {
		for _, arm := range attackArms {
			runs := make([]attackTally, len(f.Scenarios))
			err := parallel(len(runs), &latencies{}, prog, "attacks, "+p.name+", "+arm.name, func(i int, _ *latencies) (err error) {
				runs[i], err = runScenario(f, &f.Scenarios[i], arm, p.policy, budget)
				return err
			})
			if err != nil {
				return nil, err
			}
			var sum attackTally
			for _, t := range runs {
				sum.merge(t)
			}
			res.Rows = append(res.Rows, attackRow{Policy: p.name, Arm: arm.name, Compositions: sum.compositions,
				Reached: ratio(float64(sum.reached), sum.compositions), Escaped: ratio(float64(sum.escaped), sum.compositions),
				Marked: ratio(float64(sum.marked), sum.unverifiedReached)})
		}
	}
	res.Benign, err = measureBenign(ds, budget, prog)
	return res, err
}

func writeAttacks(b *strings.Builder, r *attackResult) {
	fmt.Fprintf(b, "\n## Attacks: poisoned tool text (%d scenarios, %d questions)\n\n", r.Scenarios, r.Questions)
	fmt.Fprintf(b, "Suite: `%s`. Reached: compositions any poisoned string reached. Escaped: ones in which it stood "+
		"outside its frame or without its source's name (must be 0). Marked: of those it reached, ones in which "+
		"every frame holding it said UNVERIFIED (must be 100%%). Quarantine must reach nothing. "+
		"Padded arms: %d characters, stretches of %d.\n\n", r.Source, attackBudget, attackChunk)
	b.WriteString("| policy | arm | compositions | reached | escaped | marked unverified |\n|---|---|---:|---:|---:|---:|\n")
	for _, row := range r.Rows {
		marked := "–" // nothing reached to be marked
		if row.Reached > 0 {
			marked = percent(row.Marked)
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s |\n", row.Policy, row.Arm, row.Compositions,
			percent(row.Reached), percent(row.Escaped), marked)
	}
	writeBenign(b, r.Benign)
}

// The benign part: the dataset's evidence turns, moved into tool results
// (each after a call of a notes tool), against the same turns as the
// user's words. Every question of categories 1 to 4 is composed fresh.

// benignVariant says what the turns of a conversation become: t as
// appended, given whether it is evidence for some question.
type benignVariant struct {
	name string
	as   func(t *turn, evidence bool) []byheart.Turn
}

func asTool(authenticated bool) func(t *turn, evidence bool) []byheart.Turn {
	return func(t *turn, evidence bool) []byheart.Turn {
		if !evidence {
			return []byheart.Turn{{Role: t.Role, Text: t.Text, Time: t.When}}
		}
		return []byheart.Turn{
			{Role: byheart.ToolCall, Tool: "notes.lookup", Text: "{}", Time: t.When},
			{Role: byheart.ToolResult, Text: t.Text, Source: byheart.Source{Name: "tool:notes", Authenticated: authenticated}},
		}
	}
}

var benignVariants = []benignVariant{
	{"as in the data", func(t *turn, _ bool) []byheart.Turn {
		return []byheart.Turn{{Role: t.Role, Text: t.Text, Time: t.When}}
	}},
	{"evidence said by the user", func(t *turn, evidence bool) []byheart.Turn {
		role := t.Role
		if evidence {
			role = byheart.User
		}
		return []byheart.Turn{{Role: role, Text: t.Text, Time: t.When}}
	}},
	{"evidence in tool results, authenticated", asTool(true)},
	{"evidence in tool results, unverified", asTool(false)},
}

// benignRow is one variant's evidence recall.
type benignRow struct {
	Variant   string  `json:"variant"`
	Questions int     `json:"questions"`
	Recall    float64 `json:"recall_1_4"`
}

func measureBenign(ds *dataset, budget int, prog *progress) ([]benignRow, error) {
	var rows []benignRow
	for _, v := range benignVariants {
		sums := make([]float64, len(ds.Convs))
		counts := make([]int, len(ds.Convs))
		err := parallel(len(ds.Convs), &latencies{}, prog, "attacks, "+v.name, func(i int, _ *latencies) (err error) {
			sums[i], counts[i], err = benignConversation(ds.Convs[i], v, budget)
			return err
		})
		if err != nil {
			return nil, err
		}
		row := benignRow{Variant: v.name}
		sum := 0.0
		for i := range sums {
			sum += sums[i]
			row.Questions += counts[i]
		}
		row.Recall = sum / float64(max(row.Questions, 1))
		rows = append(rows, row)
	}
	return rows, nil
}

// benignConversation appends conv as v has it and composes fresh for each
// question of categories 1 to 4, returning the summed recall and the count.
func benignConversation(conv *conversation, v benignVariant, budget int) (float64, int, error) {
	evidence := map[int]bool{}
	for _, q := range conv.Questions {
		for _, e := range q.Evidence {
			evidence[e] = q.Category >= 1 && q.Category <= 4 || evidence[e]
		}
	}
	m := byheart.New(byheart.Options{Budget: budget, Stability: -1})
	for i := range conv.Turns {
		for _, t := range v.as(&conv.Turns[i], evidence[i]) {
			if _, err := m.AppendTurn(t); err != nil {
				return 0, 0, fmt.Errorf("%s turn %s: %w", conv.ID, conv.Turns[i].DiaID, err)
			}
		}
	}
	sum, n := 0.0, 0
	for _, q := range conv.Questions {
		if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
			continue
		}
		r, err := m.Compose(context.Background(), q.Text)
		if err != nil {
			return 0, 0, err
		}
		s := newSent(resultCall(r))
		found := 0
		for _, e := range q.Evidence {
			if s.has(&conv.Turns[e]) {
				found++
			}
		}
		sum += float64(found) / float64(len(q.Evidence))
		n++
	}
	return sum, n, nil
}

func writeBenign(b *strings.Builder, rows []benignRow) {
	b.WriteString("\nBenign tool use: the dataset's evidence turns moved into tool results (each after a call), " +
		"against the same turns said by the user; evidence recall over categories 1-4, composed fresh.\n\n")
	b.WriteString("| evidence turns | questions | recall 1-4 |\n|---|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %d | %s |\n", r.Variant, r.Questions, percent(r.Recall))
	}
}
