package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/mcp"
	"github.com/byheart/byheart/mcp/internal/mcptest"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/postgres"
	"github.com/byheart/byheart/store/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// build builds the command once for the test binary, into a directory
// removed when the tests end.
func build(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build byheart-mcp with")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "byheart-mcp")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "byheart-mcp")
		out, err := exec.Command(goBin, "build", "-o", binary, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// start starts byheart-mcp with args and connects the SDK's client to it
// over its standard input and output.
func start(t *testing.T, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(build(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcptest.Client().Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("byheart-mcp %q: %v\n%s", args, err, &stderr)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("byheart-mcp %q: closing: %v\n%s", args, err, &stderr)
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("byheart-mcp %q ended %v\n%s", args, cmd.ProcessState, &stderr)
		}
	})
	return cs
}

// turns is a conversation of n turns, over the default budget from about
// 250 turns on.
func turns(n int) []map[string]any {
	subjects := []string{"the allotment's leeks", "Grandma Ruth's ninetieth birthday", "the broken dishwasher",
		"our trip to Kyoto in April", "the chess club's spring ladder", "learning to sail a dinghy"}
	start := time.Date(2023, 3, 1, 8, 0, 0, 0, time.UTC)
	out := make([]map[string]any, n)
	for i := range out {
		role := []string{"user", "assistant"}[i%2]
		out[i] = map[string]any{"conversation": "journal", "role": role,
			"text": fmt.Sprintf("Turn %d, on %s: I keep thinking about %s and what to do next.", i, subjects[i/6%len(subjects)], subjects[i/6%len(subjects)]),
			"time": start.Add(time.Duration(i) * 3 * time.Hour).Format(time.RFC3339)}
	}
	return out
}

func TestStdioServesItsScopeAndNoOther(t *testing.T) {
	db := filepath.Join(t.TempDir(), "memory.db")
	alice := start(t, "-sqlite", db, "-tenant", "home", "-user", "alice", "-budget", "3000")
	bob := start(t, "-sqlite", db, "-tenant", "home", "-user", "bob", "-budget", "3000")
	for _, in := range turns(60) {
		mcptest.OK(t, alice, "remember", in, nil)
	}
	mcptest.OK(t, bob, "remember", map[string]any{"conversation": "journal", "role": "user", "text": "Bob's own note about the zeppelin."}, nil)

	// Recall through the tool is Compose on the same memory, loaded here
	// from the same file.
	query := "what did we plan for Kyoto?"
	var got struct {
		Turns    int           `json:"turns"`
		Spent    byheart.Spend `json:"spent"`
		Rebuild  string        `json:"rebuild"`
		Included []int         `json:"included"`
	}
	text := mcptest.OK(t, alice, "recall", map[string]any{"conversation": "journal", "query": query}, &got)
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conv, err := store.Open(context.Background(), st, store.Scope{Tenant: "home", User: "alice", Conversation: "journal"},
		byheart.Options{Budget: 3000, Stability: -1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := conv.Memory.Compose(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	if want := mcp.Render(res); text != want {
		t.Errorf("recall sent\n%s\nCompose renders\n%s", text, want)
	}
	if got.Turns != 60 || got.Spent != res.Spent || got.Rebuild != string(res.Rebuild) || fmt.Sprint(got.Included) != fmt.Sprint(res.Included) {
		t.Errorf("recall accounted %+v, Compose %+v %q %v", got, res.Spent, res.Rebuild, res.Included)
	}
	if res.Spent.Memory == 0 || !strings.Contains(text, "Kyoto") {
		t.Errorf("a conversation over the budget recalls no memory block for Kyoto:\n%s", text)
	}

	// Bob sees nothing of Alice's, and bad input writes nothing.
	bobs := mcptest.OK(t, bob, "recall", map[string]any{"conversation": "journal", "query": "Kyoto"}, nil)
	if strings.Contains(bobs, "Kyoto") || !strings.Contains(bobs, "zeppelin") {
		t.Errorf("Bob recalls %q", bobs)
	}
	for _, args := range []any{
		map[string]any{"conversation": "journal", "role": "user", "text": strings.Repeat("x", store.MaxTurn+1)},
		map[string]any{"conversation": "journal", "role": "user", "text": "hi", "mood": "cheerful"},
		map[string]any{"conversation": "journal", "role": "system", "text": "hi"},
		map[string]any{"conversation": "journal", "role": "user", "text": "hi", "time": "31/12/2024"},
	} {
		mcptest.Refused(t, alice, "remember", args)
	}
	events, err := st.Audit(context.Background(), "home", "alice")
	if err != nil || len(events) != 60 {
		t.Errorf("Alice's audit holds %d events (%v), want 60 appends", len(events), err)
	}
}

func TestTheCommandLineIsChecked(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-tenant", "home"},
		{"-user", "alice"},
		{"-http", "127.0.0.1:0", "-tenant", "home"},
		{"-tenant", "home", "-user", "alice", "-sqlite", "a.db", "-postgres", "postgres://localhost/x"},
		{"-tenant", "home", "-user", "alice", "-budget", "0"},
		{"-tenant", "home", "-user", "alice", "extra"},
		{"-bogus"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("byheart-mcp %q: exit %d, want 2\n%s", args, code, &stderr)
		}
		if !strings.Contains(stderr.String(), "Usage") {
			t.Errorf("byheart-mcp %q: no usage:\n%s", args, &stderr)
		}
	}
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"-tenant", "home", "-user", "al\tice", "-sqlite", filepath.Join(t.TempDir(), "m.db")},
		strings.NewReader(""), &bytes.Buffer{}, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "printable") {
		t.Errorf("a user id with a tab: exit %d\n%s", code, &stderr)
	}
}

// serveHTTP starts byheart-mcp -http on a port of its own with args and
// returns its URL.
func serveHTTP(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(build(t), append([]string{"-http", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("byheart-mcp -http ended: %v", err)
		}
	})
	line, err := bufio.NewReader(stderr).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "byheart-mcp: serving MCP at ")
	if err != nil || !ok {
		t.Fatalf("byheart-mcp -http said %q (%v)", line, err)
	}
	go func() { // drain, so the server never blocks on a full pipe
		buf := make([]byte, 4096)
		for {
			if _, err := stderr.Read(buf); err != nil {
				return
			}
		}
	}()
	return addr
}

