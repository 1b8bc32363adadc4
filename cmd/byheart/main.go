// Command byheart shows what byheart would send a model for a conversation
// of yours, and what a live chat on it would cost with a provider's prompt
// cache.
//
// Usage:
//
//	byheart ask [flags] FILE QUESTION   what the model receives for QUESTION
//	byheart replay [flags] FILE         replay FILE as a live chat and price every call
//
// FILE is a conversation in JSON Lines, one turn per line:
//
//	{"role": "user", "text": "We adopted a beagle called Pickle.", "time": "2023-05-08T13:56:00Z"}
//	{"role": "assistant", "text": "A beagle! Lovely."}
//
// where role is user or assistant and time, optional, is RFC 3339. An
// agent's turns have the roles tool_call, tool_result and note, with the
// fields of byheart.Turn:
//
//	{"role": "tool_call", "text": "{\"from\": \"vendor\"}", "tool": "inbox", "call_id": "call_1"}
//	{"role": "tool_result", "text": "…", "call_id": "call_1", "source": "email:billing@vendor.example"}
//	{"role": "note", "text": "…", "source": "upload:contract.pdf", "authenticated": true}
//
// FILE may also be a memory saved with Memory.ToJSON. A bad line stops the
// command with an error that names it ("chat.jsonl:7: role "bot" is none
// of …").
//
// ask prints every part of the composed context with its role, characters
// and tokens; where the cache breakpoint (Result.StableUpto) is; and the
// stretches of the conversation that reached the context, with their dates
// and scores. The question is asked at the newest turn's time, and a turn
// of a saved memory that has expired by then (byheart.Turn.Expires) is
// scored and counted as the "[expired]" the model is sent in its place.
// -text prints the parts in full, -json the Result itself.
// -outside FILE offers the items of a JSON array of {"text", "source"} as
// outside material, and ask shows for each what rule 4 compared it against
// and whether it was admitted and sent (Result.Outside); -compare and
// -margin set Options.ExternalCompare and ExternalMargin.
//
// replay composes before every user turn with that turn as the question,
// as a live chat does, and prices each call as a provider with prompt
// caching bills it, beside sending the whole history. -calls prints a line
// per call; -ttl 1h prices the one-hour cache (writes at 2×, warm across a
// pause under an hour) rather than the five-minute one.
//
// Install it with go install github.com/byheart/byheart/cmd/byheart@latest.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/pricing"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage:
  byheart ask [flags] FILE QUESTION   what the model receives for QUESTION
  byheart replay [flags] FILE         replay FILE as a live chat and price every call

FILE is JSON Lines, one turn per line ({"role": "user", "text": "…", "time": "2023-05-08T13:56:00Z"};
an agent's tool_call, tool_result and note turns also take "tool", "call_id", "source" and
"authenticated"), or a memory saved with Memory.ToJSON. Run "byheart ask -h" or "byheart replay -h"
for the flags.
`

// errUsage marks a command line that cannot run; its message has been
// printed already.
var errUsage = errors.New("usage")

// run runs the command and returns its exit status: 0, 1 when the command
// failed, 2 for a bad command line.
func run(args []string, stdout, stderr io.Writer) int {
	var err error
	switch {
	case len(args) == 0:
		fmt.Fprint(stderr, usage)
		return 2
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		fmt.Fprint(stdout, usage)
		return 0
	case args[0] == "ask":
		err = runAsk(args[1:], stdout, stderr)
	case args[0] == "replay":
		err = runReplay(args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "byheart: unknown command %q\n%s", args[0], usage)
		return 2
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "byheart:", err)
		return 1
	}
	return 0
}

// memoryFlags registers the flags that configure the Memory and returns
// them as Options once parsed.
func memoryFlags(fs *flag.FlagSet) func() byheart.Options {
	budget := fs.Int("budget", byheart.DefaultBudget, "context budget in characters")
	chunk := fs.Int("chunk", byheart.DefaultChunk, "characters at which a stretch closes")
	stability := fs.Float64("stability", 0, "0: the default sticky selection; in (0,1]: stickier as it grows; negative: reselect for every question")
	return func() byheart.Options {
		return byheart.Options{Budget: *budget, Chunk: *chunk, Stability: *stability}
	}
}

// parse parses a command's flags and checks it got want positional
// arguments, printing the command's usage when not.
func parse(fs *flag.FlagSet, args []string, want int, synopsis string) error {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: byheart %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() != want {
		fmt.Fprintf(fs.Output(), "byheart %s: want %d arguments, got %d\n", fs.Name(), want, fs.NArg())
		fs.Usage()
		return errUsage
	}
	return nil
}

func runAsk(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := memoryFlags(fs)
	var ao askOptions
	fs.BoolVar(&ao.text, "text", false, "print every part's text in full")
	fs.BoolVar(&ao.asJSON, "json", false, "print the Result as JSON instead")
	fs.StringVar(&ao.outside, "outside", "", "offer outside material from this JSON file, an array of {\"text\": …, \"source\": …}, and show what rule 4 decided on each item")
	compare := fs.String("compare", "either", "what an outside item is compared against: either, stretch, window, coverage, terms, gain, heaviest, context or either-query (see byheart.Comparison)")
	margin := fs.Float64("margin", 0, "Options.ExternalMargin: the head start outside items get, in the comparison's unit")
	if err := parse(fs, args, 2, "ask [flags] FILE QUESTION"); err != nil {
		return err
	}
	o := opts()
	cmp, ok := comparisons[*compare]
	if !ok {
		fmt.Fprintf(stderr, "byheart ask: -compare %q is none of either, stretch, window, coverage, terms, gain, heaviest, context, either-query\n", *compare)
		return errUsage
	}
	o.ExternalCompare, o.ExternalMargin = cmp, *margin
	return ask(stdout, fs.Arg(0), fs.Arg(1), o, ao)
}

func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := memoryFlags(fs)
	var ro replayOptions
	ttl := fs.String("ttl", "5m", "the lifetime of the provider's cache entries: 5m, or 1h, whose writes cost 2× rather than 1.25×")
	fs.DurationVar(&ro.gap, "gap", 0, "a pause between turns this long lets the provider's cache expire (default: the -ttl)")
	fs.BoolVar(&ro.calls, "calls", false, "print a line per call")
	if err := parse(fs, args, 1, "replay [flags] FILE"); err != nil {
		return err
	}
	switch *ttl {
	case "5m":
		ro.ttl = pricing.FiveMinutes
	case "1h":
		ro.ttl = pricing.OneHour
	default:
		fmt.Fprintf(stderr, "byheart replay: -ttl %q is neither 5m nor 1h\n", *ttl)
		return errUsage
	}
	if ro.gap <= 0 {
		ro.gap = ro.ttl.Life()
	}
	return replay(stdout, fs.Arg(0), opts(), ro)
}
