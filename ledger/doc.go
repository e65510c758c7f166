// Package ledger is a durable, tamper-evident record of every call a
// registry makes: the begin and the end of each, refusals included, with
// who made it (the principal), the tool and its version, the origin, the
// policy and confinement profile in force, digests and sizes of the
// arguments and output (never their content), what the tool reported of
// its side effects, whether it was a shadow call, how it ended and when.
//
// A host opts in: Open a Ledger on a file and Attach it to a registry. It
// sees every call through the registry's synchronous audit hook
// (tooling.Registry.Audit), so no call escapes it, and refuses calls
// through a middleware when it cannot record them and is told to
// (OnFailure). Records are JSON Lines, appended by one writer goroutine in
// batches, each carrying the SHA-256 of the one before; signed checkpoints
// (ed25519) in the file and a signed head beside it let Verify find an
// edited, deleted, reordered or cut-off record. Read lists the calls a
// ledger holds, one per call.
//
// It imports tooling and the standard library only; tooling does not
// import it.
package ledger
