package mcp_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/byheart/byheart/mcp"
	"github.com/byheart/byheart/store/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server for one user, and the SDK's client calling it over the SDK's
// in-memory transport, as a desktop client calls byheart-mcp over stdio.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "byheart-mcp-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlite.Open(ctx, filepath.Join(dir, "memory.db"), sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	srv, err := mcp.New(mcp.Config{Store: st, Tenant: "me", User: "me"})
	if err != nil {
		log.Fatal(err)
	}
	clientSide, serverSide := sdk.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, serverSide, nil); err != nil {
		log.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	for _, args := range []map[string]any{
		{"role": "user", "text": "We adopted a beagle called Pickle last Saturday.", "time": "2023-05-08T13:56:00Z"},
		{"role": "assistant", "text": "A beagle! Lovely.", "time": "2023-05-08T13:56:30Z"},
	} {
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "remember", Arguments: args}); err != nil {
			log.Fatal(err)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "What is my dog called?"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// user: We adopted a beagle called Pickle last Saturday [6 May 2023].
	//
	// assistant: A beagle! Lovely.
}
