package sqlite

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	sqlitelib "modernc.org/sqlite/lib"

	"modernc.org/sqlite"
)

// faultRequests is how many requests a fault run makes: 10,000 with
// BYHEART_FAULTS=1, as the README's counts are, a few hundred otherwise.
func faultRequests() int {
	if os.Getenv("BYHEART_FAULTS") == "1" {
		return 10000
	}
	return 300
}

// killWriters write at once in each process the test kills, two to each of
// killConversations conversations.
const killWriters, killConversations = 16, 8

func killScope(w int) store.Scope {
	return store.Scope{Tenant: "kills", User: "u", Conversation: fmt.Sprint("c", w%killConversations)}
}

func killQuestion(w, r int) string { return fmt.Sprintf("writer %d request %d", w, r) }

// writers is a child process's work for TestKilledUnderManyWritersLosesAndDoublesNothing:
// killWriters goroutines making chat requests under the request's id, each
// acknowledged on stdout once its save returned, until the process is
// killed. A request that fails is done again under its id, as a client
// retries a server's error, and said on stdout; one that fails killRetries
// times in a row ends the process with its error.
func writers(ctx context.Context, st store.Store, arg string) error {
	var run int
	if _, err := fmt.Sscan(arg, &run); err != nil {
		return err
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		mu.Lock()
		fmt.Fprintf(out, format, args...)
		out.Flush()
		mu.Unlock()
	}
	errs := make(chan error, killWriters)
	for g := range killWriters {
		w := run*killWriters + g
		go func() {
			cache := store.NewCache(st, byheart.Options{Budget: 2000}, 1)
			for r := 0; ; r++ {
				for try := 1; ; try++ {
					err := killRequest(ctx, cache, w, r)
					if err == nil {
						break
					}
					if try == killRetries {
						errs <- fmt.Errorf("writer %d request %d, try %d: %w", w, r, try, err)
						return
					}
					say("retry %d %d %q\n", w, r, err.Error())
					time.Sleep(time.Duration(try) * 10 * time.Millisecond)
				}
				say("ack %d %d\n", w, r)
			}
		}()
	}
	return <-errs
}

// killRetries is how often a child's writer makes one request before it
// gives up.
const killRetries = 10

// killRequest is one request, redone on a fresh copy after a conflict.
func killRequest(ctx context.Context, cache *store.Cache, w, r int) error {
	q := killQuestion(w, r)
	for {
		c, err := cache.Open(ctx, killScope(w))
		if err != nil {
			return err
		}
		if _, err := c.Memory.Append(byheart.User, q); err != nil {
			return err
		}
		if _, err := c.Memory.Compose(ctx, q); err != nil {
			return err
		}
		if _, err := c.Memory.Append(byheart.Assistant, "answer to "+q); err != nil {
			return err
		}
		err = c.SaveAs(ctx, fmt.Sprintf("w%d-r%d", w, r))
		if err == nil || errors.Is(err, store.ErrSaved) {
			cache.Done(c)
			return nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
}

// TestKilledUnderManyWritersLosesAndDoublesNothing kills, at random
// moments, a process in which sixteen goroutines write to eight
// conversations of one file, and after each kill opens the file as the next
// process would: it opens, passes SQLite's integrity check, and holds every
// acknowledged request's question and answer once, the others at most once.
// A writer does a failed request again under its id, as a client would, so
// what is checked is that nothing acknowledged is lost or doubled; a
// request failing again and again still fails the test.
func TestKilledUnderManyWritersLosesAndDoublesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "byheart.db")
	openAt(t, path).Close()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 31))
	acked := map[string]bool{}
	kills, retried := 0, 0
	var causes []string // the first few failures retried, each once
	deadline := time.Now().Add(20 * time.Minute)
	minKills := max(3, faultRequests()/500)
	for (len(acked) < faultRequests() || kills < minKills) && time.Now().Before(deadline) {
		cmd := childCommand(t, "writers", path, fmt.Sprint(kills))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan []string)
		go func() {
			var got []string
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				got = append(got, sc.Text())
			}
			lines <- got
		}()
		time.Sleep(time.Duration(300+rng.IntN(1200)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		got := <-lines
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			// One line, so that a filter of the log by file name keeps the cause.
			t.Fatalf("kill %d: the writers ended before they were killed (%s, %d lines acknowledged): %q", kills, cmd.ProcessState, len(got), stderr.String())
		}
		for _, line := range got {
			var w, r int
			if cause, ok := strings.CutPrefix(line, "retry "); ok {
				retried++
				if len(causes) < 5 && !slices.Contains(causes, cause) {
					causes = append(causes, cause)
				}
				continue
			}
			if _, err := fmt.Sscanf(line, "ack %d %d", &w, &r); err != nil {
				t.Fatalf("kill %d: the child wrote %q", kills, line)
			}
			acked[killQuestion(w, r)] = true
		}
		kills++
		if lost, doubled := checkKilled(t, path, acked); lost+doubled > 0 {
			t.Fatalf("after kill %d: %d acknowledged requests lost, %d doubled", kills, lost, doubled)
		}
	}
	t.Logf("%d kills, %d requests acknowledged by the killed processes: 0 lost, 0 doubled, the file opened and passed the integrity check after each kill", kills, len(acked))
	if retried > 0 {
		t.Logf("%d failed attempts done again under their request's id; some of them: %q", retried, causes)
	}
	if len(acked) < faultRequests() {
		t.Errorf("only %d requests acknowledged in the time allowed, want %d", len(acked), faultRequests())
	}
}

