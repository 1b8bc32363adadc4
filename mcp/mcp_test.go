package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/mcp/internal/mcptest"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newStore opens a store in a new SQLite file.
func newStore(t testing.TB) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "memory.db"), sqlite.Options{Relaxed: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// serve starts a server for cfg and connects the SDK's client to it over
// the SDK's in-memory transport.
func serve(t testing.TB, cfg Config) (*Server, *sdk.ClientSession) {
	t.Helper()
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcptest.Client().Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return srv, cs
}

// topics are what the synthetic chats talk about, one stretch each.
var topics = []string{
	"my beagle Pickle chewed the sofa again",
	"the sourdough starter smells of acetone after feeding",
	"training for the Lisbon marathon in October",
	"the tomato seedlings on the balcony got leaf curl",
	"violin lessons with Mrs Okafor on Thursdays",
	"the tax return is due at the end of January",
	"my sister Ines moved to Tromsø for a research post",
	"repainting the hallway a pale sage green",
}

// chat returns n turns of a conversation about topics, four turns to a
// topic, 37 minutes apart.
func chat(conversation string, n int) []rememberIn {
	start := time.Date(2024, 5, 6, 9, 0, 0, 0, time.FixedZone("", 2*3600))
	turns := make([]rememberIn, n)
	for i := range turns {
		role, text := "user", fmt.Sprintf("About %s: this is turn %d, and there is more to say about it.", topics[i/4%len(topics)], i)
		if i%2 == 1 {
			role, text = "assistant", fmt.Sprintf("Noted on turn %d; %s sounds worth keeping an eye on.", i, topics[i/4%len(topics)])
		}
		turns[i] = rememberIn{Conversation: conversation, Role: role, Text: text,
			Time: start.Add(time.Duration(i) * 37 * time.Minute).Format(time.RFC3339)}
	}
	return turns
}

// rememberAll remembers turns through the tool.
func rememberAll(t testing.TB, cs *sdk.ClientSession, turns []rememberIn) {
	t.Helper()
	for i, in := range turns {
		var out turnOut
		mcptest.OK(t, cs, "remember", in, &out)
		if out.Turn != i || out.Turns != i+1 {
			t.Fatalf("remember %d: turn %d of %d", i, out.Turn, out.Turns)
		}
	}
}

var alice = store.Scope{Tenant: "acme", User: "alice", Conversation: "trip"}

func TestRecallIsComposeOnTheSameMemory(t *testing.T) {
	for _, tc := range []struct {
		name          string
		budget, turns int
		query         string
	}{
		{"below the budget every turn", 20_000, 12, "what did I say about Pickle?"},
		{"above the budget the stretches the query needs", 1_500, 96, "how is the sourdough starter doing?"},
		{"above the budget for a query that matches nothing", 1_500, 96, "quantum chromodynamics"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			srv, cs := serve(t, Config{Store: st, Tenant: alice.Tenant, User: alice.User, Options: byheart.Options{Budget: tc.budget}})
			rememberAll(t, cs, chat(alice.Conversation, tc.turns))
			var got recallOut
			text := mcptest.OK(t, cs, "recall", recallIn{Conversation: alice.Conversation, Query: tc.query}, &got)

			conv, err := store.Open(context.Background(), st, alice, srv.cfg.Options)
			if err != nil {
				t.Fatal(err)
			}
			res, err := conv.Memory.Compose(context.Background(), tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if want := Render(res); text != want {
				t.Errorf("recall sent\n%s\nCompose on the same memory renders\n%s", text, want)
			}
			want := recallOut{Conversation: alice.Conversation, Turns: tc.turns, Budget: tc.budget,
				Spent: spent{Spend: res.Spent, Total: res.Spent.Total()}, Rebuild: string(res.Rebuild),
				Included: append([]int{}, res.Included...), Recalled: res.Recalled, Standing: res.Standing}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("recall accounted\n%+v\nCompose\n%+v", got, want)
			}
			if got.Spent.Total > tc.budget || got.Spent.Total == 0 {
				t.Errorf("spent %d of a budget of %d", got.Spent.Total, tc.budget)
			}
			if over := tc.turns*80 > tc.budget; over != (got.Spent.Memory > 0) {
				t.Errorf("over the budget %v, but the memory block cost %d", over, got.Spent.Memory)
			}
			if strings.Contains(text, tc.query) {
				t.Errorf("the query is in the text the model reads:\n%s", text)
			}
		})
	}
}

