//go:build unix

package byheart

import (
	"math"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAGiganticTurnIsCountedPastWhat32BitsHold: a turn of more than 2^31
// characters is counted exactly, as its own part, as a line of the memory
// block and in its stretch, so its size can never wrap negative and "fit"
// a budget. The text is 2 GiB of zero bytes mapped from no file, which
// costs the machine no memory; reading it takes seconds, so it is skipped
// under -short and the race detector.
func TestAGiganticTurnIsCountedPastWhat32BitsHold(t *testing.T) {
	t.Parallel()
	if testing.Short() || raceEnabled {
		t.Skip("reads 2 GiB")
	}
	const n = 1<<31 + 1<<10
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Skipf("cannot map 2 GiB: %v", err)
	}
	defer syscall.Munmap(mem)
	huge := unsafe.String(&mem[0], n)

	m := New(Options{Budget: 1000})
	x := m.makeTurn(Turn{Role: User, Text: huge}, 0)
	require.Greater(t, x.runeCount(), math.MaxInt32)
	assert.Equal(t, n, x.runeCount())
	assert.Equal(t, n, x.nativeSize())
	assert.Equal(t, len(label(User))+n+1, x.lineLen())

	m.turns = []turn{m.makeTurn(Turn{Role: User, Text: "before"}, 0), x}
	assert.Equal(t, x.lineLen()+m.lineCost(0, 0), m.sizeOf(0, 2), "the stretch holding it")
	assert.Equal(t, 1000, m.nativeCost(1), "as the newest turn it costs the whole budget")
	assert.Equal(t, 1, m.cut(), "and is the whole native tail")
}
