package moduletest

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func names(files []file) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.name)
	}
	return out
}

func TestRootModuleLeavesOutNestedModules(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []string
		wantErr bool
	}{
		{"a directory with a go.mod of its own is another module",
			[]string{"go.mod", "a.go", "anthropic/go.mod", "anthropic/a.go", "anthropic/x/b.go", "anthropicx/c.go"},
			[]string{"go.mod", "a.go", "anthropicx/c.go"}, false},
		{"nested deeper, too", []string{"go.mod", "bench/guard.sh", "bench/bleve/go.mod", "bench/bleve/main.go"},
			[]string{"go.mod", "bench/guard.sh"}, false},
		{"a vendor directory is refused rather than zipped by other rules", []string{"go.mod", "vendor/x/y.go"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []file
			for _, n := range tt.in {
				in = append(in, file{name: n})
			}
			got, err := rootModule(in)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, names(got))
		})
	}
}

func TestEscapePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"github.com/byheart/byheart", "github.com/byheart/byheart"},
		{"github.com/BurntSushi/toml", "github.com/!burnt!sushi/toml"},
	}
	for _, tt := range tests {
		got, err := escapePath(tt.in)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
	}
	_, err := escapePath("example.com/ü")
	assert.Error(t, err, "a path outside ASCII is no module path")
}

func TestWriteProxyLaysOutOneVersion(t *testing.T) {
	dir := t.TempDir()
	files := []file{{"go.mod", []byte("module example.com/m\n")}, {"b.go", []byte("package m\n")}, {"a.go", []byte("package m\n")}}
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, writeProxy(dir, "example.com/m", "v0.1.0", files, when))
	require.NoError(t, writeProxy(dir, "example.com/m", "v0.2.0", files, when))

	v := filepath.Join(dir, "example.com", "m", "@v")
	list, err := os.ReadFile(filepath.Join(v, "list"))
	require.NoError(t, err)
	assert.Equal(t, "v0.1.0\nv0.2.0\n", string(list))
	info, err := os.ReadFile(filepath.Join(v, "v0.1.0.info"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"Version":"v0.1.0","Time":"2026-01-02T03:04:05Z"}`, string(info))
	mod, err := os.ReadFile(filepath.Join(v, "v0.1.0.mod"))
	require.NoError(t, err)
	assert.Equal(t, "module example.com/m\n", string(mod))

	raw, err := os.ReadFile(filepath.Join(v, "v0.1.0.zip"))
	require.NoError(t, err)
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	var got []string
	for _, f := range zr.File {
		got = append(got, f.Name)
	}
	assert.Equal(t, []string{"example.com/m@v0.1.0/a.go", "example.com/m@v0.1.0/b.go", "example.com/m@v0.1.0/go.mod"}, got)

	assert.Error(t, writeProxy(dir, "example.com/n", "v0.1.0", files[1:], when), "a module without go.mod")
}

func TestSubtreeNamesFilesFromTheirModule(t *testing.T) {
	in := []file{{name: "go.mod"}, {name: "adk/go.mod"}, {name: "adk/adk.go"}, {name: "adkx/a.go"}, {name: "bench/adk/main.go"}}
	assert.Equal(t, []string{"go.mod", "adk.go"}, names(subtree(in, "adk")))
	assert.Equal(t, []string{"main.go"}, names(subtree(in, "bench/adk")))
	assert.Equal(t, names(in), names(subtree(in, ".")))
}
