// Package sandbox holds the governance primitives of toolexplorer: small, documented and benchmarked
// building blocks that decide when a piece of work may run. They know nothing of tools; the tooling
// package maps a tool's metadata and the configuration onto them.
//
//   - [Slots] is a global concurrency limit: at most n holders at once, resizable on a config reload.
//   - [Locks] hands out keyed exclusive locks. A caller names every key it needs at once; they are
//     taken in one global (sorted) order, so two callers can never deadlock, and each key serves its
//     waiters first come, first served.
//   - [MainThread] is the main-thread scheduler: it runs queued funcs in FIFO order on one goroutine
//     locked to an OS thread, which a host can make the real main thread by handing over main.
//   - [Buckets] keeps token-bucket rate limits keyed by name (a tool, a resource), each made from a
//     [Rate] at first use and remade when the rate changes.
//
// Every call that may block takes a [context.Context] first and gives up when it ends, holding
// nothing. Calls that depend on the clock take the time as a parameter (like
// [golang.org/x/time/rate.Limiter.AllowN]), so tests do not sleep.
//
// # Imports
//
// The package imports only the standard library, golang.org/x/sync, golang.org/x/time and
// golang.org/x/sys; never reflect and never another package of this module (the import gate in
// scripts/gate.sh checks this). Its subpackage sandbox/confine is the only place for confinement code.
//
// # Zero values and traps
//
//   - The zero [Slots] has no limit; the zero [Locks] and the zero [Buckets] are empty and ready to
//     use. The constructors exist for symmetry and readability.
//   - A zero [Rate] (PerMinute <= 0) means unlimited: [Buckets.Take] always succeeds and keeps no
//     bucket. This is the opposite of golang.org/x/time/rate, where rate.Limit(0) allows no events
//     at all; the conversion to a rate.Limit (events per second, PerMinute/60) happens only inside
//     this package, after the unlimited case has been handled.
//   - [NewSlots] with n <= 0 also means unlimited, never "nothing may run".
package sandbox
