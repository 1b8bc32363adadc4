// Command trpc runs tRPC-Agent-Go's in-memory memory.Service and byheart's
// (the byhearttrpc module's MemoryService) side by side on the LoCoMo
// conversations, in one process: every session of a conversation is stored
// in tRPC-Agent-Go's own in-memory session service; byheart's service
// takes each session in as the runner hands it over (EnqueueAutoMemoryJob),
// and tRPC-Agent-Go's, which extracts memories with a model when it has
// one, is given every turn's words as a memory of their own (AddMemory,
// with the session's time as the event time). Each question is then
// searched in both with their defaults, and the entries each returns fill
// a 20,000-character context in the order it returned them. It prints, as
// Markdown, the evidence recall on categories 1 to 4 and the time a search
// takes.
//
//	go run . -locomo ../../../shared/locomo/locomo-dev.json
//
// It is a module of its own so that tRPC-Agent-Go never enters byheart's
// dependencies.
package main

import (
	"context"
	"fmt"
	"io"

	"trpc.group/trpc-go/trpc-agent-go/event"
	"trpc.group/trpc-go/trpc-agent-go/memory"
	trpcmemory "trpc.group/trpc-go/trpc-agent-go/memory/inmemory"
	"trpc.group/trpc-go/trpc-agent-go/model"
	"trpc.group/trpc-go/trpc-agent-go/session"
	"trpc.group/trpc-go/trpc-agent-go/session/inmemory"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/locomo"
	"github.com/byheart/byheart/internal/recall"
	byhearttrpc "github.com/byheart/byheart/trpc"
)

func main() { recall.Main("trpc", "times every question is searched", run) }

const app = "locomo"

func run(w io.Writer, path string, room, rounds int) error {
	ds, err := locomo.Load(path)
	if err != nil {
		return err
	}
	ctx := context.Background()
	theirs := trpcmemory.NewMemoryService()
	ours := byhearttrpc.NewMemoryService(byheart.Options{Budget: room})
	sessions := inmemory.NewSessionService()
	defer sessions.Close()
	for _, conv := range ds.Convs {
		stored, err := store(ctx, sessions, conv)
		if err != nil {
			return err
		}
		for _, sess := range stored {
			if err := ours.EnqueueAutoMemoryJob(ctx, sess); err != nil {
				return fmt.Errorf("byheart: %s: %w", conv.ID, err)
			}
		}
		for _, t := range conv.Turns {
			when := t.When
			err := theirs.AddMemory(ctx, memory.UserKey{AppName: app, UserID: conv.ID}, t.Text, nil,
				memory.WithMetadata(&memory.Metadata{Kind: memory.KindEpisode, EventTime: &when, Participants: []string{t.Speaker}}))
			if err != nil {
				return fmt.Errorf("tRPC-Agent-Go: %s: %w", conv.ID, err)
			}
		}
	}
	searcher := func(name string, svc memory.Service) recall.Searcher {
		return recall.Searcher{Name: name, Search: func(ctx context.Context, conv *locomo.Conversation, q string) ([]string, error) {
			found, err := svc.SearchMemories(ctx, memory.UserKey{AppName: app, UserID: conv.ID}, q)
			var texts []string
			for _, e := range found {
				if e.Memory != nil {
					texts = append(texts, e.Memory.Memory)
				}
			}
			return texts, err
		}}
	}
	return recall.Compare(ctx, w, ds, room, rounds, []recall.Searcher{
		searcher("tRPC-Agent-Go in-memory `memory.Service` (v1.11.2), a memory per turn", theirs),
		searcher("byheart `byhearttrpc.MemoryService`", ours),
	})
}

// store keeps each LoCoMo session of conv as a session of the user
// conv.ID, its first speaker's turns the user's and the second's the
// assistant's, and returns them read back from the session service. A
// session the second speaker opens starts with a user message of one space:
// tRPC-Agent-Go's session service drops the events before a session's
// first user message, and byheart takes no turn from a blank one.
func store(ctx context.Context, svc session.Service, conv *locomo.Conversation) ([]*session.Session, error) {
	var out []*session.Session
	last := -1
	for _, t := range conv.Turns {
		if t.Session != last {
			created, err := svc.CreateSession(ctx, session.Key{AppName: app, UserID: conv.ID, SessionID: fmt.Sprintf("session-%d", t.Session)}, nil)
			if err != nil {
				return nil, err
			}
			out, last = append(out, created), t.Session
			if !t.ByA {
				if err := svc.AppendEvent(ctx, created, message(t, model.NewUserMessage(" "), "user")); err != nil {
					return nil, err
				}
			}
		}
		msg, author := model.NewUserMessage(t.Text), "user"
		if !t.ByA {
			msg, author = model.NewAssistantMessage(t.Text), "assistant"
		}
		if err := svc.AppendEvent(ctx, out[len(out)-1], message(t, msg, author)); err != nil {
			return nil, err
		}
	}
	for i, s := range out {
		got, err := svc.GetSession(ctx, session.Key{AppName: app, UserID: conv.ID, SessionID: s.ID})
		if err != nil {
			return nil, err
		}
		out[i] = got
	}
	return out, nil
}

// message is the event that says msg, from author, at t's time.
func message(t locomo.Turn, msg model.Message, author string) *event.Event {
	ev := event.NewResponseEvent(fmt.Sprintf("inv-%d", t.Session), author, &model.Response{Done: true, Choices: []model.Choice{{Message: msg}}})
	ev.Timestamp = t.When
	return ev
}
