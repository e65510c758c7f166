package state_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/internal/redistest"
	"github.com/toolexplorer/toolexplorer/state"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// replicaEnv, when set, makes the test binary a replica: a small host with
// one rate-limited tool whose limits are on the Redis server at its value.
const replicaEnv = "STATE_TEST_REPLICA_REDIS"

func TestMain(m *testing.M) {
	if addr := os.Getenv(replicaEnv); addr != "" {
		os.Exit(replica(addr, os.Getenv("STATE_TEST_REPLICA_ON_FAILURE") == "local"))
	}
	os.Exit(m.Run())
}

// outcome is what a replica says of one call.
type outcome struct {
	Code       string   `json:"code"`
	Message    string   `json:"message"`
	RetryAfter float64  `json:"retry_after_ms"`
	Decisions  []string `json:"decisions"`
}

// replica serves calls of shared.limited (10 a minute, burst 10), one per
// line of stdin, answering each with a line of JSON, until stdin ends.
func replica(addr string, failOpen bool) int {
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "shared.limited", Meta: tooling.Meta{Concurrency: tooling.ReadOnly,
		Rate: tooling.Rate{PerMinute: 10, Burst: 10}},
		Run: func(context.Context, tooling.Call) (any, error) { return "done", nil }})
	lim, rdb := state.Open(reg, config.Redis{Addr: addr, Prefix: "replicas", Timeout: 500 * time.Millisecond, FailOpen: failOpen})
	defer rdb.Close()
	reg.Use(lim.Middleware())
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		res, _ := reg.Execute(context.Background(), "shared.limited", nil)
		o := outcome{Code: string(res.Code), Message: res.Message, RetryAfter: float64(res.RetryAfter.Milliseconds())}
		if o.Code == "" {
			o.Code = "ok"
		}
		for _, d := range res.Governance {
			o.Decisions = append(o.Decisions, d.Step+": "+d.Detail)
		}
		b, _ := json.Marshal(o)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	return 0
}

// replicaProc is a running replica.
type replicaProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startReplica(t *testing.T, addr string, onFailure string) *replicaProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), replicaEnv+"="+addr, "STATE_TEST_REPLICA_ON_FAILURE="+onFailure)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &replicaProc{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("replica: %v", err)
		}
	})
	return p
}

// call makes one call in the replica.
func (p *replicaProc) call(t *testing.T) outcome {
	t.Helper()
	if _, err := io.WriteString(p.in, "call\n"); err != nil {
		t.Fatal(err)
	}
	if !p.out.Scan() {
		t.Fatalf("replica ended: %v", p.out.Err())
	}
	var o outcome
	if err := json.Unmarshal(p.out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// redisServer is a redis-server the test started.
type redisServer = redistest.Server

// startRedis starts a redis-server of the test's own.
func startRedis(t *testing.T) *redisServer { return redistest.Start(t) }

func count(outs []outcome) map[string]int {
	m := map[string]int{}
	for _, o := range outs {
		m[o.Code]++
	}
	return m
}

// TestRateLimitSharedAcrossReplicas: three replicas with a rate of 10 a
// minute allow 10 calls between them, not 30, under concurrent calls; the
// refused calls are rate_limited with a retry-after from Redis.
func TestRateLimitSharedAcrossReplicas(t *testing.T) {
	srv := startRedis(t)
	reps := []*replicaProc{startReplica(t, srv.Addr, "closed"), startReplica(t, srv.Addr, "closed"), startReplica(t, srv.Addr, "closed")}
	var mu sync.Mutex
	var outs []outcome
	var wg sync.WaitGroup
	start := time.Now()
	for _, p := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				o := p.call(t)
				mu.Lock()
				outs = append(outs, o)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	// A token comes back every 6 s: on a machine so loaded that the 30
	// calls took that long, those tokens were rightly given too.
	refilled := int(elapsed / (6 * time.Second))
	got := count(outs)
	if got["ok"] < 10 || got["ok"] > 10+refilled || got["ok"]+got["rate_limited"] != 30 {
		t.Fatalf("30 calls over three replicas in %v: %v, want 10 ok (%d more refilled at most) and the rest rate_limited", elapsed, got, refilled)
	}
	for _, o := range outs {
		if o.Code == "rate_limited" && (o.RetryAfter <= 0 || o.RetryAfter > 6000 || !strings.Contains(o.Message, "across replicas")) {
			t.Errorf("refusal %+v: want a retry-after within 6 s, from the shared bucket", o)
		}
	}
}

// TestRedisDownAndBack: with Redis killed mid-run, a replica that fails
// closed refuses calls with unavailable naming Redis, one that falls back
// runs them under its own limits and says so; with Redis restarted, both
// decide on Redis again.
func TestRedisDownAndBack(t *testing.T) {
	srv := startRedis(t)
	closed, local := startReplica(t, srv.Addr, "closed"), startReplica(t, srv.Addr, "local")
	for _, p := range []*replicaProc{closed, local} {
		if o := p.call(t); o.Code != "ok" || !hasDecision(o, "token of bucket") {
			t.Fatalf("with Redis up: %+v", o)
		}
	}
	srv.Stop()
	if o := closed.call(t); o.Code != "unavailable" || !strings.Contains(o.Message, "Redis at "+srv.Addr) {
		t.Errorf("fail closed, Redis down: %+v, want unavailable naming Redis", o)
	}
	if o := local.call(t); o.Code != "ok" || !hasDecision(o, "own limit applies") {
		t.Errorf("fall back, Redis down: %+v, want ok under the process's own limit, said so", o)
	}
	srv.Start()
	for name, p := range map[string]*replicaProc{"closed": closed, "local": local} {
		// The client reconnects on its own: the first call may still meet
		// the connection Redis closed, the next one gets a new one.
		o := p.call(t)
		if o.Code != "ok" {
			o = p.call(t)
		}
		if o.Code != "ok" || !hasDecision(o, "token of bucket") {
			t.Errorf("%s, Redis back: %+v, want a decision of Redis", name, o)
		}
	}
}

func hasDecision(o outcome, part string) bool {
	for _, d := range o.Decisions {
		if strings.Contains(d, part) {
			return true
		}
	}
	return false
}
