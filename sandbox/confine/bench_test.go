//go:build linux

package confine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// timed runs f b.N times and reports the median and 90th percentile besides the mean.
func timed(b *testing.B, f func()) {
	b.Helper()
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		f()
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(d[len(d)*9/10].Nanoseconds()), "p90-ns")
}

// envNaiveChild makes the test binary a naive child: it answers one request, unconfined.
const envNaiveChild = "TOOLEXPLORER_TEST_NAIVE_CHILD"

// naiveChild echoes one request from fd 3 to fd 4 and exits: what any child of a Go binary
// costs before confinement, with the same binary and protocol.
func naiveChild() {
	in, out := os.NewFile(requestFD, "request"), os.NewFile(responseFD, "response")
	_, payload, err := newFrameReader(readerSource{in}, maxFrame).next(0)
	if err != nil {
		os.Exit(exitProtocol)
	}
	writeFrame(out, frameResponse, (&responseMsg{body: payload}).encode())
	os.Exit(0)
}

// naiveLoop echoes requests from fd 3 to fd 4 until fd 3 closes: the bare protocol, with
// no confinement, no pool and no handler look-up.
func naiveLoop() {
	in, out := os.NewFile(requestFD, "request"), os.NewFile(responseFD, "response")
	r := newFrameReader(readerSource{in}, maxFrame)
	for {
		_, payload, err := r.next(0)
		if err != nil {
			os.Exit(0)
		}
		writeFrame(out, frameResponse, (&responseMsg{body: payload}).encode())
	}
}

// minimalHost builds internal/coldhost, the smallest host program, once per process, in a
// directory any user may enter (a child switches user before it execs), and returns its path.
func minimalHost(b *testing.B) string {
	b.Helper()
	coldHost.once.Do(func() {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			coldHost.err = err
			return
		}
		dir, err := os.MkdirTemp("", "toolexplorer-coldhost-")
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			coldHost.err = err
			return
		}
		coldHost.path = filepath.Join(dir, "coldhost")
		build := exec.Command(goCmd, "build", "-o", coldHost.path, "./internal/coldhost")
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
		if out, err := build.CombinedOutput(); err != nil {
			coldHost.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if coldHost.err != nil {
		b.Skipf("building the minimal host: %v", coldHost.err)
	}
	return coldHost.path
}

var coldHost struct {
	once sync.Once
	path string
	err  error
}

// The start-up cases: each returns the call to time, or skips b. They run alone (one benchmark
// each) and interleaved call by call (BenchmarkStartup), which is how their ratios are measured
// on a machine whose speed drifts.

// coldRun is a whole confined call: start, confine, echo, teardown. host is the child's program:
// "" for this test binary.
func coldRun(b *testing.B, host string) func() {
	requireConfinement(b)
	req := []byte("ping")
	return func() {
		if host != "" {
			childPath = host
			defer func() { childPath = "/proc/self/exe" }()
		}
		if _, err := Run(context.Background(), "test.echo", Profile{}, req); err != nil {
			b.Fatal(err)
		}
	}
}

// naiveRun starts host ("" for this test binary) as an unconfined child that echoes one request
// over the same pipes: the floor of a re-executed Go child on this machine. Like coldRun it stops
// at the answer; the child is reaped in the background (see wait).
func naiveRun(b *testing.B, host string, wg *sync.WaitGroup) func() {
	path := host
	if path == "" {
		path = "/proc/self/exe"
	}
	return func() {
		reqR, reqW, _ := os.Pipe()
		respR, respW, _ := os.Pipe()
		cmd := exec.Command(path)
		cmd.Env = []string{envNaiveChild + "=1"}
		cmd.ExtraFiles = []*os.File{reqR, respW}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		reqR.Close()
		respW.Close()
		var err error
		if host == "" {
			writeFrame(reqW, frameRequest, []byte("ping"))
			_, _, err = newFrameReader(readerSource{respR}, maxFrame).next(0)
		} else {
			reqW.Write([]byte("ping"))
			_, err = io.ReadFull(respR, make([]byte, 4))
		}
		if err != nil {
			b.Fatal(err)
		}
		reqW.Close()
		respR.Close()
		wg.Add(1)
		go func() { defer wg.Done(); cmd.Wait() }()
	}
}

// forkExecTrue is the floor: fork and exec of /bin/true.
func forkExecTrue(b *testing.B) func() {
	return func() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// bwrapTrue is bubblewrap's start-up, for comparison (skipped without bwrap).
func bwrapTrue(b *testing.B) func() {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		b.Skip("bwrap not installed")
	}
	if err := exec.Command(bwrap, "--ro-bind", "/", "/", "/bin/true").Run(); err != nil {
		b.Skipf("bwrap does not run here: %v", err)
	}
	return func() {
		if err := exec.Command(bwrap, "--ro-bind", "/", "/", "/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkColdRun(b *testing.B) { timed(b, coldRun(b, "")) }

// BenchmarkColdRunMinimalHost is ColdRun with internal/coldhost as the child: a host whose own
// initialisation is next to nothing (the test binary initialises testing, fuzzing, go/parser).
func BenchmarkColdRunMinimalHost(b *testing.B) { timed(b, coldRun(b, minimalHost(b))) }

func BenchmarkNaiveChild(b *testing.B) {
	var wg sync.WaitGroup
	defer wg.Wait()
	timed(b, naiveRun(b, "", &wg))
}

func BenchmarkNaiveChildMinimalHost(b *testing.B) {
	var wg sync.WaitGroup
	defer wg.Wait()
	timed(b, naiveRun(b, minimalHost(b), &wg))
}

func BenchmarkForkExecTrue(b *testing.B) { timed(b, forkExecTrue(b)) }

func BenchmarkBwrapTrue(b *testing.B) { timed(b, bwrapTrue(b)) }

// BenchmarkStartup runs the start-up cases interleaved, one call of each per iteration in a
// random order, so that all see the same machine: it reports each case's median (p50-ns-CASE)
// and its ratio to bwrap's (x-bwrap-CASE). Between two calls, untimed, the previous call's
// background work (reaping, temp dir) finishes, so that no call pays for another.
func BenchmarkStartup(b *testing.B) {
	var wg sync.WaitGroup
	defer wg.Wait()
	host := minimalHost(b)
	cases := []struct {
		name string
		f    func()
	}{
		{"bwrap", bwrapTrue(b)},
		{"cold", coldRun(b, "")},
		{"cold-minimal", coldRun(b, host)},
		{"naive", naiveRun(b, "", &wg)},
		{"naive-minimal", naiveRun(b, host, &wg)},
		{"true", forkExecTrue(b)},
	}
	d := make([][]time.Duration, len(cases))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range rand.Perm(len(cases)) {
			start := time.Now()
			cases[c].f()
			d[c] = append(d[c], time.Since(start))
			b.StopTimer()
			teardowns.Wait() // not Settle: the emptied temp dirs stay for reuse, as in a running host
			wg.Wait()
			b.StartTimer()
		}
	}
	b.StopTimer()
	p50 := make([]float64, len(cases))
	for c := range cases {
		slices.Sort(d[c])
		p50[c] = float64(d[c][len(d[c])/2].Nanoseconds())
		b.ReportMetric(p50[c], "p50-ns-"+cases[c].name)
	}
	for c := 1; c < len(cases); c++ {
		b.ReportMetric(p50[c]/p50[0], "x-bwrap-"+cases[c].name)
	}
}

// BenchmarkPoolSingleUse is a call served by a pre-started worker (the wait for the pool to
// refill is not timed).
func BenchmarkPoolSingleUse(b *testing.B) {
	requireConfinement(b)
	pool := NewPool(2)
	defer pool.Close()
	p := Profile{}
	req := []byte("ping")
	d := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		waitIdle(b, pool, "test.echo", p, 1)
		start := time.Now()
		if _, err := pool.Run(context.Background(), "test.echo", p, req); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(d)), "call-ns")
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(d[len(d)*9/10].Nanoseconds()), "p90-ns")
}

