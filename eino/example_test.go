package byhearteino_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/byheart/byheart"
	byhearteino "github.com/byheart/byheart/eino"
	"github.com/byheart/byheart/store"
)

// A plain Runner run with byheart: the middleware is the one line in the
// agent's configuration, the memory goes with the run's context, and the
// run's messages are in the memory when it returns.
func ExampleNew() {
	ctx := context.Background()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "helper", Description: "a concise assistant", Instruction: "You are a concise assistant.",
		Model:    echo{},
		Handlers: []adk.ChatModelAgentMiddleware{byhearteino.New(byhearteino.Config{})},
	})
	if err != nil {
		log.Fatal(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
	mem := byheart.New(byheart.Options{})
	for _, q := range []string{"We named the beagle Biscuit.", "What did we name the beagle?"} {
		events := runner.Query(byhearteino.WithMemory(ctx, mem), q)
		for {
			ev, ok := events.Next()
			if !ok {
				break
			}
			if ev.Err != nil {
				log.Fatal(ev.Err)
			}
		}
	}
	for i := range mem.Len() {
		turn, _ := mem.Turn(i)
		fmt.Printf("%s: %s\n", turn.Role, turn.Text)
	}
	// Output:
	// user: We named the beagle Biscuit.
	// assistant: I read 2 messages; the last says: We named the beagle Biscuit.
	// user: What did we name the beagle?
	// assistant: I read 4 messages; the last says: What did we name the beagle?
}

// echo is a stand-in for a real chat model: it says how many messages it
// was sent (the instruction and what byheart composed) and repeats the last.
type echo struct{}

func (echo) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	return schema.AssistantMessage(fmt.Sprintf("I read %d messages; the last says: %s", len(in), in[len(in)-1].Content), nil), nil
}

func (e echo) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := e.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// answer is one request of a chat server whose conversations live in a
// byheart store, so a restart or another replica picks each up where it
// was: SQLite through github.com/byheart/byheart/store/sqlite
// (sqlite.Open(ctx, "conversations.db", sqlite.Options{})), or PostgreSQL
// through store/postgres. With Eino's Claude model, give New a
// Config.Breakpoint that returns claude.SetMessageCacheControl(msg, nil).
func answer(ctx context.Context, st store.Store, runner *adk.Runner, scope store.Scope, question string) (string, error) {
	for range 3 {
		conv, err := store.Open(ctx, st, scope, byheart.Options{})
		if err != nil {
			return "", err
		}
		var reply strings.Builder
		events := runner.Query(byhearteino.WithMemory(ctx, conv.Memory), question)
		for {
			ev, ok := events.Next()
			if !ok {
				break
			}
			if ev.Err != nil {
				return "", ev.Err
			}
			if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil {
				if msg := ev.Output.MessageOutput.Message; msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
					reply.WriteString(msg.Content)
				}
			}
		}
		err = conv.Save(ctx)
		if errors.Is(err, store.ErrConflict) {
			continue // another request saved first: run again on its copy
		}
		return reply.String(), err
	}
	return "", store.ErrConflict
}

// A chat server's request on a stored conversation (compiled, not run: it
// needs a store and a model).
func Example_store() {
	ctx := context.Background()
	var st store.Store // st, err := sqlite.Open(ctx, "conversations.db", sqlite.Options{})
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "helper", Description: "a concise assistant", Instruction: "You are a concise assistant.",
		Model:    echo{}, // your model: OpenAI, Claude, Ark, Ollama, ...
		Handlers: []adk.ChatModelAgentMiddleware{byhearteino.New(byhearteino.Config{})},
	})
	if err != nil {
		log.Fatal(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
	reply, err := answer(ctx, st, runner, store.Scope{Tenant: "acme", User: "u42", Conversation: "c7"}, "What did we decide about pricing?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply)
}
