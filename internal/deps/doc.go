// Package deps has no code: its tests hold the module's import layers and
// check the real import graph against them (deps_test.go, after Go's own
// go/build/deps_test.go), and check that no comment of the module points at
// a document outside it (comments_test.go).
//
// Run them with
//
//	go test ./internal/deps
//
// and, after changing the table, rewrite its copy in docs/HACKING.md with
//
//	go test ./internal/deps -run TestHackingShowsLayers -update
//
// A package of its own keeps the table out of every other package's build,
// and the module root holds no package to put it in.
package deps
