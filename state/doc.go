// Package state keeps what the replicas of a host must share on Redis, so
// that three replicas with a rate of 10 a minute allow 10 calls a minute,
// not 30: the rate limits of the tools, as GCRA token buckets decided by
// one Lua script per call (github.com/go-redis/redis_rate), with the time
// to retry from Redis.
//
// Limits is a middleware (tooling.Registry.Use): a call whose tool has a
// rate (tooling.Policy.Rate) takes its token from the bucket on Redis,
// keyed by the prefix and the tool's bucket key, before the registry's own
// bucket of the process. Each decision has a short deadline; when Redis
// does not answer in time, the call is refused with code unavailable,
// naming Redis (fail closed, the default), or, with FailOpen, falls back to
// the process's own limits with a warning. The client reconnects by
// itself; Status says which way decisions go.
//
// Imports: tooling, config and the Redis client. tooling never imports
// this package; the gate in scripts/gate.sh checks it.
package state