func TestRecallOfAnEmptyConversationSaysSo(t *testing.T) {
	_, cs := serve(t, Config{Store: newStore(t), Tenant: "acme", User: "alice"})
	var got recallOut
	text := mcptest.OK(t, cs, "recall", recallIn{Query: "anything?"}, &got)
	if !strings.Contains(text, `Nothing is remembered in conversation "default"`) || got.Turns != 0 || got.Spent.Total != 0 {
		t.Errorf("recall of nothing: %q, %+v", text, got)
	}
}

// snapshot is what a scope's user has stored: the audit log's length and
// each conversation's position.
func snapshot(t *testing.T, st store.Store, scopes ...store.Scope) string {
	t.Helper()
	var b strings.Builder
	for _, s := range scopes {
		events, err := st.Audit(context.Background(), s.Tenant, s.User)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := st.Load(context.Background(), s, store.Position{})
		fmt.Fprintf(&b, "%s/%s: %d events; %s: %+v %v; ", s.Tenant, s.User, len(events), s.Conversation, rec.At, err)
	}
	return b.String()
}

func TestBadInputIsRefusedClearlyAndWritesNothing(t *testing.T) {
	st := newStore(t)
	_, cs := serve(t, Config{Store: st, Tenant: alice.Tenant, User: alice.User})
	rememberAll(t, cs, chat(alice.Conversation, 2))
	huge := strings.Repeat("a", store.MaxTurn+1)
	for _, tc := range []struct {
		name, tool string
		args       any
		want       string
	}{
		{"a text over the limit", "remember", rememberIn{Conversation: "trip", Role: "user", Text: huge}, "text: 1048577 bytes, at most 1048576"},
		{"a text of invalid UTF-8", "remember", json.RawMessage("{\"conversation\":\"trip\",\"role\":\"user\",\"text\":\"caf\xe9\"}"), "not valid UTF-8"},
		{"a text escaping a lone high surrogate", "remember", json.RawMessage(`{"conversation":"trip","role":"user","text":"a\ud800b"}`), `unpaired surrogate (\ud800)`},
		{"a text escaping a lone low surrogate", "remember", json.RawMessage(`{"conversation":"trip","role":"user","text":"a\udc00\ud800"}`), `unpaired surrogate (\udc00)`},
		{"a high surrogate before another escape", "remember", json.RawMessage(`{"conversation":"trip","role":"user","text":"\ud83d\u0041"}`), `unpaired surrogate (\ud83d)`},
		{"an argument the tool does not take", "remember", json.RawMessage(`{"conversation":"trip","role":"user","text":"hi","speaker":"me"}`), "speaker"},
		{"arguments that are no object", "remember", json.RawMessage(`["user","hi"]`), "arguments"},
		{"a role other than user or assistant", "remember", rememberIn{Conversation: "trip", Role: "robot", Text: "hi"}, `robot`},
		{"a tool turn's role", "remember", rememberIn{Conversation: "trip", Role: "tool_call", Text: "hi"}, `tool_call`},
		{"no role", "remember", json.RawMessage(`{"conversation":"trip","text":"hi"}`), "role"},
		{"no text", "remember", json.RawMessage(`{"conversation":"trip","role":"user"}`), "text"},
		{"an empty text", "remember", rememberIn{Conversation: "trip", Role: "user", Text: ""}, "text: empty"},
		{"a text of spaces", "remember", rememberIn{Conversation: "trip", Role: "user", Text: " \n\t"}, "text: empty"},
		{"a time in words", "remember", rememberIn{Conversation: "trip", Role: "user", Text: "hi", Time: "yesterday"}, `time "yesterday": not RFC 3339`},
		{"a date that does not exist", "remember", rememberIn{Conversation: "trip", Role: "user", Text: "hi", Time: "2024-02-30T10:00:00Z"}, "not RFC 3339"},
		{"a time as a number", "remember", json.RawMessage(`{"conversation":"trip","role":"user","text":"hi","time":1716000000}`), "time"},
		{"a conversation id with a bidi override", "remember", rememberIn{Conversation: "tr\u202eip", Role: "user", Text: "hi"}, "conversation"},
		{"a conversation id over 256 bytes", "remember", rememberIn{Conversation: strings.Repeat("c", 257), Role: "user", Text: "hi"}, "conversation"},
		{"a request id with a line break", "remember", rememberIn{Conversation: "trip", Role: "user", Text: "hi", RequestID: "a\nb"}, "request_id"},
		{"a query over the limit", "recall", recallIn{Conversation: "trip", Query: huge}, "query: 1048577 bytes"},
		{"a query of invalid UTF-8", "recall", json.RawMessage("{\"query\":\"\xff\"}"), "not valid UTF-8"},
		{"a recall argument it does not take", "recall", json.RawMessage(`{"query":"x","budget":10}`), "budget"},
		{"a negative turn", "forget", json.RawMessage(`{"conversation":"trip","turn":-1}`), "turn -1: negative"},
		{"a turn past the last", "forget", json.RawMessage(`{"conversation":"trip","turn":2}`), `no such turn in conversation "trip"`},
		{"a turn of no conversation", "forget", json.RawMessage(`{"conversation":"nowhere","turn":0}`), `no conversation "nowhere"`},
		{"no turn", "forget", json.RawMessage(`{"conversation":"trip"}`), "turn"},
		{"a turn that is no integer", "forget", json.RawMessage(`{"conversation":"trip","turn":1.5}`), "turn"},
		{"a turn as a string", "forget", json.RawMessage(`{"conversation":"trip","turn":"1"}`), "turn"},
		{"arguments to list_conversations", "list_conversations", json.RawMessage(`{"user":"bob"}`), "user"},
		{"arguments to audit", "audit", json.RawMessage(`{"tenant":"other"}`), "tenant"},
		{"a tool that does not exist", "remember_everything", json.RawMessage(`{}`), "remember_everything"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, st, alice)
			got := mcptest.Refused(t, cs, tc.tool, tc.args)
			t.Logf("told: %.300s", got)
			if !strings.Contains(got, tc.want) {
				t.Errorf("told %q, want it to say %q", got, tc.want)
			}
			if len(got) > 500 {
				t.Errorf("told %d bytes: %.200q…", len(got), got)
			}
			if after := snapshot(t, st, alice); after != before {
				t.Errorf("the store changed:\n%s\n%s", before, after)
			}
		})
	}
}

