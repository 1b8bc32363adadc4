package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/byheart/byheart"
)

// The loader reads LoCoMo's published locomo10.json shape, which is also the
// shape of the project's synthetic data, so one loader serves both and every
// section measures the same conversations whichever file they came from.

// dataset is what every section of the benchmark measures.
type dataset struct {
	Source string
	Convs  []*conversation
	// BadEvidence lists evidence ids that name no turn (LoCoMo has a few),
	// as `conv-42 qa[12] "D"`; they are skipped.
	BadEvidence []string
	// NoEvidence counts questions left without any evidence turn; they count
	// in no section, because no context can be scored against them.
	NoEvidence int
}

// conversation is one sample: its turns in order and its questions.
type conversation struct {
	ID        string
	Turns     []turn
	Questions []question
}

// turn is one conversation turn as the benchmark appends it.
type turn struct {
	DiaID   string
	Session int
	Role    byheart.Role
	Speaker string
	// Text is what is appended: the turn's text, plus " [shares a photo:
	// <caption>]" when the turn shared an image, since that caption is all a
	// text-only memory ever sees of the image.
	Text string
	When time.Time
	// Annotated is byheart.Annotate(Text, When): the form the memory indexes
	// and renders. Either form counts as the turn reaching a context.
	Annotated string
	// flat and flatAnnotated are Text and Annotated with white space runs
	// collapsed; see sent.has.
	flat, flatAnnotated string
}

// question is one qa entry with its evidence resolved to turn indexes.
type question struct {
	Text     string
	Answer   string
	Category int
	Evidence []int
}

