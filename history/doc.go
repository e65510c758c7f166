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
// What is stored, and what of it may be secret: the arguments with the
// values of secret keys and writeOnly fields replaced by "[redacted]"
// (Redact, Entry.SetArgs), and the whole Result with every value redacted
// in the arguments replaced there too. A secret that a tool takes from
// elsewhere (its environment, a file, a server) and puts in its output or
// message, a secret passed under a key that is not recognised as one, and
// a redacted value of fewer than four characters inside a longer text are
// stored as they are. The file is the user's alone (0600, a looser mode
// is tightened); a history file (or its lock) that is itself a symbolic
// link is refused, not followed (links among the directories above it are
// followed as usual).
//
// history imports tooling, internal/jsonenc and the standard library only.
package history
