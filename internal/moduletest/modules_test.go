package moduletest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestNestedModules runs `go test ./...` in every nested module, on that
// module's own go.mod (GOWORK=off), the way a user who requires it builds
// it. GOFLAGS from the environment (-race in CI) carry through.
func TestNestedModules(t *testing.T) {
	if testing.Short() {
		t.Skip("nested modules are tested without -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the nested modules' tests with")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" && filepath.Dir(path) != root {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no nested modules found: the adapters should be here")
	}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		t.Run(rel, func(t *testing.T) {
			cmd := exec.Command(goBin, "test", "./...")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOWORK=off")
			out, err := cmd.CombinedOutput()
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("go test ./... in %s: %v", rel, err)
			}
		})
	}
}
