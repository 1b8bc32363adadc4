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

	"github.com/byheart/byheart"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeOpenAI streams each reply in three pieces as the Responses API does,
// and keeps every request body.
type fakeOpenAI struct {
	mu      sync.Mutex
	bodies  []string
	replies []string
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	reply := f.replies[(len(f.bodies)-1)%len(f.replies)]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	seq := 0
	event := func(data map[string]any) {
		data["sequence_number"] = seq
		seq++
		raw, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], raw)
		w.(http.Flusher).Flush()
	}
	for _, piece := range thirds(reply) {
		event(map[string]any{"type": "response.output_text.delta", "item_id": "msg_test", "output_index": 0,
			"content_index": 0, "delta": piece, "logprobs": []any{}})
	}
	event(map[string]any{"type": "response.completed", "response": map[string]any{
		"id": "resp_test", "object": "response", "created_at": 0, "model": "gpt-test", "status": "completed",
		"output": []any{map[string]any{"type": "message", "id": "msg_test", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": reply, "annotations": []any{}}}}}}})
}

func thirds(s string) []string {
	n := len(s) / 3
	return []string{s[:n], s[n : 2*n], s[2*n:]}
}

func newTestServer(t *testing.T, replies ...string) (*server, *fakeOpenAI) {
	t.Helper()
	fake := &fakeOpenAI{replies: replies}
	api := httptest.NewServer(fake)
	t.Cleanup(api.Close)
	client := openai.NewClient(option.WithBaseURL(api.URL+"/v1/"), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
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
	assert.Contains(t, fake.bodies[1], `"prompt_cache_key":"conversation-42"`)
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
		http.Error(w, `{"error":{"type":"server_error","message":"busy"}}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(api.Close)
	srv := &server{store: newStore(), client: openai.NewClient(option.WithBaseURL(api.URL+"/v1/"),
		option.WithAPIKey("test-key"), option.WithMaxRetries(0))}

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
