package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outRun runs the benchmark on the tiny fixture into dir with extra flags.
func outRun(t *testing.T, data, dir string, extra ...string) error {
	t.Helper()
	args := append([]string{"-locomo", data, "-budget", "50", "-only", "recall,replay,temporal,policies", "-out", dir}, extra...)
	return run(args, &bytes.Buffer{}, &bytes.Buffer{})
}

func TestOutWritesEveryArtifactAndAReceiptThatVerifies(t *testing.T) {
	data, dir := tinyPath(t), filepath.Join(t.TempDir(), "results")
	require.NoError(t, outRun(t, data, dir))

	r, notes, err := verify(dir)
	require.NoError(t, err)
	assert.Empty(t, notes, "the data is where the run read it")
	var names []string
	for _, a := range r.Artifacts {
		names = append(names, a.Path)
	}
	assert.Subset(t, names, []string{tablesMarkdown, tablesJSON, reportPage, recallPicture, tokensPicture, cumulativePicture, paretoPicture})
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, len(r.Artifacts)+1, "the artifacts and the receipt, nothing else")

	want, err := hashFile(data)
	require.NoError(t, err)
	require.Len(t, r.Data, 1)
	assert.Equal(t, want.SHA256, r.Data[0].SHA256)
	assert.Contains(t, r.Command, "go run ./eval -locomo "+data)
	if rev, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		assert.Equal(t, strings.TrimSpace(string(rev)), r.Code.Revision, "the checkout's revision")
		assert.NotEqual(t, "unknown", r.Code.Source)
	} else {
		// Outside a checkout (a module download, an archive) nothing can
		// say which code ran, and the receipt must not pretend to.
		assert.Empty(t, r.Code.Revision)
		assert.Equal(t, "unknown", r.Code.Source)
	}

	md, err := os.ReadFile(filepath.Join(dir, tablesMarkdown))
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Evidence recall at 50 characters")
	var js map[string]any
	b, err := os.ReadFile(filepath.Join(dir, tablesJSON))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &js))
	assert.Contains(t, js, "recall")

	parent, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	assert.Len(t, parent, 1, "the staging folder is gone")

	var out bytes.Buffer
	require.NoError(t, run([]string{"-verify", dir}, &out, &bytes.Buffer{}))
	assert.Contains(t, out.String(), "verified: ")
}

func TestVerifyNamesEveryDifference(t *testing.T) {
	data := tinyPath(t)
	for _, tc := range []struct {
		name   string
		spoil  func(t *testing.T, dir string)
		saying string
	}{
		{"an edited table", func(t *testing.T, dir string) {
			appendTo(t, filepath.Join(dir, tablesMarkdown), "| recall | 1.000 |\n")
		}, tablesMarkdown + " has SHA-256"},
		{"a picture removed", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, recallPicture)))
		}, recallPicture + " is missing"},
		{"a file added", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "better.svg"), []byte("<svg/>"), 0o644))
		}, "better.svg is not in the receipt"},
		{"the data changed since", func(t *testing.T, dir string) {
			appendTo(t, data, " ")
		}, "has changed since the run"},
		{"an artifact named outside the folder", func(t *testing.T, dir string) {
			editReceipt(t, dir, func(r *receipt) { r.Artifacts[0].Path = "../elsewhere" })
		}, "is not a file of the folder"},
		{"a receipt of another format", func(t *testing.T, dir string) {
			editReceipt(t, dir, func(r *receipt) { r.Format = "v0" })
		}, "format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "results")
			require.NoError(t, outRun(t, data, dir))
			before, err := os.ReadFile(data)
			require.NoError(t, err)
			t.Cleanup(func() { _ = os.WriteFile(data, before, 0o644) })
			tc.spoil(t, dir)

			_, _, err = verify(dir)
			require.ErrorIs(t, err, errReceiptMismatch)
			assert.Contains(t, err.Error(), tc.saying)
			assert.Error(t, run([]string{"-verify", dir}, &bytes.Buffer{}, &bytes.Buffer{}), "-verify fails too")
		})
	}
}

func TestVerifyNotesDataThatTravelledApart(t *testing.T) {
	data, dir := tinyPath(t), filepath.Join(t.TempDir(), "results")
	require.NoError(t, outRun(t, data, dir))
	require.NoError(t, os.Remove(data))
	_, notes, err := verify(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"data " + data + " is not there, so not checked"}, notes)
}

