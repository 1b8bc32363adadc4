package byhearteino_test

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

	"github.com/cloudwego/eino-ext/components/model/claude"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/byheart/byheart"
	byhearteino "github.com/byheart/byheart/eino"
)

// block is a content block of an Anthropic request, as sent.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	ID           string          `json:"id"`
	ToolUseID    string          `json:"tool_use_id"`
	CacheControl json.RawMessage `json:"cache_control"`
}

type anthropicRequest struct {
	Messages []struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	} `json:"messages"`
}

// messagesAPI is a local Anthropic Messages endpoint: it records every
// request Eino's Claude model sends and answers as the recorder does, with
// a tool_use for a question about the weather.
type messagesAPI struct {
	mu       sync.Mutex
	requests []anthropicRequest
}

func (a *messagesAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.requests = append(a.requests, req)
	n := len(a.requests)
	a.mu.Unlock()
	last := req.Messages[len(req.Messages)-1].Content
	content := fmt.Sprintf(`[{"type":"text","text":"Reply %d: noted."}]`, n)
	stop := "end_turn"
	switch {
	case last[len(last)-1].Type == "tool_result":
	case strings.Contains(last[len(last)-1].Text, "weather"):
		content = fmt.Sprintf(`[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_%d","name":"get_weather","input":{"city":"Paris"}}]`, n)
		stop = "tool_use"
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"msg_%d","type":"message","role":"assistant","model":"claude-test","content":%s,"stop_reason":%q,"usage":{"input_tokens":10,"output_tokens":5}}`, n, content, stop)
}

// TestClaudesBreakpointLandsOnTheStablePart runs Eino's own Claude model
// against a local Messages endpoint with the breakpoint set by Eino's
// helper: every request carries exactly one cache_control among its
// messages, on the block that ends byheart's stable prefix.
func TestClaudesBreakpointLandsOnTheStablePart(t *testing.T) {
	ctx := context.Background()
	api := &messagesAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	chat, err := claude.NewChatModel(ctx, &claude.Config{APIKey: "test", BaseURL: &srv.URL, Model: "claude-test", MaxTokens: 256})
	require.NoError(t, err)
	var stable []*schema.Message
	mw := byhearteino.New(byhearteino.Config{
		Breakpoint: func(m *schema.Message) *schema.Message { return claude.SetMessageCacheControl(m, nil) },
		Composed: func(_ context.Context, res byheart.Result) {
			msgs, i := byhearteino.Messages(res)
			stable = append(stable, msgs[i])
		},
	})
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "helper", Description: "helps", Instruction: "You are a helpful assistant.", Model: chat,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{fixedTool{"get_weather", "mild"}}}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	talk(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}), byheart.New(byheart.Options{Budget: 1500}), 12, 3)
	require.Len(t, api.requests, len(stable))
	require.Greater(t, len(api.requests), 12)
	for i, req := range api.requests {
		var marked []block
		for _, m := range req.Messages {
			for j, b := range m.Content {
				if len(b.CacheControl) > 0 && string(b.CacheControl) != "null" {
					assert.Equal(t, len(m.Content)-1, j, "request %d: the breakpoint is on a message's last block", i)
					marked = append(marked, b)
				}
			}
		}
		require.Len(t, marked, 1, "request %d", i)
		want := stable[i]
		switch {
		case len(want.ToolCalls) > 0:
			assert.Equal(t, want.ToolCalls[len(want.ToolCalls)-1].ID, marked[0].ID, "request %d", i)
		case want.Role == schema.Tool:
			assert.Equal(t, want.ToolCallID, marked[0].ToolUseID, "request %d", i)
		default:
			assert.Equal(t, want.Content, marked[0].Text, "request %d", i)
		}
	}
}
