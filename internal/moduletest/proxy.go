package moduletest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
)

// file is one file of a module, its name relative to the repository root.
type file struct {
	name string
	data []byte
}

// gitFiles returns the files of the repository at root as commit rev has
// them, read with git archive, as the Go module proxy reads a tagged
// version. Only regular files are kept: the proxy leaves out symbolic links.
func gitFiles(root, rev string) ([]file, error) {
	cmd := exec.Command("git", "archive", "--format=tar", rev)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git archive %s: %w", rev, commandError(err))
	}
	var files []file
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("git archive %s: %w", rev, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files = append(files, file{name: h.Name, data: data})
	}
}

// worktreeFiles returns the files under dir (relative to root, "." for all)
// as the working tree has them: tracked files with their uncommitted
// changes, and new files git does not ignore, so a release prepared from
// this tree is what gets tested.
func worktreeFiles(root, dir string) ([]file, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", dir)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", commandError(err))
	}
	var files []file
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		info, err := os.Lstat(filepath.Join(root, name))
		if errors.Is(err, os.ErrNotExist) || err == nil && !info.Mode().IsRegular() {
			continue // deleted but not yet committed, or a link
		}
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, err
		}
		files = append(files, file{name: name, data: data})
	}
	return files, nil
}

// subtree keeps the files under dir ("." for all), named from dir.
func subtree(files []file, dir string) []file {
	if dir == "." {
		return files
	}
	var out []file
	for _, f := range files {
		if name, ok := strings.CutPrefix(f.name, dir+"/"); ok {
			out = append(out, file{name: name, data: f.data})
		}
	}
	return out
}

// rootModule keeps the files that belong to the module at the repository
// root, as the go command zips a module: a directory holding a go.mod of
// its own is another module and is left out with everything under it.
// Vendor directories, whose rules this package does not follow, are
// refused.
func rootModule(files []file) ([]file, error) {
	var nested []string
	for _, f := range files {
		if path.Base(f.name) == "go.mod" && f.name != "go.mod" {
			nested = append(nested, path.Dir(f.name)+"/")
		}
	}
	var out []file
	for _, f := range files {
		if slicesHasPrefix(nested, f.name) {
			continue
		}
		if f.name == "vendor" || strings.HasPrefix(f.name, "vendor/") || strings.Contains(f.name, "/vendor/") {
			return nil, fmt.Errorf("%s: vendor directories are not supported", f.name)
		}
		out = append(out, f)
	}
	return out, nil
}

func slicesHasPrefix(prefixes []string, s string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// writeProxy adds module modPath at version to the file-based module proxy
// in dir (usable as GOPROXY=file://dir): the version list, its .info, .mod
// and .zip, laid out as the GOPROXY protocol asks.
func writeProxy(dir, modPath, version string, files []file, when time.Time) error {
	escaped, err := escapePath(modPath)
	if err != nil {
		return err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	var gomod []byte
	for _, f := range files {
		if f.name == "go.mod" {
			gomod = f.data
		}
	}
	if gomod == nil {
		return fmt.Errorf("%s@%s has no go.mod", modPath, version)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, when.UTC()})
	if err != nil {
		return err
	}
	zipped, err := moduleZip(modPath, version, files)
	if err != nil {
		return err
	}
	list, err := os.ReadFile(filepath.Join(vdir, "list"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	list = append(list, version+"\n"...)
	for name, data := range map[string][]byte{
		version + ".info": info, version + ".mod": gomod, version + ".zip": zipped, "list": list,
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// moduleZip is the module zip of files: each under "modPath@version/", in
// name order so the same files always make the same zip.
func moduleZip(modPath, version string, files []file) ([]byte, error) {
	sorted := append([]file(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range sorted {
		w, err := zw.Create(modPath + "@" + version + "/" + f.name)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// escapePath escapes a module path for the proxy's file names: each upper
// case letter becomes "!" and its lower case.
func escapePath(modPath string) (string, error) {
	var b strings.Builder
	for _, r := range modPath {
		switch {
		case r == '!' || r > unicode.MaxASCII:
			return "", fmt.Errorf("module path %q: unexpected character %q", modPath, r)
		case unicode.IsUpper(r):
			b.WriteByte('!')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}

// commandError adds what a failed command wrote to standard error.
func commandError(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, bytes.TrimSpace(exit.Stderr))
	}
	return err
}
