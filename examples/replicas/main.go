package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/state"
	"github.com/toolexplorer/toolexplorer/tooling"
)

func main() {
	addr := flag.String("redis", "127.0.0.1:6379", "the Redis server's `host:port`")
	prefix := flag.String("prefix", "replicas", "the start of every key")
	onFailure := flag.String("on-failure", "closed", "when Redis does not answer: closed refuses, local decides in this process")
	writes := flag.String("writes", "writes.log", "the `file` shared.pay appends to")
	flag.Parse()
	os.Exit(serve(config.Redis{Addr: *addr, Prefix: *prefix, Timeout: 500 * time.Millisecond, FailOpen: *onFailure == "local"}, *writes))
}

// request is one call, a line of standard input.
type request struct {
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Key     string          `json:"key,omitempty"`
	Subject string          `json:"subject,omitempty"`
}

// response is what a call did, a line of standard output.
type response struct {
	Code       string          `json:"code"`
	Message    string          `json:"message,omitempty"`
	Replayed   bool            `json:"replayed,omitempty"`
	Output     json.RawMessage `json:"output,omitempty"`
	RetryAfter float64         `json:"retry_after_ms,omitempty"`
	Decisions  []string        `json:"decisions,omitempty"`
}

// serve makes the calls of standard input, one at a time, until it ends.
func serve(c config.Redis, writes string) int {
	reg, rdb, idem, err := newHost(c, writes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replicas:", err)
		return 2
	}
	defer rdb.Close()
	// The outcomes of keyed calls reach Redis after the calls return:
	// they are stored before the client closes.
	defer idem.Flush(context.Background())
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "replicas:", err)
			return 2
		}
		opts := []tooling.Option{tooling.WithPrincipal(tooling.Principal{Subject: req.Subject, Tenant: "acme"})}
		if req.Key != "" {
			opts = append(opts, tooling.WithIdempotencyKey(req.Key))
		}
		res, _ := reg.Execute(context.Background(), req.Tool, req.Args, opts...)
		r := response{Code: string(res.Code), Message: res.Message, Replayed: res.Replayed, Output: res.Output,
			RetryAfter: float64(res.RetryAfter.Milliseconds())}
		for _, d := range res.Governance {
			r.Decisions = append(r.Decisions, d.Step+": "+d.Detail)
		}
		b, _ := json.Marshal(r)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	return 0
}

// closer is the Redis client.
type closer interface{ Close() error }

// newHost is the registry of the replica: three tools whose rate limits,
// idempotency records and budgets are on Redis.
func newHost(c config.Redis, writes string) (*tooling.Registry, closer, *state.Idempotency, error) {
	reg := tooling.NewRegistry()
	reg.Register(
		tooling.Tool{Name: "shared.limited", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Rate: tooling.Rate{PerMinute: 10, Burst: 10}},
			Run: func(context.Context, tooling.Call) (any, error) { return "done", nil }},
		tooling.Tool{Name: "shared.pay",
			Input: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"hold":{"type":"string"}},"required":["id"]}`),
			Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true},
			Run:   pay(writes)},
		tooling.Tool{Name: "shared.spend", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(context.Context, tooling.Call) (any, error) { return "spent", nil }},
	)
	shared, rdb := state.OpenRedis(c, func(msg string) { fmt.Fprintln(os.Stderr, "replicas: warning:", msg) })
	reg.Use(shared.Limits(reg).Middleware())
	idem := shared.Idempotency()
	reg.SetIdempotencyStore(idem)
	budgets, err := policy.NewBudgets([]policy.Budget{{Name: "spend", Tools: []string{"shared.spend"}, Window: time.Hour, Calls: 5}},
		policy.WithStore(shared.Counts(policy.NewMemoryStore(nil))))
	if err != nil {
		return nil, nil, nil, err
	}
	reg.Use(budgets.Middleware())
	return reg, rdb, idem, nil
}

// pay appends the call's id to the writes file, synced, once the file
// its hold names exists (after creating hold.started), so that a test may
// hold a call between its claim and its outcome.
func pay(writes string) func(ctx context.Context, c tooling.Call) (any, error) {
	return func(ctx context.Context, c tooling.Call) (any, error) {
		if hold := callargs.String(c.Args, "hold"); hold != "" {
			if err := os.WriteFile(hold+".started", nil, 0o600); err != nil {
				return nil, err
			}
			for {
				if _, err := os.Stat(hold); err == nil {
					break
				}
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(5 * time.Millisecond):
				}
			}
		}
		f, err := os.OpenFile(writes, os.O_APPEND|os.O_CREATE|os.O_WRONLY|os.O_SYNC, 0o600)
		if err != nil {
			return nil, err
		}
		_, err = fmt.Fprintln(f, callargs.String(c.Args, "id"))
		return map[string]any{"paid": callargs.String(c.Args, "id"), "pid": os.Getpid()}, errors.Join(err, f.Close())
	}
}
