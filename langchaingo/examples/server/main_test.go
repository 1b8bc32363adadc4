package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/byheart/byheart"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms/openai"
)

// fakeOpenAI streams each reply in three pieces as the Chat Completions API
// does, and keeps every request body.
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
	chunk := func(delta map[string]any, finish any) {
		raw, _ := json.Marshal(map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0,
			"model": "gpt-test", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", raw)
		w.(http.Flusher).Flush()
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	n := len(reply) / 3
	for _, piece := range []string{reply[:n], reply[n : 2*n], reply[2*n:]} {
		chunk(map[string]any{"content": piece}, nil)
	}
	chunk(map[string]any{}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func newTestServer(t *testing.T, replies ...string) (*server, *fakeOpenAI) {
	t.Helper()
	fake := &fakeOpenAI{replies: replies}
	api := httptest.NewServer(fake)
	t.Cleanup(api.Close)
	llm, err := openai.New(openai.WithBaseURL(api.URL+"/v1"), openai.WithToken("test-key"), openai.WithModel("gpt-test"))
	require.NoError(t, err)
	return &server{llm: llm, store: newStore()}, fake
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
	assert.Contains(t, fake.bodies[1], "What did we decide about pricing?\\nAI: We settled on 55 euro a month.",
		"the second request carries the first exchange")
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
	llm, err := openai.New(openai.WithBaseURL(api.URL+"/v1"), openai.WithToken("test-key"), openai.WithModel("gpt-test"))
	require.NoError(t, err)
	srv := &server{llm: llm, store: newStore()}

	rec := chat(t, srv, "42", "Hello?")
	assert.Equal(t, http.StatusBadGateway, rec.Code)
	assert.NotContains(t, srv.store.saved, "42", "a failed exchange is not saved")
}

func TestServerRefusesBadRequests(t *testing.T) {
	srv, fake := newTestServer(t, "unused")
	assert.Equal(t, http.StatusBadRequest, chat(t, srv, "", "Hello?").Code)
	assert.Equal(t, http.StatusBadRequest, chat(t, srv, "42", "  ").Code)
	assert.Empty(t, fake.bodies)
}
