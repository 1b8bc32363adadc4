package byheartadk_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEQuotesTheServerExample keeps the README's server, which readers
// copy, the same as Example_server, which is compiled.
func TestREADMEQuotesTheServerExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	_, fn, found := strings.Cut(string(example), "\nfunc Example_server() {")
	require.True(t, found)
	fn, _, found = strings.Cut(fn, "\n}\n")
	require.True(t, found)
	_, quoted, found := strings.Cut(string(readme), "<!-- quoted from example_test.go -->\n```go\n")
	require.True(t, found, "the README marks where it quotes the example")
	quoted, _, found = strings.Cut(quoted, "```\n")
	require.True(t, found)
	assert.Equal(t, "func Example_server() {"+fn+"\n}\n", quoted)
}
