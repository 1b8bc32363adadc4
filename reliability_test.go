package byheart

// Reliability: hostile persistence input, huge and odd turns, concurrent
// use, failing collaborators, and no loss on failure.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// --- concurrency ---------------------------------------------------------------

// TestConcurrentUse runs 16 goroutines that append, compose, redact,
// serialise and read at once; run it under -race.
func TestConcurrentUse(t *testing.T) {
	split := func(tail []Turn) []int {
		if len(tail) >= 4 {
			return []int{len(tail) / 2}
		}
		return nil
	}
	for name, opts := range map[string]Options{
		"built-in":             {Budget: 1500, Chunk: 120},
		"hooks and one-shot":   {Budget: 1500, Chunk: 120, Boundaries: split, Retriever: overlap, Stability: -1},
		"outside material too": {Budget: 1200, Chunk: 200, External: noteSource, Stability: 0.9},
	} {
		t.Run(name, func(t *testing.T) {
			useConcurrently(t, opts)
		})
	}
}

func useConcurrently(t *testing.T, opts Options) {
	const (
		appenders  = 6
		perWriter  = 40
		composers  = 4
		redactors  = 2
		serialiser = 2
		readers    = 2
	)
	require.Equal(t, 16, appenders+composers+redactors+serialiser+readers)
	m := New(opts)
	budget := m.opt.Budget
	topics := []string{"marathon training", "moving to Lisbon", "the blue shoes", "my sister Anna", "a trip to Kyoto", "baking sourdough", "the new job"}
	var (
		wg       sync.WaitGroup
		writing  atomic.Int32
		mu       sync.Mutex
		wrote    = map[int]string{} // index -> text
		redacted = map[int]bool{}
		snaps    [][]byte
		failures = make(chan error, 64)
		checks   collector
	)
	fail := func(err error) {
		select {
		case failures <- err:
		default:
		}
	}
	writing.Store(appenders)
	for g := range appenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer writing.Add(-1)
			prev := -1
			for k := range perWriter {
				text := fmt.Sprintf("writer %d turn %d: about %s, line\r\n%d", g, k, topics[(g+k)%len(topics)], k)
				role := []Role{User, Assistant}[k%2]
				when := time.Date(2024, 1, 1+k/5, g, 0, 0, 0, time.UTC)
				i, err := m.AppendAt(role, text, when)
				if err != nil {
					fail(fmt.Errorf("append: %w", err))
					return
				}
				if i <= prev {
					fail(fmt.Errorf("writer %d: index %d after %d", g, i, prev))
				}
				prev = i
				mu.Lock()
				if _, dup := wrote[i]; dup {
					fail(fmt.Errorf("index %d handed out twice", i))
				}
				wrote[i] = text
				mu.Unlock()
			}
		}()
	}
	for c := range composers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; writing.Load() > 0 || k < 3; k++ {
				q := topics[(c+k)%len(topics)]
				r, err := m.Compose(context.Background(), q)
				if err != nil {
					fail(fmt.Errorf("compose: %w", err))
					return
				}
				checkShape(&checks, budget, q, r)
			}
		}()
	}
	for d := range redactors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(d), 7))
			for writing.Load() > 0 {
				n := m.Len()
				if n == 0 {
					runtime.Gosched()
					continue
				}
				i := rng.IntN(n)
				if rng.IntN(4) != 0 {
					runtime.Gosched()
					continue
				}
				if err := m.Redact(i); err != nil {
					fail(fmt.Errorf("redact %d of %d: %w", i, n, err))
					return
				}
				mu.Lock()
				redacted[i] = true
				mu.Unlock()
				if err := m.Redact(n + 1000); !errors.Is(err, ErrIndex) {
					fail(fmt.Errorf("redact past the end: %v", err))
				}
			}
		}()
	}
	for range serialiser {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; (writing.Load() > 0 || k < 2) && k < 100; k++ {
				data, err := m.ToJSON()
				if err != nil {
					fail(fmt.Errorf("ToJSON: %w", err))
					return
				}
				mu.Lock()
				snaps = append(snaps, data)
				mu.Unlock()
			}
		}()
	}
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for writing.Load() > 0 {
				n := m.Len()
				b := m.Bounds()
				if n > 0 && (len(b) == 0 || b[0] != 0) {
					fail(fmt.Errorf("bounds %v for %d turns", b, n))
				}
				if n > 0 {
					if _, err := m.Turn(n - 1); err != nil {
						fail(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Error(err)
	}
	for _, msg := range checks.errs {
		t.Error(msg)
	}
	require.False(t, t.Failed())

	// No turn lost or duplicated, each where its Append said it went.
	require.Equal(t, appenders*perWriter, m.Len())
	require.Len(t, wrote, appenders*perWriter)
	for i, text := range wrote {
		got, err := m.Turn(i)
		require.NoError(t, err)
		if redacted[i] {
			require.True(t, got.Redacted)
			require.Equal(t, redactedText, got.Text)
		} else {
			require.Equal(t, text, got.Text)
		}
	}
	checkBounds(t, m)

	// Every snapshot restores to a memory that composes within the budget
	// and holds a prefix of the final conversation.
	require.NotEmpty(t, snaps)
	for _, data := range snaps {
		s, err := FromJSON(data, opts)
		require.NoError(t, err)
		checkBounds(t, s)
		require.LessOrEqual(t, s.Len(), m.Len())
		for i := range s.Len() {
			a, _ := s.Turn(i)
			b, _ := m.Turn(i)
			if a.Redacted {
				require.True(t, b.Redacted, "a redaction is never undone")
			} else if !b.Redacted {
				require.Equal(t, b.Text, a.Text)
			}
		}
		q := topics[s.Len()%len(topics)]
		r, err := s.Compose(context.Background(), q)
		require.NoError(t, err)
		checkResult(t, s, q, r)
	}
}

// --- faults from collaborators ----------------------------------------------

func TestBoundariesFaults(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })

	faults := map[string]func(tail []Turn) []int{
		"panics":               func([]Turn) []int { panic("boom") },
		"panics with an error": func([]Turn) []int { panic(errors.New("boom")) },
		"panics with nil":      func([]Turn) []int { panic(nil) },
		"exits its goroutine":  func([]Turn) []int { runtime.Goexit(); return nil },
		"blocks":               func([]Turn) []int { <-release; return nil },
		"split at zero":        func([]Turn) []int { return []int{0} },
		"split at the end":     func(tail []Turn) []int { return []int{len(tail)} },
		"split past the end":   func(tail []Turn) []int { return []int{1, len(tail) + 5} },
		"negative split":       func([]Turn) []int { return []int{-1} },
		"huge split":           func([]Turn) []int { return []int{math.MaxInt} },
		"unsorted":             func(tail []Turn) []int { return []int{2, 1} },
		"repeated":             func([]Turn) []int { return []int{1, 1} },
		"too many":             func(tail []Turn) []int { return make([]int, len(tail)+1) },
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			var mode atomic.Bool // true: faulty
			hook := func(tail []Turn) []int {
				if mode.Load() {
					return fault(tail)
				}
				if len(tail) >= 3 {
					return []int{1, 2}
				}
				return nil
			}
			opts := Options{Budget: 300, Chunk: 50, Boundaries: hook}
			m := New(opts)
			m.tune.boundariesTimeout = 50 * time.Millisecond
			ctx := context.Background()
			for i := range 12 {
				_, err := m.Append([]Role{User, Assistant}[i%2], fmt.Sprintf("turn %d talks about topic %d at some length", i, i%3))
				require.NoError(t, err)
			}
			_, err := m.Compose(ctx, "topic 1")
			require.NoError(t, err)
			// Fill the open stretch so that the next Append asks the hook.
			for m.open < m.opt.Chunk {
				_, err := m.Append(User, "more about topic 2 and nothing else")
				require.NoError(t, err)
			}
			mode.Store(true)
			before := mustJSON(t, m)
			n := m.Len()
			i, err := m.Append(Assistant, "this turn must not be recorded")
			require.ErrorIs(t, err, ErrBoundaries)
			switch name {
			case "blocks":
				require.ErrorContains(t, err, "no answer within")
			case "exits its goroutine":
				require.NotContains(t, err.Error(), "no answer within", "an exited hook is noticed at once")
			}
			require.Equal(t, -1, i)
			require.Equal(t, before, mustJSON(t, m), "a failed Append records nothing")
			require.Equal(t, n, m.Len())

			// Still usable: composes, and appends once the hook recovers.
			r, err := m.Compose(ctx, "topic 2")
			require.NoError(t, err)
			checkResult(t, m, "topic 2", r)
			mode.Store(false)
			i, err = m.Append(Assistant, "this turn is recorded")
			require.NoError(t, err)
			require.Equal(t, n, i)
			checkBounds(t, m)
			checkRoundTrip(t, m, opts, "topic 2")
		})
	}
}

