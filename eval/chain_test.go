package main

import (
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/locomo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// datedConversation is a conversation on day whose evidence turn says
// "last Saturday", so byheart writes a date beside it.
func datedConversation(id string, day time.Time) *conversation {
	texts := []string{"Last Saturday I won the pub quiz with my sister.", "Congratulations!", "Thanks, it was close.", "See you soon."}
	c := &conversation{ID: id}
	for i, text := range texts {
		role, speaker := byheart.User, "Ana"
		if i%2 == 1 {
			role, speaker = byheart.Assistant, "Bo"
		}
		tu := mkTurn("D1:"+string(rune('1'+i)), speaker, role, text, byheart.Annotate(text, day))
		tu.When = day
		c.Turns = append(c.Turns, tu)
	}
	c.Questions = []question{{Text: "When did Ana win the pub quiz?", Category: 2, Evidence: []int{0}}}
	return c
}

func TestChainMovesEachConversationAWeekOnAndDatesItsTurnsAgain(t *testing.T) {
	first := datedConversation("one", time.Date(2023, 5, 25, 14, 0, 0, 0, time.UTC))
	second := datedConversation("two", time.Date(2021, 1, 7, 9, 0, 0, 0, time.UTC))
	h := chain("two chained", []*conversation{first, second})

	require.Len(t, h.conv.Turns, 8)
	assert.Equal(t, []int{0, 4}, h.starts)
	moved := h.conv.Turns[4]
	assert.Equal(t, first.Turns[3].When.AddDate(0, 0, 7), moved.When, "a week after the first conversation ends")
	assert.Equal(t, byheart.Annotate(moved.Text, moved.When), moved.Annotated, "the date beside \"last Saturday\" is the new one")
	assert.NotEqual(t, second.Turns[0].Annotated, moved.Annotated)
	assert.Equal(t, first.Turns[0], h.conv.Turns[0], "the first conversation stays where it was")
	assert.Equal(t, []int{4}, h.conv.Questions[1].Evidence, "evidence points into the chain")
	assert.Equal(t, []int{0}, second.Questions[0].Evidence, "the chained conversation is left as it was")
	assert.Equal(t, 0, h.part(0))
	assert.Equal(t, 0, h.part(4), "a call after the first conversation's last turn belongs to it")
	assert.Equal(t, 1, h.part(5))

	_, rc, err := liveConversation(h.conv, byheartFresh, 20_000, &latencies{}, schedule(h.conv))
	require.NoError(t, err)
	assert.InDelta(t, 1.0, rc.row("fresh").Recall14, 1e-9, "byheart's dated turn counts as the evidence it is")
}

func TestDistinctConversationsShareNoNameAndNoValue(t *testing.T) {
	data, err := synthesizeDistinct(distinctSeed, windowTimes)
	require.NoError(t, err)
	src, err := locomo.Parse(data)
	require.NoError(t, err)
	require.Len(t, src.Convs, windowTimes)
	names := map[string]bool{}
	for _, c := range src.Convs {
		for _, tu := range c.Turns {
			names[tu.Speaker] = true
		}
		assert.NotEmpty(t, c.Questions)
	}
	assert.Len(t, names, 2*windowTimes, "every conversation has its own two people")

	vs := distinctVocabs(newRNG(distinctSeed), windowTimes)
	owner := map[string]int{}
	for ci, v := range vs {
		assert.GreaterOrEqual(t, len(v.single), 6, "conversation %d", ci)
		assert.GreaterOrEqual(t, len(v.topics), 2, "conversation %d: a session draws two topics", ci)
		assert.NotEmpty(t, v.events)
		var values []string
		for _, k := range v.single {
			for _, slot := range k.slots {
				require.GreaterOrEqual(t, len(slot), 2, "both speakers draw a value of their own")
				for _, value := range slot {
					values = append(values, k.ask[0]+"="+value)
				}
			}
		}
		for _, k := range v.multi {
			for _, slot := range k.slots {
				for _, value := range slot {
					values = append(values, k.ask+"="+value)
				}
			}
		}
		for _, e := range v.events {
			values = append(values, "event="+e.base)
		}
		for _, value := range values {
			if prev, ok := owner[value]; ok {
				assert.Fail(t, "a value in two conversations", "%s in %d and %d", value, prev, ci)
			}
			owner[value] = ci
		}
	}
	assert.Equal(t, synthesize(), synthesizeFrom(synthSeed), "the committed set is drawn as before")
	_, err = synthesizeDistinct(distinctSeed, len(firstNames))
	assert.ErrorContains(t, err, "names")
}

func TestRepetitiveChainIsTheHardCase(t *testing.T) {
	if testing.Short() {
		t.Skip("draws ten conversations")
	}
	h, err := repetitive()
	require.NoError(t, err)
	assert.True(t, h.hard)
	assert.Len(t, h.starts, windowTimes)
	assert.True(t, strings.Contains(h.name, "hard case"))
}
