package mcp

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/mcp/internal/mcptest"
	"github.com/byheart/byheart/store"
)

// BenchmarkRecall is a recall through the SDK's client and in-memory
// transport, beside Compose on the same memory: what the protocol adds.
func BenchmarkRecall(b *testing.B) {
	for _, n := range []int{100, 2000} {
		st := newStore(b)
		srv, cs := serve(b, Config{Store: st, Tenant: alice.Tenant, User: alice.User})
		conv, err := store.Open(context.Background(), st, alice, srv.cfg.Options)
		if err != nil {
			b.Fatal(err)
		}
		for _, in := range chat(alice.Conversation, n) {
			when, err := time.Parse(time.RFC3339, in.Time)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := conv.Memory.AppendAt(byheart.Role(in.Role), in.Text, when); err != nil {
				b.Fatal(err)
			}
		}
		if err := conv.Save(context.Background()); err != nil {
			b.Fatal(err)
		}
		query := recallIn{Conversation: alice.Conversation, Query: "how is the sourdough starter doing?"}
		b.Run(fmt.Sprintf("turns=%d/mcp", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				mcptest.OK(b, cs, "recall", query, nil)
			}
		})
		b.Run(fmt.Sprintf("turns=%d/compose", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := conv.Memory.Compose(context.Background(), query.Query); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRemember is a remember through the SDK's client and in-memory
// transport on a relaxed SQLite store (no flush on each commit).
func BenchmarkRemember(b *testing.B) {
	_, cs := serve(b, Config{Store: newStore(b), Tenant: alice.Tenant, User: alice.User})
	turns := chat(alice.Conversation, 64)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		mcptest.OK(b, cs, "remember", turns[i%len(turns)], nil)
		i++
	}
}