func TestOutRefusesAFolderItMayNotReplace(t *testing.T) {
	data := tinyPath(t)
	t.Run("a folder of other files, with or without -overwrite", func(t *testing.T) {
		dir := t.TempDir()
		notes := filepath.Join(dir, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("mine"), 0o644))
		assert.ErrorIs(t, outRun(t, data, dir), errNotEmpty)
		assert.ErrorIs(t, outRun(t, data, dir, "-overwrite"), errNoReceipt)
		got, err := os.ReadFile(notes)
		require.NoError(t, err)
		assert.Equal(t, "mine", string(got), "nothing lost")
	})
	t.Run("an earlier run's folder, without -overwrite", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "results")
		require.NoError(t, outRun(t, data, dir))
		assert.ErrorIs(t, outRun(t, data, dir), errNotEmpty)
	})
	t.Run("an earlier run's folder that no longer verifies", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "results")
		require.NoError(t, outRun(t, data, dir))
		appendTo(t, filepath.Join(dir, reportPage), "<!-- edited -->")
		assert.ErrorIs(t, outRun(t, data, dir, "-overwrite"), errReceiptMismatch)
		page, err := os.ReadFile(filepath.Join(dir, reportPage))
		require.NoError(t, err)
		assert.True(t, strings.HasSuffix(string(page), "<!-- edited -->"), "the edit is kept, for whoever made it")
	})
	t.Run("-overwrite alone", func(t *testing.T) {
		assert.Error(t, run([]string{"-locomo", data, "-overwrite"}, &bytes.Buffer{}, &bytes.Buffer{}))
	})
	t.Run("-svg beside -out", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "results")
		assert.ErrorContains(t, outRun(t, data, dir, "-svg", t.TempDir()), "drop -svg")
		_, err := os.Stat(dir)
		assert.ErrorIs(t, err, os.ErrNotExist, "nothing written")
	})
}

func TestOutOverwritesAFolderWhoseReceiptVerifies(t *testing.T) {
	data, dir := tinyPath(t), filepath.Join(t.TempDir(), "results")
	require.NoError(t, outRun(t, data, dir))
	first, _, err := verify(dir)
	require.NoError(t, err)
	// The second run draws fewer pictures, so an old one must go.
	require.NoError(t, run([]string{"-locomo", data, "-budget", "60", "-only", "temporal", "-out", dir, "-overwrite"}, &bytes.Buffer{}, &bytes.Buffer{}))
	second, _, err := verify(dir)
	require.NoError(t, err)
	assert.Greater(t, len(first.Artifacts), len(second.Artifacts))
	_, err = os.Stat(filepath.Join(dir, recallPicture))
	assert.ErrorIs(t, err, os.ErrNotExist, "the earlier run's picture is removed with its receipt")
	assert.Contains(t, second.Command, "-budget 60")
}

func TestMarkdownHTMLRendersTheReportsMarkdown(t *testing.T) {
	for _, tc := range []struct{ md, want string }{
		{"# A & B\n", "<h1>A &amp; B</h1>\n"},
		{"## Recall at 50\n", "<h2>Recall at 50</h2>\n"},
		{"one\ntwo\n\nthree\n", "<p>one two</p>\n<p>three</p>\n"},
		{"| a | **b** |\n|---|:-:|\n| `x<y` | *z* |\n", "<table>\n<tr><th>a</th><th><strong>b</strong></th></tr>\n<tr><td><code>x&lt;y</code></td><td><em>z</em></td></tr>\n</table>\n"},
		{"- one\n- two\n", "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"},
		{"<details><summary>Skipped</summary>\n\n\"<script>\"\n\n</details>\n", "<details><summary>Skipped</summary>\n<p>&#34;&lt;script&gt;&#34;</p>\n</details>\n"},
		{"a lone * and ` stay\n", "<p>a lone * and ` stay</p>\n"},
	} {
		assert.Equal(t, tc.want, markdownHTML(tc.md), "%q", tc.md)
	}
}

// chromium is Debian's Chromium, which .ci/run installs.
const chromium = "/usr/bin/chromium"

