package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// The fault runs: many writers on real PostgreSQL while the server is
// restarted, its backends terminated, or the answers to commits lost, each
// run bounded in requests and time. BYHEART_FAULTS=1 makes each run 10,000
// requests, as the README's counts are; by default each is a few hundred.

// faultRequests is how many requests a fault run makes.
func faultRequests() int {
	if os.Getenv("BYHEART_FAULTS") == "1" {
		return 10000
	}
	return 300
}

// faultWriters write to faultConversations conversations, two to each, so
// that their saves also conflict.
const faultWriters, faultConversations = 8, 4

// retryFor is how long a writer keeps retrying a request the database is
// unavailable for, before it gives up and counts it unacknowledged.
const retryFor = 30 * time.Second

// tally is what a fault run counts.
type tally struct {
	requests, acked, unacked atomic.Int64
	unavailable, conflicts   atomic.Int64
	saved, faults            atomic.Int64
	mu                       sync.Mutex
	unexpected               []error
	ackedAt                  []time.Time // when each acknowledged request returned
	gaveUp                   []string    // the first requests given up, and why
	// naive redoes a request whose save failed on a fresh copy, without
	// an id: how servers redid before saves had ids.
	naive bool
}

// giveUp records why a request was given up.
func (tl *tally) giveUp(why string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if len(tl.gaveUp) < 5 {
		tl.gaveUp = append(tl.gaveUp, why)
	}
}

func (tl *tally) fail(err error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if len(tl.unexpected) < 10 {
		tl.unexpected = append(tl.unexpected, err)
	}
}

// question is the question request r of writer w asks: what the checks
// count.
func question(w, r int) string { return fmt.Sprintf("writer %d request %d", w, r) }

func faultScope(w int) store.Scope {
	return store.Scope{Tenant: "faults", User: "u", Conversation: fmt.Sprint("c", w%faultConversations)}
}

// request is one chat request of writer w, redone until it is
// acknowledged, or given up after retryFor of unavailability: open (or
// catch up), append, compose, append, save under the request's id,
// retrying the same copy while the database is unavailable and opening
// again after a conflict.
func request(ctx context.Context, st store.Store, cache *store.Cache, w, r int, tl *tally) bool {
	scope, q := faultScope(w), question(w, r)
	id := fmt.Sprintf("w%d-r%d", w, r)
	if tl.naive {
		id = ""
	}
	deadline := time.Now().Add(retryFor)
	wait := 10 * time.Millisecond
	began := time.Now()
	pause := func(err error) bool {
		if !errors.Is(err, store.ErrUnavailable) {
			tl.fail(err)
			return false
		}
		tl.unavailable.Add(1)
		if time.Now().After(deadline) {
			tl.giveUp(fmt.Sprintf("%s after %v: %v", id, time.Since(began).Round(time.Millisecond), err))
			return false
		}
		time.Sleep(wait)
		wait = min(2*wait, 500*time.Millisecond)
		return true
	}
	for {
		conv, err := cache.Open(ctx, scope)
		if err != nil {
			if pause(err) {
				continue
			}
			return false
		}
		if _, err := conv.Memory.Append(byheart.User, q); err != nil {
			tl.fail(err)
			return false
		}
		if _, err := conv.Memory.Compose(ctx, q); err != nil {
			tl.fail(err)
			return false
		}
		if _, err := conv.Memory.Append(byheart.Assistant, "answer to "+q); err != nil {
			tl.fail(err)
			return false
		}
		for {
			err = conv.SaveAs(ctx, id)
			if err == nil || errors.Is(err, store.ErrSaved) {
				if err != nil {
					tl.saved.Add(1)
				}
				cache.Done(conv)
				return true
			}
			if errors.Is(err, store.ErrConflict) {
				tl.conflicts.Add(1)
				break // open again and redo the request
			}
			if !pause(err) {
				return false
			}
			if tl.naive {
				break
			}
		}
	}
}

