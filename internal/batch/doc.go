// Package batch lets every decision a call needs of a shared store (its
// idempotency key's claim, the token of its tool's shared rate, the tokens
// of its principal's limits, its budgets' counters) be made in one round
// trip, all or none, however many middleware ask for them.
//
// A middleware that asks a shared store declares, while it is built, that
// it can plan (internal/dryrun's DeclarePlan). Before a call's claim, the registry runs the call
// through those middleware alone, in order, with a Batch in its context
// that is planning: each adds what it will ask (Batch.Add) and passes the
// call on, spending nothing. The first to need a decision (the claim, or
// the first of those middleware when the call runs) has its store make all
// of the batch's decisions at once; each middleware then takes its own
// (Batch.Take) and makes no round trip.
//
// It imports no other package of the module.
package batch
