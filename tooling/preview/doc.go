// Package preview adds tools described by data rather than Go code, such
// as the tools of another MCP server read from a tools/list result, to a
// registry in preview mode: their calls go through every step of
// governance and, once validated, return their arguments instead of doing
// anything.
//
// Imports: the standard library and tooling.
package preview
