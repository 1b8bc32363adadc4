package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// The environment that makes a test binary, run again by TwoProcesses, the
// second process: where its store is, and that it is the second worker.
const (
	workerEnv = "BYHEART_STORETEST_WORKER"
	whereEnv  = "BYHEART_STORETEST_WHERE"
)

// What the second process prints for the first to read: that its stale
// copy is open and it starts serving, and then, as JSON, what it landed.
const (
	readyLine    = "byheart-storetest-ready"
	reportPrefix = "byheart-storetest-report: "
)

// processScopes are the conversations both processes serve.
var processScopes = []store.Scope{
	{Tenant: "acme", User: "alice", Conversation: "shared-0"},
	{Tenant: "acme", User: "alice", Conversation: "shared-1"},
	{Tenant: "acme", User: "bob", Conversation: "shared-2"},
}

// processRounds is how many requests each process serves on each
// conversation.
const processRounds = 12

// landed is a request a process saved: its tag, which its turns say, the
// conversation, and, when its question held a secret that was redacted,
// the secret and the question's turn.
type landed struct {
	Tag    string `json:"tag"`
	Scope  int    `json:"scope"`
	Secret string `json:"secret,omitempty"`
	Turn   int    `json:"turn"`
}

// report is what one process did.
type report struct {
	Landed []landed `json:"landed"`
	// Conflicts counts saves refused because the other process, or this
	// one, saved first; Stale is the one a stale copy was sure to meet.
	Conflicts int  `json:"conflicts"`
	Stale     bool `json:"stale"`
}

// TwoProcesses serves the same conversations from two operating-system
// processes at once, through one database: this one, and the test binary
// run again as a second (the calling test, which must call TwoProcesses
// first thing in both, is run by name). Each serves requests on every
// conversation, a question and an answer each, saved under the request's
// id and redone on a conflict; one in four questions holds a secret that
// is redacted, after its save or before it; and each process saves a
// stale copy after the other has written, so the two surely conflict. Then
// every request landed once, its question before its answer, no other
// turn was written, every redacted question is a placeholder, and no
// secret is in a load, an opened copy's save or the audit log. It returns
// the secrets, for a caller that can look for them in the database's
// files too; in the second process it returns nil, and the test must
// then do nothing else.
//
// create makes the database and returns where it is (a file, a URL);
// open opens a store on it, in either process.
func TwoProcesses(t *testing.T, create func(testing.TB) string, open func(t testing.TB, where string) store.Store) []string {
	if os.Getenv(workerEnv) != "" {
		st := open(t, os.Getenv(whereEnv))
		r := serveProcess(t, st, 2, func() { fmt.Println(readyLine) })
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(reportPrefix + string(data))
		return nil
	}
	where := create(t)
	st := open(t, where)
	for k, scope := range processScopes {
		request(t, st, scope, Chat(uint64(90+k), 30))
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), workerEnv+"=2", whereEnv+"="+where)
	out := &childOutput{ready: make(chan struct{})}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	first := serveProcess(t, st, 1, func() {
		select {
		case <-out.ready:
		case err = <-exited: // it failed before it was ready
			exited <- err
		}
	})
	err = <-exited
	second := out.report
	if err != nil || second == nil {
		t.Fatalf("the second process: %v\n%s\n%s", err, strings.Join(out.lines, "\n"), stderr.String())
	}
	t.Logf("first process: %d requests, %d conflicts; second: %d requests, %d conflicts",
		len(first.Landed), first.Conflicts, len(second.Landed), second.Conflicts)
	if !first.Stale || !second.Stale {
		t.Errorf("a stale copy saved without a conflict (first %v, second %v)", first.Stale, second.Stale)
	}
	return checkProcesses(t, st, first, *second)
}

// childOutput reads what the second process prints, line by line, as it
// prints it.
type childOutput struct {
	mu     sync.Mutex
	rest   []byte // the line being printed
	lines  []string
	ready  chan struct{} // closed on readyLine
	report *report       // read from the report line
}

