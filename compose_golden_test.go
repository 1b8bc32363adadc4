package byheart

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The golden composition test pins what Compose returns for fixed synthetic
// conversations and queries, fresh and sticky, through persistence, a
// redaction, a Boundaries hook and outside material: which stretches are
// included, whether the selection was rebuilt, the cache breakpoint, and a
// hash of every message's role and text. Any change to ranking, ordering,
// selection or rendering shows up as a changed line. Speed work must leave
// this file untouched; a deliberate change of behaviour rewrites it with
//
//	go test -run TestGoldenCompositions -golden-update .
var goldenUpdate = flag.Bool("golden-update", false, "rewrite testdata/golden-compositions.jsonl")

const goldenPath = "testdata/golden-compositions.jsonl"

// goldenRecord is one composition, in a form that changes when any byte of
// the messages changes.
type goldenRecord struct {
	Case       string `json:"case"`
	Call       int    `json:"call"`
	Included   []int  `json:"included"`
	Reselected bool   `json:"reselected,omitempty"`
	StableUpto int    `json:"stable_upto"`
	Parts      int    `json:"parts"`
	Chars      int    `json:"chars"`
	Messages   string `json:"messages"` // SHA-256 of every role and part, in order
	External   bool   `json:"external,omitempty"`
}

func record(name string, call int, r Result) goldenRecord {
	h := sha256.New()
	parts, chars := 0, 0
	for _, msg := range r.Messages {
		fmt.Fprintf(h, "%s\x00%d\x00", msg.Role, len(msg.Parts))
		for _, p := range msg.Parts {
			fmt.Fprintf(h, "%d\x00%s\x00", len(p.Text), p.Text)
			parts++
			chars += len(p.Text)
		}
	}
	inc := r.Included
	if inc == nil {
		inc = []int{}
	}
	return goldenRecord{
		Case: name, Call: call, Included: inc, Reselected: r.Reselected(), StableUpto: r.StableUpto,
		Parts: parts, Chars: chars, Messages: hex.EncodeToString(h.Sum(nil)[:12]),
		External: strings.Contains(fmt.Sprint(r.Messages), "«byheart outside material»"),
	}
}

// goldenQueries are queries for the fresh cases: turns of another chat (as a
// user's message would be), the commonest content word, a rare one, words
// the conversation never used, nothing at all, and a mix of scripts.
func goldenQueries() []string {
	g := newChatGen(99)
	var qs []string
	for range 8 {
		qs = append(qs, g.next().Text)
	}
	return append(qs,
		g.vocab[0]+" and "+g.vocab[1]+"?",
		"Do you remember "+g.vocab[4000]+"?",
		"qqqx wwwz never said",
		"",
		"What about "+g.vocab[10]+" 東京 "+g.vocab[2500]+"?",
	)
}

// goldenCompositions composes every case; tune adjusts each Memory the
// cases make, restored ones included, before it is used.
func goldenCompositions(t *testing.T, tune func(*Memory)) []goldenRecord {
	ctx := context.Background()
	var out []goldenRecord
	compose := func(name string, call int, m *Memory, q string) {
		r, err := m.Compose(ctx, q)
		require.NoError(t, err)
		out = append(out, record(name, call, r))
	}

	// Fresh selection at two budgets on one conversation.
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"fresh-20000", Options{Stability: -1}},
		{"fresh-3000-chunk-400", Options{Stability: -1, Budget: 3000, Chunk: 400}},
	} {
		m := New(c.opt)
		tune(m)
		fillTurns(m, chat(11, 700))
		for i, q := range goldenQueries() {
			compose(c.name, i, m, q)
		}
	}

	// A live chat on the defaults: each user turn is the query, then it is
	// appended. Halfway, the memory goes through ToJSON and FromJSON as a
	// stateless server's would; later a turn is redacted.
	{
		m := New(Options{})
		tune(m)
		for i, turn := range chat(12, 900) {
			if i == 450 {
				data, err := m.ToJSON()
				require.NoError(t, err)
				m, err = FromJSON(data, Options{})
				require.NoError(t, err)
				tune(m)
			}
			if i == 600 {
				require.NoError(t, m.Redact(100))
			}
			if turn.Role == User && i > 0 {
				compose("sticky-default", i, m, turn.Text)
			}
			_, err := m.AppendAt(turn.Role, turn.Text, turn.Time)
			require.NoError(t, err)
		}
	}

	// A stickier selection with a Boundaries hook that halves each stretch.
	{
		m := New(Options{Stability: 0.9, Budget: 8000, Boundaries: func(tail []Turn) []int {
			if len(tail) < 4 {
				return nil
			}
			return []int{len(tail) / 2}
		}})
		tune(m)
		for i, turn := range chat(13, 500) {
			if turn.Role == User && i > 0 {
				compose("sticky-0.9-boundaries", i, m, turn.Text)
			}
			_, err := m.AppendAt(turn.Role, turn.Text, turn.Time)
			require.NoError(t, err)
		}
	}

	// Outside material weighed against the conversation: junk from another
	// chat, and an item that repeats the query's own words.
	{
		other := chat(14, 40)
		var query string
		src := ExternalFunc(func(_ context.Context, q string) ([]Item, error) {
			return []Item{
				{Text: other[3].Text, Source: "junk"},
				{Text: other[7].Text, Source: "junk"},
				{Text: q + " " + q, Source: "echo"},
			}, nil
		})
		m := New(Options{Stability: -1, External: src})
		tune(m)
		fillTurns(m, chat(15, 300))
		for i, q := range goldenQueries() {
			query = q
			compose("external", i, m, query)
		}
	}
	return out
}

func TestGoldenCompositions(t *testing.T) {
	t.Parallel()
	got := goldenCompositions(t, func(*Memory) {})
	// These memories are small enough that the built-in ranking scores
	// every posting; the pruned search of long conversations must give
	// the same compositions.
	searched := goldenCompositions(t, func(m *Memory) { m.tune.smallQuery = 0 })
	require.Equal(t, got, searched, "pruned search against scoring every posting")
	if *goldenUpdate {
		var buf bytes.Buffer
		for _, r := range got {
			line, err := json.Marshal(r)
			require.NoError(t, err)
			buf.Write(line)
			buf.WriteByte('\n')
		}
		require.NoError(t, os.WriteFile(goldenPath, buf.Bytes(), 0o644))
		t.Logf("wrote %d compositions to %s", len(got), goldenPath)
		return
	}
	f, err := os.Open(goldenPath)
	require.NoError(t, err)
	defer f.Close()
	var want []goldenRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r goldenRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		want = append(want, r)
	}
	require.NoError(t, sc.Err())
	require.Len(t, got, len(want), "number of compositions")
	bad := 0
	for i := range want {
		if !assertSame(t, want[i], got[i]) {
			if bad++; bad == 10 {
				t.Fatal("stopping after 10 differences")
			}
		}
	}
}

func assertSame(t *testing.T, want, got goldenRecord) bool {
	t.Helper()
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	if string(w) != string(g) {
		t.Errorf("composition %s #%d changed:\nwant %s\n got %s", want.Case, want.Call, w, g)
		return false
	}
	return true
}
