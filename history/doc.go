// Package history keeps the calls made through toolexplorer, the console's
// and the command line's alike: each call's request (tool, arguments,
// origin, consent, the config and tools files in force) and its whole
// Result, one JSON object per line in a file under the user's state
// directory. It also keeps saved calls: named requests a person runs again.
//
// The store is append-only and bounded: each call is one write of one line
// to a file opened with O_APPEND, so two processes appending at once never
// interleave their lines; when the file grows past its bound, the oldest
// lines are dropped. A reader skips a line that is not whole (a write cut
// short) and reads from the end, newest first, so that opening a long
// history costs what the first screen shows.
//
// Secrets are never stored: see Redact.
//
// history imports tooling, internal/jsonenc and the standard library only.
package history