// categoryNames are LoCoMo's question categories, by number.
var categoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// loadFile reads and checks a file in the locomo10.json shape.
func loadFile(path string) (*dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ds, err := parseLoCoMo(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ds.Source = path
	return ds, nil
}

// parseLoCoMo decodes samples one at a time so that an error can say which
// sample, and on which line, it is about. Unknown fields are ignored.
func parseLoCoMo(data []byte) (*dataset, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("line 1: want a JSON list of samples at the top, found %s", tokenKind(tok))
	}
	ds := &dataset{}
	ids := map[string]int{}
	for i := 0; dec.More(); i++ {
		start := skipSeparators(data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonError(data, err)
		}
		where := fmt.Sprintf("sample %d (line %d)", i, lineOf(data, start))
		conv, err := parseSample(raw, ds, &where)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if j, dup := ids[conv.ID]; dup {
			return nil, fmt.Errorf("%s: sample_id %q was already used by sample %d", where, conv.ID, j)
		}
		ids[conv.ID] = i
		ds.Convs = append(ds.Convs, conv)
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonError(data, err)
	}
	if len(ds.Convs) == 0 {
		return nil, errors.New("the list of samples is empty")
	}
	return ds, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// parseSample reads one sample. It names the sample in *where as soon as its
// id is known, so that later errors say "sample 2 "conv-41" (line 9)".
func parseSample(raw json.RawMessage, ds *dataset, where *string) (*conversation, error) {
	sample, err := object(raw, "the sample")
	if err != nil {
		return nil, err
	}
	id, err := text(sample, "sample_id", "", true)
	if err != nil {
		return nil, err
	}
	*where = strings.Replace(*where, " (", fmt.Sprintf(" %q (", id), 1)
	if _, ok := sample["conversation"]; !ok {
		return nil, errors.New(`missing "conversation"`)
	}
	cv, err := object(sample["conversation"], "conversation")
	if err != nil {
		return nil, err
	}
	conv := &conversation{ID: id}
	speakerA, err := text(cv, "speaker_a", "conversation", true)
	if err != nil {
		return nil, err
	}
	speakerB, err := text(cv, "speaker_b", "conversation", true)
	if err != nil {
		return nil, err
	}
	if speakerA == speakerB {
		return nil, fmt.Errorf("conversation: speaker_a and speaker_b are both %q, so the roles cannot be told apart", speakerA)
	}
	roles := map[string]byheart.Role{speakerA: byheart.User, speakerB: byheart.Assistant}

	var sessions []int
	for key := range cv {
		if m := sessionKey.FindStringSubmatch(key); m != nil {
			n, _ := strconv.Atoi(m[1])
			sessions = append(sessions, n)
		}
	}
	sort.Ints(sessions)
	byID := map[string]int{}
	for _, n := range sessions {
		key := fmt.Sprintf("session_%d", n)
		var turns []json.RawMessage
		if err := json.Unmarshal(cv[key], &turns); err != nil {
			return nil, fmt.Errorf("conversation.%s: want a list of turns, found %s", key, jsonKind(cv[key]))
		}
		if len(turns) == 0 {
			continue
		}
		timeKey := key + "_date_time"
		stamp, err := text(cv, timeKey, "conversation", true)
		if err != nil {
			return nil, fmt.Errorf("%w (session %d has turns, so it needs a time)", err, n)
		}
		when, err := parseSessionTime(stamp)
		if err != nil {
			return nil, fmt.Errorf("conversation.%s: %w", timeKey, err)
		}
		for j, rawTurn := range turns {
			path := fmt.Sprintf("conversation.%s[%d]", key, j)
			t, err := parseTurn(rawTurn, path, roles)
			if err != nil {
				return nil, err
			}
			if k, dup := byID[t.DiaID]; dup {
				return nil, fmt.Errorf("%s: turn id %q was already used by turn %s", path, t.DiaID, conv.Turns[k].DiaID)
			}
			t.Session, t.When = n, when
			t.Annotated = byheart.Annotate(t.Text, when)
			t.flat, t.flatAnnotated = collapse(t.Text), collapse(t.Annotated)
			byID[t.DiaID] = len(conv.Turns)
			conv.Turns = append(conv.Turns, t)
		}
	}
	if len(conv.Turns) == 0 {
		return nil, errors.New("conversation: no session_N holds any turns")
	}

	if rawQA, ok := sample["qa"]; ok {
		var qas []json.RawMessage
		if err := json.Unmarshal(rawQA, &qas); err != nil {
			return nil, fmt.Errorf("qa: want a list of questions, found %s", jsonKind(rawQA))
		}
		for j, rawQ := range qas {
			q, err := parseQuestion(rawQ, fmt.Sprintf("qa[%d]", j), id, byID, ds)
			if err != nil {
				return nil, err
			}
			if len(q.Evidence) == 0 {
				ds.NoEvidence++
				continue
			}
			conv.Questions = append(conv.Questions, q)
		}
	}
	return conv, nil
}

// Turn ids: LoCoMo names the field locomoTurnID; the project's own files
// (testdata/synthetic.json, the tests' fixtures) name it ownTurnID, so that
// nothing in the repository reads as LoCoMo's data.
const (
	locomoTurnID = "dia_id"
	ownTurnID    = "id"
)

// turnID reads a turn's id under either name.
func turnID(obj map[string]json.RawMessage, path string) (string, error) {
	if _, ok := obj[locomoTurnID]; ok {
		return text(obj, locomoTurnID, path, true)
	}
	if _, ok := obj[ownTurnID]; ok {
		return text(obj, ownTurnID, path, true)
	}
	return text(obj, locomoTurnID, path, true)
}

func parseTurn(raw json.RawMessage, path string, roles map[string]byheart.Role) (turn, error) {
	obj, err := object(raw, path)
	if err != nil {
		return turn{}, err
	}
	var t turn
	if t.Speaker, err = text(obj, "speaker", path, true); err != nil {
		return turn{}, err
	}
	if t.DiaID, err = turnID(obj, path); err != nil {
		return turn{}, err
	}
	if t.Text, err = text(obj, "text", path, true); err != nil {
		return turn{}, err
	}
	caption, err := text(obj, "blip_caption", path, false)
	if err != nil {
		return turn{}, err
	}
	if caption != "" {
		t.Text += " [shares a photo: " + caption + "]"
	}
	role, ok := roles[t.Speaker]
	if !ok {
		var names []string
		for name := range roles {
			names = append(names, strconv.Quote(name))
		}
		sort.Strings(names)
		return turn{}, fmt.Errorf("%s.speaker: %q is neither of the conversation's speakers (%s)", path, t.Speaker, strings.Join(names, ", "))
	}
	t.Role = role
	return t, nil
}

func parseQuestion(raw json.RawMessage, path, convID string, byID map[string]int, ds *dataset) (question, error) {
	obj, err := object(raw, path)
	if err != nil {
		return question{}, err
	}
	var q question
	if q.Text, err = text(obj, "question", path, true); err != nil {
		return question{}, err
	}
	// Category 5 carries adversarial_answer instead of answer; either may be
	// a number (LoCoMo writes some years as 2022).
	if q.Answer, err = text(obj, "answer", path, false); err != nil {
		return question{}, err
	}
	if q.Answer == "" {
		if q.Answer, err = text(obj, "adversarial_answer", path, false); err != nil {
			return question{}, err
		}
	}
	rawCat, ok := obj["category"]
	if !ok {
		return question{}, fmt.Errorf(`%s: missing "category"`, path)
	}
	if err := json.Unmarshal(rawCat, &q.Category); err != nil || categoryNames[q.Category] == "" {
		return question{}, fmt.Errorf("%s.category: want a number from 1 to 5, found %s", path, string(rawCat))
	}
	var ids []string
	if rawEv, ok := obj["evidence"]; ok {
		if err := json.Unmarshal(rawEv, &ids); err != nil {
			return question{}, fmt.Errorf("%s.evidence: want a list of turn id strings, found %s", path, jsonKind(rawEv))
		}
	}
	seen := map[int]bool{}
	for _, entry := range ids {
		// One LoCoMo entry packs two ids ("D8:6; D9:17"); both are real turns.
		for _, id := range strings.FieldsFunc(entry, func(r rune) bool { return r == ';' || r == ',' || unicode.IsSpace(r) }) {
			i, ok := byID[id]
			if !ok {
				ds.BadEvidence = append(ds.BadEvidence, fmt.Sprintf("%s %s %q", convID, path, id))
				continue
			}
			if !seen[i] {
				seen[i] = true
				q.Evidence = append(q.Evidence, i)
			}
		}
	}
	sort.Ints(q.Evidence)
	return q, nil
}

// object decodes raw as a JSON object, naming path when it is something else.
func object(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%s: want an object, found %s", path, jsonKind(raw))
	}
	return obj, nil
}