// TestBoundariesHookOwnsItsTail: a hook may scribble on the turns it is
// shown; the memory keeps its own.
func TestBoundariesHookOwnsItsTail(t *testing.T) {
	m := New(Options{Chunk: 10, Boundaries: func(tail []Turn) []int {
		for i := range tail {
			tail[i].Text = "scribbled"
			tail[i].Role = "system"
		}
		return nil
	}})
	for _, text := range []string{"first turn, long enough", "second turn, long enough", "third"} {
		_, err := m.Append(User, text)
		require.NoError(t, err)
	}
	got, err := m.Turn(0)
	require.NoError(t, err)
	require.Equal(t, Turn{Role: User, Text: "first turn, long enough"}, got)
	require.NotContains(t, mustJSON(t, m), "scribbled")
}

// --- no loss on failure --------------------------------------------------------

// TestNoLossOnFailure: every operation that returns an error leaves the
// memory exactly as it was, in every state a memory can be in.
func TestNoLossOnFailure(t *testing.T) {
	var broken atomic.Bool
	ret := RetrieverFunc(func(ctx context.Context, q string, docs []Document) ([]float64, error) {
		if broken.Load() {
			return nil, errors.New("down")
		}
		return overlap(ctx, q, docs)
	})
	hook := func(tail []Turn) []int {
		if broken.Load() {
			return []int{0}
		}
		return nil
	}
	type state struct {
		make  func(t *testing.T) (*Memory, Options)
		hooks bool // has a Boundaries hook and a Retriever, and is above its budget
	}
	states := map[string]state{
		"empty": {make: func(*testing.T) (*Memory, Options) { return New(Options{}), Options{} }},
		"below the budget": {make: func(t *testing.T) (*Memory, Options) {
			m := New(Options{})
			_, err := m.Append(User, "hello")
			require.NoError(t, err)
			return m, Options{}
		}},
		"above the budget with a kept selection": {hooks: true, make: func(t *testing.T) (*Memory, Options) {
			opts := Options{Budget: 300, Chunk: 50, Retriever: ret, Boundaries: hook}
			return overBudget(t, opts), opts
		}},
		"redacted and restored": {hooks: true, make: func(t *testing.T) (*Memory, Options) {
			opts := sampleOpts
			opts.Retriever, opts.Boundaries = ret, hook
			m2, err := FromJSON([]byte(mustJSON(t, sampleMemory(t))), opts)
			require.NoError(t, err)
			return m2, opts
		}},
	}
	type op struct {
		run   func(m *Memory) error
		hooks bool // fails only in a state with hooks
	}
	ops := map[string]op{
		"append with a bad role": {run: func(m *Memory) error { _, err := m.Append("system", "x"); return err }},
		"append with no role":    {run: func(m *Memory) error { _, err := m.Append("", "x"); return err }},
		"append empty text":      {run: func(m *Memory) error { _, err := m.Append(User, ""); return err }},
		"append invalid UTF-8":   {run: func(m *Memory) error { _, err := m.Append(User, "ok \xc3\x28"); return err }},
		"append a year past 9999": {run: func(m *Memory) error {
			_, err := m.AppendAt(User, "x", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
			return err
		}},
		"append a year before 0": {run: func(m *Memory) error {
			_, err := m.AppendAt(User, "x", time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC))
			return err
		}},
		"append a zone of 25 hours": {run: func(m *Memory) error {
			_, err := m.AppendAt(User, "x", time.Now().In(time.FixedZone("", 25*3600)))
			return err
		}},
		"redact -1":             {run: func(m *Memory) error { return m.Redact(-1) }},
		"redact past the end":   {run: func(m *Memory) error { return m.Redact(m.Len()) }},
		"redact MaxInt":         {run: func(m *Memory) error { return m.Redact(math.MaxInt) }},
		"compose invalid UTF-8": {run: func(m *Memory) error { _, err := m.Compose(context.Background(), "\xff"); return err }},
		"turn -1":               {run: func(m *Memory) error { _, err := m.Turn(-1); return err }},
		"compose with a cancelled context": {run: func(m *Memory) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := m.Compose(ctx, "topic")
			return err
		}},
		"append past a failing hook": {hooks: true, run: func(m *Memory) error {
			broken.Store(true)
			_, err := m.Append(User, "x")
			return err
		}},
		"compose past a failing retriever": {hooks: true, run: func(m *Memory) error {
			broken.Store(true)
			_, err := m.Compose(context.Background(), "topic")
			return err
		}},
	}
	for sname, st := range states {
		for oname, o := range ops {
			if o.hooks && !st.hooks {
				continue
			}
			t.Run(sname+"/"+oname, func(t *testing.T) {
				broken.Store(false)
				m, opts := st.make(t)
				for m.open < m.opt.Chunk && m.Len() > 0 {
					_, err := m.Append(User, "filler so the next append asks the hook")
					require.NoError(t, err)
				}
				before := mustJSON(t, m)
				n := m.Len()
				err := o.run(m)
				broken.Store(false)
				require.Error(t, err)
				require.True(t, isSentinel(err) || errors.Is(err, context.Canceled), "undocumented error %v", err)
				require.Equal(t, before, mustJSON(t, m), "failed %s changed the memory", oname)
				require.Equal(t, n, m.Len())
				r, err := m.Compose(context.Background(), "topic")
				require.NoError(t, err)
				checkResult(t, m, "topic", r)
				checkRoundTrip(t, m, opts, "topic")
			})
		}
	}
}