// checkKilled opens the file and counts acknowledged questions missing
// and questions stored more than once.
func checkKilled(t *testing.T, path string, acked map[string]bool) (lost, doubled int) {
	t.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("the store does not open: %v", err)
	}
	defer st.Close()
	var integrity string
	if err := st.DB().QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity check: %q, %v", integrity, err)
	}
	seen := map[string]int{}
	for c := range killConversations {
		rec, err := st.Load(context.Background(), killScope(c), store.Position{})
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatalf("conversation %d does not load: %v", c, err)
		}
		turns := rec.Changes.Turns
		if len(turns)%2 != 0 {
			t.Errorf("conversation %d holds %d turns: a request was torn", c, len(turns))
		}
		for i := 0; i+1 < len(turns); i += 2 {
			if turns[i+1].Text != "answer to "+turns[i].Text {
				t.Errorf("conversation %d: turn %d, %q, is followed by %q", c, i, turns[i].Text, turns[i+1].Text)
			}
			seen[turns[i].Text]++
		}
	}
	for q := range acked {
		if seen[q] == 0 {
			lost++
		}
	}
	for _, n := range seen {
		if n > 1 {
			doubled++
		}
	}
	return lost, doubled
}

// TestAFullDiskIsAClearErrorAndLeavesWholeSaves fills the database's room
// with requests of long turns until a save fails: the error says the disk
// is full, the file opens and passes the integrity check, every request
// acknowledged before is stored once and the one refused not at all, and
// once there is room again the next save lands.
func TestAFullDiskIsAClearErrorAndLeavesWholeSaves(t *testing.T) {
	t.Run("SmallFileSystem", func(t *testing.T) {
		dir := t.TempDir()
		if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).Run(); err != nil {
			t.Skipf("cannot mount a small tmpfs here (%v): the page-limit case stands for it", err)
		}
		t.Cleanup(func() { exec.Command("umount", dir).Run() })
		st, err := Open(context.Background(), filepath.Join(dir, "byheart.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		fillUp(t, st, filepath.Join(dir, "byheart.db"), func() { exec.Command("mount", "-o", "remount,size=8m", dir).Run() })
	})
	t.Run("PageLimit", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "byheart.db")
		st := openAt(t, path)
		// max_page_count holds for one connection: the store gets just one.
		st.DB().SetMaxOpenConns(1)
		var pages int
		if err := st.DB().QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
			t.Fatal(err)
		}
		if _, err := st.DB().Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+200)); err != nil {
			t.Fatal(err)
		}
		fillUp(t, st, path, func() { st.DB().Exec("PRAGMA max_page_count = 1000000") })
	})
}

