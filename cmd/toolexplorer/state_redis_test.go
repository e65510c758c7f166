package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/internal/redistest"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// redisConfig writes a config whose shared state is on srv, with a key
// prefix of its own, a budget of two demo.echo calls a day and idempotency
// records kept an hour; onFailure is closed or local.
func redisConfig(t *testing.T, srv *redistest.Server, onFailure string) (path, prefix string) {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix = "cmd" + hex.EncodeToString(b[:])
	return writeFile(t, "config.json", `{
  "state": {"redis": {"addr": "`+srv.Addr+`", "prefix": "`+prefix+`", "timeout": "1s", "on_failure": "`+onFailure+`"}},
  "budgets": [{"name": "echoes", "tools": ["demo.echo"], "window": "day", "calls": 2}],
  "idempotency": {"ttl": "1h"}
}`), prefix
}

// TestStateRedisSelectsAllThree: with state.redis, the idempotency
// records and the budgets' counts are on Redis under the config's prefix
// (the tenant in the counts' keys): a repeat replays, the third call is
// over budget; with Redis down, a call is refused with unavailable,
// naming Redis.
func TestStateRedisSelectsAllThree(t *testing.T) {
	srv := redistest.Start(t)
	cfg, prefix := redisConfig(t, srv, "closed")
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	ctx := context.Background()

	key := "note-" + prefix
	note := func() *tooling.Result {
		o := cli(t, "", "run", "demo.write_note", "--config", cfg, "--consent", "--args", `{"text":"paid"}`, "--idempotency-key", key, "--json")
		if o.code != exitOK {
			t.Fatalf("write_note:\n%s", o)
		}
		return decodeResult(t, o)
	}
	if first, again := note(), note(); first.Replayed || !again.Replayed {
		t.Fatalf("replayed: first %v, repeat %v; want the repeat replayed", first.Replayed, again.Replayed)
	}
	if keys := rdb.Keys(ctx, prefix+":idem:*").Val(); len(keys) != 1 {
		t.Fatalf("idempotency keys on Redis: %q, want one under %s:idem:", keys, prefix)
	}

	echo := func() outcome {
		return cli(t, "", "run", "demo.echo", "--config", cfg, "--args", `{"text":"hi"}`, "--json")
	}
	for range 2 {
		if o := echo(); o.code != exitOK {
			t.Fatalf("echo within budget:\n%s", o)
		}
	}
	if o := echo(); o.code != exitRefused || decodeResult(t, o).Code != "budget_exceeded" {
		t.Fatalf("third echo:\n%s", o)
	}
	if keys := rdb.Keys(ctx, "{"+prefix+":*}:budget:echoes:*").Val(); len(keys) != 1 {
		t.Fatalf("budget keys on Redis: %q, want one under {%s:TENANT}:budget:echoes:", keys, prefix)
	}

	srv.Stop()
	o := cli(t, "", "run", "demo.write_note", "--config", cfg, "--consent", "--args", `{"text":"other"}`, "--idempotency-key", key+"-2", "--json")
	if res := decodeResult(t, o); o.code != exitRefused || res.Code != codes.Unavailable || !strings.Contains(res.Message, "Redis at "+srv.Addr) {
		t.Fatalf("keyed call with Redis down, on_failure closed:\n%s", o)
	}
}

// TestStateRedisFallsBackWithAWarning: with on_failure local and Redis
// down, a call runs under this process's own budget and idempotency
// records, and a warning names Redis.
func TestStateRedisFallsBackWithAWarning(t *testing.T) {
	srv := redistest.Start(t)
	cfg, prefix := redisConfig(t, srv, "local")
	srv.Stop()
	o := cli(t, "", "run", "demo.write_note", "--config", cfg, "--consent", "--args", `{"text":"paid"}`, "--idempotency-key", "k-"+prefix, "--json")
	if o.code != exitOK || !strings.Contains(o.stderr, "warning: state:") || !strings.Contains(o.stderr, "Redis at "+srv.Addr) {
		t.Fatalf("keyed call with Redis down, on_failure local:\n%s", o)
	}
	if o := cli(t, "", "run", "demo.echo", "--config", cfg, "--args", `{"text":"hi"}`); o.code != exitOK || !strings.Contains(o.stderr, "budgets were decided in this process only") {
		t.Fatalf("budgeted call with Redis down, on_failure local:\n%s", o)
	}
}

// TestStateRedisOnTheBoard: the console is given the shared state's status
// line, which says where and how it is decided.
func TestStateRedisOnTheBoard(t *testing.T) {
	srv := redistest.Start(t)
	cfg, prefix := redisConfig(t, srv, "closed")
	defer func(c func(*app, string) int) { console = c }(console)
	var got string
	console = func(a *app, _ string) int {
		if opts := consoleOptions(a); opts.SharedState != nil {
			got = opts.SharedState()
		}
		return 7
	}
	if o := cli(t, "", "--config", cfg); o.code != 7 {
		t.Fatalf("console:\n%s", o)
	}
	if !strings.Contains(got, "Redis at "+srv.Addr) || !strings.Contains(got, "key prefix "+prefix) ||
		!strings.Contains(got, "connected") || !strings.Contains(got, "on failure: refuse") {
		t.Fatalf("status line %q", got)
	}
}

// TestStateRedisOneScriptACall: with state.redis, a call that a limit
// and a budget of the config both count asks Redis once, one script for
// both (it asked twice, a script each), and a call the budget refuses
// spends no token of the limit.
func TestStateRedisOneScriptACall(t *testing.T) {
	srv := redistest.Start(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "cmd" + hex.EncodeToString(b[:])
	cfg := writeFile(t, "config.json", `{
  "state": {"redis": {"addr": "`+srv.Addr+`", "prefix": "`+prefix+`", "timeout": "1s"}},
  "limits": [{"name": "echoes", "tools": ["demo.echo"], "per_minute": 60, "burst": 10}],
  "budgets": [{"name": "echoes", "tools": ["demo.echo"], "window": "day", "calls": 2}]
}`)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	ctx := context.Background()
	echo := func() (outcome, int) {
		t.Helper()
		if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		o := cli(t, "", "run", "demo.echo", "--config", cfg, "--args", `{"text":"hi"}`, "--json")
		stats := rdb.Info(ctx, "commandstats").Val()
		scripts := 0
		for _, line := range strings.Split(stats, "\n") {
			name, rest, _ := strings.Cut(strings.TrimSpace(line), ":")
			if name == "cmdstat_evalsha" || name == "cmdstat_eval" {
				calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
				n, _ := strconv.Atoi(calls)
				scripts += n
			}
		}
		return o, scripts
	}
	echo() // loads the script on the server
	if o, n := echo(); o.code != exitOK || n != 1 {
		t.Fatalf("echo counted by a limit and a budget: %d scripts run, want 1:\n%s", n, o)
	}
	tokens := func() string {
		keys := rdb.Keys(ctx, "{"+prefix+":*}:limit:echoes:*").Val()
		if len(keys) != 1 {
			t.Fatalf("the limit's buckets on Redis: %q, want one", keys)
		}
		return rdb.HGet(ctx, keys[0], "t").Val()
	}
	before := tokens()
	if o, n := echo(); o.code != exitRefused || decodeResult(t, o).Code != "budget_exceeded" || n != 1 {
		t.Fatalf("echo over budget: %d scripts run, want 1:\n%s", n, o)
	}
	if after := tokens(); before == "" || after != before {
		t.Fatalf("the limit's tokens went from %q to %q for a call the budget refused; want them untouched", before, after)
	}
}
