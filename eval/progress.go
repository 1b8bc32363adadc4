package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress shows how far a run has come on standard error. On a terminal
// each section has one line, rewritten in place as its runs finish: a bar,
// the runs done of those the section has started, and the time taken. The
// count never passes the total, because a section's total grows before any
// run of it is counted. Elsewhere (a file, a pipe, a test) it prints nothing
// unless asked, and then the line of each section once, when it ends.
type progress struct {
	w    io.Writer // progress, io.Discard when silent
	out  io.Writer // where notes go even when progress is silent; w when nil
	live bool      // rewrite the line in place: w is a terminal

	mu           sync.Mutex
	within       string // a stage that groups sections under one line, such as "pictures"
	key, detail  string // the section the line shows, and the runs it counts now
	ended, total int
	began, drawn time.Time
	width        int // of the line last drawn, to blank what a shorter one leaves
}

// newProgress reports on stderr: live when it is a terminal, once a
// section when verbose, and not at all otherwise; notes always.
func newProgress(stderr io.Writer, verbose bool) *progress {
	switch {
	case isTerminal(stderr):
		return &progress{w: stderr, out: stderr, live: true}
	case verbose:
		return &progress{w: stderr, out: stderr}
	}
	return &progress{w: io.Discard, out: stderr}
}

// isTerminal reports whether w is a character device, as a terminal is.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// stage groups the sections that follow under name until stage("").
func (p *progress) stage(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
	p.within = name
}

// start adds n runs of section. Runs of the same section in a row (the
// attack suite's arms, the budgets of the pictures) share its line; its
// name before the first comma is the section, the rest says which runs.
func (p *progress) start(section string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key, detail := section, ""
	if k, d, ok := strings.Cut(section, ", "); ok {
		key, detail = k, d
	}
	if p.within != "" {
		key, detail = p.within, section
	}
	fresh := key != p.key
	if fresh {
		p.endLocked()
		p.key, p.began = key, time.Now()
	}
	p.detail = detail
	p.total += n
	p.drawLocked(fresh)
}

// done counts one finished run.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended++
	p.drawLocked(p.ended == p.total)
}

// note ends the current line and prints msg on one of its own, such as
// where a picture went: a result of the run, said even when progress is not.
func (p *progress) note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
	out := p.out
	if out == nil {
		out = p.w
	}
	fmt.Fprintf(out, "eval: %s\n", msg)
}

// end finishes the current line.
func (p *progress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
}

func (p *progress) endLocked() {
	if p.key == "" {
		return
	}
	p.detail = ""
	if p.live {
		p.drawLocked(true)
		fmt.Fprintln(p.w)
	} else {
		fmt.Fprintln(p.w, p.lineLocked())
	}
	p.key, p.ended, p.total, p.width = "", 0, 0, 0
}

// drawLocked rewrites the line on a terminal, at most ten times a second
// unless forced.
func (p *progress) drawLocked(force bool) {
	if !p.live || !force && time.Since(p.drawn) < 100*time.Millisecond {
		return
	}
	p.drawn = time.Now()
	line := p.lineLocked()
	pad := max(p.width-len(line), 0)
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
}

// barWidth is the bar's length in characters.
const barWidth = 24

func (p *progress) lineLocked() string {
	filled := 0
	if p.total > 0 {
		filled = barWidth * p.ended / p.total
	}
	line := fmt.Sprintf("eval: %-12s [%s%s] %d/%d runs, %.1fs", p.key,
		strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), p.ended, p.total, time.Since(p.began).Seconds())
	if p.detail != "" {
		line += " (" + p.detail + ")"
	}
	return line
}
