package main

import (
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/locomo"
)

// The benchmark reads LoCoMo's published locomo10.json shape, which is also
// the shape of the project's synthetic data, through internal/locomo, the
// loader the core package's benchmarks use too.

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
type question = locomo.Question

// categoryNames are LoCoMo's question categories, by number.
var categoryNames = locomo.Categories

// loadFile reads and checks a file in the locomo10.json shape.
func loadFile(path string) (*dataset, error) {
	src, err := locomo.Load(path)
	if err != nil {
		return nil, err
	}
	ds := fromLoCoMo(src)
	ds.Source = path
	return ds, nil
}

// fromLoCoMo takes the parsed file as the benchmark measures it: speaker_a
// is the user, each turn carries its annotated form, and questions without
// evidence are counted and left out.
func fromLoCoMo(src *locomo.Dataset) *dataset {
	ds := &dataset{BadEvidence: src.BadEvidence}
	for _, c := range src.Convs {
		conv := &conversation{ID: c.ID, Turns: make([]turn, len(c.Turns))}
		for i, t := range c.Turns {
			role := byheart.Assistant
			if t.ByA {
				role = byheart.User
			}
			annotated := byheart.Annotate(t.Text, t.When)
			conv.Turns[i] = turn{DiaID: t.ID, Session: t.Session, Role: role, Speaker: t.Speaker, Text: t.Text, When: t.When,
				Annotated: annotated, flat: collapse(t.Text), flatAnnotated: collapse(annotated)}
		}
		for _, q := range c.Questions {
			if len(q.Evidence) == 0 {
				ds.NoEvidence++
				continue
			}
			conv.Questions = append(conv.Questions, q)
		}
		ds.Convs = append(ds.Convs, conv)
	}
	return ds
}
