// Package gctune sets the garbage collector of a process that serves calls
// for hours: a gateway or an MCP server, whose live heap is small and whose
// calls each leave garbage behind.
package gctune
