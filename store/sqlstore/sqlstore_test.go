package sqlstore

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/byheart/byheart"
)

func TestRebindNumbersEveryPlaceholderInOrder(t *testing.T) {
	for _, tc := range []struct {
		in     string
		dollar bool
		want   string
	}{
		{"a = ? AND b = ?", false, "a = ? AND b = ?"},
		{"a = ? AND b = ?", true, "a = $1 AND b = $2"},
		{"VALUES (?, ?, ?)", true, "VALUES ($1, $2, $3)"},
		{"no placeholders", true, "no placeholders"},
	} {
		if got := rebind(tc.in, tc.dollar); got != tc.want {
			t.Errorf("rebind(%q, %v) = %q, want %q", tc.in, tc.dollar, got, tc.want)
		}
	}
}

// What a redaction leaves as the kept selection in the database is what
// the redacting memory's Since writes, so a copy loaded after it rebuilds
// for the same reason.
func TestARedactionKeepsWhatTheRedactingMemoryWrites(t *testing.T) {
	m := byheart.New(byheart.Options{Budget: 400})
	for i := range 40 {
		if _, err := m.Append([]byheart.Role{byheart.User, byheart.Assistant}[i%2], fmt.Sprintf("turn %d about the garden and the roses", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Compose(context.Background(), "the roses"); err != nil {
		t.Fatal(err)
	}
	if err := m.Redact(3); err != nil {
		t.Fatal(err)
	}
	c, err := m.Since(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Kept) != string(keptRedacted) {
		t.Errorf("the redacting memory keeps %s, the store %s", c.Kept, keptRedacted)
	}
}

// Every field of a turn a save writes tells two attempts of it apart: the
// fields are enumerated, so one added to byheart.Turn later fails here
// until the digest hashes it.
func TestTheSaveDigestCoversEveryFieldOfATurn(t *testing.T) {
	said := time.Date(2024, time.March, 4, 9, 0, 0, 0, time.UTC)
	base := byheart.Turn{Role: byheart.ToolResult, Text: "the door code is 4711", Time: said, Tool: "doors", CallID: "c1",
		Source: byheart.Source{Name: "tool:doors"}}
	other := byheart.Turn{Role: byheart.User, Text: "thanks", Time: said}
	save := func(t byheart.Turn) byheart.Changes {
		return byheart.Changes{From: 3, Turns: []byheart.Turn{other, t, other}}
	}
	want := digest(save(base))
	fields := 0
	for name, index := range leaves(reflect.TypeFor[byheart.Turn](), "", nil) {
		turn := base
		f := reflect.ValueOf(&turn).Elem().FieldByIndex(index)
		switch {
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(said.Add(time.Hour)))
		case f.Kind() == reflect.String:
			f.SetString(f.String() + "x")
		case f.Kind() == reflect.Bool:
			f.SetBool(!f.Bool())
		default:
			t.Errorf("Turn.%s is a %s: vary it here and hash it in digest", name, f.Type())
			continue
		}
		fields++
		if bytes.Equal(digest(save(turn)), want) {
			t.Errorf("two saves that differ only in Turn.%s have one digest: a retry of the one takes the other as saved", name)
		}
	}
	if fields < 9 {
		t.Errorf("only %d fields of Turn enumerated", fields)
	}
}

// leaves yields the fields of struct type typ, and of the structs it
// holds but time.Time, by name and index.
func leaves(typ reflect.Type, prefix string, at []int) iter.Seq2[string, []int] {
	return func(yield func(string, []int) bool) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			index := append(slices.Clone(at), i)
			if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[time.Time]() {
				for name, sub := range leaves(f.Type, prefix+f.Name+".", index) {
					if !yield(name, sub) {
						return
					}
				}
				continue
			}
			if !yield(prefix+f.Name, index) {
				return
			}
		}
	}
}

// A save without expiries keeps the digest it had before expiries were
// hashed, so an id recorded by an earlier version still recognises its
// retry.
func TestASaveWithoutExpiriesKeepsItsDigest(t *testing.T) {
	said := time.Date(2024, time.March, 4, 9, 0, 0, 0, time.FixedZone("", 3600))
	c := byheart.Changes{From: 2, Turns: []byheart.Turn{
		{Role: byheart.User, Text: "the door code?", Time: said},
		{Role: byheart.ToolCall, Text: "{}", Time: said, Tool: "doors", CallID: "c1"},
		{Role: byheart.ToolResult, Text: "4711", Time: said, Tool: "doors", CallID: "c1", Source: byheart.Source{Name: "tool:doors", Authenticated: true}},
	}}
	const was = "9bb101f95253d1992538a33cd6e3319eeda588ecd2f15065c173da351a7ee81e"
	if got := fmt.Sprintf("%x", digest(c)); got != was {
		t.Errorf("digest %s, before expiries were hashed %s", got, was)
	}
}