func TestScopesNeverSeeEachOther(t *testing.T) {
	st := newStore(t)
	users := []store.Scope{
		{Tenant: "acme", User: "alice"},
		{Tenant: "acme", User: "bob"},
		{Tenant: "globex", User: "alice"},
	}
	clients := make([]*sdk.ClientSession, len(users))
	for i, u := range users {
		_, clients[i] = serve(t, Config{Store: st, Tenant: u.Tenant, User: u.User})
		for _, conv := range []string{"shared-name", fmt.Sprintf("only-%d", i)} {
			mcptest.OK(t, clients[i], "remember", rememberIn{Conversation: conv, Role: "user", Text: fmt.Sprintf("the secret word of user %d is %s", i, secret(i))}, nil)
		}
	}
	for i, cs := range clients {
		var list listOut
		mcptest.OK(t, cs, "list_conversations", nil, &list)
		var names []string
		for _, c := range list.Conversations {
			names = append(names, c.Conversation)
		}
		slices.Sort(names)
		if want := []string{fmt.Sprintf("only-%d", i), "shared-name"}; !slices.Equal(names, want) {
			t.Errorf("user %d lists %q, want %q", i, names, want)
		}
		var seen strings.Builder
		seen.WriteString(mcptest.OK(t, cs, "recall", recallIn{Conversation: "shared-name", Query: "what is the secret word?"}, nil))
		var audit auditOut
		seen.WriteString(mcptest.OK(t, cs, "audit", nil, &audit))
		for _, e := range audit.Events {
			if e.Conversation != "shared-name" && e.Conversation != fmt.Sprintf("only-%d", i) {
				t.Errorf("user %d's audit shows %+v", i, e)
			}
		}
		res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: conversationURI("shared-name")})
		if err != nil {
			t.Fatal(err)
		}
		seen.WriteString(res.Contents[0].Text)
		for j := range users {
			if has := strings.Contains(seen.String(), secret(j)); has != (i == j) {
				t.Errorf("user %d sees user %d's secret: %v", i, j, has)
			}
			if i == j {
				continue
			}
			other := fmt.Sprintf("only-%d", j)
			if got := mcptest.Refused(t, cs, "forget", forgetIn{Conversation: other, Turn: new(int)}); !strings.Contains(got, "no conversation") {
				t.Errorf("user %d forgetting user %d's conversation is told %q", i, j, got)
			}
			if _, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: conversationURI(other)}); err == nil {
				t.Errorf("user %d reads user %d's conversation", i, j)
			}
			var r recallOut
			mcptest.OK(t, cs, "recall", recallIn{Conversation: other, Query: "secret"}, &r)
			if r.Turns != 0 {
				t.Errorf("user %d recalls %d turns of user %d's conversation", i, r.Turns, j)
			}
		}
	}
	// Bob forgets his turn of the shared name; the others' stay.
	mcptest.OK(t, clients[1], "forget", forgetIn{Conversation: "shared-name", Turn: new(int)}, nil)
	for i, u := range users {
		u.Conversation = "shared-name"
		rec, err := st.Load(context.Background(), u, store.Position{})
		if err != nil {
			t.Fatal(err)
		}
		if erased := rec.Changes.Turns[0].Redacted; erased != (i == 1) {
			t.Errorf("user %d's turn redacted: %v", i, erased)
		}
	}
}

