package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
)

// Run runs every conformance test on stores that open returns, a new one
// for each test.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		run  func(*testing.T, store.Store)
	}{
		{"SavedInRequestsOpensAsTheLastCopy", savedInRequestsOpensAsTheLastCopy},
		{"CopyCatchesUpReadingOnlyWhatOthersAdded", copyCatchesUp},
		{"StaleWriterGetsAConflictAndWritesNothing", staleWriterConflicts},
		{"ConcurrentWritersLandExactlyOnceInOrder", concurrentWritersLandOnce},
		{"ScopeIsRequiredByEveryOperation", scopeIsRequired},
		{"ScopesNeverSeeOrChangeEachOther", scopesAreIsolated},
		{"BadInputChangesNothing", badInputChangesNothing},
		{"CancelledContextChangesNothing", cancelledContextChangesNothing},
		{"RedactionRemovesTheTextFromLoadsAndExports", redactionRemovesText},
		{"DeletionRemovesConversationsAndCountsThem", deletionRemovesConversations},
		{"AuditRecordsEveryChangeWithoutText", auditRecordsEveryChange},
		{"CacheServesAWarmCopyCaughtUp", cacheServesWarmCopy},
		{"ExpiryIsKeptInTheRowsAndTheAuditShowsIt", expiryIsKeptAndAudited},
		{"AReopenedCopyDecidesAsTheOneThatSaved", reopenedDecidesAsLive},
		{"TimesComeBackExactlyAsToJSONWritesThem", timesComeBackExactly},
		{"EveryWayOfRedactingErasesFromTheStore", everyErasurePersists},
		{"RedoneSaveLandsOnce", redoneSaveLandsOnce},
		{"SavingAgainAfterALostAnswerLandsOnce", saveAgainLandsOnce},
		{"ARetryWithAnExpiryIsAnotherSave", retryWithAnExpiryIsAnotherSave},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
	t.Run("ClosedStoreRefusesEverything", func(t *testing.T) { closedStoreRefuses(t, open(t)) })
}

var alice = store.Scope{Tenant: "acme", User: "alice", Conversation: "support-1"}

func savedInRequestsOpensAsTheLastCopy(t *testing.T, st store.Store) {
	turns := Chat(1, 240)
	var last *store.Conversation
	for i := 0; i < len(turns); i += 30 {
		last = request(t, st, alice, turns[i:i+30])
	}
	if last.Memory.Len() != 240 {
		t.Fatalf("the last copy holds %d turns", last.Memory.Len())
	}
	sameAs(t, st, alice, last.Memory)
	reopened := open(t, st, alice)
	for _, q := range Chat(2, 6) {
		a, b := compose(t, last.Memory, q.Text), compose(t, reopened.Memory, q.Text)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("for %q the reopened copy composes\n%v\nwant\n%v", q.Text, b, a)
		}
	}
}

func copyCatchesUp(t *testing.T, st store.Store) {
	ctx := context.Background()
	turns := Chat(3, 120)
	a := request(t, st, alice, turns[:60])
	b := open(t, st, alice)
	for i := 60; i < 120; i += 20 {
		appendTurns(t, a.Memory, turns[i:i+20])
		compose(t, a.Memory, turns[i+19].Text)
		save(t, a)
	}
	rec, err := st.Load(ctx, alice, b.At())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Changes.From != 60 || len(rec.Changes.Turns) != 60 {
		t.Errorf("a copy of 60 turns was sent turns from %d, %d of them", rec.Changes.From, len(rec.Changes.Turns))
	}
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, b.Memory) != jsonOf(t, a.Memory) {
		t.Error("the refreshed copy differs from the writer's")
	}
	if err := a.Redact(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if rec, err = st.Load(ctx, alice, b.At()); err != nil || !rec.Whole() {
		t.Errorf("after a redaction a copy loads whole: from %d, %v", rec.Changes.From, err)
	}
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, b.Memory) != jsonOf(t, a.Memory) {
		t.Error("the copy refreshed after a redaction differs from the redacting one")
	}
}

