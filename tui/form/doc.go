// Package form is the console's form generated from a tool's JSON Schema.
//
// [New] reads the raw schema document (drafts 2020-12 and 07), resolves
// "$ref" into "$defs"/"definitions" (recursion-safe: a recursive part is
// built only when a person expands it), merges "allOf", and renders a field
// per construct: text, numbers, booleans, enums and consts, nullable types
// with an explicit null, arrays of scalars (add, remove, reorder), arrays of
// enums (multi-select), arrays of objects, nested collapsible objects,
// "additionalProperties" maps (a key/value editor), "oneOf"/"anyOf" (a
// variant picker) and an any-value JSON field for schemas without structure.
// Defaults are filled in, required fields are marked, and each field shows
// its title and description.
//
// [Model.Value] turns the form into the arguments as JSON: optional fields
// left empty are omitted, never sent as null or "". [Model.SetValue] loads a
// JSON value back, so form → JSON → form gives the same value, and a raw JSON
// mode ([Model.ToggleRaw]) edits the same value as text.
//
// The form has no validator of its own: [Options.Check] is the registry's
// (Registry.ValidateArgs of the tool), run on the value after each edit,
// and its messages appear under the fields their JSON pointers name, so
// the form accepts exactly what the call accepts. [Model.SetErrors] puts
// the messages of a refused call on the fields the same way; they follow
// the edits and go once fixed.
//
// Keys ([DefaultKeyMap]; [Model.KeyMap] gives them for help, those that do
// nothing on the focused field disabled): tab/shift+tab and up/down move
// between fields, pgup/pgdown by a page; space or enter flips a boolean,
// opens an enum, multi-select or variant picker, and expands or collapses an
// object; left/right step through choices; ctrl+t switches a nullable field
// between null and a value; ctrl+n (a) adds an array item or map key,
// ctrl+d (x) removes the focused one, alt+up/alt+down move it; ctrl+r
// switches to raw JSON and back (esc goes back too); ctrl+s submits, and so does enter on the
// last field. Submitting emits a [SubmitMsg] (and [Model.Submitted] is true
// after that Update) when the arguments parse; otherwise the field that does
// not parse shows why and takes the focus.
//
// A console embedding the form sends it every key while it is shown, except
// its own commands: while [Model.Capturing] (an open picker, raw mode) the
// form takes esc too, and while [Model.InputFocused] printable keys are text.
//
// [Coverage] lists the schema locations the form cannot render natively (they
// fall back to a JSON box); `toolexplorer lint` reports them.
//
// The package imports the standard library, the charm modules and tooling
// (for [tooling.FieldError]); never sandbox.
package form
