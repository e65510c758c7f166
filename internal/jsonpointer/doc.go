// Package jsonpointer holds the one JSON Pointer (RFC 6901) helper of the
// project: escaping, unescaping and joining reference tokens, for the
// registry's field errors, the config's, the form's and the lint checks.
// It is a leaf: it imports only the standard library.
package jsonpointer
