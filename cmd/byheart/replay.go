package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/byheart/byheart"
	"github.com/byheart/byheart/internal/pricing"
)

// replayOptions are the replay command's own flags.
type replayOptions struct {
	ttl   pricing.TTL   // the lifetime of the provider's cache entries
	gap   time.Duration // a pause this long lets the provider's cache expire
	calls bool          // print a line per call
}

// bill sums what a run of calls cost.
type bill struct {
	calls, hits, rebuilds int
	prompt, effective     float64
}

func (b *bill) add(p pricing.Bill, rebuilt bool) {
	b.calls++
	b.prompt += p.Prompt()
	b.effective += p.Effective()
	if p.Hit() {
		b.hits++
	}
	if rebuilt {
		b.rebuilds++
	}
}

// replay plays the conversation in path as a live chat: before each user
// turn is appended, byheart composes with it as the question, and the call
// is priced as a provider with prompt caching bills it, beside what sending
// the whole history would cost.
func replay(w io.Writer, path string, opts byheart.Options, ro replayOptions) error {
	conv, err := read(path)
	if err != nil {
		return err
	}
	m := byheart.New(opts)
	cache, fullCache := pricing.Cache{TTL: ro.ttl}, pricing.Cache{TTL: ro.ttl}
	var mine, full bill
	var b strings.Builder
	if ro.calls {
		b.WriteString(" call   turn  context  breakpoint     read  written    plain  effective  full history  note\n")
	}
	var last time.Time
	cold := 0
	for i, t := range conv.turns {
		if t.Role == byheart.User {
			r, err := m.ComposeAt(context.Background(), t.Text, t.Time) // asked when it was said
			if err != nil {
				return fmt.Errorf("%s:%d: %w", path, t.line, err)
			}
			isCold := mine.calls == 0 || t.Time.Sub(last) >= ro.gap
			if isCold {
				cold++
			}
			last = t.Time
			p := cache.Charge(blocksOf(flatten(r)), r.StableUpto, isCold)
			mine.add(p, r.Reselected())
			f := fullCache.Charge(historyBlocks(conv.turns[:i], t.Text), i-1, isCold)
			full.add(f, false)
			if ro.calls {
				writeCall(&b, mine.calls, i, r, p, f, isCold)
			}
		}
		if _, err := m.AppendTurn(t.Turn); err != nil {
			return fmt.Errorf("%s:%d: %w", path, t.line, err)
		}
	}
	if mine.calls == 0 {
		return fmt.Errorf("%s: no user turn, so no call to replay", path)
	}
	writeBill(&b, path, opts, ro, mine, full, cold)
	_, err = io.WriteString(w, b.String())
	return err
}

// blocksOf makes a Result's parts the blocks a provider caches.
func blocksOf(parts []flatPart) []pricing.Block {
	out := make([]pricing.Block, len(parts))
	for i, p := range parts {
		out[i] = pricing.Block{Role: string(p.role), Text: p.text}
	}
	return out
}

// historyBlocks is the whole history, a block per turn, then the question.
func historyBlocks(turns []numbered, question string) []pricing.Block {
	out := make([]pricing.Block, 0, len(turns)+1)
	for _, t := range turns {
		out = append(out, pricing.Block{Role: string(t.Role), Text: t.Text})
	}
	return append(out, pricing.Block{Role: string(byheart.User), Text: question})
}

func writeCall(b *strings.Builder, call, turn int, r byheart.Result, p, full pricing.Bill, cold bool) {
	chars := 0
	parts := flatten(r)
	for _, part := range parts[:len(parts)-1] {
		chars += utf8.RuneCountInString(part.text)
	}
	var notes []string
	if cold {
		notes = append(notes, "cold")
	}
	if r.Reselected() {
		notes = append(notes, "rebuilt")
	}
	fmt.Fprintf(b, "%5d  %5d  %7s  %10d  %7s  %7s  %7s  %9s  %12s  %s\n", call, turn, thousands(chars), r.StableUpto,
		thousands(int(p.Read)), thousands(int(p.Written)), thousands(int(p.Plain)), thousands(int(p.Effective())),
		thousands(int(full.Effective())), strings.Join(notes, ", "))
}

func writeBill(b *strings.Builder, path string, opts byheart.Options, ro replayOptions, mine, full bill, cold int) {
	if ro.calls {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "%s replayed as a live chat: %s calls, one per user turn, composed before the turn is appended. Budget: %s characters.\n\n",
		path, thousands(mine.calls), thousands(budgetOf(opts)))
	per := func(x float64) string { return thousands(int(x/float64(mine.calls) + 0.5)) }
	share := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(mine.calls)) }
	b.WriteString("                            byheart  full history\n")
	fmt.Fprintf(b, "prompt tokens per call    %9s  %12s\n", per(mine.prompt), per(full.prompt))
	fmt.Fprintf(b, "effective tokens per call %9s  %12s\n", per(mine.effective), per(full.effective))
	fmt.Fprintf(b, "calls reading the cache   %9s  %12s\n", share(mine.hits), share(full.hits))
	fmt.Fprintf(b, "rebuilds                  %9s  %12s\n", thousands(mine.rebuilds), "—")
	fmt.Fprintf(b, "\nCold starts: %s (the first call, and each after a pause of %s or more).\n", thousands(cold), ro.gap)
	write := "1.25×, for five minutes"
	if ro.ttl == pricing.OneHour {
		write = "2×, for an hour"
	}
	fmt.Fprintf(b, "Pricing: tokens are characters / 4; a cacheable prefix (byheart's parts up to StableUpto; every earlier\n"+
		"turn for the full history) of at least 1,024 tokens is written at %s, and read back at 0.1× by a later\n"+
		"call of the session that begins with the same blocks and breaks within 20 blocks after them; everything\n"+
		"else is billed at 1×.\n", write)
}
