package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// padded is text followed by a filler word, n characters in all.
func padded(text string, n int) string {
	return text + " " + strings.Repeat("z", n-len(text)-1)
}

func stretchOf(t *testing.T, budget int, texts ...string) (*stretchRAG, []turn) {
	s := newStretchRAG(budget)
	s.idx.terms = words
	turns := make([]turn, len(texts))
	for i, text := range texts {
		turns[i] = mkTurn("", "Ana", byheart.User, text, text)
		if i%2 == 1 {
			turns[i] = mkTurn("", "Bo", byheart.Assistant, text, text)
		}
		require.NoError(t, s.add(&turns[i]))
	}
	return s, turns
}

func TestStretchesCloseOnceTheyReachAThousandCharacters(t *testing.T) {
	s, _ := stretchOf(t, 0,
		padded("one", 600), padded("two", 500), // 1,100: closes here
		padded("three", 300), padded("four", 699), // 999: still open
		padded("five", 10), // 1,009: closes here
		padded("six", 10),  // open until a query
	)
	assert.Equal(t, []int{0, 2}, []int{s.stretches[0].from, s.stretches[1].from})
	assert.Equal(t, []int{2, 5}, []int{s.stretches[0].to, s.stretches[1].to})
	require.Len(t, s.stretches, 2, "the last turn's stretch is still open")
	_, err := s.compose("six")
	require.NoError(t, err)
	require.Len(t, s.stretches, 3, "a query closes the open stretch")
	assert.Equal(t, stretchSpan{5, 6, utf8.RuneCountInString("Bo: " + padded("six", 10))}, s.stretches[2])
}

func TestStretchBM25PacksTheBestWholeStretchesInTimeOrder(t *testing.T) {
	s, turns := stretchOf(t, 0,
		padded("kite", 1000),                      // stretch 0: one match, long
		padded("kite kite", 500), padded("", 500), // stretch 1: two matches
		padded("nothing here", 1000),  // stretch 2: no match
		padded("kite kite kite", 200), // stretch 3: three matches, short
	)
	line := func(i int) string { return turns[i].Speaker + ": " + turns[i].Text }
	s.close() // as the query will, so its size is known
	// Room for stretches 3 and 1 (ranked first and second), not stretch 0.
	s.budget = s.stretches[3].size + 1 + s.stretches[1].size + 10
	c, err := s.compose("kite")
	require.NoError(t, err)
	require.Len(t, c.parts, 2)
	assert.Equal(t, strings.Join([]string{line(1), line(2), line(4)}, "\n"), c.parts[0].text, "whole stretches, in time order")
	assert.Equal(t, 0, c.breakpoint)
	assert.LessOrEqual(t, c.contextChars(), s.budget)

	none, err := s.compose("zebra")
	require.NoError(t, err)
	assert.Equal(t, []part{{byheart.User, "zebra"}}, none.parts, "only stretches sharing a term are candidates")
}
