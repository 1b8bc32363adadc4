// Package mcp serves byheart's conversations to Model Context Protocol
// clients (desktop and IDE assistants, agents) through the official Go SDK:
// tools to remember a turn, recall what a query needs within a budget, list
// conversations, forget a turn and export the audit log, and a resource for
// a conversation's recent turns. The conversations are kept in a byheart
// store (SQLite or PostgreSQL), scoped to a tenant and a user.
//
//	st, err := sqlite.Open(ctx, "memory.db", sqlite.Options{})
//	srv, err := mcp.New(mcp.Config{Store: st, Tenant: "me", User: "me"})
//	err = srv.MCP().Run(ctx, &sdk.StdioTransport{})
//
// Over streamable HTTP (Server.Handler) each request names its scope in the
// Byheart-Tenant and Byheart-User headers, which a proxy in front of the
// server sets after it has authenticated the user; see Handler for the
// trust model. The command github.com/byheart/byheart/mcp/cmd/byheart-mcp
// runs a server over stdio or HTTP.
package mcp

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/store"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config configures a Server. Store is required; so are Tenant and User
// unless every request comes over HTTP with its own scope.
type Config struct {
	// Store keeps the conversations.
	Store store.Store
	// Options configure each conversation's Memory: the budget recall
	// composes within, above all. A zero Stability means one-shot recall
	// here (Stability -1, a fresh selection for every query), not
	// byheart.DefaultStability: what recall returns reaches the client's
	// model as a tool result, appended to its transcript like any other, so
	// there is no prefix of byheart's for a provider's cache to keep; set a
	// Stability to keep contexts all the same.
	Options byheart.Options
	// Tenant and User are the scope of every request that does not name
	// its own: all of them over stdio; over HTTP, a request that sends the
	// scope headers must name this one (see Handler).
	Tenant, User string
	// Conversation is the conversation a tool call acts on when it names
	// none; "default" when empty.
	Conversation string
	// MaxText is the most bytes of a turn's text or a query; store.MaxTurn
	// when zero or more than that.
	MaxText int
	// Recent is how many of a conversation's newest turns its resource
	// shows; 50 when zero or less.
	Recent int
	// CacheSize is how many conversations are kept warm in memory; 64 when
	// zero or less.
	CacheSize int
}

// Server is an MCP server over a byheart store. It is safe for concurrent
// use by any number of sessions.
type Server struct {
	cfg   Config
	cache *store.Cache
	mcp   *sdk.Server
}

// version is the server's version, as it tells clients.
const version = "0.1.0"

// New returns a server for cfg. A fixed scope (Tenant and User) that is
// not one store.CheckUser accepts, or a default conversation that is not a
// store.ID, is an error wrapping store.ErrScope.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("mcp: Config.Store is nil")
	}
	if cfg.Tenant != "" || cfg.User != "" {
		if err := store.CheckUser(cfg.Tenant, cfg.User); err != nil {
			return nil, fmt.Errorf("mcp: %w", err)
		}
	}
	if cfg.Conversation == "" {
		cfg.Conversation = "default"
	}
	if !store.ID(cfg.Conversation) {
		return nil, fmt.Errorf("mcp: %w: the default conversation %q", store.ErrScope, cfg.Conversation)
	}
	if cfg.MaxText <= 0 || cfg.MaxText > store.MaxTurn {
		cfg.MaxText = store.MaxTurn
	}
	if cfg.Recent <= 0 {
		cfg.Recent = 50
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 64
	}
	if cfg.Options.Stability == 0 {
		cfg.Options.Stability = -1
	}
	s := &Server{cfg: cfg, cache: store.NewCache(cfg.Store, cfg.Options, cfg.CacheSize)}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "byheart", Title: "byheart memory", Version: version}, &sdk.ServerOptions{
		Instructions: instructions,
	})
	s.addTools()
	s.addResources()
	return s, nil
}

// instructions tell the client's model what the server is for.
const instructions = "byheart keeps this user's conversations verbatim. " +
	"Call remember with each turn worth keeping (the user's words and your replies, as said), " +
	"and recall with the user's question to read what was said before that bears on it, within a budget. " +
	"Conversations are separate memories; omit conversation to use the default one."

// MCP returns the SDK server, to run on a transport (Run, Connect).
func (s *Server) MCP() *sdk.Server { return s.mcp }

// budget is what recall composes within, in the budget's unit.
func (s *Server) budget() int {
	if s.cfg.Options.Budget <= 0 {
		return byheart.DefaultBudget
	}
	return s.cfg.Options.Budget
}

// scope returns the scope of a request for conversation: from its HTTP
// headers when it came over HTTP and sent them, otherwise the fixed one.
func (s *Server) scope(extra *sdk.RequestExtra, conversation string) (store.Scope, error) {
	var h http.Header
	if extra != nil {
		h = extra.Header
	}
	tenant, user, err := s.user(h)
	if err != nil {
		return store.Scope{}, err
	}
	if conversation == "" {
		conversation = s.cfg.Conversation
	}
	if !store.ID(conversation) {
		return store.Scope{}, fmt.Errorf("%w: conversation %q: not 1 to %d bytes of printable UTF-8", errArgument, conversation, store.MaxID)
	}
	return store.Scope{Tenant: tenant, User: user, Conversation: conversation}, nil
}