// bareEcho starts an unconfined child that echoes requests in a loop over the same pipes and
// frames as a worker, and returns one round trip to it: the bare protocol, the floor of a reused
// worker's call. stop ends the child.
func bareEcho(b *testing.B) (roundTrip func(), stop func()) {
	reqR, reqW, _ := os.Pipe()
	respR, respW, _ := os.Pipe()
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = []string{envNaiveChild + "=loop"}
	cmd.ExtraFiles = []*os.File{reqR, respW}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	reqR.Close()
	respW.Close()
	resp := newFrameReader(readerSource{respR}, maxFrame)
	return func() {
			writeFrame(reqW, frameRequest, []byte("ping"))
			if _, _, err := resp.next(0); err != nil {
				b.Fatal(err)
			}
		}, func() {
			reqW.Close()
			cmd.Wait()
			respR.Close()
		}
}

// BenchmarkBareRoundTrip is the bare protocol's round trip (see bareEcho).
func BenchmarkBareRoundTrip(b *testing.B) {
	roundTrip, stop := bareEcho(b)
	defer stop()
	timed(b, roundTrip)
}

// BenchmarkReuseAgainstBare interleaves a call to a reused worker at the default pool size and a
// bare round trip, so that both see the same machine, and reports each median and their ratio
// (x-bare, target at most 2).
func BenchmarkReuseAgainstBare(b *testing.B) {
	requireConfinement(b)
	roundTrip, stop := bareEcho(b)
	defer stop()
	pool := NewPool(2)
	defer pool.Close()
	p := Profile{Reuse: true}
	waitIdle(b, pool, "test.echo", p, 2)
	req := []byte("ping")
	reuse := func() {
		if _, err := pool.Run(context.Background(), "test.echo", p, req); err != nil {
			b.Fatal(err)
		}
	}
	var bare, pooled []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		roundTrip()
		mid := time.Now()
		reuse()
		bare, pooled = append(bare, mid.Sub(start)), append(pooled, time.Since(mid))
	}
	b.StopTimer()
	slices.Sort(bare)
	slices.Sort(pooled)
	b.ReportMetric(float64(bare[len(bare)/2].Nanoseconds()), "p50-ns-bare")
	b.ReportMetric(float64(pooled[len(pooled)/2].Nanoseconds()), "p50-ns-reuse")
	b.ReportMetric(float64(pooled[len(pooled)/2])/float64(bare[len(bare)/2]), "x-bare")
}

