package main

import (
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
)

// mkTurn builds a turn the way the loader does.
func mkTurn(id, speaker string, role byheart.Role, text, annotated string) turn {
	return turn{DiaID: id, Speaker: speaker, Role: role, Text: text, Annotated: annotated, flat: collapse(text), flatAnnotated: collapse(annotated)}
}

func contextOf(texts ...string) call {
	c := call{}
	for _, s := range texts {
		c.parts = append(c.parts, part{byheart.User, s})
	}
	c.parts = append(c.parts, part{byheart.User, "the query"})
	return c
}

func TestCollapse(t *testing.T) {
	assert.Equal(t, "a b c", collapse("  a \n\t b\u00a0\u00a0c \n"))
	assert.Equal(t, "", collapse(" \n "))
}

func TestSentFindsTurnsHoweverTheyAreLaidOut(t *testing.T) {
	multi := mkTurn("D1:1", "Ana", byheart.User, "first line\nsecond line", "first line\nsecond line")
	dated := mkTurn("D1:2", "Bo", byheart.Assistant, "I ran last Saturday.", "I ran last Saturday [6 May 2023].")
	raw := mkTurn("D1:3", "Ana", byheart.User, "Plain words.", "Plain words.")

	block := "[memory]\n8 May 2023\n  Ana: first line\n    second line\n  Bo: I ran last Saturday [6 May 2023].\n"
	s := newSent(contextOf(block))
	assert.True(t, s.has(&multi), "indented continuation lines still match")
	assert.True(t, s.has(&dated), "the annotated form matches")
	assert.False(t, s.has(&raw))

	assert.True(t, newSent(contextOf("x", "I ran last Saturday.")).has(&dated), "the raw form matches too")
	assert.True(t, newSent(contextOf("Plain", "words.")).has(&raw), "parts are read as one context")
	assert.False(t, newSent(contextOf()).has(&raw), "an empty context holds nothing")
	assert.False(t, newSent(contextOf("other")).has(&raw), "the query is not context")
}

func TestSentHasText(t *testing.T) {
	s := newSent(contextOf("Reference material:\n- a  junk\n  item"))
	assert.True(t, s.hasText("a junk item"))
	assert.False(t, s.hasText("another item"))
}

func TestCallContextChars(t *testing.T) {
	c := contextOf("ab", "çé")
	assert.Equal(t, 4, c.contextChars(), "runes, and the query is not counted")
	assert.Len(t, c.context(), 2)
}

// tinyConversation is three exchanges over two sessions, small enough to
// reason about by hand.
func tinyConversation() *conversation {
	day1 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	day2 := day1.AddDate(0, 0, 7)
	texts := []string{
		"We adopted a beagle called Pickle.", "A beagle! Lovely.",
		"The weather turned cold.", "Wrap up warm then.",
		"Pickle chewed my new boots.", "Classic beagle behaviour.",
	}
	c := &conversation{ID: "tiny"}
	for i, text := range texts {
		role, speaker := byheart.User, "Ana"
		if i%2 == 1 {
			role, speaker = byheart.Assistant, "Bo"
		}
		tu := mkTurn("", speaker, role, text, text)
		tu.Session, tu.When = 1, day1
		if i >= 4 {
			tu.Session, tu.When = 2, day2
		}
		c.Turns = append(c.Turns, tu)
	}
	c.Questions = []question{
		{Text: "What is the beagle called?", Category: 4, Evidence: []int{0}},
		{Text: "What did Pickle chew?", Category: 1, Evidence: []int{0, 4}},
		{Text: "How was the weather?", Category: 2, Evidence: []int{2}},
	}
	return c
}

func TestCollapseKeepsNonASCIIText(t *testing.T) {
	assert.Equal(t, "café — naïve 日本", collapse("café\u2003—\u3000naïve \n日本"))
	assert.Equal(t, "x", collapse("x"))
}
