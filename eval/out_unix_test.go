//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verifyWithin runs verify on dir and fails the test, rather than hanging
// it, when verify has not returned after a minute: a folder verify reads is
// someone else's, and nothing in it may keep verify from answering.
func verifyWithin(t *testing.T, dir string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, _, err := verify(dir)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("verify(%s) has not returned after a minute", dir)
		return nil
	}
}

func TestVerifyReadsOnlyRegularFilesOfBoundedSize(t *testing.T) {
	data := tinyPath(t)
	fifo := func(t *testing.T, path string) {
		t.Helper()
		require.NoError(t, syscall.Mkfifo(path, 0o644))
	}
	// replace puts what make makes where name was.
	replace := func(dir, name string, make func(t *testing.T, path string)) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			path := filepath.Join(dir, name)
			require.NoError(t, os.Remove(path))
			make(t, path)
		}
	}
	// linkTo makes path a symbolic link to a copy of what it was, outside
	// the folder, so the hash the receipt holds still matches.
	linkTo := func(t *testing.T, dir, name string) {
		t.Helper()
		path := filepath.Join(dir, name)
		outside := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.Rename(path, outside))
		require.NoError(t, os.Symlink(outside, path))
	}
	for _, tc := range []struct {
		name   string
		spoil  func(t *testing.T, dir string)
		saying string
	}{
		{"an artifact that is a named pipe", func(t *testing.T, dir string) {
			replace(dir, reportPage, fifo)(t, dir)
		}, reportPage + " is a named pipe"},
		{"an artifact that is a symbolic link out of the folder", func(t *testing.T, dir string) {
			linkTo(t, dir, tablesMarkdown)
		}, tablesMarkdown + " is a symbolic link"},
		{"an artifact that is a symbolic link to a named pipe", func(t *testing.T, dir string) {
			pipe := filepath.Join(t.TempDir(), "pipe")
			fifo(t, pipe)
			replace(dir, tablesJSON, func(t *testing.T, path string) { require.NoError(t, os.Symlink(pipe, path)) })(t, dir)
		}, tablesJSON + " is a symbolic link"},
		{"an artifact that is a folder", func(t *testing.T, dir string) {
			replace(dir, recallPicture, func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path, 0o755)) })(t, dir)
		}, recallPicture + " is a folder"},
		{"the receipt a symbolic link out of the folder", func(t *testing.T, dir string) {
			linkTo(t, dir, receiptName)
		}, receiptName + " is a symbolic link"},
		{"the receipt a named pipe", func(t *testing.T, dir string) {
			replace(dir, receiptName, fifo)(t, dir)
		}, receiptName + " is a named pipe"},
		{"data named as a named pipe", func(t *testing.T, dir string) {
			pipe := filepath.Join(t.TempDir(), "pipe")
			fifo(t, pipe)
			editReceipt(t, dir, func(r *receipt) { r.Data[0].Path = pipe })
		}, "is a named pipe"},
		{"data named as a device", func(t *testing.T, dir string) {
			editReceipt(t, dir, func(r *receipt) { r.Data[0].Path = os.DevNull })
		}, os.DevNull + " is a device"},
		{"an artifact larger than verify reads, as its receipt says", func(t *testing.T, dir string) {
			size := int64(maxVerifyBytes) + 1
			require.NoError(t, os.Truncate(filepath.Join(dir, tablesMarkdown), size)) // sparse: nothing written
			editReceipt(t, dir, func(r *receipt) {
				for i := range r.Artifacts {
					if r.Artifacts[i].Path == tablesMarkdown {
						r.Artifacts[i].Bytes = size
					}
				}
			})
		}, tablesMarkdown + " has more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "results")
			require.NoError(t, outRun(t, data, dir))
			tc.spoil(t, dir)

			err := verifyWithin(t, dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.saying)
			assert.ErrorIs(t, err, errNotRegular)
		})
	}
}

func TestOverwriteLosesNothingWhenOutIsALinkToAnotherFileSystem(t *testing.T) {
	const shm = "/dev/shm" // tmpfs on Linux, a file system of its own
	elsewhere, err := os.MkdirTemp(shm, "byheart-eval-")
	if err != nil {
		t.Skipf("no %s to hold a folder on another file system: %v", shm, err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(elsewhere) })
	here := t.TempDir()
	if sameDevice(t, here, elsewhere) {
		t.Skipf("%s and %s are on one file system", here, shm)
	}
	link := filepath.Join(here, "results")
	require.NoError(t, os.Symlink(elsewhere, link))

	data := tinyPath(t)
	require.NoError(t, outRun(t, data, link))
	require.NoError(t, outRun(t, data, link, "-overwrite", "-budget", "60"))
	r, _, err := verify(link)
	require.NoError(t, err, "the new results are in place")
	assert.Contains(t, r.Command, "-budget 60")
	entries, err := os.ReadDir(elsewhere)
	require.NoError(t, err)
	assert.Len(t, entries, len(r.Artifacts)+1, "the artifacts and the receipt, no staging left")
	leftover, err := os.ReadDir(here)
	require.NoError(t, err)
	assert.Len(t, leftover, 1, "the link, nothing staged beside it")
}

func sameDevice(t *testing.T, a, b string) bool {
	t.Helper()
	ia, err := os.Stat(a)
	require.NoError(t, err)
	ib, err := os.Stat(b)
	require.NoError(t, err)
	return ia.Sys().(*syscall.Stat_t).Dev == ib.Sys().(*syscall.Stat_t).Dev
}
