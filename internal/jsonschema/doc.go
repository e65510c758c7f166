// Package jsonschema compiles JSON Schemas (drafts 4, 6, 7, 2019-09 and
// 2020-12) and validates JSON values against them. It is a fork of
// github.com/santhosh-tekuri/jsonschema/v6 at v6.0.3, under the Apache
// License 2.0 (the LICENSE file of this directory), kept in the project
// because that module compiles the meta-schemas of all its drafts in its
// package init, which every program importing it pays at start (about 3 ms
// and 1.7 MB of allocations: a confined tool's child process paid it on every
// call), and it offers no way to defer that.
//
// Its API is upstream's. The changes made to upstream's code:
//
//   - A draft's meta-schema and vocabularies are compiled on need (a schema
//     of that draft validated against its meta-schema: AddResource or
//     Compile), under a mutex per draft (Draft.loadMeta), not in init, and
//     the drafts a program never uses are never compiled. The draft holds
//     them weakly (Draft.meta): the first garbage collection after the last
//     compilation that used them frees them, and the next need compiles
//     them again. The compiler that compiles them is marked bootstrap and
//     never waits for them. Draft.allVocabs, read without that lock, only
//     names the vocabularies.
//   - Validation allocates less (registering a tool validates its schema
//     against the meta-schema, the largest part of its cost): a
//     subvalidator is a value on the stack (validate returns only its error,
//     the unevaluated properties and items are a value in the validator, and
//     a vocabulary's extension gets a copy on the heap); the scopes live in
//     an arena per validation (scopeArena), pushed and popped as
//     subvalidators start and end, not one allocation each.
//   - Validation skips work that cannot change its result: ranging over a
//     schema's empty maps, over an object's properties when no keyword
//     evaluates them, merging empty sets of unevaluated properties, and
//     building the instance's pointer to look up a subresource's dialect
//     when the document has no subresource. Its scope arenas are reused
//     (a sync.Pool).
//   - Schema locations skip escaping a fragment that needs none.
//   - Collecting a document's resources costs less: a SchemaPath appends
//     what it finds to a slice instead of building maps, the paths are
//     looked up by the keywords a schema has (Draft.subschemasOf) rather
//     than each path's keyword in the schema (so the subschemas are visited
//     keyword by keyword, not in the order of upstream's map of pointers:
//     the order only decides which of several problems is reported), and
//     JSON pointers are joined by concatenation, not fmt.Sprintf.
//   - Import paths are the fork's; this file and kind/doc.go are added.
//   - Tests: upstream's tests are kept, with the fork's import paths, but for
//     the example that loads a schema over HTTPS (removed) and the
//     JSON-Schema-Test-Suite git submodule (not included: TestSuites runs
//     testdata/Extra-Test-Suite only). lazy_test.go checks that no meta-schema
//     is compiled before the first Compile, also from many goroutines at once,
//     and that freed meta-schemas are compiled again;
//     fork_test.go tests other changes; differential_test.go fuzzes the fork
//     against upstream, which the module requires for that test only.
//
// Kept as upstream has it: the error of propertyNames and contentSchema holds
// the validator's instance location without copying it, so a later sibling
// can overwrite what it shows (the differential test leaves that location
// out).
//
// It imports the standard library and golang.org/x/text only, and no package
// of the project.
package jsonschema
