// Package locomo reads conversations in the shape of LoCoMo's published
// locomo10.json: a list of samples, each with two speakers, numbered
// sessions of turns with a date and time per session, and questions whose
// evidence names turns by id. The benchmark program and the core package's
// tests both read their conversations through it, so every measure sees the
// same turns, times and questions whichever file they came from.
//
// It imports only the standard library (the core package's own tests use
// it, so it cannot import the core), and it is lenient where the published
// data is irregular: turn ids under either field name, evidence entries that
// pack two ids, answers written as bare numbers, session times in several
// layouts. Everything else that is wrong is refused with an error naming the
// sample, the field and the line.
package locomo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Dataset is a whole file.
type Dataset struct {
	Convs []*Conversation
	// BadEvidence lists evidence ids that name no turn (LoCoMo has a few),
	// as `conv-42 qa[12] "D"`; they are left out of Question.Evidence.
	BadEvidence []string
}

// Conversation is one sample: its speakers, its turns in session order and
// its questions.
type Conversation struct {
	ID string
	// SpeakerA and SpeakerB name the two speakers; the benchmark takes
	// speaker_a as the user and speaker_b as the assistant.
	SpeakerA, SpeakerB string
	Turns              []Turn
	Questions          []Question
}

// Turn is one turn of a session.
type Turn struct {
	ID      string // the turn's id ("D1:3"), unique in its conversation
	Session int    // the number of the session_N that holds it
	Speaker string
	// ByA reports whether speaker_a said the turn.
	ByA bool
	// Text is the turn's text, plus " [shares a photo: <caption>]" when the
	// turn shared an image, since that caption is all a text-only memory
	// ever sees of the image.
	Text string
	// When is the session's date and time, the same for every turn of it.
	When time.Time
}

// Question is one qa entry.
type Question struct {
	Text string
	// Answer is answer, or adversarial_answer when answer is absent (as in
	// category 5).
	Answer   string
	Category int
	// Evidence holds the indexes into Conversation.Turns of the turns the
	// question's evidence names, ascending and without repeats; it is empty
	// when no evidence id names a turn.
	Evidence []int
	// Kind is the optional "kind" field: what sort of question it is
	// beyond its category ("instruction", "update", ...), as the project's
	// own data says; empty when absent, as in LoCoMo's files.
	Kind string
}

// Categories are LoCoMo's question categories, by number.
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// Turn ids: LoCoMo names the field TurnIDField; the project's own files
// name it OwnTurnIDField, so that nothing in the repository reads as
// LoCoMo's data. Either is read.
const (
	TurnIDField    = "dia_id"
	OwnTurnIDField = "id"
)

// Load reads and checks a file; its errors start with the path.
func Load(path string) (*Dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ds, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

// Parse decodes samples one at a time so that an error can say which
// sample, and on which line, it is about. Unknown fields are ignored.
func Parse(data []byte) (*Dataset, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("line 1: want a JSON list of samples at the top, found %s", tokenKind(tok))
	}
	ds := &Dataset{}
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

// parseSample reads one sample. It names the sample in *where as soon as its
// id is known, so that later errors say "sample 2 "conv-41" (line 9)".
func parseSample(raw json.RawMessage, ds *Dataset, where *string) (*Conversation, error) {
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
	conv := &Conversation{ID: id}
	if conv.SpeakerA, err = text(cv, "speaker_a", "conversation", true); err != nil {
		return nil, err
	}
	if conv.SpeakerB, err = text(cv, "speaker_b", "conversation", true); err != nil {
		return nil, err
	}
	if conv.SpeakerA == conv.SpeakerB {
		return nil, fmt.Errorf("conversation: speaker_a and speaker_b are both %q, so the roles cannot be told apart", conv.SpeakerA)
	}
	byID, err := conv.readSessions(cv)
	if err != nil {
		return nil, err
	}
	rawQA, ok := sample["qa"]
	if !ok {
		return conv, nil
	}
	var qas []json.RawMessage
	if err := json.Unmarshal(rawQA, &qas); err != nil {
		return nil, fmt.Errorf("qa: want a list of questions, found %s", jsonKind(rawQA))
	}
	for j, rawQ := range qas {
		q, err := parseQuestion(rawQ, fmt.Sprintf("qa[%d]", j), id, byID, ds)
		if err != nil {
			return nil, err
		}
		conv.Questions = append(conv.Questions, q)
	}
	return conv, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// readSessions appends the turns of every session_N in number order and
// returns the index of each turn id.
func (conv *Conversation) readSessions(cv map[string]json.RawMessage) (map[string]int, error) {
	var sessions []int
	for key := range cv {
		if m := sessionKey.FindStringSubmatch(key); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return nil, fmt.Errorf("conversation.%s: the session number is out of range", key)
			}
			sessions = append(sessions, n)
		}
	}
	sort.Ints(sessions)
	byID := map[string]int{}
	for _, n := range sessions {
		key := "session_" + strconv.Itoa(n)
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
		when, err := ParseSessionTime(stamp)
		if err != nil {
			return nil, fmt.Errorf("conversation.%s: %w", timeKey, err)
		}
		for j, rawTurn := range turns {
			path := fmt.Sprintf("conversation.%s[%d]", key, j)
			t, err := conv.parseTurn(rawTurn, path)
			if err != nil {
				return nil, err
			}
			if k, dup := byID[t.ID]; dup {
				return nil, fmt.Errorf("%s: turn id %q was already used by turn %s", path, t.ID, conv.Turns[k].ID)
			}
			t.Session, t.When = n, when
			byID[t.ID] = len(conv.Turns)
			conv.Turns = append(conv.Turns, t)
		}
	}
	if len(conv.Turns) == 0 {
		return nil, errors.New("conversation: no session_N holds any turns")
	}
	return byID, nil
}

