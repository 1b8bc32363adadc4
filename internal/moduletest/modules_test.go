package moduletest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestNestedModules runs `go test ./...` in every nested module as a
// developer does from a checkout: on the module's own go.mod (GOWORK=off),
// whose replace directive points the core at this working tree. GOFLAGS
// from the environment (-race in CI) carry through, with -trimpath added so
// that this build and TestConsumerBuild's share the compiled dependencies.
// It compiles three SDKs, two database drivers and bleve, minutes on a
// cold build cache, so it runs only when asked: with BYHEART_MODULES=1.
func TestNestedModules(t *testing.T) {
	if testing.Short() {
		t.Skip("nested modules are tested without -short")
	}
	skipUnlessAsked(t, "the tests of every nested module")
	goBin := goCommand(t)
	root := repoRoot(t)
	env := []string{"GOWORK=off", "GOFLAGS=" + goEnv(t, goBin, "GOFLAGS")[0] + " -trimpath"}
	for _, dir := range nestedModules(t, root) {
		t.Run(dir, func(t *testing.T) {
			run(t, filepath.Join(root, dir), env, goBin, "test", "./...")
		})
	}
}

// TestConsumerBuild builds and tests every nested module as someone who
// requires it gets it: no replace directive (Go ignores them in a
// dependency), no workspace, and the core fetched through a module proxy at
// the version the module's go.mod requires, into an empty module cache.
// It builds every dependency anew, so it runs only when asked: with
// BYHEART_MODULES=1 in the environment, as .ci/run and scripts/release set.
//
// The proxy is a directory (GOPROXY=file://...) holding the core at that
// version, and any other module of this repository the module requires (a
// benchmark requires the adapter it measures) at the version it requires:
// from its git tag when the tag exists here, and otherwise from this working
// tree, which is what the release script tags next. Every other module comes
// from the local module cache, or from the usual proxy when it is not there.
func TestConsumerBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("the consumer build is tested without -short")
	}
	skipUnlessAsked(t, "the consumer build of every nested module")
	goBin := goCommand(t)
	root := repoRoot(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git to read the core's files with")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	core := goModule(t, goBin, root).Module.Path
	proxy := t.TempDir()
	served := map[string]bool{}
	for _, dir := range nestedModules(t, root) {
		t.Run(dir, func(t *testing.T) {
			mod := goModule(t, goBin, filepath.Join(root, dir))
			version, err := requiredVersion(mod, core)
			if errors.Is(err, errNoCore) {
				t.Skipf("%v: no consumer of the core builds it", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !served[core+"@"+version] {
				serveModule(t, root, proxy, ".", core, version)
				served[core+"@"+version] = true
			}
			// A module of this repository that it requires (a benchmark
			// requires the adapter it measures), or that one of those
			// requires, is served from here too, as the release tags it
			// beside the core.
			for required := slices.Clone(mod.Require); len(required) > 0; required = required[1:] {
				r := required[0]
				dir, ok := strings.CutPrefix(r.Path, core+"/")
				if !ok || served[r.Path+"@"+r.Version] {
					continue
				}
				if !slices.Contains(nestedModules(t, root), dir) {
					t.Fatalf("%s requires %s, which is no module of this repository", mod.Module.Path, r.Path)
				}
				serveModule(t, root, proxy, dir, r.Path, r.Version)
				served[r.Path+"@"+r.Version] = true
				required = append(required, goModule(t, goBin, filepath.Join(root, dir)).Require...)
			}
			work := copyModule(t, root, dir)
			for _, r := range mod.Replace {
				run(t, work, nil, goBin, "mod", "edit", "-dropreplace="+r.Old.Path)
			}
			env := consumerEnv(t, goBin, proxy, core)
			run(t, work, env, goBin, "mod", "tidy")
			run(t, work, env, goBin, "test", "./...")
			installCommands(t, goBin, root, dir, work, proxy, mod.Module.Path, version, env)
		})
	}
}

// installCommands installs every command (a main package under cmd/) of
// the released module in dir as its users do, with go install path@version, from the proxy, where it
// puts the module in the form a release tags it: its go.mod without
// replace directives (work's, tidied), since go install refuses a module
// whose go.mod has them.
func installCommands(t *testing.T, goBin, root, dir, work, proxy, modPath, version string, env []string) {
	t.Helper()
	if strings.HasPrefix(dir, "bench/") || strings.HasPrefix(dir, "internal/") {
		return // never released
	}
	list := exec.Command(goBin, "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...")
	list.Dir, list.Env = work, append(os.Environ(), env...)
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v", dir, commandError(err))
	}
	var commands []string
	for _, c := range strings.Fields(string(out)) {
		if strings.Contains(c, "/cmd/") { // examples are main packages too, but no commands
			commands = append(commands, c)
		}
	}
	if len(commands) == 0 {
		return
	}
	files, err := worktreeFiles(root, dir)
	if err == nil {
		files, err = rootModule(subtree(files, dir))
	}
	for i := 0; err == nil && i < len(files); i++ {
		if name := files[i].name; name == "go.mod" || name == "go.sum" {
			files[i].data, err = os.ReadFile(filepath.Join(work, name))
		}
	}
	if err == nil {
		err = writeProxy(proxy, modPath, version, files, time.Now())
	}
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, c := range commands {
		run(t, t.TempDir(), append(env, "GOBIN="+bin), goBin, "install", c+"@"+version)
		exe := path.Base(c)
		if runtime.GOOS == "windows" {
			exe += ".exe"
		}
		if _, err := os.Stat(filepath.Join(bin, exe)); err != nil {
			t.Errorf("go install %s@%s made no binary: %v", c, version, err)
		}
	}
}

// TestWorkspaceUsesEveryModule keeps go.work, the development workspace,
// in step with the modules the repository holds.
func TestWorkspaceUsesEveryModule(t *testing.T) {
	goBin := goCommand(t)
	root := repoRoot(t)
	cmd := exec.Command(goBin, "work", "edit", "-json", "go.work")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go work edit -json: %v", commandError(err))
	}
	var work struct{ Use []struct{ DiskPath string } }
	if err := json.Unmarshal(out, &work); err != nil {
		t.Fatal(err)
	}
	var used []string
	for _, u := range work.Use {
		used = append(used, filepath.ToSlash(filepath.Clean(u.DiskPath)))
	}
	want := append([]string{"."}, nestedModules(t, root)...)
	sort.Strings(used)
	sort.Strings(want)
	if strings.Join(used, " ") != strings.Join(want, " ") {
		t.Errorf("go.work uses %v, the repository holds modules %v: run go work use -r .", used, want)
	}
}

