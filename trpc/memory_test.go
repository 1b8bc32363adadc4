package byhearttrpc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/byheart/byheart"
	byhearttrpc "github.com/byheart/byheart/trpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"trpc.group/trpc-go/trpc-agent-go/agent/llmagent"
	"trpc.group/trpc-go/trpc-agent-go/event"
	"trpc.group/trpc-go/trpc-agent-go/memory"
	"trpc.group/trpc-go/trpc-agent-go/model"
	"trpc.group/trpc-go/trpc-agent-go/runner"
	"trpc.group/trpc-go/trpc-agent-go/session"
	"trpc.group/trpc-go/trpc-agent-go/session/inmemory"
)

// texts joins the entries' memories.
func texts(entries []*memory.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Memory.Memory + "\n")
	}
	return b.String()
}

func TestTheRunnerHandsSessionsToTheMemoryService(t *testing.T) {
	svc := byhearttrpc.NewMemoryService(byheart.Options{Budget: 600, Chunk: 200})
	ag := llmagent.New("helper", llmagent.WithModel(&recorder{}), llmagent.WithInstruction(instruction))
	r := runner.NewRunner("app", ag, runner.WithSessionService(inmemory.NewSessionService()), runner.WithMemoryService(svc))
	t.Cleanup(func() { _ = r.Close() })
	for i := range 12 {
		text := fmt.Sprintf("Note %d: the garden hose is in shed number %d.", i, i)
		if i == 5 {
			text = "We named the beagle Pickle, after the jar she knocked over."
		}
		events, err := r.Run(context.Background(), "u1", "s1", model.NewUserMessage(text))
		require.NoError(t, err)
		for range events {
		}
	}
	user := memory.UserKey{AppName: "app", UserID: "u1"}
	found, err := svc.SearchMemories(context.Background(), user, "What is the beagle called?")
	require.NoError(t, err)
	require.NotEmpty(t, found)
	assert.Contains(t, texts(found), "user: We named the beagle Pickle")
	assert.Contains(t, texts(found), "assistant: Reply", "the agent's replies are in the stretch too")
	none, err := svc.SearchMemories(context.Background(), memory.UserKey{AppName: "app", UserID: "u2"}, "beagle")
	require.NoError(t, err)
	assert.Empty(t, none, "another user has nothing")
}

func TestMemoryServiceAddsASessionOnceAndKeepsWordsAsSaid(t *testing.T) {
	ctx := context.Background()
	svc := byhearttrpc.NewMemoryService(byheart.Options{})
	sess := session.NewSession("app", "u1", "s1")
	for _, text := range []string{"I ran the charity race last Saturday.", "My legs still hurt."} {
		ev := userEvent(text)
		sess.Events = append(sess.Events, *ev)
	}
	user := memory.UserKey{AppName: "app", UserID: "u1"}
	require.NoError(t, svc.EnqueueAutoMemoryJob(ctx, sess))
	require.NoError(t, svc.EnqueueAutoMemoryJob(ctx, sess), "a session handed over again")
	read, err := svc.ReadMemories(ctx, user, 0)
	require.NoError(t, err)
	require.Len(t, read, 1)
	assert.Equal(t, 1, strings.Count(read[0].Memory.Memory, "charity race"), "never doubled")

	sess.Events = append(sess.Events, *userEvent("The medal is on the fridge."))
	require.NoError(t, svc.EnqueueAutoMemoryJob(ctx, sess))
	read, err = svc.ReadMemories(ctx, user, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(texts(read), "medal"), "what the session gained is added")

	assert.ErrorIs(t, svc.UpdateMemory(ctx, memory.Key{AppName: "app", UserID: "u1", MemoryID: read[0].ID}, "x", nil), byhearttrpc.ErrVerbatim)
	require.NoError(t, svc.DeleteMemory(ctx, memory.Key{AppName: "app", UserID: "u1", MemoryID: read[0].ID}))
	read, err = svc.ReadMemories(ctx, user, 0)
	require.NoError(t, err)
	assert.NotContains(t, texts(read), "charity race", "a deleted memory's words are erased")
	assert.Error(t, svc.DeleteMemory(ctx, memory.Key{AppName: "app", UserID: "u1", MemoryID: "turn-99"}))
	assert.ErrorIs(t, svc.EnqueueAutoMemoryJob(ctx, session.NewSession("", "u1", "s1")), memory.ErrAppNameRequired)

	require.NoError(t, svc.AddMemory(ctx, user, "The user prefers tea.", nil))
	read, err = svc.ReadMemories(ctx, user, 1)
	require.NoError(t, err)
	require.Len(t, read, 1)
	assert.Contains(t, read[0].Memory.Memory, "note from memory (UNVERIFIED): The user prefers tea.")
	require.NoError(t, svc.ClearMemories(ctx, user))
	read, err = svc.ReadMemories(ctx, user, 0)
	require.NoError(t, err)
	assert.Empty(t, read)
}

// userEvent is the event a runner stores for a user's message.
func userEvent(text string) *event.Event {
	return event.NewResponseEvent("inv", "user", &model.Response{Done: true, Choices: []model.Choice{{Message: model.NewUserMessage(text)}}})
}

func TestMemoryServiceTakesCallsSharingAnId(t *testing.T) {
	ctx := context.Background()
	svc := byhearttrpc.NewMemoryService(byheart.Options{})
	sess := session.NewSession("app", "u1", "s1")
	reply := model.Message{Role: model.RoleAssistant}
	for _, city := range []string{"Paris", "Rome"} {
		reply.ToolCalls = append(reply.ToolCalls, model.ToolCall{Type: "function", ID: "call_1",
			Function: model.FunctionDefinitionParam{Name: "weather", Arguments: []byte(`{"city":"` + city + `"}`)}})
	}
	for _, ev := range []*event.Event{
		userEvent("Weather in Paris and Rome?"),
		event.NewResponseEvent("inv", "helper", &model.Response{Done: true, Choices: []model.Choice{{Message: reply}}}),
		event.NewResponseEvent("inv", "helper", &model.Response{Done: true, Choices: []model.Choice{
			{Message: model.NewToolMessage("call_1", "weather", "Sunny in Paris.")},
			{Message: model.NewToolMessage("call_1", "weather", "Rain in Rome.")}}}),
		userEvent("Then we pack the umbrella."),
	} {
		sess.Events = append(sess.Events, *ev)
	}
	require.NoError(t, svc.EnqueueAutoMemoryJob(ctx, sess))
	read, err := svc.ReadMemories(ctx, memory.UserKey{AppName: "app", UserID: "u1"}, 0)
	require.NoError(t, err)
	all := texts(read)
	assert.Contains(t, all, "Rain in Rome", "the second call's response")
	assert.Contains(t, all, "pack the umbrella", "and what came after it")
}
