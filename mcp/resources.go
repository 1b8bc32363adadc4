package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// conversationPrefix starts the URI of a conversation's resource; the
// conversation's id follows, every byte but the unreserved ones
// percent-encoded, as the URI template's simple expansion writes it.
const conversationPrefix = "byheart://conversations/"

// conversationURI is the resource URI of a conversation.
func conversationURI(conversation string) string {
	var b strings.Builder
	b.WriteString(conversationPrefix)
	for i := 0; i < len(conversation); i++ {
		c := conversation[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// recentTurns is what a conversation's resource holds.
type recentTurns struct {
	Conversation string       `json:"conversation"`
	Turns        int          `json:"turns"`
	Recent       []recentTurn `json:"recent"`
}

// recentTurn is one turn of a conversation's resource.
type recentTurn struct {
	Turn     int       `json:"turn"`
	Role     string    `json:"role"`
	Time     time.Time `json:"time,omitzero"`
	Text     string    `json:"text"`
	Redacted bool      `json:"redacted,omitempty"`
	// Expired marks a turn whose expiry has passed by the time of the
	// read: its text is expiredText, as recall shows it.
	Expired bool `json:"expired,omitempty"`
}

// expiredText stands in a turn's place once it has expired, as the
// library's contexts show it.
const expiredText = "[expired]"

// addResources registers the resource template of a conversation's
// recent turns.
func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "conversation",
		Title:       "A conversation's recent turns",
		Description: fmt.Sprintf("The newest %d turns of a conversation, verbatim, with their indices, speakers and times.", s.cfg.Recent),
		MIMEType:    "application/json",
		URITemplate: conversationPrefix + "{conversation}",
	}, s.readConversation)
}

// readConversation reads a conversation's resource.
func (s *Server) readConversation(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	name, err := url.PathUnescape(strings.TrimPrefix(uri, conversationPrefix))
	if err != nil || !strings.HasPrefix(uri, conversationPrefix) || name == "" {
		return nil, fmt.Errorf("%w: %q is no conversation's URI: want %s followed by its percent-encoded id", errArgument, uri, conversationPrefix)
	}
	scope, err := s.scope(req.Extra, name)
	if err != nil {
		return nil, err
	}
	conv, err := s.cache.Open(ctx, scope)
	if err != nil {
		return nil, storeError(err, scope)
	}
	defer s.cache.Done(conv)
	if conv.At().Version == 0 {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	out := recentTurns{Conversation: scope.Conversation, Turns: conv.Memory.Len(), Recent: []recentTurn{}}
	now := time.Now() // recall's clock: an expired turn's words reach no reader
	for i := max(0, out.Turns-s.cfg.Recent); i < out.Turns; i++ {
		t, err := conv.Memory.Turn(i)
		if err != nil {
			return nil, err
		}
		r := recentTurn{Turn: i, Role: string(t.Role), Time: t.Time, Text: t.Text, Redacted: t.Redacted}
		if !t.Expires.IsZero() && !now.Before(t.Expires) {
			r.Text, r.Expired = expiredText, true
		}
		out.Recent = append(out.Recent, r)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, errors.Join(errors.New("mcp: encoding the turns"), err)
	}
	return &sdk.ReadResourceResult{
		// One user's turns: no cache but the client's may keep them.
		Cacheable: sdk.Cacheable{CacheScope: "private"},
		Contents:  []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}},
	}, nil
}
