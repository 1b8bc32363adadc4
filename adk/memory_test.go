package byheartadk_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/memory"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/session"
	"google.golang.org/genai"

	"github.com/byheart/byheart"
	byheartadk "github.com/byheart/byheart/adk"
)

// sessionWith stores a session of ADK's in-memory service holding texts,
// said in turn by the user and the agent, a minute apart from start.
func sessionWith(t *testing.T, svc session.Service, app, user, id string, start time.Time, texts ...string) session.Session {
	t.Helper()
	ctx := context.Background()
	created, err := svc.Create(ctx, &session.CreateRequest{AppName: app, UserID: user, SessionID: id})
	require.NoError(t, err)
	for i, text := range texts {
		author, role := "user", genai.RoleUser
		if i%2 == 1 {
			author, role = "helper", genai.RoleModel
		}
		ev := session.NewEvent(ctx, "inv")
		ev.Author = author
		ev.Timestamp = start.Add(time.Duration(i) * time.Minute)
		ev.LLMResponse = model.LLMResponse{Content: genai.NewContentFromText(text, genai.Role(role))}
		require.NoError(t, svc.AppendEvent(ctx, created.Session, ev))
	}
	got, err := svc.Get(ctx, &session.GetRequest{AppName: app, UserID: user, SessionID: id})
	require.NoError(t, err)
	return got.Session
}

func texts(res *memory.SearchResponse) string {
	var b strings.Builder
	for _, e := range res.Memories {
		for _, p := range e.Content.Parts {
			b.WriteString(p.Text + "\n")
		}
	}
	return b.String()
}

func TestMemoryServiceFindsTheStretchThatAnswers(t *testing.T) {
	ctx := context.Background()
	svc := session.InMemoryService()
	day := time.Date(2023, 5, 25, 10, 0, 0, 0, time.UTC)
	var filler []string
	for i := range 60 {
		filler = append(filler, fmt.Sprintf("Turn %d about the weather, the trains and what we cooked on day %d of the holiday.", i, i))
	}
	mem := byheartadk.NewMemoryService(byheart.Options{Budget: 1200})
	require.NoError(t, mem.AddSessionToMemory(ctx, sessionWith(t, svc, "app", "ann", "s1", day, filler...)))
	second := sessionWith(t, svc, "app", "ann", "s2", day.AddDate(0, 0, 3),
		"I ran the charity race last Saturday and my legs still hurt.", "Well done! How far was it?")
	require.NoError(t, mem.AddSessionToMemory(ctx, second))
	require.NoError(t, mem.AddSessionToMemory(ctx, second), "a session added again adds nothing twice")

	res, err := mem.SearchMemory(ctx, &memory.SearchRequest{AppName: "app", UserID: "ann", Query: "When did Ann run the charity race?"})
	require.NoError(t, err)
	got := texts(res)
	assert.Contains(t, got, "user: I ran the charity race last Saturday [27 May 2023] and my legs still hurt.", "with its date resolved")
	assert.Equal(t, 1, strings.Count(got, "charity race last Saturday"), "never doubled")
	assert.Less(t, len(got), 60*80, "a selection, not the whole history")
	for _, e := range res.Memories {
		assert.NotEmpty(t, e.ID)
		assert.False(t, e.Timestamp.IsZero())
	}

	for _, req := range []*memory.SearchRequest{
		{AppName: "app", UserID: "bo", Query: "charity race"},
		{AppName: "other", UserID: "ann", Query: "charity race"},
	} {
		res, err := mem.SearchMemory(ctx, req)
		require.NoError(t, err)
		assert.Empty(t, res.Memories, "scoped by app and user: %+v", req)
	}
}

func TestMemoryServiceAppendsWhatASessionGained(t *testing.T) {
	ctx := context.Background()
	svc := session.InMemoryService()
	day := time.Date(2023, 5, 25, 10, 0, 0, 0, time.UTC)
	mem := byheartadk.NewMemoryService(byheart.Options{})
	s := sessionWith(t, svc, "app", "ann", "s1", day, "We named the beagle Biscuit.", "A fine name.")
	require.NoError(t, mem.AddSessionToMemory(ctx, s))
	ev := session.NewEvent(ctx, "inv")
	ev.Author = "user"
	ev.Timestamp = day.Add(time.Hour)
	ev.LLMResponse = model.LLMResponse{Content: genai.NewContentFromText("Biscuit learned to sit today.", genai.RoleUser)}
	require.NoError(t, svc.AppendEvent(ctx, s, ev))
	got, err := svc.Get(ctx, &session.GetRequest{AppName: "app", UserID: "ann", SessionID: "s1"})
	require.NoError(t, err)
	require.NoError(t, mem.AddSessionToMemory(ctx, got.Session))

	res, err := mem.SearchMemory(ctx, &memory.SearchRequest{AppName: "app", UserID: "ann", Query: "Biscuit"})
	require.NoError(t, err)
	all := texts(res)
	assert.Equal(t, 1, strings.Count(all, "We named the beagle Biscuit."))
	assert.Equal(t, 1, strings.Count(all, "Biscuit learned to sit today"))
}
