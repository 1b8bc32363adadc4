package mcp

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/byheart/byheart/store"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The headers that name an HTTP request's scope.
const (
	TenantHeader = "Byheart-Tenant"
	UserHeader   = "Byheart-User"
)

// Errors a request's scope is refused with. Over HTTP the first two are
// 400 Bad Request, the third 403 Forbidden.
var (
	// errNoScope: the request names no scope and the server has no fixed
	// one, or it names one in a header sent more than once.
	errNoScope = errors.New("mcp: the request names no scope: send one " + TenantHeader + " and one " + UserHeader + " header")
	// errBadScope: a scope header is not a store.ID.
	errBadScope = errors.New("mcp: a scope header is not 1 to 256 bytes of printable UTF-8")
	// errOtherScope: the request names a scope other than the server's
	// fixed one.
	errOtherScope = errors.New("mcp: the request names a scope other than this server's")
)

// Handler returns the server's streamable HTTP handler. It is stateless:
// every request stands alone, with no session between them, so any
// replica behind a load balancer can answer it.
//
// The trust model: every request is scoped by its own Byheart-Tenant and
// Byheart-User headers, each sent exactly once, and the handler believes
// them. It does no authentication of its own, so it must be reachable
// only through a proxy (or an application) that authenticates the caller,
// removes any scope headers the caller sent, and sets both from the
// identity it verified, on every request: whoever can reach the handler
// directly can name any scope. A session id grants nothing, as there is
// none. A header's value is the id as HTTP delivers it, with the spaces
// and tabs around it dropped: an id that starts or ends with one cannot
// be named over HTTP, and a proxy that sent one would name the id without
// them, so it must map its users to ids without surrounding spaces. With
// a fixed scope (Config.Tenant and User), a request without
// the headers gets that scope and one whose headers name another is
// refused, which suits a personal server on the loopback interface.
// Results of resources/read are marked private, so no shared cache keeps
// one user's turns for another.
func (s *Server) Handler() http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, err := s.user(r.Header); err != nil {
			code := http.StatusBadRequest
			if errors.Is(err, errOtherScope) {
				code = http.StatusForbidden
			}
			http.Error(w, err.Error(), code)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// user returns the tenant and user of a request with headers h (nil when
// it did not come over HTTP).
func (s *Server) user(h http.Header) (tenant, user string, err error) {
	tenants, users := h.Values(TenantHeader), h.Values(UserHeader)
	if len(tenants) == 0 && len(users) == 0 {
		if s.cfg.Tenant == "" {
			return "", "", errNoScope
		}
		return s.cfg.Tenant, s.cfg.User, nil
	}
	if len(tenants) != 1 || len(users) != 1 {
		return "", "", errNoScope
	}
	tenant, user = tenants[0], users[0]
	if err := store.CheckUser(tenant, user); err != nil {
		return "", "", fmt.Errorf("%w: %w", errBadScope, err)
	}
	if s.cfg.Tenant != "" && (tenant != s.cfg.Tenant || user != s.cfg.User) {
		return "", "", errOtherScope
	}
	return tenant, user, nil
}
