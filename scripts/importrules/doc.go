// Command importrules checks the import rules of the project: which package may import what
// (the one direction of imports of the design, and the boundaries around tools, the sandbox
// and the console). scripts/gate.sh runs it from the module root and adds the checks that need
// no more than grep.
//
// It lists the module's packages with `go list -e -deps -json ./...` (offline, against a
// temporary copy of go.mod and go.sum, so the module files are never touched) and reads the
// imports of every .go file of each package itself, whatever its build constraints and even
// when the rest of the file does not compile, so that a file for another system or a broken
// file is checked too. Every violation is printed as "file:line: rule: message", sorted; the
// exit status is 1 when there is one, 2 when the packages cannot be listed.
//
// The rules are tables in rules.go: the imports each rule refuses, and the layers of the
// project with the project packages each may import. A package still to come gets its line
// there. It imports only the standard library.
package main
