package recall

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Run is a side-by-side recall run: it loads the LoCoMo file at path, puts
// its conversations in the memories under test and writes Compare's table
// for a context of room characters, searching rounds times.
type Run func(w io.Writer, path string, room, rounds int) error

// Main is a benchmark command's main: it reads -locomo, -context and
// -rounds and runs run, saying so and exiting cleanly when there is no
// LoCoMo file (the data is not in the repository), exiting 1 on an error.
func Main(name, roundsHelp string, run Run) {
	path := flag.String("locomo", "../../../shared/locomo/locomo-dev.json", "the LoCoMo file (locomo10.json shape)")
	room := flag.Int("context", 20_000, "characters of context the entries fill")
	rounds := flag.Int("rounds", 3, roundsHelp)
	flag.Parse()
	err := run(os.Stdout, *path, *room, *rounds)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "%s: no LoCoMo file at %s; nothing to measure\n", name, *path)
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
