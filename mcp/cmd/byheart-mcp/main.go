// Command byheart-mcp is a Model Context Protocol server that keeps a
// user's conversations verbatim in byheart: an assistant remembers turns
// through it and recalls what a question needs within a budget.
//
// Usage:
//
//	byheart-mcp -tenant T -user U [-sqlite FILE | -postgres URL] [-budget N]
//	byheart-mcp -http ADDR [-tenant T -user U] [-sqlite FILE | -postgres URL] [-budget N]
//
// Without -http it speaks MCP over stdio, as a desktop or IDE client starts
// it, for the one scope -tenant and -user name. With -http it serves
// streamable HTTP at ADDR (127.0.0.1:8080; port 0 picks one, and the
// address is printed on standard error), where each request names its
// scope in the Byheart-Tenant and Byheart-User headers, which a proxy sets
// after authenticating the user: see the package documentation of
// github.com/byheart/byheart/mcp for the trust model. -tenant and -user
// with -http make a single-scope server that refuses requests naming
// another.
//
// Conversations are kept in a SQLite file (-sqlite, by default
// byheart/memory.db in the user's configuration directory) or, with
// -postgres, in PostgreSQL (a postgres:// URL or key=value string; pgx
// reads PGPASSWORD and the other PG variables, so the password need not be
// on the command line).
//
// Install it with go install github.com/byheart/byheart/mcp/cmd/byheart-mcp@latest.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/mcp"
	"github.com/byheart/byheart/store"
	"github.com/byheart/byheart/store/postgres"
	"github.com/byheart/byheart/store/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// flags is the command line.
type flags struct {
	tenant, user, conversation string
	sqlite, postgres, http     string
	budget                     int
}

// parse reads the command line; an error has been printed already.
func parse(args []string, stderr io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("byheart-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.tenant, "tenant", "", "the tenant of every request (over HTTP: of requests without scope headers)")
	fs.StringVar(&f.user, "user", "", "the user of every request (over HTTP: of requests without scope headers)")
	fs.StringVar(&f.conversation, "conversation", "default", "the conversation a tool call that names none acts on")
	fs.StringVar(&f.sqlite, "sqlite", "", "the SQLite file (default byheart/memory.db in the user's configuration directory)")
	fs.StringVar(&f.postgres, "postgres", "", "a PostgreSQL URL, to keep conversations there instead of SQLite")
	fs.StringVar(&f.http, "http", "", "serve streamable HTTP at this address instead of stdio")
	fs.IntVar(&f.budget, "budget", byheart.DefaultBudget, "the most characters recall returns")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected arguments: %q", fs.Args())
	case f.sqlite != "" && f.postgres != "":
		err = errors.New("-sqlite and -postgres: choose one")
	case f.http == "" && (f.tenant == "" || f.user == ""):
		err = errors.New("over stdio, -tenant and -user are required")
	case (f.tenant == "") != (f.user == ""):
		err = errors.New("-tenant and -user go together")
	case f.budget <= 0:
		err = fmt.Errorf("-budget %d: want a positive number of characters", f.budget)
	}
	if err != nil {
		fmt.Fprintln(stderr, "byheart-mcp:", err)
		fs.Usage()
	}
	return f, err
}

// run runs the command and returns its exit status: 0, 1 when it failed,
// 2 for a bad command line.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if err := serve(ctx, f, stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "byheart-mcp:", err)
		return 1
	}
	return 0
}

// serve opens the store and serves until the client leaves (stdio) or ctx
// ends.
func serve(ctx context.Context, f flags, stdin io.Reader, stdout, stderr io.Writer) error {
	st, err := open(ctx, f)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := mcp.New(mcp.Config{
		Store:        st,
		Options:      byheart.Options{Budget: f.budget},
		Tenant:       f.tenant,
		User:         f.user,
		Conversation: f.conversation,
	})
	if err != nil {
		return err
	}
	if f.http == "" {
		err := srv.MCP().Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopCloser{stdout}})
		if ctx.Err() != nil {
			return nil // stopped by a signal, as a client stops its server
		}
		return err
	}
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "byheart-mcp: serving MCP at http://%s\n", ln.Addr())
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return hs.Shutdown(shutdown)
}

// nopCloser keeps the transport from closing standard output.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// open opens the store the flags name.
func open(ctx context.Context, f flags) (store.Store, error) {
	if f.postgres != "" {
		return postgres.Open(ctx, f.postgres)
	}
	path := f.sqlite
	if path == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("no -sqlite file, and %w", err)
		}
		path = filepath.Join(dir, "byheart", "memory.db")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
	}
	return sqlite.Open(ctx, path, sqlite.Options{})
}
