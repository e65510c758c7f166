// Package config is the config file of toolexplorer: its types, its
// defaults, and strict loading and validation against the file's own JSON
// Schema (Schema, embedded from schema.json).
//
// The file is JSON; every key is optional and an empty file or "{}" gives
// Default(). README.md in this directory documents every key, and
// toolexplorer.json is a complete example.
//
// The keys that configure the registry are a tooling.Settings, embedded in
// Config: a host passes cfg.Settings to Registry.Configure. The other keys
// are the application's (the console, MCP servers, serve, tools files).
//
// In Go, the zero Config is the default configuration too: each zero field
// stands for its default (a zero Disabled enables the tools, a zero
// DefaultTimeout is 30s, a zero Confinement.PoolSize is 2 workers), and
// WithDefaults spells the defaults out.
//
// Loading is strict: an unknown key, a value of the wrong type, a duration
// Go cannot parse, a zero or negative limit and malformed JSON are all
// errors. Load and Parse report every problem at once, each as an *Error
// that names the file, the JSON pointer of the offending key or value, and
// its line and column; the returned error is an Errors list.
//
// Tool names and patterns (Match, ValidName, ValidPattern) follow the
// "group.name" grammar of the registry; a pattern segment "*" stands for any
// one segment, and a last segment "*" for the rest of the name.
//
// The package is plain data: it imports the standard library, tooling (for
// Settings) and the project's JSON Schema validator (internal/jsonschema),
// and tooling never imports it. It never reads a default path: the caller
// decides which file to load, nor the environment.
package config