func staleWriterConflicts(t *testing.T, st store.Store) {
	ctx := context.Background()
	request(t, st, alice, Chat(4, 10))
	a, b := open(t, st, alice), open(t, st, alice)
	appendTurns(t, a.Memory, []byheart.Turn{{Role: byheart.User, Text: "from writer a"}})
	appendTurns(t, b.Memory, []byheart.Turn{{Role: byheart.User, Text: "from writer b"}})
	save(t, a)
	wantErr(t, b.Save(ctx), store.ErrConflict, "the stale writer's save")
	wantErr(t, b.Refresh(ctx), store.ErrConflict, "refreshing a stale copy with unsaved turns")
	sameAs(t, st, alice, a.Memory)

	b = open(t, st, alice)
	appendTurns(t, b.Memory, []byheart.Turn{{Role: byheart.User, Text: "from writer b"}})
	save(t, b)
	if n := open(t, st, alice).Memory.Len(); n != 12 {
		t.Errorf("after the retry the conversation holds %d turns, want 12", n)
	}
}

// concurrentWritersLandOnce runs writers that each append their turns one
// request at a time, retrying on conflict, and checks the result holds
// every turn once, each writer's in its order.
func concurrentWritersLandOnce(t *testing.T, st store.Store) {
	const writers, each = 4, 8
	var wg sync.WaitGroup
	conflicts := make([]int, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range each {
				conflicts[w] += Append(t, st, alice, byheart.Turn{Role: byheart.User, Text: fmt.Sprintf("writer %d turn %d", w, k)})
			}
		}()
	}
	wg.Wait()
	CheckWriters(t, open(t, st, alice).Memory, writers, each)
	t.Logf("conflicts retried: %v", conflicts)
}

// Append appends turn to the conversation at scope in one request, opening
// it again and retrying whenever another writer saved first; it returns
// how many conflicts it met.
func Append(t testing.TB, st store.Store, scope store.Scope, turn byheart.Turn) int {
	for conflicts := 0; ; conflicts++ {
		c, err := store.Open(context.Background(), st, scope, opts)
		if err == nil {
			_, err = c.Memory.AppendTurn(turn)
		}
		if err == nil {
			err = c.Save(context.Background())
		}
		if err == nil {
			return conflicts
		}
		if !errors.Is(err, store.ErrConflict) {
			t.Errorf("append %q: %v", turn.Text, err)
			return conflicts
		}
	}
}

// CheckWriters checks that m holds "writer W turn K" for each of writers
// writers and each K below each, every one once and each writer's in order.
func CheckWriters(t testing.TB, m *byheart.Memory, writers, each int) {
	t.Helper()
	next := make([]int, writers)
	for i := range m.Len() {
		turn, _ := m.Turn(i)
		var w, k int
		if _, err := fmt.Sscanf(turn.Text, "writer %d turn %d", &w, &k); err != nil || w < 0 || w >= writers {
			t.Errorf("turn %d is %q", i, turn.Text)
			continue
		}
		if k != next[w] {
			t.Errorf("turn %d is writer %d's turn %d, want its turn %d", i, w, k, next[w])
		}
		next[w] = k + 1
	}
	if m.Len() != writers*each {
		t.Errorf("%d turns stored, want %d", m.Len(), writers*each)
	}
}

func cacheServesWarmCopy(t *testing.T, st store.Store) {
	ctx := context.Background()
	cache := store.NewCache(st, opts, 4)
	request(t, st, alice, Chat(5, 40))
	c, err := cache.Open(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	appendTurns(t, c.Memory, Chat(6, 2))
	save(t, c)
	cache.Done(c)
	request(t, st, alice, []byheart.Turn{{Role: byheart.User, Text: "another server was here"}})
	again, err := cache.Open(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if again != c {
		t.Error("the cache loaded a new copy rather than serving its warm one")
	}
	sameAs(t, st, alice, again.Memory)
	if again.Memory.Len() != 43 {
		t.Errorf("the warm copy holds %d turns, want 43", again.Memory.Len())
	}
}

// texts returns every text a store could show for the scopes: the stored
// turns and the audit log, as JSON.
func texts(t testing.TB, st store.Store, scopes ...store.Scope) string {
	var b strings.Builder
	for _, s := range scopes {
		if rec, err := st.Load(context.Background(), s, store.Position{}); err == nil {
			data, _ := json.Marshal(rec)
			b.Write(data)
		}
		data, _ := json.Marshal(audit(t, st, s.Tenant, s.User))
		b.Write(data)
	}
	return b.String()
}

// since returns the time just before a change, for audit checks.
func since() time.Time { return time.Now().Add(-time.Millisecond) }
