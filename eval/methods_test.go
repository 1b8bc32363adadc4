package main

import (
	"testing"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func addAll(t *testing.T, c composer, conv *conversation) {
	t.Helper()
	for i := range conv.Turns {
		require.NoError(t, c.add(&conv.Turns[i]))
	}
}

func TestFullHistorySendsEveryTurnNatively(t *testing.T) {
	conv := tinyConversation()
	f := &full{}
	addAll(t, f, conv)
	c, err := f.compose("q")
	require.NoError(t, err)
	require.Len(t, c.parts, 7)
	assert.Equal(t, part{byheart.Assistant, "A beagle! Lovely."}, c.parts[1])
	assert.Equal(t, part{byheart.User, "q"}, c.parts[6])
	assert.Equal(t, 5, c.breakpoint, "the breakpoint is on the last history part")
}

func TestRecencyKeepsTheNewestTurnsThatFitRendered(t *testing.T) {
	conv := tinyConversation()
	// The last two turns rendered: "Ana: Pickle chewed my new boots.\n" is 33
	// characters and "Bo: Classic beagle behaviour.\n" 30.
	last := utf8.RuneCountInString("Ana: Pickle chewed my new boots.\n") + utf8.RuneCountInString("Bo: Classic beagle behaviour.\n")
	for _, tc := range []struct {
		budget, turns int
	}{{last, 2}, {last - 1, 1}, {0, 0}, {100000, 6}} {
		r := &recency{budget: tc.budget}
		addAll(t, r, conv)
		c, err := r.compose("q")
		require.NoError(t, err)
		assert.Len(t, c.context(), tc.turns, "budget %d", tc.budget)
		assert.Equal(t, tc.turns-1, c.breakpoint)
		if tc.turns > 0 {
			assert.Equal(t, "Classic beagle behaviour.", c.context()[tc.turns-1].text, "the newest turn is last")
		}
	}
}

func TestByheartCallsAreFlattenedAndTimed(t *testing.T) {
	conv := tinyConversation()
	lat := &latencies{}
	b := newByheart(byheart.Options{}, lat)
	addAll(t, b, conv)
	c, err := b.compose("what about Pickle?")
	require.NoError(t, err)
	assert.Equal(t, part{byheart.User, "what about Pickle?"}, c.parts[len(c.parts)-1], "the query is the last part")
	assert.Less(t, c.breakpoint, len(c.parts)-1)
	assert.Len(t, lat.appends, 6)
	assert.Len(t, lat.composes, 1)
	assert.Equal(t, 6, lat.composes[0].turns, "a call is filed under the history it saw")
	assert.Equal(t, 5, lat.appends[5].turns)
}
