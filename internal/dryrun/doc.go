// Package dryrun carries, in a call's context, that the call is only
// explained (tooling's Registry.Explain): the middleware of this module
// that keeps counts (per-principal limits, budgets) then says what it would
// decide without spending a token or counting the call.
//
// A middleware says it honours the flag by calling Declare with the next
// handler it is given, while it is being built; the registry consults, when
// it explains a call, only the middleware that did, and passes over the
// rest. A handler of such a middleware returns at once, with nothing, when
// it is called with the context Declare passes (Declaring).
//
// A middleware that plans what it asks of a shared store (internal/batch)
// says so the same way, with DeclarePlan; Declaring recognises both.
//
// It imports no other package of the module.
package dryrun
