// Command adk runs adk-go's in-memory memory.Service and byheart's (the
// byheartadk module's MemoryService) side by side on the LoCoMo
// conversations, in one process: every session of a conversation is stored
// in ADK's own in-memory session service and added to both memories, then
// each question is searched in both, and the entries each returns fill a
// 20,000-character context in the order it returned them. It prints, as
// Markdown, the evidence recall on categories 1 to 4 and the time a search
// takes.
//
//	go run . -locomo ../../../shared/locomo/locomo-dev.json
//
// It is a module of its own so that adk-go never enters byheart's
// dependencies.
package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"google.golang.org/adk/v2/memory"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/session"
	"google.golang.org/genai"

	"github.com/byheart/byheart"
	byheartadk "github.com/byheart/byheart/adk"
	"github.com/byheart/byheart/internal/locomo"
	"github.com/byheart/byheart/internal/recall"
)

func main() {
	recall.Main("adk", "times every question is searched; ADK's order is a map's, so each round differs", run)
}

const app = "locomo"

func run(w io.Writer, path string, room, rounds int) error {
	ds, err := locomo.Load(path)
	if err != nil {
		return err
	}
	ctx := context.Background()
	services := []struct {
		name string
		svc  memory.Service
	}{
		{"adk-go in-memory `memory.Service` (v2.2.0)", memory.InMemoryService()},
		{"byheart `byheartadk.MemoryService`", byheartadk.NewMemoryService(byheart.Options{Budget: room})},
	}
	sessions := session.InMemoryService()
	for _, conv := range ds.Convs {
		stored, err := store(ctx, sessions, conv)
		if err != nil {
			return err
		}
		for _, s := range services {
			for _, sess := range stored {
				if err := s.svc.AddSessionToMemory(ctx, sess); err != nil {
					return fmt.Errorf("%s: %s: %w", s.name, conv.ID, err)
				}
			}
		}
	}
	var searchers []recall.Searcher
	for _, s := range services {
		searchers = append(searchers, recall.Searcher{Name: s.name, Search: func(ctx context.Context, conv *locomo.Conversation, q string) ([]string, error) {
			res, err := s.svc.SearchMemory(ctx, &memory.SearchRequest{AppName: app, UserID: conv.ID, Query: q})
			if err != nil {
				return nil, err
			}
			var texts []string
			for _, e := range res.Memories {
				if e.Content == nil {
					continue
				}
				var text strings.Builder
				for _, p := range e.Content.Parts {
					text.WriteString(p.Text)
					text.WriteByte('\n')
				}
				texts = append(texts, strings.TrimSuffix(text.String(), "\n"))
			}
			return texts, nil
		}})
	}
	return recall.Compare(ctx, w, ds, room, rounds, searchers)
}

// store keeps each LoCoMo session of conv as an ADK session of the user
// conv.ID, its first speaker's turns the user's and the second's the
// agent's, and returns them read back from the session service.
func store(ctx context.Context, svc session.Service, conv *locomo.Conversation) ([]session.Session, error) {
	var out []session.Session
	var cur session.Session
	last := -1
	for _, t := range conv.Turns {
		if t.Session != last {
			if cur != nil {
				out = append(out, cur)
			}
			created, err := svc.Create(ctx, &session.CreateRequest{AppName: app, UserID: conv.ID, SessionID: fmt.Sprintf("session-%d", t.Session)})
			if err != nil {
				return nil, err
			}
			cur, last = created.Session, t.Session
		}
		author, role := "user", genai.RoleUser
		if !t.ByA {
			author, role = "assistant", genai.RoleModel
		}
		ev := session.NewEvent(ctx, fmt.Sprintf("inv-%d", t.Session))
		ev.Author = author
		ev.Timestamp = t.When
		ev.LLMResponse = model.LLMResponse{Content: genai.NewContentFromText(t.Text, genai.Role(role))}
		if err := svc.AppendEvent(ctx, cur, ev); err != nil {
			return nil, err
		}
	}
	if cur != nil {
		out = append(out, cur)
	}
	for i, s := range out {
		got, err := svc.Get(ctx, &session.GetRequest{AppName: app, UserID: conv.ID, SessionID: s.ID()})
		if err != nil {
			return nil, err
		}
		out[i] = got.Session
	}
	return out, nil
}