// text reads obj[key] as a string; numbers are taken as their literal, since
// the published data writes some answers as bare numbers. path names obj in
// messages ("" at the top of a sample).
func text(obj map[string]json.RawMessage, key, path string, required bool) (string, error) {
	raw, ok := obj[key]
	if !ok || string(raw) == "null" {
		if !required {
			return "", nil
		}
		if path == "" {
			return "", fmt.Errorf("missing %q", key)
		}
		return "", fmt.Errorf("%s: missing %q", path, key)
	}
	at := key
	if path != "" {
		at = path + "." + key
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if required && strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("%s: is empty", at)
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("%s: want a string, found %s", at, jsonKind(raw))
}

// jsonKind names the kind of a JSON value for error messages.
func jsonKind(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "":
		return "nothing"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "a list"
	case s[0] == '"':
		return "a string " + s
	case s == "null":
		return "null"
	case s == "true" || s == "false":
		return "a boolean"
	default:
		return "a number " + s
	}
}

// tokenKind names the first token of a file that is not a list.
func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return string(v)
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// jsonError turns a decoding error into one that says where the file breaks.
func jsonError(data []byte, err error) error {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		line, col := position(data, int(syntax.Offset))
		return fmt.Errorf("line %d, column %d: not valid JSON: %v", line, col, err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the file ends in the middle of the JSON")
	}
	return err
}

// skipSeparators moves past the white space and comma a decoder leaves
// before the next value, so that line numbers point at the value itself.
func skipSeparators(data []byte, off int) int {
	for off < len(data) && (data[off] == ',' || data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t') {
		off++
	}
	return off
}

func lineOf(data []byte, off int) int {
	line, _ := position(data, off)
	return line
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}

// sessionLayouts are the shapes a session time is read in, after
// normalizeStamp: LoCoMo's own ("1:56 pm on 8 May, 2023") first, then the
// ones a hand-made file is likely to use.
var sessionLayouts = []string{
	"3:04 pm 2 January 2006",
	"3:04pm 2 January 2006",
	"3:04 pm January 2 2006",
	"3:04pm January 2 2006",
	"15:04 2 January 2006",
	"2 January 2006 3:04 pm",
	"January 2 2006 3:04 pm",
	"2 January 2006",
	"January 2 2006",
	"2 Jan 2006",
	"Jan 2 2006",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseSessionTime reads a session's date and time, leniently: case, commas,
// "on" and extra spaces do not matter.
func parseSessionTime(s string) (time.Time, error) {
	norm := normalizeStamp(s)
	for _, layout := range sessionLayouts {
		if t, err := time.Parse(layout, norm); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read %q as a date and time (want e.g. \"1:56 pm on 8 May, 2023\")", s)
}

func normalizeStamp(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, ",", " "))
	var words []string
	for _, w := range strings.Fields(s) {
		if w != "on" && w != "at" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}
