package byhearttiktoken_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/byheart/byheart"
	byhearttiktoken "github.com/byheart/byheart/tiktoken"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// references are counts by js-tiktoken 1.0.21 (OpenAI's tokenizers ported
// to JavaScript, vocabularies included), written by scripts/tokenref.js:
// an implementation independent of the one this package wraps.
var references = []struct {
	text          string
	o200k, cl100k int
}{
	{"hello world", 2, 2},
	{"We decided on 55 euro a month for the pro plan.", 13, 13},
	{"What did we decide about pricing?", 7, 7},
	{"I ran the race last Saturday [20 May 2023].", 13, 13},
	{"Die Rechnung über 1.234,56 € ist am Freitag fällig.", 16, 20},
	{"我们决定专业版每月五十五欧元。", 11, 16},
	{"user: Did the vendor write about the invoice?\nassistant: Yes, on 3 March.\n\n  indented line", 23, 23},
	{"func main() {\n\tfmt.Println(\"héllo\", 12345678)\n}", 16, 17},
	{"🙂👍🏽 ok!!", 6, 10},
	{"", 0, 0},
	{"   leading and trailing spaces   ", 6, 6},
	{"supercalifragilisticexpialidocious antidisestablishmentarianism", 16, 17},
}

func TestMeasuresMatchTheReferenceCounts(t *testing.T) {
	for _, r := range references {
		assert.Equal(t, r.o200k, byhearttiktoken.O200k(r.text), "o200k %q", r.text)
		assert.Equal(t, r.cl100k, byhearttiktoken.Cl100k(r.text), "cl100k %q", r.text)
	}
}

// TestMeasuresAreSafeForConcurrentUse counts from several goroutines at
// once, as byheart's Restore does: every count is the reference's.
func TestMeasuresAreSafeForConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range references {
				assert.Equal(t, r.o200k, byhearttiktoken.O200k(r.text), "%q", r.text)
			}
		}()
	}
	wg.Wait()
}

// TestJoiningAtALineBreakNeverCountsMore checks the contract byheart's
// Options.Measure states, which the budget rests on: two texts joined at a
// line break never count more than the two apart.
func TestJoiningAtALineBreakNeverCountsMore(t *testing.T) {
	for _, m := range []struct {
		name    string
		measure func(string) int
	}{{"o200k", byhearttiktoken.O200k}, {"cl100k", byhearttiktoken.Cl100k}} {
		for _, a := range references {
			for _, b := range references {
				joined := m.measure(a.text + "\n" + b.text)
				assert.LessOrEqual(t, joined, m.measure(a.text)+m.measure("\n"+b.text), "%s: %q + %q", m.name, a.text, b.text)
			}
		}
	}
}

// TestABudgetInExactTokensHolds composes over the budget with the exact
// measure: what the call spends, counted again part by part, is within
// the budget and is what Spent says.
func TestABudgetInExactTokensHolds(t *testing.T) {
	mem := byheart.New(byheart.Options{Budget: 400, Chunk: 300, Measure: byhearttiktoken.O200k})
	for i := range 80 {
		_, err := mem.Append(byheart.User, fmt.Sprintf("Turn %d: we talked about the garden, the 3 tomato beds and the weather in Lisbon.", i))
		require.NoError(t, err)
		_, err = mem.Append(byheart.Assistant, strings.Repeat("Sounds lovely. ", i%4+1))
		require.NoError(t, err)
	}
	res, err := mem.Compose(context.Background(), "What about the tomato beds?")
	require.NoError(t, err)
	spent := 0
	for _, msg := range res.Messages {
		for _, p := range msg.Parts {
			if p.Kind != byheart.PartQuery {
				spent += byhearttiktoken.O200k(p.Text)
			}
		}
	}
	assert.LessOrEqual(t, spent, 400)
	assert.Equal(t, res.Spent.Total(), spent)
	assert.Greater(t, spent, 200, "the exact measure lets the budget fill")
}
