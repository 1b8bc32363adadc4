package byheart

import (
	"context"
	"strings"
)

// Result is a composed context.
type Result struct {
	Messages   []Message `json:"messages"`
	StableUpto int       `json:"stable_upto"`
	Included   []int     `json:"included"`
	Reselected bool      `json:"reselected"`
	// ExternalErr reports a failing External source; the rest of the Result is complete.
	ExternalErr error `json:"-"`
}

// Message is one provider message.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// Part is one text block of a message.
type Part struct {
	Text string `json:"text"`
}

// Document is one stretch handed to a Retriever.
type Document struct {
	ID   uint64
	Text string
}

// Retriever replaces the built-in BM25 ranking.
type Retriever interface {
	Score(ctx context.Context, query string, docs []Document) ([]float64, error)
}

// Item is one piece of outside material.
type Item struct {
	Text   string
	Source string
}

// External supplies outside material for a query.
type External interface {
	Fetch(ctx context.Context, query string) ([]Item, error)
}

// Compose WIP: sends everything.
func (m *Memory) Compose(ctx context.Context, query string) (Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var r Result
	for _, t := range m.turns {
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == t.Role {
			r.Messages[n-1].Parts = append(r.Messages[n-1].Parts, Part{t.Text})
			continue
		}
		r.Messages = append(r.Messages, Message{Role: t.Role, Parts: []Part{{t.Text}}})
	}
	r.StableUpto = len(m.turns) - 1
	r.Messages = append(r.Messages, Message{Role: User, Parts: []Part{{query}}})
	return r, nil
}

// Terms returns the index terms the built-in BM25 sees in text. WIP.
func Terms(text string) []string { return strings.Fields(strings.ToLower(text)) }
