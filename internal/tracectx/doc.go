// Package tracectx carries, in a call's context, the propagator that
// carries the call's trace onward: the telemetry middleware puts the one
// its host chose (telemetry.WithPropagators) there, and what a call
// reaches out to (a file tool's HTTP request, a remote MCP server) injects
// the trace with it. It is a leaf: it imports no other project package.
package tracectx