// load runs the writers until they have made n requests between them, with
// fault running beside them until they are done, then checks that every
// acknowledged request's question is stored once, every other one at most
// once, and nothing else.
func load(t *testing.T, st *Store, n int, naive bool, fault func(ctx context.Context, rng *rand.Rand, tl *tally)) (*tally, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	tl := &tally{naive: naive}
	acked := make([][]bool, faultWriters)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range faultWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cache := store.NewCache(st, byheart.Options{Budget: 2000}, 1)
			for r := 0; next.Add(1) <= int64(n); r++ {
				tl.requests.Add(1)
				ok := request(ctx, st, cache, w, r, tl)
				acked[w] = append(acked[w], ok)
				if ok {
					tl.acked.Add(1)
					tl.mu.Lock()
					tl.ackedAt = append(tl.ackedAt, time.Now())
					tl.mu.Unlock()
				} else {
					tl.unacked.Add(1)
				}
			}
		}()
	}
	faultCtx, stop := context.WithCancel(ctx)
	faultDone := make(chan struct{})
	go func() {
		defer close(faultDone)
		fault(faultCtx, rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 31)), tl)
	}()
	wg.Wait()
	stop()
	<-faultDone
	for _, err := range tl.unexpected {
		t.Errorf("an error that is not ErrUnavailable, ErrConflict or ErrSaved: %v", err)
	}
	for _, why := range tl.gaveUp {
		t.Logf("given up: %s", why)
	}
	lost, doubled := check(t, st, acked, !naive)
	t.Logf("%d requests (%d acknowledged, %d given up), %d faults; %d unavailable errors retried, %d conflicts redone, %d found saved by an earlier attempt; %d lost, %d doubled",
		tl.requests.Load(), tl.acked.Load(), tl.unacked.Load(), tl.faults.Load(), tl.unavailable.Load(), tl.conflicts.Load(), tl.saved.Load(), lost, doubled)
	return tl, doubled
}

