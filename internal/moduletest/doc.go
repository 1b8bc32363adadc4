// Package moduletest holds no code of its own. Its test runs the tests of
// the repository's nested modules (the SDK adapters and the side-by-side
// benchmark), which live in modules of their own so that their dependencies
// never enter the core module's go.mod. Without it, `go test ./...` at the
// root would stop at the module boundary and skip them. They take minutes
// to compile, so they run only with BYHEART_MODULES=1 (.ci/run sets it).
package moduletest