func TestReportPageShowsEveryTableAndPictureInABrowser(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; CI installs it (.ci/run) so this test runs: %v", chromium, err)
		}
		t.Skipf("%s is missing (apt-get install chromium); CI runs this test", chromium)
	}
	data, dir := tinyPath(t), filepath.Join(t.TempDir(), "results")
	require.NoError(t, outRun(t, data, dir))
	md, err := os.ReadFile(filepath.Join(dir, tablesMarkdown))
	require.NoError(t, err)
	tables := len(regexp.MustCompile(`(?m)^\|[-: |]+\|$`).FindAll(md, -1))
	require.Positive(t, tables)
	pictures, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	require.NoError(t, err)
	require.Len(t, pictures, 4)

	page, err := filepath.Abs(filepath.Join(dir, reportPage))
	require.NoError(t, err)
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", stderr.String())

	// The DOM is what the browser built from the page, so a table or a
	// picture it could not parse is not counted.
	got := string(dom)
	assert.Equal(t, tables, strings.Count(got, "<table>"), "every table of %s", tablesMarkdown)
	assert.Equal(t, len(pictures), strings.Count(got, "<svg "), "every picture, inline")
	for _, p := range pictures {
		name := strings.TrimSuffix(filepath.Base(p), ".svg")
		assert.Regexp(t, `<figure id="`+name+`">\s*<svg `, got, "%s is inline in its figure", name)
		assert.Contains(t, got, pictureNotes[filepath.Base(p)], "%s says what it measures", name)
	}
	sections := len(regexp.MustCompile(`(?m)^## `).FindAll(md, -1))
	assert.Equal(t, sections+1, strings.Count(got, "<h2>"), "every section, and the pictures'")
	assert.NotContains(t, got, "src=\"", "the page loads nothing")
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func editReceipt(t *testing.T, dir string, edit func(*receipt)) {
	t.Helper()
	path := filepath.Join(dir, receiptName)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var r receipt
	require.NoError(t, json.Unmarshal(b, &r))
	edit(&r)
	b, err = json.Marshal(r)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

func TestOverwriteRemovesOnlyFilesEvalWrites(t *testing.T) {
	// A receipt shows accidental change only: one edited to list a file of
	// the user's, with its hash, verifies. -overwrite must still not take it.
	data, dir := tinyPath(t), filepath.Join(t.TempDir(), "results")
	require.NoError(t, outRun(t, data, dir))
	notes := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("mine"), 0o644))
	h, err := hashFile(notes)
	require.NoError(t, err)
	h.Path = "notes.txt"
	editReceipt(t, dir, func(r *receipt) { r.Artifacts = append(r.Artifacts, h) })
	_, _, err = verify(dir)
	require.NoError(t, err, "the edited receipt matches the folder")

	err = outRun(t, data, dir, "-overwrite")
	require.ErrorIs(t, err, errReceiptMismatch)
	assert.ErrorContains(t, err, "notes.txt is not a file eval writes")
	got, err := os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(got), "nothing lost")
	_, _, err = verify(dir)
	assert.NoError(t, err, "the folder is as it was")
}

func TestOutIntoTheWorkingFolder(t *testing.T) {
	data, dir := tinyPath(t), t.TempDir()
	t.Chdir(dir)
	require.NoError(t, outRun(t, data, "."))
	r, _, err := verify(".")
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, len(r.Artifacts)+1, "the artifacts and the receipt, no staging left")
	require.NoError(t, outRun(t, data, ".", "-overwrite"), "and again over its own results")
}

func TestOutThatCannotBeWrittenFailsBeforeTheRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, tc := range []struct{ name, dir string }{
		{"a folder under a file", filepath.Join(file, "results")},
		{"a folder where nothing can be made", "/sys/byheart-eval-results"}, // sysfs refuses even root
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.dir, "/sys/") {
				if _, err := os.Stat("/sys/kernel"); err != nil {
					t.Skip("no sysfs here")
				}
			}
			var errs bytes.Buffer
			err := run([]string{"-locomo", tinyPath(t), "-budget", "50", "-only", "recall", "-progress", "-out", tc.dir}, &bytes.Buffer{}, &errs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.dir)
			assert.NotContains(t, errs.String(), "recall", "nothing was measured")
			_, err = os.Stat(tc.dir)
			assert.Error(t, err, "nothing made")
		})
	}
}

func TestSwapThatFailsPutsTheEarlierResultsBack(t *testing.T) {
	data, dir := tinyPath(t), filepath.Join(t.TempDir(), "results")
	require.NoError(t, outRun(t, data, dir))
	before, _, err := verify(dir)
	require.NoError(t, err)

	o := &outFlags{dir: dir, overwrite: true}
	o.stage, err = os.MkdirTemp(dir, stagingPrefix)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(o.stage, tablesMarkdown), []byte("new"), 0o644))
	// The second file was never staged, so its move fails after the first
	// new file is in and every earlier one is aside.
	require.Error(t, o.swap([]string{tablesMarkdown, tablesJSON}))

	after, _, err := verifyBut(dir, filepath.Base(o.stage))
	require.NoError(t, err, "the earlier results are back, unchanged")
	assert.Equal(t, before.Artifacts, after.Artifacts)
	staged, err := os.ReadFile(filepath.Join(o.stage, tablesMarkdown))
	require.NoError(t, err)
	assert.Equal(t, "new", string(staged), "the new file is back in staging")
	o.discard()
	_, _, err = verify(dir)
	assert.NoError(t, err, "and discard leaves the folder as it was")
}