// secret is user i's secret word.
func secret(i int) string { return []string{"pomegranate", "xylophone", "quagmire"}[i] }

func TestForgetErasesTheTurnEverywhere(t *testing.T) {
	st := newStore(t)
	_, cs := serve(t, Config{Store: st, Tenant: alice.Tenant, User: alice.User})
	rememberAll(t, cs, []rememberIn{
		{Conversation: "trip", Role: "user", Text: "my passport number is X1234567"},
		{Conversation: "trip", Role: "assistant", Text: "Noted."},
	})
	// A warm copy of the conversation is cached now; forget must reach it.
	mcptest.OK(t, cs, "recall", recallIn{Conversation: "trip", Query: "passport"}, nil)
	var out turnOut
	mcptest.OK(t, cs, "forget", forgetIn{Conversation: "trip", Turn: new(int)}, &out)
	if out.Turn != 0 || out.Turns != 2 {
		t.Errorf("forget said %+v", out)
	}
	text := mcptest.OK(t, cs, "recall", recallIn{Conversation: "trip", Query: "passport"}, nil)
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: conversationURI("trip")})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Load(context.Background(), alice, store.Position{})
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"recall": text, "the resource": res.Contents[0].Text, "the store": fmt.Sprint(rec.Changes.Turns)} {
		if strings.Contains(s, "X1234567") {
			t.Errorf("%s still shows the erased text: %s", what, s)
		}
	}
	if !strings.Contains(text, "[redacted]") {
		t.Errorf("recall does not show the turn's place: %s", text)
	}
	var audit auditOut
	mcptest.OK(t, cs, "audit", nil, &audit)
	if last := audit.Events[len(audit.Events)-1]; last.Action != "redact" || last.Turn != 0 || last.Conversation != "trip" {
		t.Errorf("the audit log ends with %+v", last)
	}
	// Forgetting it again changes nothing and is no error.
	before := snapshot(t, st, alice)
	mcptest.OK(t, cs, "forget", forgetIn{Conversation: "trip", Turn: new(int)}, nil)
	if after := snapshot(t, st, alice); after != before {
		t.Errorf("forgetting twice changed the store:\n%s\n%s", before, after)
	}
}

