// Package wirename holds the one grammar of the names model APIs and MCP
// accept for tools, for preview tools and exports. It is
// a leaf: it imports nothing.
package wirename