// modulesEnv is the environment variable that turns TestNestedModules and
// TestConsumerBuild on.
const modulesEnv = "BYHEART_MODULES"

// skipUnlessAsked skips a test of the nested modules unless modulesEnv is 1.
func skipUnlessAsked(t *testing.T, what string) {
	t.Helper()
	if os.Getenv(modulesEnv) != "1" {
		t.Skipf("%s takes minutes: set %s=1 to run it (.ci/run does), with -timeout 40m", what, modulesEnv)
	}
}

// release is a version a consumer can require: a semantic version that is
// neither a pseudo-version nor the placeholder v0.0.0.
var (
	release = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)
	pseudo  = regexp.MustCompile(`[0-9]{14}-[0-9a-f]{12}$`)
)

// requiredVersion is the version of core that mod requires, which must be a
// release: a replace directive makes any version build from a checkout, but
// a consumer fetches exactly this one.
func requiredVersion(mod goMod, core string) (string, error) {
	for _, r := range mod.Require {
		if r.Path != core {
			continue
		}
		if !release.MatchString(r.Version) || pseudo.MatchString(r.Version) || r.Version == "v0.0.0" {
			return "", fmt.Errorf("%s requires %s %s, which is no release a consumer can fetch", mod.Module.Path, core, r.Version)
		}
		return r.Version, nil
	}
	return "", fmt.Errorf("%w: %s does not require %s", errNoCore, mod.Module.Path, core)
}

// errNoCore marks a nested module that does not use the core, such as a
// generator run by developers: a consumer of the core never builds it.
var errNoCore = errors.New("no core")

