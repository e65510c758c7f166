// Package state keeps what the replicas of a host must share on Redis, so
// that three replicas with a rate of 10 a minute allow 10 calls a minute,
// not 30, a keyed call runs once whichever replica takes it, and a budget
// is spent once across them:
//
//   - Limits: the tools' rate limits (tooling.Policy.Rate), as the GCRA
//     token buckets of github.com/go-redis/redis_rate, with the time to
//     retry from Redis; a middleware (tooling.Registry.Use).
//   - Idempotency: an idempotency.Store (tooling/idempotency): a claim is
//     SET NX with the lease as its time to live; the outcome replaces the
//     claim by a compare-and-set script after the call returns, and a
//     repeat polls, backing off, until it is there.
//   - Counts: the store of the principals' limits and budgets
//     (policy.Store and policy.BatchStore), keyed by tenant.
//
// Every decision a call needs of one Redis before it runs (its claim, its
// tool's token, its principal's tokens, its budgets' counts) is made by one
// script, in one round trip, all or none: a call one of them refuses spends
// nothing. The registry gathers them first (package internal/batch): the
// middleware of Limits and of policy's limits and budgets on Counts note
// what they will ask, and the first to ask, or the claim, asks for all.
//
// A call that is only explained (tooling.Registry.Explain) takes no token
// and counts nothing: Limits and Counts read their buckets with scripts
// that write nothing, failing or falling back as a call would.
//
// All three come from one Redis value (NewRedis, OpenRedis), sharing its
// key prefix, its deadline per decision and its Status. When Redis does not
// answer in time, a decision is refused with code unavailable, naming
// Redis (fail closed, the default), or, with FailOpen, made in the process
// alone (its own limits, budgets and records) with a warning. The client
// reconnects by itself; Status says which way decisions go now.
//
// Imports: tooling, config and the Redis client. tooling never imports
// this package; the gate in scripts/gate.sh checks it.
package state
