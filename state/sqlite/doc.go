// Package sqlite is a durable idempotency.Store in a SQLite file
// (modernc.org/sqlite, pure Go, so it builds with CGO_ENABLED=0): the
// outcomes of keyed calls survive a restart of the host, so that a repeat
// of a call that wrote does not write again. Several processes may share
// one file on one machine.
//
//	st, err := sqlite.Open(path)
//	...
//	defer st.Close()
//	reg.SetIdempotencyStore(st)
//
// A host that never imports it never links SQLite. Imports: the standard
// library, tooling and modernc.org/sqlite.
package sqlite
