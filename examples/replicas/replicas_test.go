package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/redistest"
)

// replicaEnv, when set, makes the test binary a replica: the host of
// main.go, with the flags in its value (separated by newlines).
const replicaEnv = "REPLICAS_TEST_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(replicaEnv); args != "" {
		os.Args = append([]string{os.Args[0]}, strings.Split(args, "\n")...)
		main()
		return
	}
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// replica is a running replica process.
type replica struct {
	mu  sync.Mutex // one call at a time
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startReplica(t *testing.T, srv *redistest.Server, writes, onFailure string) *replica {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), replicaEnv+"="+strings.Join([]string{"-redis", srv.Addr, "-writes", writes, "-on-failure", onFailure}, "\n"))
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
	t.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("replica: %v", err)
		}
	})
	return &replica{cmd: cmd, in: in, out: bufio.NewScanner(out)}
}

// call makes one call in the replica. It may run in any goroutine.
func (p *replica) call(t *testing.T, req request) response {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, _ := json.Marshal(req)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		t.Error(err)
		return response{}
	}
	if !p.out.Scan() {
		t.Errorf("replica ended: %v", p.out.Err())
		return response{}
	}
	var r response
	if err := json.Unmarshal(p.out.Bytes(), &r); err != nil {
		t.Error(err)
	}
	if r.Code == "" {
		r.Code = "ok"
	}
	return r
}

func three(t *testing.T, srv *redistest.Server, writes, onFailure string) []*replica {
	return []*replica{startReplica(t, srv, writes, onFailure), startReplica(t, srv, writes, onFailure), startReplica(t, srv, writes, onFailure)}
}

func count(outs []response) map[string]int {
	m := map[string]int{}
	for _, o := range outs {
		m[o.Code]++
	}
	return m
}

