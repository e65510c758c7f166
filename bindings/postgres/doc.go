// Package postgres links PostgreSQL (github.com/jackc/pgx/v5) into a
// program for the tools files whose sql sources say driver: postgres. Its
// import, for its side effect, is all a program needs:
//
//	import _ "github.com/toolexplorer/toolexplorer/bindings/postgres"
//
// A program without it refuses such a tools file when it loads, naming this
// package. Imports: the standard library, pgx and bindings/internal/driver.
package postgres
