package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/byheart/byheart/mcp/internal/mcptest"
	"github.com/byheart/byheart/store"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// withHeaders sends every request with headers set, as a proxy in front
// of the server does.
type withHeaders http.Header

func (h withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// dialHTTP connects the SDK's client to url over streamable HTTP, sending
// headers with every request.
func dialHTTP(t *testing.T, url string, headers http.Header) (*sdk.ClientSession, error) {
	t.Helper()
	cs, err := mcptest.Client().Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: withHeaders(headers)},
		MaxRetries: -1,
	}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// scopeHeaders are the headers that name tenant and user.
func scopeHeaders(tenant, user string) http.Header {
	return http.Header{TenantHeader: {tenant}, UserHeader: {user}}
}

func TestHTTPRequestsAreScopedByTheirHeaders(t *testing.T) {
	st := newStore(t)
	srv, err := New(Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	users := []store.Scope{{Tenant: "acme", User: "alice"}, {Tenant: "acme", User: "bob"}, {Tenant: "globex", User: "alice"}}
	clients := make([]*sdk.ClientSession, len(users))
	for i, u := range users {
		if clients[i], err = dialHTTP(t, ts.URL, scopeHeaders(u.Tenant, u.User)); err != nil {
			t.Fatal(err)
		}
		rememberAll(t, clients[i], []rememberIn{{Conversation: "plans", Role: "user", Text: "the secret word is " + secret(i)}})
	}
	for i, cs := range clients {
		text := mcptest.OK(t, cs, "recall", recallIn{Conversation: "plans", Query: "secret word"}, nil)
		var audit auditOut
		text += mcptest.OK(t, cs, "audit", nil, &audit)
		res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: conversationURI("plans")})
		if err != nil {
			t.Fatal(err)
		}
		if res.CacheScope != "private" {
			t.Errorf("a user's turns are cacheable as %q", res.CacheScope)
		}
		text += res.Contents[0].Text
		for j := range users {
			if has := strings.Contains(text, secret(j)); has != (i == j) {
				t.Errorf("user %d sees user %d's secret: %v", i, j, has)
			}
		}
		if len(audit.Events) != 1 {
			t.Errorf("user %d's audit: %+v", i, audit.Events)
		}
	}
}

func TestHTTPRefusesARequestWithoutItsScope(t *testing.T) {
	st := newStore(t)
	open, err := New(Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := New(Config{Store: st, Tenant: "acme", User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		srv     *Server
		headers http.Header
		code    int
	}{
		{"no headers", open, nil, http.StatusBadRequest},
		{"a tenant without a user", open, http.Header{TenantHeader: {"acme"}}, http.StatusBadRequest},
		{"a header sent twice", open, http.Header{TenantHeader: {"acme", "globex"}, UserHeader: {"alice"}}, http.StatusBadRequest},
		{"an empty user", open, scopeHeaders("acme", ""), http.StatusBadRequest},
		{"a user with a control character", open, scopeHeaders("acme", "al\x7fice"), http.StatusBadRequest},
		{"a user with a bidi override", open, scopeHeaders("acme", "al\u202eice"), http.StatusBadRequest},
		{"another scope than the server's", fixed, scopeHeaders("acme", "bob"), http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(tc.srv.Handler())
			defer ts.Close()
			if _, err := dialHTTP(t, ts.URL, tc.headers); err == nil {
				t.Error("connected")
			}
			// As a proxy sends it, whatever Go's client would refuse to.
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			req.Header = withHeaders(tc.headers).with(http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}})
			w := httptest.NewRecorder()
			tc.srv.Handler().ServeHTTP(w, req)
			if w.Code != tc.code || !strings.Contains(w.Body.String(), "scope") {
				t.Errorf("status %d, want %d: %s", w.Code, tc.code, w.Body)
			}
		})
	}
	if events, err := st.Audit(context.Background(), "acme", "bob"); err != nil || len(events) != 0 {
		t.Errorf("bob's audit: %v %v", events, err)
	}
}

// with returns h with more headers.
func (h withHeaders) with(more http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

func TestHTTPServerWithAFixedScopeTakesRequestsWithoutHeaders(t *testing.T) {
	srv, err := New(Config{Store: newStore(t), Tenant: "acme", User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for i, h := range []http.Header{nil, scopeHeaders("acme", "alice")} {
		cs, err := dialHTTP(t, ts.URL, h)
		if err != nil {
			t.Fatal(err)
		}
		var out turnOut
		mcptest.OK(t, cs, "remember", rememberIn{Role: "user", Text: fmt.Sprint("turn ", i)}, &out)
		if out.Turn != i {
			t.Errorf("remembered as turn %d, want %d", out.Turn, i)
		}
	}
}