// fillUp saves requests of 16 KB turns until one fails for want of room,
// checks the error and the file, makes room and saves once more.
func fillUp(t *testing.T, st *Store, path string, room func()) {
	ctx := context.Background()
	long := strings.Repeat("a long turn that takes room. ", 560)
	var acked int
	var failed error
	for r := 0; r < 2000 && failed == nil; r++ {
		c, err := store.Open(ctx, st, scope, byheart.Options{})
		if err == nil {
			_, err = c.Memory.Append(byheart.User, fmt.Sprint(r, " ", long))
		}
		if err == nil {
			err = c.SaveAs(ctx, fmt.Sprint("r", r))
		}
		if err != nil {
			failed = err
			break
		}
		acked++
	}
	var e *sqlite.Error
	if !errors.As(failed, &e) || e.Code()&0xff != sqlitelib.SQLITE_FULL {
		t.Fatalf("after %d requests the save failed with %v, want SQLite's full error", acked, failed)
	}
	t.Logf("after %d requests of 16 KB: %v", acked, failed)
	st.Close()
	check := openAt(t, path)
	var integrity string
	if err := check.DB().QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity check after the full disk: %q, %v", integrity, err)
	}
	c, err := store.Open(ctx, check, scope, byheart.Options{})
	if err != nil {
		t.Fatalf("the conversation does not load after the full disk: %v", err)
	}
	if c.Memory.Len() != acked {
		t.Fatalf("the conversation holds %d turns, %d requests were acknowledged", c.Memory.Len(), acked)
	}
	for i := range acked {
		if turn, _ := c.Memory.Turn(i); turn.Text != fmt.Sprint(i, " ", long) {
			t.Fatalf("turn %d is not the one saved", i)
		}
	}
	check.Close()
	room()
	again := openAt(t, path)
	c, err = store.Open(ctx, again, scope, byheart.Options{})
	if err == nil {
		_, err = c.Memory.Append(byheart.User, "with room again")
	}
	if err == nil {
		err = c.SaveAs(ctx, "after")
	}
	if err != nil {
		t.Errorf("with room again, a save fails: %v", err)
	}
}

// TestAFullDiskAgainAndAgainLosesNothing fills the database to its page
// limit, again and again, raising the limit a little after each time, for
// as many requests as a fault run makes: after each full disk a store
// opened afresh finds the file whole and every acknowledged request's turn
// once, in order, and the refused one not at all.
func TestAFullDiskAgainAndAgainLosesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "byheart.db")
	st := openAt(t, path)
	st.DB().SetMaxOpenConns(1) // max_page_count holds for one connection
	cache := store.NewCache(st, byheart.Options{}, 1)
	text := func(r int) string { return fmt.Sprintf("request %d %s", r, strings.Repeat("x", 900)) }
	var acked []int
	fulls, r := 0, 0
	for r < faultRequests() {
		var pages int
		if err := st.DB().QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
			t.Fatal(err)
		}
		if _, err := st.DB().Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+40)); err != nil {
			t.Fatal(err)
		}
		for ; ; r++ {
			c, err := cache.Open(ctx, scope)
			if err == nil {
				_, err = c.Memory.Append(byheart.User, text(r))
			}
			if err == nil {
				err = c.SaveAs(ctx, fmt.Sprint("r", r))
			}
			if err != nil {
				var e *sqlite.Error
				if !errors.As(err, &e) || e.Code()&0xff != sqlitelib.SQLITE_FULL {
					t.Fatalf("request %d failed with %v, want SQLite's full error", r, err)
				}
				r++
				break
			}
			acked = append(acked, r)
			cache.Done(c)
		}
		fulls++
		check, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("after full disk %d the store does not open: %v", fulls, err)
		}
		var integrity string
		if err := check.DB().QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
			t.Fatalf("integrity check after full disk %d: %q, %v", fulls, integrity, err)
		}
		rec, err := check.Load(ctx, scope, store.Position{})
		check.Close()
		if err != nil {
			t.Fatalf("after full disk %d the conversation does not load: %v", fulls, err)
		}
		if len(rec.Changes.Turns) != len(acked) {
			t.Fatalf("after full disk %d the conversation holds %d turns, %d requests were acknowledged", fulls, len(rec.Changes.Turns), len(acked))
		}
		for i, turn := range rec.Changes.Turns {
			if turn.Text != text(acked[i]) {
				t.Fatalf("after full disk %d turn %d is not request %d's", fulls, i, acked[i])
			}
		}
	}
	t.Logf("%d requests, %d of them refused by a full disk, %d acknowledged: 0 lost, 0 doubled, the file whole after each", r, fulls, len(acked))
}