// turnID reads a turn's id under either name.
func turnID(obj map[string]json.RawMessage, path string) (string, error) {
	if _, ok := obj[TurnIDField]; !ok {
		if _, ok := obj[OwnTurnIDField]; ok {
			return text(obj, OwnTurnIDField, path, true)
		}
	}
	return text(obj, TurnIDField, path, true)
}

// parseTurn reads one turn of a session, its photo caption appended to its
// text; path names it in errors.
func (conv *Conversation) parseTurn(raw json.RawMessage, path string) (Turn, error) {
	obj, err := object(raw, path)
	if err != nil {
		return Turn{}, err
	}
	var t Turn
	if t.Speaker, err = text(obj, "speaker", path, true); err != nil {
		return Turn{}, err
	}
	if t.ID, err = turnID(obj, path); err != nil {
		return Turn{}, err
	}
	if t.Text, err = text(obj, "text", path, true); err != nil {
		return Turn{}, err
	}
	caption, err := text(obj, "blip_caption", path, false)
	if err != nil {
		return Turn{}, err
	}
	if caption != "" {
		t.Text += " [shares a photo: " + caption + "]"
	}
	switch t.Speaker {
	case conv.SpeakerA:
		t.ByA = true
	case conv.SpeakerB:
	default:
		names := []string{strconv.Quote(conv.SpeakerA), strconv.Quote(conv.SpeakerB)}
		sort.Strings(names)
		return Turn{}, fmt.Errorf("%s.speaker: %q is neither of the conversation's speakers (%s)", path, t.Speaker, strings.Join(names, ", "))
	}
	return t, nil
}

// parseQuestion reads one qa entry and resolves its evidence ids to turn
// indexes, noting in ds.BadEvidence the ids that name no turn.
func parseQuestion(raw json.RawMessage, path, convID string, byID map[string]int, ds *Dataset) (Question, error) {
	obj, err := object(raw, path)
	if err != nil {
		return Question{}, err
	}
	var q Question
	if q.Text, err = text(obj, "question", path, true); err != nil {
		return Question{}, err
	}
	// Category 5 carries adversarial_answer instead of answer; either may be
	// a number (LoCoMo writes some years as 2022).
	if q.Answer, err = text(obj, "answer", path, false); err != nil {
		return Question{}, err
	}
	if q.Answer == "" {
		if q.Answer, err = text(obj, "adversarial_answer", path, false); err != nil {
			return Question{}, err
		}
	}
	if q.Kind, err = text(obj, "kind", path, false); err != nil {
		return Question{}, err
	}
	rawCat, ok := obj["category"]
	if !ok {
		return Question{}, fmt.Errorf(`%s: missing "category"`, path)
	}
	if err := json.Unmarshal(rawCat, &q.Category); err != nil || Categories[q.Category] == "" {
		return Question{}, fmt.Errorf("%s.category: want a number from 1 to 5, found %s", path, string(rawCat))
	}
	var ids []string
	if rawEv, ok := obj["evidence"]; ok {
		if err := json.Unmarshal(rawEv, &ids); err != nil {
			return Question{}, fmt.Errorf("%s.evidence: want a list of turn id strings, found %s", path, jsonKind(rawEv))
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

// ParseSessionTime reads a session's date and time, leniently: case, commas,
// "on" and extra spaces do not matter.
func ParseSessionTime(s string) (time.Time, error) {
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