func TestAResourceShowsTheRecentTurns(t *testing.T) {
	st := newStore(t)
	_, cs := serve(t, Config{Store: st, Tenant: alice.Tenant, User: alice.User, Recent: 3})
	names := []string{"plain", "with space/and slash", "köln 100% ünïcode", "a+b=c&d"}
	for _, name := range names {
		rememberAll(t, cs, chat(name, 5))
	}
	var list listOut
	mcptest.OK(t, cs, "list_conversations", nil, &list)
	if len(list.Conversations) != len(names) {
		t.Fatalf("listed %+v", list)
	}
	for _, c := range list.Conversations {
		res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: c.URI})
		if err != nil {
			t.Fatalf("%s: %v", c.URI, err)
		}
		var got recentTurns
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &got); err != nil {
			t.Fatal(err)
		}
		if res.Contents[0].MIMEType != "application/json" || got.Conversation != c.Conversation || got.Turns != 5 || c.Turns != 5 || len(got.Recent) != 3 {
			t.Fatalf("%s: %s %+v", c.URI, res.Contents[0].MIMEType, got)
		}
		want := chat(c.Conversation, 5)
		for k, r := range got.Recent {
			w := want[2+k]
			if r.Turn != 2+k || r.Role != w.Role || r.Text != w.Text || r.Time.Format(time.RFC3339) != w.Time {
				t.Errorf("%s: turn %+v, want %+v", c.URI, r, w)
			}
		}
	}
	for _, uri := range []string{conversationURI("nowhere"), "byheart://conversations/%zz", "byheart://conversations/a%0Ab"} {
		if _, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s: read", uri)
		}
	}
}

func TestRememberWithARequestIDStoresTheTurnOnce(t *testing.T) {
	st := newStore(t)
	_, cs := serve(t, Config{Store: st, Tenant: alice.Tenant, User: alice.User})
	in := rememberIn{Conversation: "trip", Role: "user", Text: "book the ferry", RequestID: "req-1"}
	var first, again turnOut
	mcptest.OK(t, cs, "remember", in, &first)
	mcptest.OK(t, cs, "remember", in, &again)
	if first != again || again.Turns != 1 {
		t.Errorf("first %+v, again %+v", first, again)
	}
	in.Text = "book the train"
	if got := mcptest.Refused(t, cs, "remember", in); !strings.Contains(got, "stored another turn") {
		t.Errorf("the same id with other words: %q", got)
	}
	rec, err := st.Load(context.Background(), alice, store.Position{})
	if err != nil || len(rec.Changes.Turns) != 1 {
		t.Errorf("stored %d turns, %v", len(rec.Changes.Turns), err)
	}
}

