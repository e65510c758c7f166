// Package idempotency holds what a registry keeps of calls made with an
// idempotency key: the Store interface its stores implement, the Record
// they keep, and the in-memory store a registry uses by default. Package
// state/sqlite is a durable store, package state one shared on Redis, and
// tooling/tooltest.TestIdempotencyStore checks a store's promises.
package idempotency