// BenchmarkPoolReuse is a round trip to a worker that serves call after call, at the default
// pool size of 2 (the worker that served last takes the next call).
func BenchmarkPoolReuse(b *testing.B) {
	requireConfinement(b)
	pool := NewPool(2)
	defer pool.Close()
	p := Profile{Reuse: true}
	waitIdle(b, pool, "test.echo", p, 2)
	req := []byte("ping")
	timed(b, func() {
		if _, err := pool.Run(context.Background(), "test.echo", p, req); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkPoolWrite times a pooled call that writes a file at the root of a git workspace
// (creating it: one open with O_CREAT), in the supervised mode and in the namespace mode,
// interleaved in a random order: served by a pre-started worker (single-use; the pool's refill
// is not timed) and by a reused worker. It reports each median (p50-ns-CASE) and the
// supervised mode's ratio to the namespace mode's (x-namespace-single, x-namespace-reuse).
func BenchmarkPoolWrite(b *testing.B) {
	requireConfinement(b)
	if m, why := ProtectionMode(); m != ModeSupervised {
		b.Skip(why)
	}
	f := newFixture(b)
	ws := f.rw
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	if os.Geteuid() == 0 {
		filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error { return os.Chown(p, UnprivilegedID, UnprivilegedID) })
	}
	pool := NewPool(2)
	defer pool.Close()
	type benchCase struct {
		name string
		p    Profile
	}
	var cases []benchCase
	for _, reuse := range []bool{false, true} {
		for _, m := range []Mode{ModeSupervised, ModeNamespace} {
			name := m.String() + "-single"
			if reuse {
				name = m.String() + "-reuse"
			}
			cases = append(cases, benchCase{name, inMode(Profile{WritePaths: []string{ws}, Reuse: reuse}, m)})
		}
	}
	for _, c := range cases {
		waitIdle(b, pool, "test.fs", c.p, 1)
	}
	d := make([][]time.Duration, len(cases))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range rand.Perm(len(cases)) {
			b.StopTimer()
			waitIdle(b, pool, "test.fs", cases[c].p, 1)
			req := fsReq("write", filepath.Join(ws, fmt.Sprintf("out-%d-%d.txt", i, c)), "")
			b.StartTimer()
			start := time.Now()
			if _, err := pool.Run(context.Background(), "test.fs", cases[c].p, req); err != nil {
				b.Fatal(err)
			}
			d[c] = append(d[c], time.Since(start))
		}
	}
	b.StopTimer()
	p50 := map[string]float64{}
	for c := range cases {
		slices.Sort(d[c])
		p50[cases[c].name] = float64(d[c][len(d[c])/2].Nanoseconds())
		b.ReportMetric(p50[cases[c].name], "p50-ns-"+cases[c].name)
	}
	b.ReportMetric(p50["supervised-single"]/p50["namespace-single"], "x-namespace-single")
	b.ReportMetric(p50["supervised-reuse"]/p50["namespace-reuse"], "x-namespace-reuse")
}

// BenchmarkSupervisedCreate measures, inside a reused worker, what making a file costs (open
// with O_CREAT, write nothing, close, remove) in the supervised mode and in the namespace mode,
// the two interleaved: 200 files a call, the mean per file of each call (ns-per-file-MODE,
// medians over calls) and their ratio (x-namespace). The supervised mode's file goes through
// the supervisor; the removal does not.
func BenchmarkSupervisedCreate(b *testing.B) {
	requireConfinement(b)
	if m, why := ProtectionMode(); m != ModeSupervised {
		b.Skip(why)
	}
	f := newFixture(b)
	pool := NewPool(2)
	defer pool.Close()
	modes := []Mode{ModeSupervised, ModeNamespace}
	per := make([][]float64, len(modes))
	req, _ := json.Marshal(createReq{Op: "many", A: filepath.Join(f.rw, "x"), N: 200})
	for _, m := range modes {
		waitIdle(b, pool, "test.create", inMode(Profile{WritePaths: []string{f.rw}, Reuse: true}, m), 1)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, k := range rand.Perm(len(modes)) {
			resp, err := pool.Run(context.Background(), "test.create", inMode(Profile{WritePaths: []string{f.rw}, Reuse: true}, modes[k]), req)
			if err != nil {
				b.Fatal(err)
			}
			ns, err := strconv.ParseFloat(string(resp), 64)
			if err != nil {
				b.Fatal(err)
			}
			per[k] = append(per[k], ns)
		}
	}
	b.StopTimer()
	med := make([]float64, len(modes))
	for k, m := range modes {
		slices.Sort(per[k])
		med[k] = per[k][len(per[k])/2]
		b.ReportMetric(med[k], "ns-per-file-"+m.String())
	}
	b.ReportMetric(med[0]/med[1], "x-namespace")
}
