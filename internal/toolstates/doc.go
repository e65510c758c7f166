// Package toolstates lets the packages of this module follow the changes
// of a registry's tool states (a tool paused, deprecated or enabled again)
// without an audit hook: an audit hook takes part in every call (its begin
// and end events, with the digests of the arguments and the output), which
// a follower of states has no use for. Package tooling sets Follow when it
// is initialized.
//
// It is a leaf: it imports only the standard library. Package tooling sets
// it; package mcp follows states with it.
package toolstates