// check counts, on a store opened afresh, each question's turns; strict,
// it fails on a doubled one.
func check(t *testing.T, st *Store, acked [][]bool, strict bool) (lost, doubled int) {
	t.Helper()
	seen := map[string]int{}
	for c := range faultConversations {
		var rec store.Record
		var err error
		for try := 0; try < 100; try++ { // the server may still be coming back
			if rec, err = st.Load(context.Background(), faultScope(c), store.Position{}); !errors.Is(err, store.ErrUnavailable) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, turn := range rec.Changes.Turns {
			if turn.Role == byheart.User {
				seen[turn.Text]++
				if i+1 >= len(rec.Changes.Turns) || rec.Changes.Turns[i+1].Text != "answer to "+turn.Text {
					t.Errorf("turn %d, %q, is not followed by its answer", i, turn.Text)
				}
			}
		}
	}
	known := 0
	for w := range acked {
		for r, ok := range acked[w] {
			q := question(w, r)
			n := seen[q]
			known += n
			switch {
			case ok && n == 0:
				lost++
				t.Errorf("acknowledged %q is not stored", q)
			case n > 1:
				doubled++
				if strict {
					t.Errorf("%q is stored %d times", q, n)
				}
			}
		}
	}
	total := 0
	for _, n := range seen {
		total += n
	}
	if total != known && strict {
		t.Errorf("%d questions stored, %d of them asked", total, known)
	}
	return lost, doubled
}

// restart restarts the server with scripts/pg, as the operator would.
func restart(mode string) error {
	out, err := exec.Command(os.Getenv("BYHEART_PG_SCRIPT"), "restart", mode).CombinedOutput()
	if err != nil {
		return fmt.Errorf("restart %s: %w\n%s", mode, err, out)
	}
	return nil
}

// recoveries returns, for each time in restarts, how long after it the
// next request was acknowledged.
func recoveries(tl *tally, restarts []time.Time) []time.Duration {
	var out []time.Duration
	for _, r := range restarts {
		first := time.Duration(-1)
		for _, a := range tl.ackedAt {
			if d := a.Sub(r); d >= 0 && (first < 0 || d < first) {
				first = d
			}
		}
		if first >= 0 {
			out = append(out, first.Round(time.Millisecond))
		}
	}
	return out
}

// pgScript skips a test that must restart the server when scripts/pg cannot.
func pgScript(t *testing.T) {
	serverURL(t)
	if os.Getenv("BYHEART_PG_SCRIPT") == "" {
		t.Skip("BYHEART_PG_SCRIPT is not set: the server was not started by scripts/pg, which the restart needs")
	}
}

func TestRestartedServerLosesAndDoublesNothing(t *testing.T) {
	pgScript(t)
	for _, mode := range []string{"fast", "immediate"} {
		t.Run(mode, func(t *testing.T) {
			st := openSchema(t)
			n := faultRequests()
			restarts := max(2, n/2500)
			var back []time.Time
			var took []time.Duration // each restart, from the command to the server taking connections
			tl, _ := load(t, st, n, false, func(ctx context.Context, rng *rand.Rand, tl *tally) {
				for k := 0; k < restarts; k++ {
					// Spread the restarts over the run: wait for a share of the requests.
					for tl.requests.Load() < int64((k+1)*n/(restarts+1)) {
						select {
						case <-ctx.Done():
							return
						case <-time.After(time.Duration(rng.IntN(20)) * time.Millisecond):
						}
					}
					began := time.Now()
					if err := restart(mode); err != nil {
						tl.fail(err)
						return
					}
					tl.faults.Add(1)
					back = append(back, time.Now())
					took = append(took, time.Since(began).Round(time.Millisecond))
				}
			})
			t.Logf("%s restarts took %v; the next request was acknowledged %v after the server was back", mode, took, recoveries(tl, back))
		})
	}
}

// reopen opens a second store on the schema of st, through the server at
// host (the proxy's, or the server's own when empty), its connections
// named for pg_stat_activity.
func reopen(t *testing.T, st *Store, host, name string) *Store {
	t.Helper()
	var schema string
	if err := st.DB().QueryRow("SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(serverURL(t))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		u.Host = host
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	again, err := Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	return again
}

func TestTerminatedBackendsLoseAndDoubleNothing(t *testing.T) {
	serverURL(t)
	admin := openSchema(t)
	st := reopen(t, admin, "", "byheart_faults")
	n := faultRequests()
	load(t, st, n, false, func(ctx context.Context, rng *rand.Rand, tl *tally) {
		for ctx.Err() == nil {
			time.Sleep(time.Duration(20+rng.IntN(180)) * time.Millisecond)
			var killed int
			err := admin.DB().QueryRowContext(ctx, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE application_name = 'byheart_faults' ORDER BY random() LIMIT 1) k`).Scan(&killed)
			if err == nil {
				tl.faults.Add(int64(killed))
			}
		}
	})
}

// proxy forwards loopback connections to the server and, for a share of
// the commits, forwards the COMMIT, waits for the server's answer and
// drops the connection instead of passing it on: the commit lands, and the
// client cannot know.
type proxy struct {
	ln      net.Listener
	target  string
	share   float64
	dropped atomic.Int64
	rng     *rand.Rand
	mu      sync.Mutex
}

func newProxy(t *testing.T, target string, share float64) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, share: share, rng: rand.New(rand.NewPCG(1, 2))}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *proxy) drop() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rng.Float64() < p.share
}

func (p *proxy) serve(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	var dropping atomic.Bool
	answered := make(chan struct{})
	go func() { // the server's answers go to the client, until a drop holds them back
		buf := make([]byte, 32<<10)
		signalled := false
		for {
			n, err := server.Read(buf)
			if n > 0 && dropping.Load() {
				if !signalled {
					close(answered)
					signalled = true
				}
			} else if n > 0 {
				if _, werr := client.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 && bytes.Contains(buf[:n], []byte("COMMIT")) && p.drop() {
			dropping.Store(true)
			if _, err := server.Write(buf[:n]); err != nil {
				return
			}
			select { // the commit reached the server: wait for its answer, then cut both sides
			case <-answered:
				p.dropped.Add(1)
			case <-time.After(time.Second):
			}
			return
		}
		if n > 0 {
			if _, err := server.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestLostCommitAnswersDoubleNothing drops the answer to 5% of the
// commits. With the request's id, redoing the save lands every turn once;
// the same run redone the way servers did before ids (open again, redo,
// save) doubles turns, which shows the proxy loses answers to commits that
// landed.
func TestLostCommitAnswersDoubleNothing(t *testing.T) {
	serverURL(t)
	for _, naive := range []bool{false, true} {
		t.Run(map[bool]string{false: "WithTheRequestID", true: "RedoneOnAFreshCopyWithoutAnID"}[naive], func(t *testing.T) {
			direct := openSchema(t)
			u, err := url.Parse(serverURL(t))
			if err != nil {
				t.Fatal(err)
			}
			p := newProxy(t, u.Host, 0.05)
			st := reopen(t, direct, p.ln.Addr().String(), "byheart_lost_commits")
			n := faultRequests()
			if naive {
				n = min(n, 1000)
			}
			_, doubled := load(t, st, n, naive, func(ctx context.Context, _ *rand.Rand, tl *tally) {
				<-ctx.Done()
				tl.faults.Store(p.dropped.Load())
			})
			t.Logf("%d commit answers dropped after the commit reached the server", p.dropped.Load())
			if p.dropped.Load() == 0 {
				t.Error("no commit answer was dropped: the run tested nothing")
			}
			if naive && doubled == 0 {
				t.Error("redone without an id, no turn was doubled: the lost answers were not answers to commits that landed")
			}
		})
	}
}
