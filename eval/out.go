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
// and a receipt. Before anything is measured the run makes a staging folder
// inside the target, which proves it can write there, and draws into it;
// once all is written it moves an earlier run's files aside, moves its own
// in, and only then deletes the earlier ones. Staying inside the target keeps
// every move on one file system, whatever the target is (a link, a mounted
// volume, the working folder), so a run that fails leaves the folder as it
// was.

// The artifacts' file names, beside the pictures'.
const (
	tablesMarkdown = "tables.md"
	tablesJSON     = "results.json"
	reportPage     = "report.html"
)

// artifactNames are the files a run writes beside its receipt: all that
// -overwrite deletes, whatever an edited receipt lists.
var artifactNames = []string{tablesMarkdown, tablesJSON, reportPage, recallPicture, tokensPicture, cumulativePicture, paretoPicture}

// stagingPrefix begins the name of the folder a run stages its results in,
// and asideName names the folder inside it that holds an earlier run's
// results while the new ones move in.
const (
	stagingPrefix = ".eval-staging-"
	asideName     = "earlier"
)

// outFlags are -out, -overwrite and -verify, and the run's staging folder.
type outFlags struct {
	dir       string
	overwrite bool
	verify    string

	stage string // where the results are written until finish moves them into dir
	made  bool   // dir did not exist before this run
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
// verifies and lists only files a run writes (so only what an earlier run
// wrote, unedited, is replaced), or one where it cannot make its staging
// folder. -svg beside it is refused too: both would say where the pictures
// go. The caller calls discard when the run ends.
func (o *outFlags) ready(fs *flag.FlagSet) error {
	svg := false
	fs.Visit(func(f *flag.Flag) { svg = svg || f.Name == "svg" })
	if svg && o.dir != "" {
		return errors.New("-out puts the pictures into its folder; drop -svg")
	}
	if o.dir == "" {
		if o.overwrite {
			return errors.New("-overwrite needs -out")
		}
		return nil
	}
	if _, err := o.replaceable(); err != nil {
		return err
	}
	if _, err := os.Lstat(o.dir); errors.Is(err, os.ErrNotExist) {
		o.made = true
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	stage, err := os.MkdirTemp(o.dir, stagingPrefix)
	if err != nil {
		o.discard()
		return fmt.Errorf("-out: cannot write into %s: %w", o.dir, err)
	}
	o.stage = stage
	return nil
}

// replaceable is the receipt of the results in the -out folder this run
// may replace: nil when the folder is missing or holds nothing but this
// run's staging folder.
func (o *outFlags) replaceable() (*receipt, error) {
	entries, err := os.ReadDir(o.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("-out: %w", err)
	}
	own := ""
	if o.stage != "" {
		own = filepath.Base(o.stage)
	}
	entries = slices.DeleteFunc(entries, func(e os.DirEntry) bool { return e.Name() == own })
	if len(entries) == 0 {
		return nil, nil
	}
	if !o.overwrite {
		return nil, fmt.Errorf("%s: %w (%d files); pass -overwrite to replace the results of an earlier -out run there", o.dir, errNotEmpty, len(entries))
	}
	old, _, err := verifyBut(o.dir, own)
	if err == nil {
		var foreign []error
		for _, a := range old.Artifacts {
			if !slices.Contains(artifactNames, a.Path) {
				foreign = append(foreign, fmt.Errorf("%s is not a file eval writes", a.Path))
			}
		}
		if len(foreign) > 0 {
			err = &mismatch{o.dir, foreign}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("-overwrite refused, so nothing in the folder is lost: %w", err)
	}
	return old, nil
}

// discard removes what a run that did not finish wrote: its staging
// folder, and the -out folder when the run made it and it is empty.
func (o *outFlags) discard() {
	if o.stage != "" {
		_ = os.RemoveAll(o.stage)
		o.stage = ""
	}
	if o.made {
		_ = os.Remove(o.dir) // only if empty
	}
}

// finish writes the tables, the page and the receipt beside the pictures
// already in the staging folder, then swaps them in.
func (o *outFlags) finish(res *results, args, data []string) error {
	var md strings.Builder
	if err := writeMarkdown(&md, res); err != nil {
		return err
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	pictures, err := filepath.Glob(filepath.Join(o.stage, "*.svg"))
	if err != nil {
		return err
	}
	for i := range pictures {
		pictures[i] = filepath.Base(pictures[i])
	}
	slices.Sort(pictures)
	page, err := reportHTML(md.String(), o.stage, pictures)
	if err != nil {
		return err
	}
	for name, body := range map[string][]byte{tablesMarkdown: []byte(md.String()), tablesJSON: append(js, '\n'), reportPage: []byte(page)} {
		if err := os.WriteFile(filepath.Join(o.stage, name), body, 0o644); err != nil {
			return err
		}
	}
	artifacts := append([]string{tablesMarkdown, tablesJSON, reportPage}, pictures...)
	rc, err := newReceipt(args, data, o.stage, artifacts)
	if err != nil {
		return err
	}
	if err := rc.write(o.stage); err != nil {
		return err
	}
	return o.swap(append(artifacts, receiptName))
}

// swap moves the staged files named into the -out folder in place of an
// earlier run's results, verified again now since the run took a while:
// those move aside into the staging folder, the new ones move in, and only
// then are the earlier ones deleted. A move that fails puts back what moved.
func (o *outFlags) swap(names []string) error {
	old, err := o.replaceable()
	if err != nil {
		return err
	}
	aside := filepath.Join(o.stage, asideName)
	if err := os.Mkdir(aside, 0o700); err != nil {
		return err
	}
	var earlier []string
	if old != nil {
		for _, a := range old.Artifacts {
			earlier = append(earlier, a.Path)
		}
		earlier = append(earlier, receiptName)
	}
	if moved, err := move(o.dir, aside, earlier); err != nil {
		return o.undo(err, moved, nil)
	}
	if placed, err := move(o.stage, o.dir, names); err != nil {
		return o.undo(err, earlier, placed)
	}
	o.made = false
	return o.drop(old, aside)
}

// move renames the files named from one folder into another, both inside
// the -out folder, and returns those it moved.
func move(from, to string, names []string) ([]string, error) {
	for i, name := range names {
		if err := os.Rename(filepath.Join(from, name), filepath.Join(to, name)); err != nil {
			return names[:i], err
		}
	}
	return nil, nil
}

// undo puts back what swap moved before it failed with err: the new files
// placed in the -out folder back into staging, the earlier ones back from
// aside. Should that fail too, the staging folder is kept, and the error
// says where each run's files are.
func (o *outFlags) undo(err error, aside, placed []string) error {
	_, errBack := move(o.dir, o.stage, placed)
	if errBack == nil {
		_, errBack = move(filepath.Join(o.stage, asideName), o.dir, aside)
	}
	if errBack != nil {
		kept := o.stage
		o.stage = "" // discard must not remove it
		return fmt.Errorf("%w; putting the files back failed too (%v): the earlier results are in %s, the new ones in %s", err, errBack, filepath.Join(kept, asideName), kept)
	}
	return err
}

// drop deletes the earlier results swap moved aside, each only when it is
// still the file the earlier receipt vouched for; one that changed during
// the swap is kept, and the error says where.
func (o *outFlags) drop(old *receipt, aside string) error {
	var kept []string
	if old != nil {
		for _, a := range old.Artifacts {
			path := filepath.Join(aside, a.Path)
			if h, err := hashRegular(path, a.Path, false, maxVerifyBytes); err != nil || h.SHA256 != a.SHA256 || h.Bytes != a.Bytes {
				kept = append(kept, a.Path)
				continue
			}
			if err := os.Remove(path); err != nil {
				return err
			}
		}
		path := filepath.Join(aside, receiptName)
		if fi, err := os.Lstat(path); err != nil || regular(fi, receiptName, maxReceiptBytes) != nil {
			kept = append(kept, receiptName)
		} else if err := os.Remove(path); err != nil {
			return err
		}
	}
	if len(kept) > 0 {
		stage := o.stage
		o.stage = "" // discard must not remove it
		return fmt.Errorf("the new results are in place, but %s changed during the swap, so kept in %s", strings.Join(kept, ", "), filepath.Join(stage, asideName))
	}
	if err := os.Remove(aside); err != nil {
		return err
	}
	err := os.Remove(o.stage)
	o.stage = ""
	return err
}
