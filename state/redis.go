package state

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Defaults of Options.
const (
	DefaultPrefix  = "toolexplorer"
	DefaultTimeout = 100 * time.Millisecond
)

// Options tune the shared state.
type Options struct {
	// Prefix starts every key. Zero: DefaultPrefix.
	Prefix string
	// Timeout bounds each decision's round trip to Redis. Zero:
	// DefaultTimeout.
	Timeout time.Duration
	// FailOpen lets a call whose decision Redis did not give in time go
	// on under the process's own limits, budgets and idempotency records,
	// with a warning; default false: it is refused with code unavailable,
	// naming Redis.
	FailOpen bool
	// Warn is told of each fallback (FailOpen). Zero: slog.Warn.
	Warn func(msg string)
}

// Redis is the state the replicas of a host share on one Redis server:
// the tools' rate limits (Limits), the idempotency records
// (Idempotency) and the counts of the principals' limits and budgets
// (Counts). They share its prefix, its deadline per decision, what happens
// when Redis does not answer, and one Status.
type Redis struct {
	rdb     redis.UniversalClient
	addr    string
	prefix  string
	timeout time.Duration
	open    bool
	warn    func(string)

	// cluster: a call's decisions are not made in one script, as their
	// keys may be on several nodes.
	cluster bool

	decided, failed atomic.Int64
	mu              sync.Mutex
	lastErr         string
	lastErrAt       time.Time
	healthy         bool
}

// NewRedis returns the shared state on rdb. The client's commands must
// honour their context's deadline (redis.Options.ContextTimeoutEnabled), as
// those of NewClient do.
func NewRedis(rdb redis.UniversalClient, o Options) *Redis {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Warn == nil {
		o.Warn = func(msg string) { slog.Warn(msg) }
	}
	addr := "Redis"
	if c, ok := rdb.(*redis.Client); ok {
		addr = "Redis at " + c.Options().Addr
	}
	_, cluster := rdb.(*redis.ClusterClient)
	return &Redis{rdb: rdb, addr: addr, prefix: o.Prefix, timeout: o.Timeout, open: o.FailOpen, warn: o.Warn, healthy: true, cluster: cluster}
}

// NewClient returns a Redis client for c whose commands honour their
// context's deadline, as the shared state needs.
func NewClient(c config.Redis) *redis.Client {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return redis.NewClient(&redis.Options{Addr: c.Addr, Username: c.Username, Password: c.Password, DB: c.DB,
		ContextTimeoutEnabled: true, DialTimeout: timeout, MaxRetries: 1})
}

// OpenRedis returns the shared state on the Redis server c names, with its
// client: close the client when done. warn is told of each fallback (nil:
// slog.Warn).
func OpenRedis(c config.Redis, warn func(string)) (*Redis, *redis.Client) {
	rdb := NewClient(c)
	return NewRedis(rdb, Options{Prefix: c.Prefix, Timeout: c.Timeout, FailOpen: c.FailOpen, Warn: warn}), rdb
}

// Open returns the limits of reg on the Redis server c names, with its
// client: close the client when done.
func Open(reg *tooling.Registry, c config.Redis) (*Limits, *redis.Client) {
	s, rdb := OpenRedis(c, nil)
	return s.Limits(reg), rdb
}

// The states of Status.State.
const (
	StateConnected   = "connected"
	StateFallingBack = "falling back to local"
	StateRefusing    = "refusing calls"
)

// Status is how the shared state decides now.
type Status struct {
	// Backend names the server ("Redis at 127.0.0.1:6379").
	Backend string `json:"backend"`
	// Prefix starts every key.
	Prefix string `json:"prefix"`
	// OnFailure is "closed" (refuse) or "local" (the process's own
	// limits, budgets and records) when the server does not answer in
	// time.
	OnFailure string `json:"on_failure"`
	// State is StateConnected while the last decision was Redis's, else
	// StateFallingBack or StateRefusing, as OnFailure says.
	State string `json:"state"`
	// Healthy is false when the last decision failed.
	Healthy bool `json:"healthy"`
	// Decided counts the decisions Redis gave, Failed those it did not.
	Decided int64 `json:"decided"`
	Failed  int64 `json:"failed"`
	// LastError is the last failure and when it was; zero when none.
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
}

// String is the status in one line, as the console's board shows it.
func (s Status) String() string {
	line := fmt.Sprintf("%s · key prefix %s · %s · on failure: %s · %d decided, %d failed", s.Backend, s.Prefix, s.State,
		map[string]string{"closed": "refuse (unavailable)", "local": "local limits, with a warning"}[s.OnFailure], s.Decided, s.Failed)
	if s.LastError != "" {
		line += " · last error: " + s.LastError
	}
	return line
}

// Status returns how the shared state decides now.
func (r *Redis) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Status{Backend: r.addr, Prefix: r.prefix, OnFailure: "closed", State: StateConnected, Healthy: r.healthy,
		Decided: r.decided.Load(), Failed: r.failed.Load(), LastError: r.lastErr, LastErrorAt: r.lastErrAt}
	if r.open {
		s.OnFailure = "local"
	}
	if !r.healthy {
		s.State = StateRefusing
		if r.open {
			s.State = StateFallingBack
		}
	}
	return s
}

// ok records a decision Redis gave.
func (r *Redis) ok() {
	r.decided.Add(1)
	r.mu.Lock()
	r.healthy = true
	r.mu.Unlock()
}

// fail records a decision Redis did not give, and returns the error that
// says so, naming Redis.
func (r *Redis) fail(err error) error {
	r.failed.Add(1)
	r.mu.Lock()
	r.healthy, r.lastErr, r.lastErrAt = false, err.Error(), time.Now()
	r.mu.Unlock()
	return &unavailableError{addr: r.addr, err: err}
}

// unavailableError is a decision Redis did not give.
type unavailableError struct {
	addr string
	err  error
}

func (e *unavailableError) Error() string { return fmt.Sprintf("%s did not answer: %v", e.addr, e.err) }
func (e *unavailableError) Unwrap() error { return e.err }

// call runs f with the deadline of one decision, recording how it went. A
// reply of Redis that is an error of the script (redis.Error) is not a
// failure of the server.
func (r *Redis) call(ctx context.Context, f func(ctx context.Context) error) error {
	dctx, cancel := context.WithTimeout(ctx, r.timeout)
	err := f(dctx)
	cancel()
	var rerr redis.Error
	switch {
	case err == nil || errors.Is(err, redis.Nil):
		r.ok()
		return err
	case errors.As(err, &rerr) && !strings.HasPrefix(err.Error(), "LOADING"):
		r.ok()
		return fmt.Errorf("state: %s: %w", r.addr, err)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return r.fail(err)
}

// key is the prefixed key of parts.
func (r *Redis) key(parts ...string) string {
	k := r.prefix
	for _, p := range parts {
		k += ":" + p
	}
	return k
}
