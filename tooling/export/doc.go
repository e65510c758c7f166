// Package export describes the tools of a registry for language models: as
// an MCP tools/list result, OpenAI function tools or Anthropic tools
// (package tooling/lint checks tools against each format's rules). OpenAI
// and Anthropic refuse dots in names, so their names spell "." as "__",
// which tooling.Execute accepts too.
//
// Imports: the standard library, tooling and internal packages.
package export
