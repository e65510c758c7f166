// Package viewer is the console's output viewer: a call's output as a tree
// of JSON lines that fold, strings readable as text, search, copy and the
// pager, with the text the console puts around the output (what went
// wrong, the plan, the governance decisions) above and below it.
//
// [New] makes a [Model]; [Model.SetOutput] gives it an output,
// [Model.Update] its keys and [Model.View] draws it. The viewer speaks to
// the console through messages: a [StatusMsg] for the status line and a
// [CopyMsg] for the clipboard. [Keys] are its keys, which the console
// rebinds by name; [Styles] are the console's styles it draws with.
//
// The output is parsed once into a flat slice of lines; folding, the text
// view and search only recompute the rows shown, and a frame renders the
// rows on screen, so a key costs the same on a 1 MiB output as on a small
// one.
//
// The package imports the standard library, the charm modules, tooling
// (for [tooling.FieldError]) and internal packages; never sandbox.
package viewer
