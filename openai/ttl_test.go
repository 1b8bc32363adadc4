package byheartopenai_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/byheart/byheart"
	byheartopenai "github.com/byheart/byheart/openai"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// breakpointTTLs decodes a request body and lists the ttl of every
// prompt_cache_breakpoint in it, in document order ("" where it has none),
// then removes the ttls, so that two bodies can be compared on the rest.
func breakpointTTLs(t *testing.T, body []byte) (ttls []string, rest any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(body, &rest))
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			if bp, ok := v["prompt_cache_breakpoint"].(map[string]any); ok {
				ttl, _ := bp["ttl"].(string)
				ttls = append(ttls, ttl)
				delete(bp, "ttl")
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(v[k])
			}
		}
	}
	walk(rest)
	return ttls, rest
}

func TestWithBreakpointTTLGivesEveryBreakpointItsLifetimeAndChangesNothingElse(t *testing.T) {
	ctx := context.Background()
	res, err := plans(t, byheart.Options{Budget: 600, Chunk: 200}).Compose(ctx, "What does plan 3 cost?")
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.StableUpto, 0)

	// Each API's request, sent through the real client to a local server.
	apis := []struct {
		name string
		send func(t *testing.T, opt byheartopenai.Option) []byte
	}{
		{"chat completions", func(t *testing.T, opt byheartopenai.Option) []byte {
			client, rec := newClient(t)
			msgs, err := byheartopenai.Messages(res, opt)
			require.NoError(t, err)
			_, err = client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
				Model:    "gpt-test",
				Messages: append([]openai.ChatCompletionMessageParamUnion{byheartopenai.System(system, opt)}, msgs...),
			})
			require.NoError(t, err)
			require.Len(t, rec.bodies, 1)
			return rec.bodies[0]
		}},
		{"responses", func(t *testing.T, opt byheartopenai.Option) []byte {
			client, bodies := responsesServer(t)
			items, err := byheartopenai.Input(res, opt)
			require.NoError(t, err)
			_, err = client.Responses.New(ctx, responses.ResponseNewParams{
				Model: "gpt-test",
				Input: responses.ResponseNewParamsInputUnion{OfInputItemList: append(responses.ResponseInputParam{byheartopenai.InputSystem(system, opt)}, items...)},
			})
			require.NoError(t, err)
			require.Len(t, *bodies, 1)
			return (*bodies)[0]
		}},
	}
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			plain, plainRest := breakpointTTLs(t, api.send(t, byheartopenai.WithBreakpoints()))
			long, longRest := breakpointTTLs(t, api.send(t, byheartopenai.WithBreakpointTTL("12h")))
			require.GreaterOrEqual(t, len(plain), 2, "the system prompt and the log carry breakpoints")
			assert.Equal(t, slices.Repeat([]string{""}, len(plain)), plain, "WithBreakpoints leaves the lifetime to the request")
			assert.Equal(t, slices.Repeat([]string{"12h"}, len(plain)), long, "every breakpoint, and only they, carry the ttl")
			assert.Equal(t, plainRest, longRest, "the ttl is all that differs")
		})
	}
}
