package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// -out writes a run's results into a folder of their own: the tables as
// Markdown and JSON, the pictures, report.html with all of them on one page,
// and a receipt. The run draws into a staging folder beside the target and
// moves the files in only once all are written, so a run that fails leaves
// the folder as it was.

// The artifacts' file names, beside the pictures'.
const (
	tablesMarkdown = "tables.md"
	tablesJSON     = "results.json"
	reportPage     = "report.html"
)

// outFlags are -out, -overwrite and -verify.
type outFlags struct {
	dir       string
	overwrite bool
	verify    string
}

func addOutFlags(fs *flag.FlagSet) *outFlags {
	o := &outFlags{}
	fs.StringVar(&o.dir, "out", "", "write the tables (Markdown and JSON), the pictures, report.html and receipt.json into this folder, which must be empty or missing (see -overwrite)")
	fs.BoolVar(&o.overwrite, "overwrite", false, "with -out: replace a folder's earlier results, if its receipt verifies")
	fs.StringVar(&o.verify, "verify", "", "check the receipt of a folder -out wrote, and exit")
	return o
}

// ready refuses, before anything is measured, a folder this run may not
// write: one with files in it, unless -overwrite is given and its receipt
// verifies (so only what an earlier run wrote, unedited, is replaced).
// -svg beside it is refused too: both would say where the pictures go.
func (o *outFlags) ready(fs *flag.FlagSet) error {
	svg := false
	fs.Visit(func(f *flag.Flag) { svg = svg || f.Name == "svg" })
	if svg && o.dir != "" {
		return errors.New("-out puts the pictures into its folder; drop -svg")
	}
	return o.writable()
}

// writable is ready's check of the folder.
func (o *outFlags) writable() error {
	if o.dir == "" {
		if o.overwrite {
			return errors.New("-overwrite needs -out")
		}
		return nil
	}
	entries, err := os.ReadDir(o.dir)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	if !o.overwrite {
		return fmt.Errorf("%s: %w (%d files); pass -overwrite to replace the results of an earlier -out run there", o.dir, errNotEmpty, len(entries))
	}
	if _, _, err := verify(o.dir); err != nil {
		return fmt.Errorf("-overwrite refused, so nothing in the folder is lost: %w", err)
	}
	return nil
}

// staging is the folder this run's pictures and artifacts are drawn into.
func (o *outFlags) staging() (string, error) {
	parent := filepath.Dir(filepath.Clean(o.dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(o.dir))+".staging-")
}

// finish writes the tables, the page and the receipt beside the pictures
// already in stage, then moves them into the -out folder, replacing an
// earlier run's results (ready has verified them).
func (o *outFlags) finish(stage string, res *results, args, data []string) error {
	var md strings.Builder
	if err := writeMarkdown(&md, res); err != nil {
		return err
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	pictures, err := filepath.Glob(filepath.Join(stage, "*.svg"))
	if err != nil {
		return err
	}
	for i := range pictures {
		pictures[i] = filepath.Base(pictures[i])
	}
	slices.Sort(pictures)
	page, err := reportHTML(md.String(), stage, pictures)
	if err != nil {
		return err
	}
	for name, body := range map[string][]byte{tablesMarkdown: []byte(md.String()), tablesJSON: append(js, '\n'), reportPage: []byte(page)} {
		if err := os.WriteFile(filepath.Join(stage, name), body, 0o644); err != nil {
			return err
		}
	}
	artifacts := append([]string{tablesMarkdown, tablesJSON, reportPage}, pictures...)
	rc, err := newReceipt(args, data, stage, artifacts)
	if err != nil {
		return err
	}
	if err := rc.write(stage); err != nil {
		return err
	}
	if err := o.clear(); err != nil {
		return err
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	for _, name := range append(artifacts, receiptName) {
		if err := os.Rename(filepath.Join(stage, name), filepath.Join(o.dir, name)); err != nil {
			return err
		}
	}
	return os.Remove(stage)
}

// clear removes an earlier run's artifacts and receipt from the -out
// folder, verified again now, since the run took a while.
func (o *outFlags) clear() error {
	if _, err := os.Stat(filepath.Join(o.dir, receiptName)); errors.Is(err, os.ErrNotExist) {
		return o.writable() // an empty folder is fine; one filled meanwhile is not
	}
	old, _, err := verify(o.dir)
	if err != nil {
		return fmt.Errorf("-overwrite refused, so nothing in the folder is lost: %w", err)
	}
	for _, a := range old.Artifacts {
		if err := os.Remove(filepath.Join(o.dir, a.Path)); err != nil {
			return err
		}
	}
	return os.Remove(filepath.Join(o.dir, receiptName))
}
