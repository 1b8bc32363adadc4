package byheartlangchaingo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/byheart/byheart"
	byheartlangchaingo "github.com/byheart/byheart/langchaingo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
)

// parts builds a Result from alternating "u:" and "a:" texts, one message
// per part.
func parts(stable int, texts ...string) byheart.Result {
	r := byheart.Result{StableUpto: stable}
	for _, t := range texts {
		role, text, _ := strings.Cut(t, ":")
		m := byheart.Message{Role: byheart.User, Parts: []byheart.Part{{Text: text}}}
		if role == "a" {
			m.Role = byheart.Assistant
		}
		r.Messages = append(r.Messages, m)
	}
	return r
}

// describeContents renders messages as "human: text" lines, * marking a
// cached part.
func describeContents(msgs []llms.MessageContent) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				out = append(out, fmt.Sprintf("%s: %s", m.Role, p.Text))
			case llms.CachedContent:
				out = append(out, fmt.Sprintf("%s: %s*", m.Role, p.ContentPart.(llms.TextContent).Text))
			}
		}
	}
	return out
}

func TestContents(t *testing.T) {
	cache := byheartlangchaingo.WithCacheControl(anthropic.EphemeralCache())
	tests := []struct {
		name string
		in   byheart.Result
		opts []byheartlangchaingo.ContentOption
		want []string
	}{
		{
			name: "each part is a message of its role, the query last, nothing marked by default",
			in:   parts(1, "u:hi", "a:hello", "u:query"),
			want: []string{"human: hi", "ai: hello", "human: query"},
		},
		{
			name: "the last human part at or before StableUpto is marked",
			in:   parts(2, "u:[memory]", "u:tail question", "a:tail answer", "u:[outside]", "u:query"),
			opts: []byheartlangchaingo.ContentOption{cache},
			want: []string{"human: [memory]", "human: tail question*", "ai: tail answer", "human: [outside]", "human: query"},
		},
		{
			name: "a log that goes on past StableUpto is marked at its last human part too",
			in:   parts(0, "u:[memory]", "a:answer", "u:question", "a:answer 2", "u:[outside]", "u:query"),
			opts: []byheartlangchaingo.ContentOption{cache},
			want: []string{"human: [memory]*", "ai: answer", "human: question*", "ai: answer 2", "human: [outside]", "human: query"},
		},
		{
			name: "nothing stable, nothing marked",
			in:   parts(-1, "u:query"),
			opts: []byheartlangchaingo.ContentOption{cache},
			want: []string{"human: query"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := byheartlangchaingo.Contents(tt.in, tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, describeContents(got))
		})
	}
}

func TestContentsRejectsMalformedResults(t *testing.T) {
	for name, r := range map[string]byheart.Result{
		"an empty result":                 {StableUpto: -1},
		"a result ending with the AI":     parts(-1, "u:hi", "a:hello"),
		"a StableUpto past the last part": parts(2, "u:hi", "u:query"),
		"an unknown role": {StableUpto: -1, Messages: []byheart.Message{
			{Role: "system", Parts: []byheart.Part{{Text: "x"}}}, {Role: byheart.User, Parts: []byheart.Part{{Text: "q"}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := byheartlangchaingo.Contents(r)
			assert.ErrorIs(t, err, byheartlangchaingo.ErrResult)
		})
	}
}

// anthropicServer stands in for the Messages API, keeping each request body.
func anthropicServer(t *testing.T, reply string) (*anthropic.LLM, *[][]byte) {
	t.Helper()
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		bodies = append(bodies, body)
		w.Header().Set("Content-Type", "application/json")
		out, _ := json.Marshal(map[string]any{
			"id": "msg_test", "type": "message", "role": "assistant", "model": "claude-test",
			"content": []any{map[string]any{"type": "text", "text": reply}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
		})
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	llm, err := anthropic.New(anthropic.WithToken("test-key"), anthropic.WithBaseURL(srv.URL), anthropic.WithModel("claude-test"))
	require.NoError(t, err)
	return llm, &bodies
}

func TestGenerateContentThroughTheAnthropicProvider(t *testing.T) {
	ctx := context.Background()
	opts := byheart.Options{Budget: 700, Chunk: 150}
	var turns []string
	for i := range 10 {
		turns = append(turns, fmt.Sprintf("Question %d about the pricing of plan %d.", i, i), fmt.Sprintf("Answer %d: plan %d costs %d euro.", i, i, 40+i))
	}
	mem := byheartlangchaingo.Resume(conversation(t, opts, turns...), opts)
	llm, bodies := anthropicServer(t, "Plan 3 costs 43 euro.")

	res, err := mem.Compose(ctx, "What does plan 3 cost?")
	require.NoError(t, err)
	msgs, err := byheartlangchaingo.Contents(res, byheartlangchaingo.WithCacheControl(anthropic.EphemeralCache()))
	require.NoError(t, err)
	system := llms.TextParts(llms.ChatMessageTypeSystem, "Be brief.")
	resp, err := llm.GenerateContent(ctx, append([]llms.MessageContent{system}, msgs...), anthropic.WithPromptCaching())
	require.NoError(t, err)
	require.NoError(t, mem.Save(ctx, "What does plan 3 cost?", resp.Choices[0].Content))
	assert.Equal(t, len(turns)+2, mem.Conversation().Len())

	require.Len(t, *bodies, 1)
	var wire struct {
		System   string `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text         string          `json:"text"`
				CacheControl json.RawMessage `json:"cache_control"`
			} `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal((*bodies)[0], &wire))
	assert.Equal(t, "Be brief.", wire.System)
	var sent []string
	var marked []int
	for _, m := range wire.Messages {
		for _, c := range m.Content {
			if c.CacheControl != nil {
				assert.JSONEq(t, `{"type":"ephemeral"}`, string(c.CacheControl))
				marked = append(marked, len(sent))
			}
			sent = append(sent, c.Text)
		}
	}
	flat := flatTexts(res)
	assert.Equal(t, flat, sent, "every part reaches the API verbatim and in order")
	assert.NotEmpty(t, marked, "a breakpoint reaches the wire")
	assert.LessOrEqual(t, marked[len(marked)-1], res.StableUpto, "no breakpoint after StableUpto, on outside material or the query")
}

func flatTexts(r byheart.Result) []string {
	var out []string
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			out = append(out, p.Text)
		}
	}
	return out
}
