// Package sqlite links SQLite (modernc.org/sqlite, pure Go) into a program
// for the tools files whose sql sources say driver: sqlite. Its import, for
// its side effect, is all a program needs:
//
//	import _ "github.com/toolexplorer/toolexplorer/bindings/sqlite"
//
// A program without it refuses such a tools file when it loads, naming this
// package. Imports: the standard library, modernc.org/sqlite and
// bindings/internal/driver.
package sqlite
