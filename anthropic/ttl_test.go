package byheartanthropic_test

import (
	"context"
	"slices"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/byheart/byheart"
	byheartanthropic "github.com/byheart/byheart/anthropic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ttls lists the ttl of every cache_control in a request as the API
// received it, system first ("" where it names none), and clears them, so
// that two requests can be compared on the rest.
func ttls(w *wireRequest) []string {
	var out []string
	visit := func(b *wireBlock) {
		if b.CacheControl != nil {
			out = append(out, b.CacheControl.TTL)
			b.CacheControl.TTL = ""
		}
	}
	for i := range w.System {
		visit(&w.System[i])
	}
	for _, m := range w.Messages {
		for i := range m.Content {
			visit(&m.Content[i])
		}
	}
	return out
}

func TestWithTTLSendsEveryBreakpointWithTheOneHourLifetime(t *testing.T) {
	res, err := plans(t, byheart.Options{Budget: 600, Chunk: 200}).Compose(context.Background(), "What does plan 3 cost?")
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.StableUpto, 0)

	// sent is the request the API receives through the real client.
	sent := func(opts ...byheartanthropic.Option) wireRequest {
		client, rec := newClient(t)
		msgs, err := byheartanthropic.Messages(res, opts...)
		require.NoError(t, err)
		_, err = client.Messages.New(context.Background(), anthropic.MessageNewParams{
			Model: "claude-test", MaxTokens: 256,
			System:   byheartanthropic.System("Be brief.", opts...),
			Messages: msgs,
		})
		require.NoError(t, err)
		require.Len(t, rec.bodies, 1)
		return decode(t, rec.bodies[0])
	}
	plain := sent()
	hour := sent(byheartanthropic.WithTTL(anthropic.CacheControlEphemeralTTLTTL1h))
	plainTTLs, hourTTLs := ttls(&plain), ttls(&hour)
	require.GreaterOrEqual(t, len(plainTTLs), 2, "the system prompt and the log carry breakpoints")
	assert.Equal(t, slices.Repeat([]string{""}, len(plainTTLs)), plainTTLs, "the API's five-minute default unless asked")
	assert.Equal(t, slices.Repeat([]string{"1h"}, len(plainTTLs)), hourTTLs, "every breakpoint, system included, lives an hour")
	assert.Equal(t, plain, hour, "the lifetime is all that differs")
}
