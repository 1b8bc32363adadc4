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
// was changed by accident since, and that a later run overwrites only what
// an earlier run wrote. It is no signature: whoever edits a file can
// recompute its hash in the receipt, and the folder verifies.

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
	// errNotRegular: a file verify would read is a link, a pipe, a
	// device, a folder, or too large; it reads none of those.
	errNotRegular = fmt.Errorf("verify reads only regular files of at most %d MiB", maxVerifyBytes>>20)
)

// maxVerifyBytes bounds every file verify reads, and maxReceiptBytes the
// receipt: the folder verify checks is someone else's, and nothing in it may
// keep verify reading.
const (
	maxVerifyBytes  = 1 << 30
	maxReceiptBytes = 1 << 20
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

// hashFile is the SHA-256 and size of the regular file at path,
// following a symbolic link: what a run read or wrote.
func hashFile(path string) (fileHash, error) {
	return hashRegular(path, path, true, maxVerifyBytes)
}

// hashRegular is the SHA-256 and size of the file at path, which must be a
// regular file of at most limit bytes; a symbolic link is followed only when
// follow says so. name is what an error calls the file.
func hashRegular(path, name string, follow bool, limit int64) (fileHash, error) {
	f, err := openRegular(path, name, follow, limit)
	if err != nil {
		return fileHash{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return fileHash{}, err
	}
	if n > limit { // it grew since it was opened
		return fileHash{}, fmt.Errorf("%s has more than %d bytes; %w", name, limit, errNotRegular)
	}
	return fileHash{Path: path, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// openRegular opens the file at path for reading after checking, before
// and after the open, that it is a regular file of at most limit bytes: a
// named pipe or a device would never end, or never answer. The open itself
// neither blocks nor follows a final link (openFlags), so what is swapped
// in between the checks is refused too.
func openRegular(path, name string, follow bool, limit int64) (*os.File, error) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	before, err := stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(before, name, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags(follow), 0)
	if err != nil {
		return nil, err
	}
	after, err := f.Stat()
	switch {
	case err != nil:
	case !os.SameFile(before, after):
		err = fmt.Errorf("%s was replaced while verify opened it; %w", name, errNotRegular)
	default:
		err = regular(after, name, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regular says what fi is when it is not a regular file of at most limit
// bytes.
func regular(fi os.FileInfo, name string, limit int64) error {
	var kind string
	switch m := fi.Mode(); {
	case m.IsRegular():
		if fi.Size() <= limit {
			return nil
		}
		return fmt.Errorf("%s has more than %d bytes; %w", name, limit, errNotRegular)
	case m&os.ModeSymlink != 0:
		kind = "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&os.ModeDevice != 0:
		kind = "a device"
	case m.IsDir():
		kind = "a folder"
	case m&os.ModeSocket != 0:
		kind = "a socket"
	default:
		kind = "not a regular file"
	}
	return fmt.Errorf("%s is %s; %w", name, kind, errNotRegular)
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
	f, err := openRegular(filepath.Join(dir, receiptName), receiptName, false, maxReceiptBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, errNoReceipt)
	}
	if errors.Is(err, errNotRegular) {
		return nil, &mismatch{dir, []error{err}}
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r receipt
	if err := json.NewDecoder(f).Decode(&r); err != nil {
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

// mismatch is verify's error: every way the folder differs from its
// receipt. It is errReceiptMismatch, and errNotRegular too when a file
// verify would read is not one it reads.
type mismatch struct {
	dir      string
	problems []error
}

func (m *mismatch) Error() string {
	lines := make([]string, len(m.problems))
	for i, p := range m.problems {
		lines[i] = p.Error()
	}
	slices.Sort(lines)
	return fmt.Sprintf("%s: %v:\n  %s", m.dir, errReceiptMismatch, strings.Join(lines, "\n  "))
}

func (m *mismatch) Unwrap() []error { return append([]error{errReceiptMismatch}, m.problems...) }

// verify checks dir against its receipt: every artifact there with its
// hash, no file the receipt does not list, and every data file that is
// still where the receipt says with the hash the run read. It reads only
// regular files, the folder's own not through a link, each bounded in size.
// It returns the receipt, and an error naming every difference. A data file
// no longer there is not a difference (results travel without their data);
// notes says which were not checked.
func verify(dir string) (r *receipt, notes []string, err error) {
	return verifyBut(dir, "")
}

// verifyBut is verify with one more name the folder may hold: the staging
// folder of the run about to replace it.
func verifyBut(dir, staging string) (r *receipt, notes []string, err error) {
	if r, err = readReceipt(dir); err != nil {
		return nil, nil, err
	}
	var problems []error
	listed := map[string]bool{receiptName: true, staging: staging != ""}
	for _, a := range r.Artifacts {
		listed[a.Path] = true
		got, err := hashRegular(filepath.Join(dir, a.Path), a.Path, false, maxVerifyBytes)
		switch {
		case errors.Is(err, os.ErrNotExist):
			problems = append(problems, errors.New(a.Path+" is missing"))
		case errors.Is(err, errNotRegular):
			problems = append(problems, err)
		case err != nil:
			problems = append(problems, fmt.Errorf("%s: %v", a.Path, err))
		case got.SHA256 != a.SHA256 || got.Bytes != a.Bytes:
			problems = append(problems, fmt.Errorf("%s has SHA-256 %s (%d bytes), the receipt says %s (%d bytes)", a.Path, got.SHA256, got.Bytes, a.SHA256, a.Bytes))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			problems = append(problems, errors.New(e.Name()+" is not in the receipt"))
		}
	}
	for _, d := range r.Data {
		got, err := hashRegular(d.Path, "data "+d.Path, true, maxVerifyBytes)
		switch {
		case errors.Is(err, os.ErrNotExist):
			notes = append(notes, "data "+d.Path+" is not there, so not checked")
		case errors.Is(err, errNotRegular):
			problems = append(problems, err)
		case err != nil:
			problems = append(problems, fmt.Errorf("data %s: %v", d.Path, err))
		case got.SHA256 != d.SHA256:
			problems = append(problems, fmt.Errorf("data %s has changed since the run: SHA-256 %s, the receipt says %s", d.Path, got.SHA256, d.SHA256))
		}
	}
	if len(problems) > 0 {
		return r, notes, &mismatch{dir, problems}
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
