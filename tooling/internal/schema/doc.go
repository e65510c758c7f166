// Package schema is the JSON Schema side of the registry: it compiles a
// tool's input and output schemas (drafts 2020-12 and 07, $ref into $defs,
// formats asserted, no external references), validates values with messages
// a person understands (one per failing field, as a JSON pointer), fills in
// schema defaults, and decodes JSON arguments with the registry's own
// decoder (numbers as json.Number, bounded depth, positions in messages).
//
// Only package tooling uses it. Imports: the standard library,
// golang.org/x/text and the module's internal packages.
package schema
