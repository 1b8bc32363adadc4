package byheartanthropic_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/byheart/byheart"
	byheartanthropic "github.com/byheart/byheart/anthropic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logResult is a composition whose log holds n parts, alternating from the
// user, with StableUpto at stable, then outside material when external is
// set, then the query.
func logResult(n, stable int, external bool) byheart.Result {
	var turns []turn
	for i := range n {
		text := fmt.Sprintf("part %d", i)
		if i%2 == 0 {
			turns = append(turns, u(text))
		} else {
			turns = append(turns, a(text))
		}
	}
	if external {
		turns = append(turns, u("[outside material]"))
	}
	return result(stable, append(turns, u("query"))...)
}

// markedBlocks lists the positions, among the blocks sent, of those that
// carry cache_control.
func markedBlocks(t *testing.T, r byheart.Result) []int {
	t.Helper()
	msgs, err := byheartanthropic.Messages(r)
	require.NoError(t, err)
	var marked []int
	n := 0
	for _, line := range describe(t, msgs) {
		_, blocks, _ := strings.Cut(line, ": ")
		for _, b := range strings.Split(blocks, " | ") {
			if strings.HasSuffix(b, "*") {
				marked = append(marked, n)
			}
			n++
		}
	}
	return marked
}

func TestBreakpointsOnALongLog(t *testing.T) {
	tests := []struct {
		name string
		in   byheart.Result
		want []int
	}{
		{"a log shorter than the lookback has one breakpoint, at its end", logResult(19, 18, true), []int{18}},
		{"a log of 20 blocks gets an anchor at its 20th block", logResult(21, 20, true), []int{19, 20}},
		{"the anchor stays at the 20th block while the log grows", logResult(40, 39, false), []int{19, 39}},
		{"past 40 blocks the anchor moves to the 40th", logResult(41, 40, true), []int{39, 40}},
		{"past 160 blocks it moves to the 160th", logResult(200, 199, true), []int{159, 199}},
		{"a StableUpto far behind the end of the log is the second breakpoint", logResult(60, 0, true), []int{0, 59}},
		{"user parts after the last answer are outside the log", logResult(31, 0, true), []int{0, 29}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, markedBlocks(t, tt.in))
		})
	}
}

// cache simulates Anthropic's prompt cache: an entry for each prefix that
// ended at a breakpoint, and a read at each breakpoint of the longest such
// prefix ending at that block or up to 20 blocks before it.
type cache map[string]bool

// call sends the blocks with breakpoints at marked and returns how many
// leading blocks were read from the cache.
func (c cache) call(blocks []string, marked []int) int {
	read := 0
	for _, m := range marked {
		for j := m; j >= 0 && j >= m-20; j-- {
			if c[strings.Join(blocks[:j+1], "\x00")] {
				read = max(read, j+1)
				break
			}
		}
	}
	for _, m := range marked {
		c[strings.Join(blocks[:m+1], "\x00")] = true
	}
	return read
}

func TestBreakpointsKeepTheCacheAsTheLogGrows(t *testing.T) {
	tests := []struct {
		name   string
		growth []int // parts the log gains before each call
		// atLeast is the share of the previous call's log a call reads.
		atLeast func(prev, now int) int
	}{
		{"an exchange per call reads the whole previous log", repeat(2, 60), func(prev, _ int) int { return prev }},
		{"19 blocks per call still do", repeat(19, 20), func(prev, _ int) int { return prev }},
		{"a burst longer than the lookback reads at least through an anchor both calls share",
			[]int{30, 25, 50, 21, 40, 70, 90, 33},
			func(prev, now int) int {
				if a := anchor(now - 1); a >= 0 && a == anchor(prev-1) {
					return a + 1
				}
				return 0
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cache{}
			n := 1
			for i, g := range tt.growth {
				prev := n
				n += g
				r := logResult(n, n-1, true)
				parts := flatParts(r)
				blocks := make([]string, len(parts))
				for j, p := range parts {
					blocks[j] = string(p.role) + ":" + p.text
				}
				read := c.call(blocks, markedBlocks(t, r))
				if i > 0 {
					assert.GreaterOrEqual(t, read, tt.atLeast(prev, n), "call %d, log %d → %d blocks", i, prev, n)
				}
			}
		})
	}
}

// anchor is the anchor block for a log whose last block is end: the last
// block 20·2ᵏ−1 before it, or -1 for a log shorter than the lookback.
func anchor(end int) int {
	if end < 20 {
		return -1
	}
	a := 19
	for 2*a+1 < end {
		a = 2*a + 1
	}
	return a
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}
