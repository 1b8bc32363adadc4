package sqlite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/storetest"
)

// TestMain lets the test binary run as a child process of a test: a writer
// that another process kills, or one of several concurrent writers.
func TestMain(m *testing.M) {
	if mode := os.Getenv(childMode); mode != "" {
		if err := child(mode, os.Getenv(childFile), os.Getenv(childArg)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const (
	childMode = "BYHEART_SQLITE_CHILD"
	childFile = "BYHEART_SQLITE_FILE"
	childArg  = "BYHEART_SQLITE_ARG"
)

func openAt(t testing.TB, path string) *Store {
	t.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newStore(t testing.TB) store.Store {
	return openAt(t, filepath.Join(t.TempDir(), "byheart.db"))
}

func TestConformance(t *testing.T) {
	storetest.Run(t, newStore)
}

func TestOpenRefusesAPathItCannotPassOn(t *testing.T) {
	for _, path := range []string{"", "a?mode=ro", "b#frag"} {
		if _, err := Open(context.Background(), path, Options{}); err == nil {
			t.Errorf("Open(%q) succeeded", path)
		}
	}
}

var scope = store.Scope{Tenant: "acme", User: "alice", Conversation: "support-1"}

// files returns the bytes of the database file and its write-ahead log.
func files(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		data, err := os.ReadFile(name)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, data...)
	}
	return all
}

func TestErasureLeavesNoByteOfTheTextInTheFileOrItsLog(t *testing.T) {
	ctx := context.Background()
	secret := []byte(storetest.Secret())
	type erasure struct {
		name  string
		erase func(st *Store) error
	}
	cases := []erasure{
		{"Delete", func(st *Store) error { _, err := st.Delete(ctx, scope); return err }},
		{"DeleteUser", func(st *Store) error { _, err := st.DeleteUser(ctx, scope.Tenant, scope.User); return err }},
	}
	for _, e := range storetest.Erasures {
		cases = append(cases, erasure{e.Name, func(st *Store) error { return e.Redact(ctx, st, scope, 41, 42) }})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "byheart.db")
			st := openAt(t, path)
			for _, turns := range [][]byheart.Turn{storetest.Chat(1, 40), storetest.SecretTurns(), storetest.Chat(2, 20)} {
				c, err := store.Open(ctx, st, scope, byheart.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, turn := range turns {
					if _, err := c.Memory.AppendTurn(turn); err != nil {
						t.Fatal(err)
					}
				}
				if err := c.Save(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Contains(files(t, path), secret) {
				t.Fatal("the text is not in the file or its log before the erasure: the search would find nothing anyway")
			}
			if err := tc.erase(st); err != nil {
				t.Fatal(err)
			}
			if i := bytes.Index(files(t, path), secret); i >= 0 {
				t.Errorf("the erased text is still at byte %d of the file and its log", i)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(files(t, path), secret) {
				t.Error("the erased text is back after closing the store")
			}
			reopened := openAt(t, path)
			rec, err := reopened.Load(ctx, scope, store.Position{})
			switch {
			case errors.Is(err, store.ErrNotFound): // deleted
			case err != nil:
				t.Errorf("the reopened store does not load the conversation: %v", err)
			case !rec.Changes.Turns[41].Redacted || !rec.Changes.Turns[42].Redacted:
				t.Error("the reopened store loads the erased turns unredacted")
			}
			reopened.Close()
			if bytes.Contains(files(t, path), secret) {
				t.Error("the erased text is back after reopening the store")
			}
		})
	}
}

// TestSeparateProcessesAppendExactlyOnce runs writers in processes of
// their own on one file: every turn lands once, each writer's in order.
func TestSeparateProcessesAppendExactlyOnce(t *testing.T) {
	const writers, each = 3, 10
	path := filepath.Join(t.TempDir(), "byheart.db")
	openAt(t, path).Close()
	var cmds []*exec.Cmd
	for w := range writers {
		cmd := childCommand(t, "writer", path, strconv.Itoa(w)+" "+strconv.Itoa(each))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	c, err := store.Open(context.Background(), openAt(t, path), scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	storetest.CheckWriters(t, c.Memory, writers, each)
}

// TestKilledMidAppendLeavesWholeSavesOnly kills a process that appends
// three long turns per save, at random moments, again and again: each time
// the conversation loads, holds whole saves only, and every turn's text is
// whole.
func TestKilledMidAppendLeavesWholeSavesOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "byheart.db")
	openAt(t, path).Close()
	rng := rand.New(rand.NewPCG(7, 7))
	kills := 12
	if testing.Short() {
		kills = 3
	}
	for k := range kills {
		cmd := childCommand(t, "crash", path, "")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(150+rng.IntN(250)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("kill %d: the child ended before it was killed: %v\n%s", k, err, stderr.String())
		}
		checkWhole(t, path, k)
	}
}

// checkWhole opens the file as the next process would and checks it.
func checkWhole(t *testing.T, path string, k int) {
	t.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("after kill %d the store does not open: %v", k, err)
	}
	defer st.Close()
	c, err := store.Open(context.Background(), st, scope, byheart.Options{})
	if err != nil {
		t.Fatalf("after kill %d the conversation does not load: %v", k, err)
	}
	n := c.Memory.Len()
	if n%3 != 0 {
		t.Errorf("after kill %d the conversation holds %d turns: a save was torn", k, n)
	}
	for i := range n {
		turn, _ := c.Memory.Turn(i)
		if want := crashText(i); turn.Text != want {
			t.Fatalf("after kill %d turn %d is %.60q..., %d bytes, want %d", k, i, turn.Text, len(turn.Text), len(want))
		}
	}
	t.Logf("kill %d: %d turns, all whole", k, n)
}

// crashText is the i-th turn the crash child appends: long enough to
// span pages, and each different.
func crashText(i int) string {
	return fmt.Sprintf("turn %d: %s", i, strings.Repeat(fmt.Sprintf("<%d>", i), 3000))
}

// childCommand is a child process of this test binary in mode, killed
// when the test ends so a test that fails early leaves no writer behind.
func childCommand(t *testing.T, mode, path, arg string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childMode+"="+mode, childFile+"="+path, childArg+"="+arg)
	return cmd
}

// child runs a child process's work.
func child(mode, path, arg string) error {
	ctx := context.Background()
	st, err := Open(ctx, path, Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	switch mode {
	case "crash":
		for {
			c, err := store.Open(ctx, st, scope, byheart.Options{})
			if err != nil {
				return err
			}
			for range 3 {
				if _, err := c.Memory.Append(byheart.User, crashText(c.Memory.Len())); err != nil {
					return err
				}
			}
			if err := c.Save(ctx); err != nil {
				return err
			}
		}
	case "writers":
		return writers(ctx, st, arg)
	case "writer":
		var w, each int
		if _, err := fmt.Sscan(arg, &w, &each); err != nil {
			return err
		}
		return write(ctx, st, w, each)
	}
	return fmt.Errorf("unknown child mode %q", mode)
}

// write appends a writer's turns one request at a time, retrying on
// conflict, as storetest.Append does in a test.
func write(ctx context.Context, st store.Store, w, each int) error {
	for k := 0; k < each; {
		c, err := store.Open(ctx, st, scope, byheart.Options{})
		if err != nil {
			return err
		}
		if _, err := c.Memory.Append(byheart.User, fmt.Sprintf("writer %d turn %d", w, k)); err != nil {
			return err
		}
		switch err := c.Save(ctx); {
		case err == nil:
			k++
		case !errors.Is(err, store.ErrConflict):
			return err
		}
	}
	return nil
}

// TestATamperedFileLoadsAsAnErrorNeverAPanic edits the rows of a stored
// conversation behind the store's back: a load refuses what no Memory
// holds with byheart.ErrFormat, and takes what it can as the store would
// have written it.
func TestATamperedFileLoadsAsAnErrorNeverAPanic(t *testing.T) {
	cases := []struct {
		name, sql string
		refused   bool
	}{
		{"a turn missing", "DELETE FROM byheart_turns WHERE seq = 7", true},
		{"a turn past the count", "UPDATE byheart_turns SET seq = 900 WHERE seq = 7", true},
		{"a role no Memory has", "UPDATE byheart_turns SET role = 'system' WHERE seq = 3", true},
		{"text that is not UTF-8", "UPDATE byheart_turns SET text = x'ff00' WHERE seq = 3", true},
		{"empty text", "UPDATE byheart_turns SET text = x'' WHERE seq = 3", true},
		{"a time that is not one", "UPDATE byheart_turns SET time = 'soon' WHERE seq = 3", true},
		{"a tool on a user turn", "UPDATE byheart_turns SET tool = 'x' WHERE seq = 0", true},
		{"flags other than 0 and 1", "UPDATE byheart_turns SET redacted = 7, opens = -2 WHERE seq = 5", false},
		{"a count beyond the rows", "UPDATE byheart_conversations SET turns = turns + 1", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := openAt(t, filepath.Join(t.TempDir(), "byheart.db"))
			conv, err := store.Open(ctx, st, scope, byheart.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 12 {
				role := byheart.User
				if i%2 == 1 {
					role = byheart.Assistant
				}
				if _, err := conv.Memory.AppendAt(role, fmt.Sprintf("turn %d about the garden", i), time.Date(2024, 5, 1, 9, i, 0, 0, time.UTC)); err != nil {
					t.Fatal(err)
				}
			}
			if err := conv.Save(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := st.DB().ExecContext(ctx, tc.sql); err != nil {
				t.Fatal(err)
			}
			got, err := store.Open(ctx, st, scope, byheart.Options{})
			switch {
			case tc.refused && !errors.Is(err, byheart.ErrFormat):
				t.Fatalf("load = %v, want byheart.ErrFormat", err)
			case !tc.refused && err != nil:
				t.Fatalf("load = %v", err)
			case !tc.refused:
				if turn, err := got.Memory.Turn(5); err != nil || !turn.Redacted || turn.Text != "[redacted]" {
					t.Errorf("turn 5 = %+v, %v; want the redacted placeholder", turn, err)
				}
			}
		})
	}
}

// longConversation saves n turns of chat at scope and returns the memory
// that was saved.
func longConversation(t *testing.T, st store.Store, n int) *byheart.Memory {
	t.Helper()
	ctx := context.Background()
	conv, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, turn := range storetest.Chat(7, n) {
		if _, err := conv.Memory.AppendTurn(turn); err != nil {
			t.Fatal(err)
		}
		if i%500 == 499 {
			if _, err := conv.Memory.Compose(ctx, turn.Text); err != nil {
				t.Fatal(err)
			}
			if err := conv.Save(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := conv.Save(ctx); err != nil {
		t.Fatal(err)
	}
	return conv.Memory
}

// TestALongLoadReadInTwoHalvesIsTheMemorySaved loads a conversation long
// enough to be read on two connections at once, alone and while another
// writer appends to it: every load is the saved memory, or a whole save of
// it, never a mix of two.
func TestALongLoadReadInTwoHalvesIsTheMemorySaved(t *testing.T) {
	ctx := context.Background()
	st := openAt(t, filepath.Join(t.TempDir(), "byheart.db"))
	m := longConversation(t, st, 5000)
	want, err := m.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if data, err := got.Memory.ToJSON(); err != nil || !bytes.Equal(data, want) {
		t.Fatalf("loaded memory differs from the saved one (%v)", err)
	}

	saves := map[int64][]byte{got.At().Version: want}
	done := make(chan error)
	go func() {
		w := got
		for i, turn := range storetest.Chat(8, 60) {
			if _, err := w.Memory.AppendTurn(turn); err != nil {
				done <- err
				return
			}
			if i%2 == 1 {
				if err := w.Save(ctx); err != nil {
					done <- err
					return
				}
				data, err := w.Memory.ToJSON()
				if err != nil {
					done <- err
					return
				}
				saves[w.At().Version] = data
			}
		}
		done <- nil
	}()
	var loads []*store.Conversation
	for writing := true; writing; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			writing = false
		default:
			c, err := store.Open(ctx, st, scope, byheart.Options{})
			if err != nil {
				t.Fatal(err)
			}
			loads = append(loads, c)
		}
	}
	for _, c := range loads {
		data, err := c.Memory.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		// A load's turns must be those of one save; its kept selection may
		// be a later Compose's.
		if saved, ok := saves[c.At().Version]; !ok || !sameTurns(t, saved, data) {
			t.Fatalf("a load at version %d holds turns no save wrote", c.At().Version)
		}
	}
}

// sameTurns reports whether two memories' JSON hold the same turns.
func sameTurns(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y struct{ Turns json.RawMessage }
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x.Turns, y.Turns)
}

// TestTwoProcessesServeOneFile serves the same conversations from this
// process and a second one through one file, with conflicting saves and
// redactions (storetest.TwoProcesses): nothing lost, nothing doubled, no
// redacted word back, in a load or in the bytes of the file and its log.
func TestTwoProcessesServeOneFile(t *testing.T) {
	var path string
	secrets := storetest.TwoProcesses(t, func(t testing.TB) string {
		path = filepath.Join(t.TempDir(), "byheart.db")
		return path
	}, func(t testing.TB, where string) store.Store { return openAt(t, where) })
	for _, s := range secrets {
		if i := bytes.Index(files(t, path), []byte(s)); i >= 0 {
			t.Errorf("the redacted %q is at byte %d of the file and its log", s, i)
		}
	}
}
