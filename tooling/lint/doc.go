// Package lint finds what Register lets through but a language model, an
// MCP client or a person filling in a tool's arguments would trip over:
// names and schemas each export format refuses, properties without a
// description, defaults that cannot apply or do not match their own
// schema, arguments a schema accepts silently, an output schema that is not
// an object, a missing title, an overlong description, empty or repeated
// tags. The lint command of toolexplorer prints these problems, adding its
// own (the config's, and what the console's form cannot render).
//
// Imports: the standard library, tooling, tooling/export and internal
// packages.
package lint
