// Package claimrate lets the claim of a keyed call and the token of its
// tool's shared rate be decided together, in one round trip, when one
// store keeps both (package state, on Redis). The registry marks the
// context of a keyed call with the call (With) before it claims the key;
// the idempotency store, when the same store decides the registry's
// shared rates, takes the token with the claim and notes the decision
// (Note.Decide); the rate middleware of that store then finds it (Take) and
// makes no round trip of its own.
//
// It imports no other package of the module.
package claimrate
