package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	_ "time/tzdata" // the zones RandomTime draws from, whatever the machine has

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// zones are places whose offsets had seconds once (local mean time before
// standard time: Amsterdam +00:19:32 until 1937, Monrovia -00:44:30 until
// 1972, Dublin -00:25:21 until 1916) or are not whole hours today.
var zones = []string{"Europe/Amsterdam", "Africa/Monrovia", "Europe/Dublin", "Asia/Kolkata", "America/St_Johns",
	"Asia/Kathmandu", "Australia/Eucla", "Pacific/Chatham", "America/Caracas", "Europe/Paris", "UTC"}

// RandomTime returns a time between 1800 and 2100 with random nanoseconds,
// in one of zones or a fixed offset of random hours, minutes and seconds.
func RandomTime(r *rand.Rand) time.Time {
	sec := time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC).Unix() + r.Int64N(300*365*86400)
	t := time.Unix(sec, r.Int64N(1e9))
	if r.IntN(4) == 0 {
		return t.In(time.FixedZone("", r.IntN(2*86400-1)-86400+1))
	}
	loc, err := time.LoadLocation(zones[r.IntN(len(zones))])
	if err != nil {
		panic(err) // time/tzdata holds every zone named above
	}
	return t.In(loc)
}

// timesComeBackExactly saves turns at random times in random zones,
// historical offsets with seconds among them, and checks that the
// conversation loads as ToJSON wrote it, time for time.
func timesComeBackExactly(t *testing.T, st store.Store) {
	r := rand.New(rand.NewPCG(5, 25))
	c := open(t, st, alice)
	for i := range 300 {
		when := RandomTime(r)
		if _, err := c.Memory.AppendTurn(byheart.Turn{Role: byheart.User, Text: fmt.Sprint("turn ", i), Time: when}); err != nil {
			t.Fatalf("append at %v: %v", when, err)
		}
		if i%50 == 49 {
			save(t, c)
		}
	}
	sameAs(t, st, alice, c.Memory)
	rec, err := st.Load(context.Background(), alice, store.Position{})
	if err != nil {
		t.Fatal(err)
	}
	for i, turn := range rec.Changes.Turns {
		want, _ := c.Memory.Turn(i)
		_, off := turn.Time.Zone()
		if _, wantOff := want.Time.Zone(); !turn.Time.Equal(want.Time) || off != wantOff {
			t.Errorf("turn %d loads at %v, saved at %v", i, turn.Time, want.Time)
		}
	}
}