// serveModule puts the module modPath, held in dir ("." for the core), at
// version into the proxy: from its tag (version for the core, dir/version
// for a nested module) when the tag exists, and from the working tree
// otherwise.
func serveModule(t *testing.T, root, proxy, dir, modPath, version string) {
	t.Helper()
	var files []file
	var err error
	when := time.Now()
	tag := version
	if dir != "." {
		tag = dir + "/" + version
	}
	rev := exec.Command("git", "rev-parse", "-q", "--verify", "refs/tags/"+tag+"^{commit}")
	rev.Dir = root
	if rev.Run() == nil {
		t.Logf("%s at tag %s", modPath, tag)
		files, err = gitFiles(root, tag)
		if out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%cI", tag).Output(); err == nil {
			when, _ = time.Parse(time.RFC3339, strings.TrimSpace(string(out)))
		}
	} else {
		t.Logf("no tag %s here: %s from this working tree, as the release script would tag it", tag, modPath)
		files, err = worktreeFiles(root, dir)
	}
	if err == nil {
		files, err = rootModule(subtree(files, dir))
	}
	if err == nil {
		err = writeProxy(proxy, modPath, version, files, when)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// copyModule copies the nested module in dir, as the working tree has it,
// to a new directory and returns that directory.
func copyModule(t *testing.T, root, dir string) string {
	t.Helper()
	files, err := worktreeFiles(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for _, f := range files {
		rel, err := filepath.Rel(dir, filepath.FromSlash(f.name))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(work, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return work
}

// consumerEnv is the environment of a consumer's build: no workspace, an
// empty module cache, the test proxy first, then the local module cache's
// downloads and the usual proxy for everything else. The core is not in the
// public checksum database, so its sums are taken from the proxy.
// -trimpath keeps the build cache useful across runs, whose module caches
// are at new paths.
func consumerEnv(t *testing.T, goBin, proxy, core string) []string {
	t.Helper()
	v := goEnv(t, goBin, "GOMODCACHE", "GOPROXY", "GOFLAGS")
	proxies := []string{fileURL(proxy)}
	if v[0] != "" {
		proxies = append(proxies, fileURL(filepath.Join(v[0], "cache", "download")))
	}
	if v[1] != "" && v[1] != "off" {
		proxies = append(proxies, v[1])
	}
	return []string{
		"GOWORK=off",
		"GOMODCACHE=" + filepath.Join(t.TempDir(), "mod"),
		"GOPROXY=" + strings.Join(proxies, ","),
		"GONOSUMDB=" + core,
		"GOFLAGS=" + v[2] + " -modcacherw -trimpath",
	}
}

// goEnv returns the values of go env variables, in order.
func goEnv(t *testing.T, goBin string, names ...string) []string {
	t.Helper()
	out, err := exec.Command(goBin, append([]string{"env"}, names...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	v := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(v) != len(names) {
		t.Fatalf("go env: %q", out)
	}
	return v
}

func fileURL(dir string) string {
	return "file://" + filepath.ToSlash(dir)
}

// goMod is what `go mod edit -json` reports.
type goMod struct {
	Module  struct{ Path string }
	Require []struct{ Path, Version string }
	Replace []struct{ Old struct{ Path string } }
}

func goModule(t *testing.T, goBin, dir string) goMod {
	t.Helper()
	cmd := exec.Command(goBin, "mod", "edit", "-json")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod edit -json in %s: %v", dir, commandError(err))
	}
	var m goMod
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// nestedModules lists the directories, relative to root, that hold a
// module of their own.
func nestedModules(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" && filepath.Dir(path) != root {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			dirs = append(dirs, filepath.ToSlash(rel))
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no nested modules found: the adapters should be here")
	}
	return dirs
}

func goCommand(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the nested modules' tests with")
	}
	return goBin
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// run runs a command in dir with env added to the environment, logs its
// output, and fails the test if it fails. The command and everything it
// starts (a go command's compilers and test binaries) are killed when the
// test ends, and a little before go test's -timeout would panic, so a
// failed or timed-out test leaves nothing running behind it.
func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	ctx := t.Context()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-timeoutMargin))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	killGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	t.Logf("%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), out)
	if ctx.Err() != nil {
		t.Fatalf("%s %s in %s: stopped, %v (go test -timeout gives it longer)", filepath.Base(name), strings.Join(args, " "), dir, context.Cause(ctx))
	}
	if err != nil {
		t.Fatalf("%s %s in %s: %v", filepath.Base(name), strings.Join(args, " "), dir, err)
	}
}

// timeoutMargin is how long before go test's deadline a command is
// stopped: time for the test to report it and clean up before the test
// binary's own timeout panics.
const timeoutMargin = 30 * time.Second