// headers sends every request with the scope headers of a proxy.
type headers struct{ tenant, user string }

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(mcp.TenantHeader, h.tenant)
	r.Header.Set(mcp.UserHeader, h.user)
	return http.DefaultTransport.RoundTrip(r)
}

// dial connects the SDK's client to a byheart-mcp at url as tenant's user.
func dial(t *testing.T, url, tenant, user string) *sdk.ClientSession {
	t.Helper()
	cs, err := mcptest.Client().Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: headers{tenant, user}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// scopeTest has two users of tenant remember and recall through one server at url
// and checks that neither sees the other's turns.
func scopeTest(t *testing.T, tenant, url string) {
	t.Helper()
	users := map[string]string{"alice": "marzipan", "bob": "tarmac"}
	for user, word := range users {
		cs := dial(t, url, tenant, user)
		mcptest.OK(t, cs, "remember", map[string]any{"role": "user", "text": "my favourite word is " + word}, nil)
		mcptest.Refused(t, cs, "remember", map[string]any{"role": "user", "text": "again", "user": "bob"})
	}
	for user := range users {
		text := mcptest.OK(t, dial(t, url, tenant, user), "recall", map[string]any{"query": "favourite word"}, nil)
		for other, word := range users {
			if strings.Contains(text, word) != (other == user) {
				t.Errorf("%s recalls %q", user, text)
			}
		}
	}
}

func TestHTTPScopesEachRequestByItsHeaders(t *testing.T) {
	scopeTest(t, "home", serveHTTP(t, "-sqlite", filepath.Join(t.TempDir(), "memory.db")))
}

func TestPostgres(t *testing.T) {
	url := os.Getenv("BYHEART_POSTGRES_URL")
	if url == "" {
		t.Skip(`no PostgreSQL: run eval "$(scripts/pg start)" at the repository root first (.ci/run does)`)
	}
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// A tenant of this run's own keeps other runs' rows out of sight.
	tenant := "mcp-test-" + rand.Text()
	scopeTest(t, tenant, serveHTTP(t, "-postgres", url))
	for _, user := range []string{"alice", "bob"} {
		rec, err := st.Load(context.Background(), store.Scope{Tenant: tenant, User: user, Conversation: "default"}, store.Position{})
		if err != nil || len(rec.Changes.Turns) != 1 {
			t.Errorf("PostgreSQL holds %d turns of %s (%v), want 1", len(rec.Changes.Turns), user, err)
		}
		if _, err := st.DeleteUser(context.Background(), tenant, user); err != nil {
			t.Error(err)
		}
	}
}

// TestTheREADMEsConfigurationStartsTheServer keeps the client
// configuration that mcp/README.md shows in step with the flags.
func TestTheREADMEsConfigurationStartsTheServer(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, found := strings.Cut(string(readme), "```json\n")
	block, _, _ = strings.Cut(block, "```")
	if !found {
		t.Fatal("mcp/README.md shows no client configuration")
	}
	var config struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(block), &config); err != nil {
		t.Fatalf("the configuration is not JSON: %v\n%s", err, block)
	}
	server, ok := config.MCPServers["byheart"]
	if !ok || filepath.Base(server.Command) != "byheart-mcp" {
		t.Fatalf("the configuration starts %+v", config)
	}
	var stderr bytes.Buffer
	if _, err := parse(server.Args, &stderr); err != nil {
		t.Errorf("byheart-mcp %q: %v\n%s", server.Args, err, &stderr)
	}
}
