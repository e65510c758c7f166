// Package jsonenc encodes JSON as encoding/json does, except that it leaves
// <, > and & as they are instead of escaping them as \u003c, \u003e and
// \u0026 (encoding/json's HTML escaping). Outputs, arguments and exports
// are read by people, copied into shells and parsed by programs; they are
// never embedded in HTML, where that escaping would matter.
//
// It is a leaf: it imports only the standard library, and every package of
// the project may import it.
package jsonenc
