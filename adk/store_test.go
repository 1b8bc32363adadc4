package byheartadk_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/genai"

	"github.com/byheart/byheart"
	byheartadk "github.com/byheart/byheart/adk"
	"github.com/byheart/byheart/store/sqlite"
)

// TestAStoreKeepsASessionAcrossRestarts runs an agent over a SQLite file,
// stops, and starts again with nothing but the file: ADK's sessions are
// gone (its in-memory service is new), yet the model is sent the earlier
// conversation, from byheart's store.
func TestAStoreKeepsASessionAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "conversations.db")
	serve := func(message string) *recorder {
		st, err := sqlite.Open(ctx, path, sqlite.Options{})
		require.NoError(t, err)
		defer st.Close()
		rec := &recorder{}
		a, err := llmagent.New(llmagent.Config{Name: "helper", Model: rec, Tools: tools(t)})
		require.NoError(t, err)
		r, err := runner.New(runner.Config{AppName: "app", Agent: a, SessionService: session.InMemoryService(), AutoCreateSession: true,
			PluginConfig: runner.PluginConfig{Plugins: []*plugin.Plugin{byheartadk.Plugin(byheartadk.Config{Store: st, Sources: trusted})}}})
		require.NoError(t, err)
		for _, err := range r.Run(ctx, "u1", "s1", genai.NewContentFromText(message, genai.RoleUser), agent.RunConfig{}) {
			require.NoError(t, err)
		}
		return rec
	}
	serve("We named the beagle Biscuit. What is the weather in Paris?")
	rec := serve("What did we name the beagle?")

	require.NotEmpty(t, rec.requests)
	sent := strings.Join(flat(rec.requests[0]), "\n")
	assert.Contains(t, sent, "We named the beagle Biscuit.", "the earlier run, from the store")
	assert.Contains(t, sent, "get_weather", "with its tool calls")
	assert.Contains(t, sent, "What did we name the beagle?")

	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	require.NoError(t, err)
	defer st.Close()
	var roles []byheart.Role
	require.NoError(t, byheartadk.New(byheartadk.Config{Store: st}).Do(ctx, "app", "u1", "s1", func(mem *byheart.Memory) error {
		for i := range mem.Len() {
			turn, err := mem.Turn(i)
			if err != nil {
				return err
			}
			roles = append(roles, turn.Role)
		}
		return nil
	}))
	assert.Equal(t, []byheart.Role{byheart.User, byheart.Assistant, byheart.ToolCall, byheart.ToolCall,
		byheart.ToolResult, byheart.ToolResult, byheart.Assistant, byheart.User, byheart.Assistant}, roles,
		"every event once, in order")
}

func TestForgetDropsAnInProcessSession(t *testing.T) {
	ctx := context.Background()
	m := byheartadk.New(byheartadk.Config{})
	require.NoError(t, m.Do(ctx, "app", "u1", "s1", func(mem *byheart.Memory) error {
		_, err := mem.Append(byheart.User, "remember the beagle")
		return err
	}))
	m.Forget("app", "u1", "s1")
	require.NoError(t, m.Do(ctx, "app", "u1", "s1", func(mem *byheart.Memory) error {
		assert.Zero(t, mem.Len(), "a forgotten session starts empty")
		return nil
	}))
}
