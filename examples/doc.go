// Package examples holds the demo shop's tools files (examples/tools),
// embedded so that toolexplorer --demo runs from any directory, not only
// from the repository's root. It imports the standard library only.
package examples
