package byheartlangchaingo_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEQuotesTheServerExample keeps the README's server, which readers
// copy, the same as examples/server, which is built and tested.
func TestREADMEQuotesTheServerExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("examples/server/main.go")
	require.NoError(t, err)
	_, quoted, found := strings.Cut(string(readme), "<!-- quoted from examples/server/main.go -->\n```go\n")
	require.True(t, found, "the README marks where it quotes the example")
	quoted, _, found = strings.Cut(quoted, "```\n")
	require.True(t, found)
	assert.Equal(t, string(example), quoted)
}
