package store_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/storetest"
)

// TestTimeTextWritesEveryTimeAsToJSONDoes checks, in random zones with
// historical offsets among them (local mean times with seconds), that a
// store writes a turn's time as ToJSON does and reads it back exactly.
func TestTimeTextWritesEveryTimeAsToJSONDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 5))
	for range 2000 {
		when := storetest.RandomTime(rng)
		text, err := store.TimeText(when)
		if err != nil {
			t.Fatalf("%v: %v", when, err)
		}
		m := byheart.New(byheart.Options{})
		if _, err := m.AppendTurn(byheart.Turn{Role: byheart.User, Text: "x", Time: when}); err != nil {
			t.Fatal(err)
		}
		data, err := m.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"time":"`+text+`"`) {
			t.Fatalf("%v is written %q, ToJSON writes %s", when, text, data)
		}
		back, err := store.ParseTime(text)
		if err != nil || !back.Equal(when) {
			t.Fatalf("%q reads back as %v (%v), want %v", text, back, err, when)
		}
		if _, off := back.Zone(); off != offset(when) {
			t.Fatalf("%q reads back at offset %d, want %d", text, off, offset(when))
		}
	}
	if text, _ := store.TimeText(time.Time{}); text != "" {
		t.Errorf("no time is written as %q", text)
	}
}

func offset(t time.Time) int { _, off := t.Zone(); return off }
