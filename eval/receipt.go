package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// A receipt says where a folder of results came from: the command that
// wrote it, the data it read, the code that measured, and a SHA-256 of every
// file it wrote, so that anyone holding the folder can check nothing in it
// was edited or swapped since, and that a later run overwrites only what an
// earlier run wrote.

// receiptName is the receipt's file name inside an -out folder, and
// receiptFormat its format, which verify insists on.
const (
	receiptName   = "receipt.json"
	receiptFormat = "byheart-eval-receipt/1"
)

// Errors verify and the -out folder checks return, for callers that branch.
var (
	// errNoReceipt: the folder holds no receipt.json.
	errNoReceipt = errors.New("no " + receiptName)
	// errReceiptMismatch: the folder does not match its receipt.
	errReceiptMismatch = errors.New("the folder does not match its receipt")
	// errNotEmpty: -out names a folder that already holds files.
	errNotEmpty = errors.New("the -out folder is not empty")
)

// receipt is receipt.json.
type receipt struct {
	Format  string    `json:"format"`
	Command string    `json:"command"`
	Args    []string  `json:"args"`
	Created time.Time `json:"created"`
	Go      string    `json:"go"`
	Code    codeInfo  `json:"code"`
	// Data are the files the run read.
	Data []fileHash `json:"data"`
	// Artifacts are the files the run wrote beside the receipt, by name.
	Artifacts []fileHash `json:"artifacts"`
}

// codeInfo is the version of the code that measured.
type codeInfo struct {
	// Revision is the commit, Modified whether the checkout had changes
	// on top of it.
	Revision string `json:"revision"`
	Modified bool   `json:"modified"`
	// Describe is git describe's name for the checkout, when git said one.
	Describe string `json:"describe,omitempty"`
	// Source says where Revision came from: the binary's build info, git,
	// or nowhere ("unknown").
	Source string `json:"source"`
}

// fileHash is a file and its SHA-256.
type fileHash struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// hashFile is path's SHA-256 and size.
func hashFile(path string) (fileHash, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileHash{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fileHash{}, err
	}
	return fileHash{Path: path, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// codeVersion is the measuring code's version: the build info's VCS stamp
// when the binary carries one (go build), else what git says of the module
// root (go run does not stamp), else unknown.
func codeVersion() codeInfo {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var c codeInfo
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				c.Revision = s.Value
			case "vcs.modified":
				c.Modified = s.Value == "true"
			}
		}
		if c.Revision != "" {
			c.Source = "build info"
			return c
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return codeInfo{Source: "unknown"}
	}
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	rev, err := git("rev-parse", "HEAD")
	if err != nil {
		return codeInfo{Source: "unknown"}
	}
	c := codeInfo{Revision: rev, Source: "git"}
	if status, err := git("status", "--porcelain", "--untracked-files=no"); err == nil {
		c.Modified = status != ""
	}
	c.Describe, _ = git("describe", "--always", "--dirty")
	return c
}

// newReceipt is the receipt of a run with args that read data and wrote
// the named artifacts into dir.
func newReceipt(args []string, data []string, dir string, artifacts []string) (*receipt, error) {
	r := &receipt{
		Format:  receiptFormat,
		Command: strings.Join(append([]string{"go run ./eval"}, args...), " "),
		Args:    args,
		Created: time.Now().UTC().Truncate(time.Second),
		Go:      runtime.Version(),
		Code:    codeVersion(),
	}
	for _, path := range data {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		h, err := hashFile(abs)
		if err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		r.Data = append(r.Data, h)
	}
	for _, name := range artifacts {
		h, err := hashFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		h.Path = name
		r.Artifacts = append(r.Artifacts, h)
	}
	return r, nil
}

// write puts the receipt into dir.
func (r *receipt) write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, receiptName), append(b, '\n'), 0o644)
}

// readReceipt reads dir's receipt, refusing one whose artifact names leave
// the folder, since verify and -overwrite act on them.
func readReceipt(dir string) (*receipt, error) {
	b, err := os.ReadFile(filepath.Join(dir, receiptName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, errNoReceipt)
	}
	if err != nil {
		return nil, err
	}
	var r receipt
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w: %s is not JSON: %v", dir, errReceiptMismatch, receiptName, err)
	}
	if r.Format != receiptFormat {
		return nil, fmt.Errorf("%s: %w: format %q, want %q", dir, errReceiptMismatch, r.Format, receiptFormat)
	}
	for _, a := range r.Artifacts {
		if a.Path == "" || a.Path != filepath.Base(a.Path) || a.Path == "." || a.Path == ".." || a.Path == receiptName {
			return nil, fmt.Errorf("%s: %w: artifact name %q is not a file of the folder", dir, errReceiptMismatch, a.Path)
		}
	}
	return &r, nil
}

// verify checks dir against its receipt: every artifact there with its
// hash, no file the receipt does not list, and every data file that is
// still where the receipt says with the hash the run read. It returns the
// receipt, and an error naming every difference. A data file no longer
// there is not a difference (results travel without their data); notes
// says which were not checked.
func verify(dir string) (r *receipt, notes []string, err error) {
	if r, err = readReceipt(dir); err != nil {
		return nil, nil, err
	}
	var problems []string
	listed := map[string]bool{receiptName: true}
	for _, a := range r.Artifacts {
		listed[a.Path] = true
		got, err := hashFile(filepath.Join(dir, a.Path))
		switch {
		case errors.Is(err, os.ErrNotExist):
			problems = append(problems, a.Path+" is missing")
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", a.Path, err))
		case got.SHA256 != a.SHA256 || got.Bytes != a.Bytes:
			problems = append(problems, fmt.Sprintf("%s has SHA-256 %s (%d bytes), the receipt says %s (%d bytes)", a.Path, got.SHA256, got.Bytes, a.SHA256, a.Bytes))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			problems = append(problems, e.Name()+" is not in the receipt")
		}
	}
	for _, d := range r.Data {
		got, err := hashFile(d.Path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			notes = append(notes, "data "+d.Path+" is not there, so not checked")
		case err != nil:
			problems = append(problems, fmt.Sprintf("data %s: %v", d.Path, err))
		case got.SHA256 != d.SHA256:
			problems = append(problems, fmt.Sprintf("data %s has changed since the run: SHA-256 %s, the receipt says %s", d.Path, got.SHA256, d.SHA256))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return r, notes, fmt.Errorf("%s: %w:\n  %s", dir, errReceiptMismatch, strings.Join(problems, "\n  "))
	}
	return r, notes, nil
}

// verifyCommand is -verify: it prints what the receipt vouches for, or
// returns the differences.
func verifyCommand(dir string, stdout io.Writer) error {
	r, notes, err := verify(dir)
	if err != nil {
		return err
	}
	modified := ""
	if r.Code.Modified {
		modified = " with uncommitted changes"
	}
	fmt.Fprintf(stdout, "%s: verified: %d artifacts match %s, written %s by %q at %s%s (%s)\n",
		dir, len(r.Artifacts), receiptName, r.Created.Format(time.RFC3339), r.Command, r.Code.Revision, modified, r.Go)
	for _, n := range notes {
		fmt.Fprintf(stdout, "  note: %s\n", n)
	}
	return nil
}