func (o *childOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rest = append(o.rest, p...)
	for {
		i := bytes.IndexByte(o.rest, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(o.rest[:i])
		o.rest = o.rest[i+1:]
		o.lines = append(o.lines, line)
		switch {
		case line == readyLine:
			close(o.ready)
		case strings.HasPrefix(line, reportPrefix):
			var r report
			if json.Unmarshal([]byte(strings.TrimPrefix(line, reportPrefix)), &r) == nil {
				o.report = &r
			}
		}
	}
}

// serveProcess is one process's work as worker w: it opens a stale copy
// of one conversation, says it is ready, serves processRounds requests on
// every conversation, and saves the stale copy once the other process has
// written to its conversation.
func serveProcess(t testing.TB, st store.Store, w int, ready func()) report {
	ctx := context.Background()
	var r report
	var mu sync.Mutex
	cache := store.NewCache(st, opts, len(processScopes))
	k := w % len(processScopes)
	stale, err := store.Open(ctx, st, processScopes[k], opts)
	if err != nil {
		t.Fatal(err)
	}
	ready()
	done := make(chan error, 1)
	go func() {
		tag := fmt.Sprintf("w%d-stale", w)
		since := stale.At().Turns
		if _, err := stale.Memory.Append(byheart.User, "question ["+tag+"]"); err != nil {
			done <- err
			return
		}
		if _, err := stale.Memory.Append(byheart.Assistant, "answer ["+tag+"]"); err != nil {
			done <- err
			return
		}
		if err := waitForOther(ctx, st, processScopes[k], since, 3-w); err != nil {
			done <- err
			return
		}
		err := stale.SaveAs(ctx, tag)
		mu.Lock()
		r.Stale = errors.Is(err, store.ErrConflict)
		mu.Unlock()
		if err != nil && !errors.Is(err, store.ErrConflict) {
			done <- err
			return
		}
		if err == nil {
			mu.Lock()
			r.Landed = append(r.Landed, landed{Tag: tag, Scope: k, Turn: since})
			mu.Unlock()
			done <- nil
			return
		}
		l, conflicts, err := serveRequest(ctx, cache, k, tag, false, false)
		mu.Lock()
		r.Landed, r.Conflicts = append(r.Landed, l), r.Conflicts+conflicts
		mu.Unlock()
		done <- err
	}()
	for round := range processRounds {
		for i := range processScopes {
			k := (i + w*round) % len(processScopes) // the two take the conversations in different orders
			tag := fmt.Sprintf("w%d-r%d-c%d", w, round, k)
			secret := (round+k)%4 == w
			l, conflicts, err := serveRequest(ctx, cache, k, tag, secret, round%2 == 0)
			if err != nil {
				t.Fatalf("%s: %v", tag, err)
			}
			mu.Lock()
			r.Landed, r.Conflicts = append(r.Landed, l), r.Conflicts+conflicts
			mu.Unlock()
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("the stale copy: %v", err)
	}
	return r
}

// serveRequest is one request: catch up (Cache.Open), append the question
// and, after composing, the answer, save under the request's id, and on a
// conflict do it all again on a fresh copy. A secret question is redacted,
// before the save or after it.
func serveRequest(ctx context.Context, cache *store.Cache, k int, tag string, secret, before bool) (landed, int, error) {
	l := landed{Tag: tag, Scope: k}
	question := "question [" + tag + "] about the garden and the fence"
	if secret {
		l.Secret = "vault-" + tag + "-7731"
		question += ", and the vault code is " + l.Secret
	}
	for conflicts := 0; ; conflicts++ {
		c, err := cache.Open(ctx, processScopes[k])
		if err != nil {
			return l, conflicts, err
		}
		l.Turn = c.Memory.Len()
		if _, err := c.Memory.Append(byheart.User, question); err != nil {
			return l, conflicts, err
		}
		if _, err := c.Memory.Compose(ctx, question); err != nil {
			return l, conflicts, err
		}
		if _, err := c.Memory.Append(byheart.Assistant, "answer ["+tag+"]"); err != nil {
			return l, conflicts, err
		}
		if secret && before {
			if err := c.Redact(ctx, l.Turn); err != nil {
				return l, conflicts, err
			}
		}
		err = c.SaveAs(ctx, tag)
		if errors.Is(err, store.ErrConflict) {
			continue // the copy is dropped: the next Open catches up
		}
		if err != nil {
			return l, conflicts, err
		}
		if secret && !before {
			if err := c.Redact(ctx, l.Turn); err != nil {
				return l, conflicts, err
			}
		}
		cache.Done(c)
		return l, conflicts, nil
	}
}

// waitForOther waits until a turn of the other worker's is stored in the
// conversation at scope from turn since on.
func waitForOther(ctx context.Context, st store.Store, scope store.Scope, since, other int) error {
	mark := fmt.Sprintf("[w%d-", other)
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		rec, err := st.Load(ctx, scope, store.Position{})
		if err != nil {
			return err
		}
		for _, turn := range rec.Changes.Turns[min(since, len(rec.Changes.Turns)):] {
			if strings.Contains(turn.Text, mark) {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no turn of worker %d reached %v", other, scope)
}

// checkProcesses checks the conversations both processes served: each
// request landed once, question then answer, at the turn it reported;
// nothing else was written; each secret question is a placeholder and no
// secret is anywhere a store shows text. It returns the secrets.
func checkProcesses(t *testing.T, st store.Store, reports ...report) []string {
	var secrets []string
	for k, scope := range processScopes {
		turns := load(t, st, scope).Changes.Turns
		want := 30
		for _, r := range reports {
			for _, l := range r.Landed {
				if l.Scope != k {
					continue
				}
				want += 2
				if l.Secret != "" {
					secrets = append(secrets, l.Secret)
				}
				if n, want := countTag(turns, l.Tag), 2-min(len(l.Secret), 1); n != want {
					t.Errorf("%v: request %s is in %d turns' text, want %d: its question unless redacted, and its answer", scope, l.Tag, n, want)
					continue
				}
				q, a := turns[l.Turn], turns[min(l.Turn+1, len(turns)-1)]
				switch {
				case l.Secret != "" && !(q.Redacted && strings.Contains(a.Text, "["+l.Tag+"]")):
					t.Errorf("%v: request %s's secret question is %+v at turn %d, its answer %q", scope, l.Tag, q, l.Turn, a.Text)
				case l.Secret == "" && !(strings.Contains(q.Text, "question ["+l.Tag+"]") && a.Text == "answer ["+l.Tag+"]"):
					t.Errorf("%v: request %s is %q then %q at turn %d", scope, l.Tag, q.Text, a.Text, l.Turn)
				}
			}
		}
		if len(turns) != want {
			t.Errorf("%v holds %d turns: %d were saved", scope, len(turns), want)
		}
	}
	shown := texts(t, st, processScopes...)
	for _, scope := range processScopes {
		shown += jsonOf(t, open(t, st, scope).Memory)
	}
	for _, s := range secrets {
		if strings.Contains(shown, s) {
			t.Errorf("the redacted %q is back in a load, an opened copy or the audit log", s)
		}
	}
	if len(secrets) == 0 {
		t.Error("no question held a secret: the redactions were not exercised")
	}
	return secrets
}

// countTag counts the turns whose text says tag.
func countTag(turns []byheart.Turn, tag string) int {
	n := 0
	for _, turn := range turns {
		if strings.Contains(turn.Text, "["+tag+"]") {
			n++
		}
	}
	return n
}
