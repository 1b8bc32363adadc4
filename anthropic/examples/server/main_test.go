package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClaude streams each reply in three pieces as the Messages API does, and
// keeps every request body.
type fakeClaude struct {
	mu      sync.Mutex
	bodies  []string
	replies []string
}

func (f *fakeClaude) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	reply := f.replies[(len(f.bodies)-1)%len(f.replies)]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, data any) {
		raw, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, raw)
		w.(http.Flusher).Flush()
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_test", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})
	event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	for _, piece := range thirds(reply) {
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": piece}})
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"},
		"usage": map[string]any{"output_tokens": 3}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

func thirds(s string) []string {
	n := len(s) / 3
	return []string{s[:n], s[n : 2*n], s[2*n:]}
}

func newTestServer(t *testing.T, replies ...string) (*server, *fakeClaude) {
	t.Helper()
	fake := &fakeClaude{replies: replies}
	api := httptest.NewServer(fake)
	t.Cleanup(api.Close)
	client := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(api.URL),
		option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	return &server{client: client, store: newStore()}, fake
}

func chat(t *testing.T, h http.Handler, id, message string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/chat?conversation="+id, strings.NewReader(message))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestServerStreamsRemembersAndPersists(t *testing.T) {
	srv, fake := newTestServer(t, "We settled on 55 euro a month.", "Yes: 550 euro a year.")

	first := chat(t, srv, "42", "What did we decide about pricing?")
	assert.Equal(t, http.StatusOK, first.Code)
	assert.Equal(t, "We settled on 55 euro a month.", first.Body.String(), "the streamed pieces make the reply")
	second := chat(t, srv, "42", "Is there an annual plan?")
	assert.Equal(t, "Yes: 550 euro a year.", second.Body.String())

	require.Len(t, fake.bodies, 2)
	assert.Contains(t, fake.bodies[1], "We settled on 55 euro a month.", "the second request carries the first exchange")
	assert.Contains(t, fake.bodies[1], `"cache_control"`)
	assert.Contains(t, fake.bodies[1], `"stream":true`)

	mem, err := byheart.FromJSON(srv.store.saved["42"], srv.opts)
	require.NoError(t, err, "the conversation is saved as JSON between requests")
	require.Equal(t, 4, mem.Len())
	last, err := mem.Turn(3)
	require.NoError(t, err)
	assert.Equal(t, "Yes: 550 euro a year.", last.Text)

	other := chat(t, srv, "7", "Hello?")
	assert.Equal(t, "We settled on 55 euro a month.", other.Body.String())
	assert.NotContains(t, fake.bodies[2], "Is there an annual plan?", "conversations stay apart")
}

func TestServerRemembersNothingWhenTheModelFails(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`, 529)
	}))
	t.Cleanup(api.Close)
	srv := &server{store: newStore(), client: anthropic.NewClient(option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(api.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))}

	rec := chat(t, srv, "42", "Hello?")
	assert.Equal(t, http.StatusBadGateway, rec.Code)
	assert.NotContains(t, srv.store.saved, "42", "a failed exchange is not saved")
}

func TestServerRefusesBadRequests(t *testing.T) {
	srv, fake := newTestServer(t, "unused")
	assert.Equal(t, http.StatusBadRequest, chat(t, srv, "", "Hello?").Code)
	assert.Equal(t, http.StatusBadRequest, chat(t, srv, "42", "  ").Code)
	req := httptest.NewRequest(http.MethodPost, "/chat?conversation=42", strings.NewReader("Hello?"))
	ctx, cancel := context.WithCancel(req.Context())
	cancel()
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req.WithContext(ctx))
	assert.Equal(t, http.StatusBadRequest, rec.Code, "a cancelled request composes nothing")
	assert.Empty(t, fake.bodies)
}
