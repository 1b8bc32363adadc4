package sqlite_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/sqlite"
)

// A conversation kept in a SQLite file: open it, compose the context for the
// user's question, append the exchange, save, and find it all again after
// the store is closed and opened anew, as the next request or the next
// process would.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "byheart-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "conversations.db")
	scope := store.Scope{Tenant: "acme", User: "u42", Conversation: "c7"}

	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		panic(err)
	}
	conv, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		panic(err)
	}
	question := "We decided on 55 euro a month for the pro plan, right?"
	res, err := conv.Memory.Compose(ctx, question) // compose first: the question is the last part
	if err != nil {
		panic(err)
	}
	fmt.Println("messages sent:", len(res.Messages))
	answer := "Yes: 55 a month, annual billing at a discount." // the model's reply
	conv.Memory.Append(byheart.User, question)
	conv.Memory.Append(byheart.Assistant, answer)
	if err := conv.Save(ctx); err != nil {
		panic(err)
	}
	st.Close()

	st, err = sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		panic(err)
	}
	defer st.Close()
	conv, err = store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		panic(err)
	}
	for i := range conv.Memory.Len() {
		t, _ := conv.Memory.Turn(i)
		fmt.Printf("%s: %s\n", t.Role, t.Text)
	}
	// Output:
	// messages sent: 1
	// user: We decided on 55 euro a month for the pro plan, right?
	// assistant: Yes: 55 a month, annual billing at a discount.
}

// The request path of a chat server: each request takes its conversation
// from a Cache of warm copies, composes the context for the user's message,
// hands the messages to the model through an SDK adapter
// (byheartanthropic.Messages(res), byheartopenai.Messages(res); here a
// function stands in for the provider), appends the exchange, saves what
// the request added, and hands the copy back.
//
// The adapters' modules do not import a store: the SQLite driver needs Go
// 1.26 and the Anthropic adapter keeps Go 1.25, so the example lives here,
// with the provider-neutral messages every adapter starts from.
func Example_chatServer() {
	ctx := context.Background()
	st, done := tempStore(ctx) // sqlite.Open on a file in a new temporary directory
	defer done()
	cache := store.NewCache(st, byheart.Options{}, 1000)

	// model stands in for the provider call: it answers from the context.
	model := func(ctx context.Context, res byheart.Result) (string, error) {
		earlier := 0
		for _, msg := range res.Messages[:len(res.Messages)-1] {
			earlier += len(msg.Parts)
		}
		return fmt.Sprintf("(%d earlier parts) noted.", earlier), nil
	}

	chat := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scope := store.Scope{Tenant: "acme", User: r.Header.Get("X-User"), Conversation: r.URL.Query().Get("c")}
		conv, err := cache.Open(r.Context(), scope) // a bad scope is store.ErrScope
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer cache.Done(conv)
		body, _ := io.ReadAll(r.Body)
		question := string(body)
		res, err := conv.Memory.Compose(r.Context(), question)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer, err := model(r.Context(), res)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		conv.Memory.Append(byheart.User, question)
		conv.Memory.Append(byheart.Assistant, answer)
		if err := conv.Save(r.Context()); err != nil { // store.ErrConflict: another server wrote first
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		fmt.Fprint(w, answer)
	})

	for _, msg := range []string{"My sister Ada lands on Friday.", "When does Ada land?"} {
		req := httptest.NewRequest(http.MethodPost, "/chat?c=c7", strings.NewReader(msg))
		req.Header.Set("X-User", "u42")
		rec := httptest.NewRecorder()
		chat.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Body.String())
	}
	// Output:
	// 200 (0 earlier parts) noted.
	// 200 (2 earlier parts) noted.
}

// Redaction through a store erases the turn's text in the database (the
// file and its log) and leaves its place, so every later turn keeps its
// index; the audit log records that it happened, never what was said.
func ExampleStore_Redact() {
	ctx := context.Background()
	st, done := tempStore(ctx) // sqlite.Open on a file in a new temporary directory
	defer done()
	scope := store.Scope{Tenant: "acme", User: "u42", Conversation: "c7"}

	conv, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		panic(err)
	}
	conv.Memory.Append(byheart.User, "my password is hunter2")
	conv.Memory.Append(byheart.Assistant, "Please don't share passwords here.")
	if err := conv.Save(ctx); err != nil {
		panic(err)
	}
	if err := conv.Redact(ctx, 0); err != nil {
		panic(err)
	}

	again, err := store.Open(ctx, st, scope, byheart.Options{})
	if err != nil {
		panic(err)
	}
	for i := range again.Memory.Len() {
		t, _ := again.Memory.Turn(i)
		fmt.Println(i, t.Text, t.Redacted)
	}
	events, err := st.Audit(ctx, scope.Tenant, scope.User)
	if err != nil {
		panic(err)
	}
	for _, e := range events {
		fmt.Println(e.Action, "turn", e.Turn, "count", e.Count)
	}
	// Output:
	// 0 [redacted] true
	// 1 Please don't share passwords here. false
	// append turn 0 count 2
	// redact turn 0 count 1
}

// tempStore opens a store on a file in a new temporary directory; done
// closes it and removes the directory.
func tempStore(ctx context.Context) (st *sqlite.Store, done func()) {
	dir, err := os.MkdirTemp("", "byheart-example")
	if err != nil {
		panic(err)
	}
	st, err = sqlite.Open(ctx, filepath.Join(dir, "conversations.db"), sqlite.Options{})
	if err != nil {
		panic(err)
	}
	return st, func() {
		st.Close()
		os.RemoveAll(dir)
	}
}