func TestConcurrentRemembersLandOnceEach(t *testing.T) {
	st := newStore(t)
	const clients, each = 4, 10
	var wg sync.WaitGroup
	for c := range clients {
		_, cs := serve(t, Config{Store: st, Tenant: alice.Tenant, User: alice.User, CacheSize: 1})
		wg.Go(func() {
			for i := range each {
				mcptest.OK(t, cs, "remember", rememberIn{Conversation: "trip", Role: "user", Text: fmt.Sprintf("client %d turn %d", c, i)}, nil)
			}
		})
	}
	wg.Wait()
	rec, err := st.Load(context.Background(), alice, store.Position{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, turn := range rec.Changes.Turns {
		seen[turn.Text]++
	}
	if len(rec.Changes.Turns) != clients*each || len(seen) != clients*each {
		t.Errorf("%d turns stored, %d distinct, want %d", len(rec.Changes.Turns), len(seen), clients*each)
	}
}

func TestAServerWithoutAScopeServesNoStdioRequest(t *testing.T) {
	st := newStore(t)
	_, cs := serve(t, Config{Store: st})
	if got := mcptest.Refused(t, cs, "remember", rememberIn{Role: "user", Text: "hi"}); !strings.Contains(got, "names no scope") {
		t.Errorf("told %q", got)
	}
	if events, err := st.Audit(context.Background(), "acme", "alice"); err != nil || len(events) != 0 {
		t.Errorf("audit %v %v", events, err)
	}
}

func TestNewRefusesABadConfig(t *testing.T) {
	st := newStore(t)
	for _, cfg := range []Config{
		{},
		{Store: st, Tenant: "acme"},
		{Store: st, Tenant: "acme", User: "a\x00b"},
		{Store: st, Tenant: "acme", User: "alice", Conversation: "\u200b"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestEveryToolSaysWhatItTakes(t *testing.T) {
	_, cs := serve(t, Config{Store: newStore(t), Tenant: "acme", User: "alice"})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		if tool.Description == "" || !strings.Contains(string(schema), `"additionalProperties":false`) {
			t.Errorf("%s: description %q, schema %s", tool.Name, tool.Description, schema)
		}
		if tool.Name == "remember" && !strings.Contains(string(schema), `"enum":["user","assistant"]`) {
			t.Errorf("remember's schema does not list the roles: %s", schema)
		}
	}
	slices.Sort(names)
	if want := []string{"audit", "forget", "list_conversations", "recall", "remember"}; !slices.Equal(names, want) {
		t.Errorf("tools %q, want %q", names, want)
	}
}

// A turn whose expiry has passed is in no recall and not in the
// conversation's resource, though every turn of the conversation was said
// long before the expiry: both read at the time of the call, not at the
// newest turn's.
func TestRecallAndTheResourceLeaveOutAnExpiredTurn(t *testing.T) {
	st := newStore(t)
	srv, cs := serve(t, Config{Store: st, Tenant: alice.Tenant, User: alice.User, Options: byheart.Options{Budget: 20_000}})
	turns := chat(alice.Conversation, 12)
	rememberAll(t, cs, turns)
	conv, err := store.Open(context.Background(), st, alice, srv.cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	said, err := time.Parse(time.RFC3339, turns[len(turns)-1].Time)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conv.Memory.AppendTurn(byheart.Turn{Role: byheart.User, Text: "the gate code is 2468, good for an hour", Time: said, Expires: said.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := conv.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got recallOut
	if text := mcptest.OK(t, cs, "recall", recallIn{Conversation: alice.Conversation, Query: "the gate code"}, &got); strings.Contains(text, "2468") {
		t.Errorf("recall holds the expired code:\n%s", text)
	}
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: conversationURI(alice.Conversation)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Contents[0].Text, "2468") {
		t.Errorf("the resource holds the expired code:\n%s", res.Contents[0].Text)
	}
	var recent recentTurns
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &recent); err != nil {
		t.Fatal(err)
	}
	if last := recent.Recent[len(recent.Recent)-1]; !last.Expired || last.Text != expiredText || last.Turn != len(turns) {
		t.Errorf("the expired turn reads %+v", last)
	}
}

// A standing instruction the user gave through remember opens every
// recall's context, whatever the query, and the accounting names it.
func TestRecallOpensWithTheUsersStandingInstructions(t *testing.T) {
	st := newStore(t)
	_, cs := serve(t, Config{Store: st, Tenant: alice.Tenant, User: alice.User, Options: byheart.Options{Budget: 3000}})
	turns := chat(alice.Conversation, 60)
	rule := "From now on, always include version numbers when you name a library."
	turns[0].Text = rule
	rememberAll(t, cs, turns)
	for _, query := range []string{"what about " + topics[1] + "?", "and " + topics[2] + "?"} {
		var got recallOut
		text := mcptest.OK(t, cs, "recall", recallIn{Conversation: alice.Conversation, Query: query}, &got)
		if !strings.Contains(text, rule) || fmt.Sprint(got.Standing) != "[0]" {
			t.Errorf("%q: standing %v, context:\n%s", query, got.Standing, text)
		}
	}
}
