package main

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/state"
)

// sharedState is the state the config's state.redis shares with the
// other replicas: the tools' rate limits, the idempotency records and the
// counts of the limits and budgets, on one Redis client.
type sharedState struct {
	redis  *state.Redis
	idem   *state.Idempotency
	client *redis.Client
}

// applyState, when the config names a Redis server (state.redis), decides
// there, across every replica that uses it, the tools' rate limits, which
// keyed call ran (idempotency) and the counts of the limits and budgets
// (policyOptions). It runs before the limits and budgets are made.
func (a *app) applyState() {
	r := a.cfg.State.Redis
	if r == nil || a.shared.client != nil {
		return
	}
	s, client := state.OpenRedis(*r, func(msg string) { fmt.Fprintf(a.stderr, "toolexplorer: warning: %s\n", msg) })
	a.shared = sharedState{redis: s, idem: s.Idempotency(), client: client}
	a.reg.Use(s.Limits(a.reg).Middleware())
	a.reg.SetIdempotencyStore(a.shared.idem)
}

// policyOptions are where limits and budgets keep their counts: on the
// shared Redis server (state.redis), falling back, when so configured, on
// this process's memory; else in this process's memory.
func (a *app) policyOptions() []policy.Option {
	if a.shared.redis == nil {
		return nil
	}
	return []policy.Option{policy.WithStore(a.shared.redis.Counts(policy.NewMemoryStore(nil)))}
}

// sharedStatus is the shared state's status in one line, for the
// console's board; "" when there is none.
func (a *app) sharedStatus() string {
	if a.shared.redis == nil {
		return ""
	}
	return a.shared.redis.Status().String()
}

// closeState closes the Redis client of the shared state, if any, once
// the outcomes of keyed calls on their way to Redis are there (or their
// claims' leases, which bound the wait, have passed).
func (a *app) closeState() {
	if a.shared.client != nil {
		_ = a.shared.idem.Flush(context.Background())
		a.reg.SetIdempotencyStore(nil)
		_ = a.shared.client.Close()
	}
}
