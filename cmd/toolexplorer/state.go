package main

import (
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/state"
)

// sharedState is the state the config's state.redis shares with the
// other replicas: the rate limits, on a Redis client.
type sharedState struct {
	limits *state.Limits
	client *redis.Client
}

// applyState decides the tools' rate limits on the config's Redis server,
// if it names one, across every replica that uses it.
func (a *app) applyState() {
	r := a.cfg.State.Redis
	if r == nil || a.shared.client != nil {
		return
	}
	client := state.NewClient(*r)
	lim := state.NewLimits(a.reg, client, state.Options{Prefix: r.Prefix, Timeout: r.Timeout, FailOpen: r.FailOpen,
		Warn: func(msg string) { fmt.Fprintf(a.stderr, "toolexplorer: warning: %s\n", msg) }})
	a.shared = sharedState{limits: lim, client: client}
	a.reg.Use(lim.Middleware())
}

// closeState closes the Redis client of the shared state, if any.
func (a *app) closeState() {
	if a.shared.client != nil {
		_ = a.shared.client.Close()
	}
}
