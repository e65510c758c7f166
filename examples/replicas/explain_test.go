package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/internal/redistest"
	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/state"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// explainHost is a registry whose tool t.pay has a rate of 2 a minute on
// shared's Redis, and a limit of 3 a minute per subject whose counts are
// there too.
func explainHost(t *testing.T, shared *state.Redis) *tooling.Registry {
	t.Helper()
	reg := tooling.NewRegistry()
	if err := reg.Add(tooling.Tool{Name: "t.pay", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Rate: tooling.Rate{PerMinute: 2, Burst: 2}},
		Run: func(context.Context, tooling.Call) (any, error) { return "paid", nil }}); err != nil {
		t.Fatal(err)
	}
	reg.Use(shared.Limits(reg).Middleware())
	limits, err := policy.NewLimits([]policy.Limit{{Name: "pays", Tools: []string{"t.pay"}, PerMinute: 3, Burst: 3}},
		policy.WithStore(shared.Counts(policy.NewMemoryStore(nil))))
	if err != nil {
		t.Fatal(err)
	}
	reg.Use(limits.Middleware())
	return reg
}

// decision is the detail of the first decision of step in res, "" when
// there is none.
func decision(res *tooling.Result, step string) string {
	for _, d := range res.Governance {
		if d.Step == step {
			return d.Detail
		}
	}
	return ""
}

// TestExplainReadsRedisTakingNothing: Explain of a call whose tool rate and
// per-subject limit are on Redis says, from Redis, that each has a token,
// and takes none: however often it is asked, two calls run; then it says
// the call would be refused rate_limited, with the time to wait. With
// Redis down it refuses unavailable, naming Redis (fail closed), or says
// the process's own limits apply (FailOpen).
func TestExplainReadsRedisTakingNothing(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true, MaxRetries: 1})
	defer rdb.Close()
	reg := explainHost(t, state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: time.Second}))
	ctx := context.Background()
	who := tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: "acme"})
	for range 5 {
		res, _ := reg.Explain(ctx, "t.pay", nil, who)
		if res.Code != codes.OK || !strings.Contains(decision(res, "shared rate"), "would pass: 2.0 tokens") ||
			!strings.Contains(decision(res, "limit"), "has a token (none taken)") {
			t.Fatalf("explain with tokens: %s %q, governance %+v; want both read from Redis, none taken", res.Code, res.Message, res.Governance)
		}
	}
	for i := range 2 {
		if res, err := reg.Execute(ctx, "t.pay", nil, who); err != nil {
			t.Fatalf("call %d after the explains: %v (%s)", i, err, res.Message)
		}
	}
	res, _ := reg.Explain(ctx, "t.pay", nil, who)
	if res.Code != codes.RateLimited || res.RetryAfter <= 0 || !strings.Contains(res.Message, "across replicas") {
		t.Fatalf("explain with the shared bucket empty: %s %q (retry %v); want rate_limited from Redis, with the time to wait", res.Code, res.Message, res.RetryAfter)
	}

	// The per-subject limit alone, on a registry whose tool has no shared
	// rate: after two of carol's calls her bucket is empty, and Explain
	// says so from Redis.
	limits, err := policy.NewLimits([]policy.Limit{{Name: "pays", Tools: []string{"t.free"}, PerMinute: 3, Burst: 2}},
		policy.WithStore(state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: time.Second}).Counts(policy.NewMemoryStore(nil))))
	if err != nil {
		t.Fatal(err)
	}
	free := tooling.NewRegistry()
	if err := free.Add(tooling.Tool{Name: "t.free", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "ok", nil }}); err != nil {
		t.Fatal(err)
	}
	free.Use(limits.Middleware())
	carol := tooling.WithPrincipal(tooling.Principal{Subject: "carol", Tenant: "acme"})
	for range 2 {
		if _, err := free.Execute(ctx, "t.free", nil, carol); err != nil {
			t.Fatal(err)
		}
	}
	if res, _ := free.Explain(ctx, "t.free", nil, carol); res.Code != codes.RateLimited || res.RetryAfter <= 0 || !strings.Contains(res.Message, "pays") {
		t.Fatalf("explain with carol's bucket empty: %s %q (retry %v); want rate_limited by the limit, from Redis", res.Code, res.Message, res.RetryAfter)
	}

	srv.Stop()
	if res, _ := reg.Explain(ctx, "t.pay", nil, who); res.Code != codes.Unavailable || !strings.Contains(res.Message, "Redis at "+srv.Addr) {
		t.Fatalf("explain with Redis down, fail closed: %s %q; want unavailable naming Redis", res.Code, res.Message)
	}
	var warned []string
	open := explainHost(t, state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: time.Second, FailOpen: true,
		Warn: func(msg string) { warned = append(warned, msg) }}))
	res, _ = open.Explain(ctx, "t.pay", nil, who)
	if res.Code != codes.OK || !strings.Contains(decision(res, "shared rate"), "own limit applies") ||
		!strings.Contains(decision(res, "limit"), "has a token (none taken)") || len(warned) != 2 {
		t.Fatalf("explain with Redis down, FailOpen: %s %q, governance %+v, warnings %q; want both decided in the process, with warnings",
			res.Code, res.Message, res.Governance, warned)
	}
}

// prefix is a key prefix of its own, so that hosts sharing a server never
// meet.
func prefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:])
}
