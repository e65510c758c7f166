// Package toolname holds the one grammar of tool names, for the registry
// (Register) and the config (names and patterns in lists and overrides):
// two or more lower snake case segments joined by dots, like "demo.echo" or
// "fs.read_file", and its spelling for formats that refuse dots in names
// ("demo__echo", Export). The config's JSON Schema (config/schema.json) states the
// same grammar as regular expressions; a test keeps the two in step. It is
// a leaf: it imports nothing.
package toolname
