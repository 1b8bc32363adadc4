// Package mcptest holds what the mcp module's tests share: calling a tool
// with the SDK's client and reading what it returned.
package mcptest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client returns the SDK's client, as the tests name it to servers.
func Client() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "byheart-test", Version: "0"}, nil)
}

// Call calls a tool with args (anything JSON encodes, or json.RawMessage
// sent as it is). It returns the result, or the protocol error when the
// call got none.
func Call(t testing.TB, cs *sdk.ClientSession, name string, args any) (*sdk.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
}

// OK calls a tool that must succeed, decodes its structured output into
// out (when not nil) and returns its text.
func OK(t testing.TB, cs *sdk.ClientSession, name string, args, out any) string {
	t.Helper()
	res, err := Call(t, cs, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: refused: %s", name, Text(res))
	}
	if out != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: structured output %s: %v", name, data, err)
		}
	}
	return Text(res)
}

// Refused calls a tool that must fail, with a tool error or a protocol
// error, and returns what the client was told.
func Refused(t testing.TB, cs *sdk.ClientSession, name string, args any) string {
	t.Helper()
	res, err := Call(t, cs, name, args)
	if err != nil {
		return err.Error()
	}
	if !res.IsError {
		t.Fatalf("%s: accepted: %s", name, Text(res))
	}
	return Text(res)
}

// Text is the text content of a result.
func Text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