// each makes n calls of req(replica, i) in each replica, the replicas
// at once, and returns every response.
func each(t *testing.T, reps []*replica, n int, req func(r, i int) request) []response {
	var mu sync.Mutex
	var outs []response
	var wg sync.WaitGroup
	start := make(chan struct{})
	for r, p := range reps {
		wg.Go(func() {
			<-start
			for i := range n {
				o := p.call(t, req(r, i))
				mu.Lock()
				outs = append(outs, o)
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	return outs
}

// written is the ids in the writes file, one per write.
func written(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// TestRateLimitSharedAcrossReplicas: three replicas with a rate of 10 a
// minute allow 10 calls between them, not 30, under concurrent calls; the
// refused calls are rate_limited with a retry-after from Redis.
func TestRateLimitSharedAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	reps := three(t, srv, filepath.Join(t.TempDir(), "writes"), "closed")
	start := time.Now()
	outs := each(t, reps, 10, func(int, int) request { return request{Tool: "shared.limited"} })
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

// TestIdempotencyKeyRunsOnceAcrossReplicas: every replica calls with
// each of ten keys at once; each key's call runs once, in one replica, and
// the others replay its outcome. A call held running while the other
// replicas repeat it makes them wait and replay.
func TestIdempotencyKeyRunsOnceAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	dir := t.TempDir()
	writes := filepath.Join(dir, "writes")
	reps := three(t, srv, writes, "closed")

	outs := each(t, reps, 10, func(_, i int) request {
		return request{Tool: "shared.pay", Args: json.RawMessage(fmt.Sprintf(`{"id":"k%d"}`, i)), Key: fmt.Sprintf("key-%d", i), Subject: "alice"}
	})
	if got := count(outs); got["ok"] != 30 {
		t.Fatalf("30 keyed calls: %v, want all ok", got)
	}
	replayed := 0
	for _, o := range outs {
		if o.Replayed {
			replayed++
		}
	}
	w := written(t, writes)
	slices.Sort(w)
	if want := []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"}; !slices.Equal(w, want) || replayed != 20 {
		t.Fatalf("writes %q, %d replayed; want each key written once and 20 replays", w, replayed)
	}

	// One call holds its key while the two other replicas repeat it.
	hold := filepath.Join(dir, "hold")
	held := make(chan response, 1)
	go func() {
		held <- reps[0].call(t, request{Tool: "shared.pay", Args: json.RawMessage(`{"id":"h","hold":"` + hold + `"}`), Key: "held", Subject: "alice"})
	}()
	waitFile(t, hold+".started")
	repeats := make(chan response, 2)
	for _, p := range reps[1:] {
		go func() {
			repeats <- p.call(t, request{Tool: "shared.pay", Args: json.RawMessage(`{"id":"h","hold":"` + hold + `"}`), Key: "held", Subject: "alice"})
		}()
	}
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	first := <-held
	for range 2 {
		if r := <-repeats; r.Code != "ok" || !r.Replayed || string(r.Output) != string(first.Output) {
			t.Errorf("repeat of a held call: %+v; want the replay of %s", r, first.Output)
		}
	}
	if n := strings.Count(strings.Join(written(t, writes), " "), "h"); n != 1 {
		t.Fatalf("the held call wrote %d times, want once", n)
	}
}

// TestBudgetSharedAcrossReplicas: a budget of 5 calls an hour for alice
// allows 5 calls across three replicas, not 15.
func TestBudgetSharedAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	reps := three(t, srv, filepath.Join(t.TempDir(), "writes"), "closed")
	outs := each(t, reps, 3, func(int, int) request { return request{Tool: "shared.spend", Subject: "alice"} })
	if got := count(outs); got["ok"] != 5 || got["budget_exceeded"] != 4 {
		t.Fatalf("9 calls over three replicas with a budget of 5: %v", got)
	}
	if o := reps[0].call(t, request{Tool: "shared.spend", Subject: "bob"}); o.Code != "ok" {
		t.Fatalf("bob has his own budget: %+v", o)
	}
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRedisKilledMidRun: Redis (keeping an append-only file, synced on
// every write) is killed while a keyed call runs, between its claim and its
// outcome. With Redis down, a replica that fails closed refuses calls with
// unavailable, naming Redis, and runs nothing; one that falls back runs
// them under its own limits and says so. Once Redis is back, the held
// call's outcome is kept (it was not lost), its repeat on another replica
// replays it (it did not run twice), and the refused call runs once.
func TestRedisKilledMidRun(t *testing.T) {
	srv := redistest.StartDurable(t)
	dir := t.TempDir()
	writes := filepath.Join(dir, "writes")
	closed := three(t, srv, writes, "closed")
	local := startReplica(t, srv, writes, "local")
	for _, p := range append(closed, local) {
		if o := p.call(t, request{Tool: "shared.limited"}); o.Code != "ok" || !has(o, "token of bucket") {
			t.Fatalf("with Redis up: %+v", o)
		}
	}

	hold := filepath.Join(dir, "hold")
	heldReq := request{Tool: "shared.pay", Args: json.RawMessage(`{"id":"held","hold":"` + hold + `"}`), Key: "held", Subject: "alice"}
	held := make(chan response, 1)
	go func() { held <- closed[0].call(t, heldReq) }()
	waitFile(t, hold+".started")
	srv.Stop()
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	pay := func(p *replica, id string) response {
		return p.call(t, request{Tool: "shared.pay", Args: json.RawMessage(`{"id":"` + id + `"}`), Key: id, Subject: "alice"})
	}
	for _, tool := range []string{"shared.limited", "shared.spend"} {
		if o := closed[1].call(t, request{Tool: tool, Subject: "alice"}); o.Code != "unavailable" || !strings.Contains(o.Message, "Redis at "+srv.Addr) {
			t.Errorf("fail closed, %s with Redis down: %+v; want unavailable naming Redis", tool, o)
		}
	}
	if o := pay(closed[1], "refused"); o.Code != "unavailable" || !strings.Contains(o.Message, "Redis at "+srv.Addr) {
		t.Errorf("fail closed, keyed call with Redis down: %+v; want unavailable naming Redis", o)
	}
	if o := local.call(t, request{Tool: "shared.limited"}); o.Code != "ok" || !has(o, "own limit applies") {
		t.Errorf("fall back, Redis down: %+v; want ok under the process's own limit, said so", o)
	}
	if o := local.call(t, request{Tool: "shared.spend", Subject: "carol"}); o.Code != "ok" {
		t.Errorf("fall back, budget with Redis down: %+v; want ok under the process's own budget", o)
	}

	srv.Start()
	first := <-held
	if first.Code != "ok" || first.Replayed {
		t.Fatalf("the call held across Redis's restart: %+v; want ok, its outcome kept", first)
	}
	// The clients reconnect by themselves: the first call may still meet
	// the connection Redis closed.
	again := closed[2].call(t, heldReq)
	if again.Code == "unavailable" {
		again = closed[2].call(t, heldReq)
	}
	if again.Code != "ok" || !again.Replayed || string(again.Output) != string(first.Output) {
		t.Errorf("repeat of the held call after the restart: %+v; want the replay of %s", again, first.Output)
	}
	ran := pay(closed[1], "refused")
	if ran.Code == "unavailable" {
		ran = pay(closed[1], "refused")
	}
	if ran.Code != "ok" || ran.Replayed {
		t.Errorf("the refused call, Redis back: %+v; want it run", ran)
	}
	if o := pay(closed[0], "refused"); !o.Replayed {
		t.Errorf("its repeat: %+v; want a replay", o)
	}
	w := written(t, writes)
	slices.Sort(w)
	if !slices.Equal(w, []string{"held", "refused"}) {
		t.Fatalf("writes %q; want the held call and the refused one once each (none lost, none doubled)", w)
	}
	for _, p := range append(closed, local) {
		o := p.call(t, request{Tool: "shared.limited"})
		if o.Code != "ok" {
			o = p.call(t, request{Tool: "shared.limited"})
		}
		if o.Code != "ok" || !has(o, "token of bucket") {
			t.Errorf("Redis back: %+v; want a decision of Redis", o)
		}
	}
}

func has(o response, part string) bool {
	for _, d := range o.Decisions {
		if strings.Contains(d, part) {
			return true
		}
	}
	return false
}
