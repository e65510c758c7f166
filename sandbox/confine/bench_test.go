//go:build linux

package confine

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// BenchmarkColdRun is a whole confined call: start, confine, echo, teardown.
func BenchmarkColdRun(b *testing.B) {
	requireConfinement(b)
	req := []byte("ping")
	timed(b, func() {
		if _, err := Run(context.Background(), "test.echo", Profile{}, req); err != nil {
			b.Fatal(err)
		}
	})
}

// envNaiveChild makes the test binary a naive child: it answers one request, unconfined.
const envNaiveChild = "TOOLEXPLORER_TEST_NAIVE_CHILD"

// naiveChild echoes one request from fd 3 to fd 4 and exits: what any child of a Go binary
// costs before confinement, with the same binary and protocol.
func naiveChild() {
	in, out := os.NewFile(requestFD, "request"), os.NewFile(responseFD, "response")
	_, payload, err := newFrameReader(readerSource{in}).next(0)
	if err != nil {
		os.Exit(exitProtocol)
	}
	writeFrame(out, frameResponse, (&responseMsg{body: payload}).encode())
	os.Exit(0)
}

// BenchmarkNaiveChild starts the test binary as an unconfined child that answers one request
// over the same pipes: the floor of a re-executed Go child on this machine. Like ColdRun it
// stops at the answer; the child is reaped in the background.
func BenchmarkNaiveChild(b *testing.B) {
	var wg sync.WaitGroup
	defer wg.Wait()
	timed(b, func() {
		reqR, reqW, _ := os.Pipe()
		respR, respW, _ := os.Pipe()
		cmd := exec.Command("/proc/self/exe")
		cmd.Env = []string{envNaiveChild + "=1"}
		cmd.ExtraFiles = []*os.File{reqR, respW}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		reqR.Close()
		respW.Close()
		writeFrame(reqW, frameRequest, []byte("ping"))
		if _, _, err := newFrameReader(readerSource{respR}).next(0); err != nil {
			b.Fatal(err)
		}
		reqW.Close()
		respR.Close()
		wg.Add(1)
		go func() { defer wg.Done(); cmd.Wait() }()
	})
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

// BenchmarkColdRunMinimalHost is ColdRun with internal/coldhost as the child: a host whose own
// initialisation is next to nothing (the test binary initialises testing, fuzzing, go/parser).
func BenchmarkColdRunMinimalHost(b *testing.B) {
	requireConfinement(b)
	childPath = minimalHost(b)
	defer func() { childPath = "/proc/self/exe" }()
	req := []byte("ping")
	timed(b, func() {
		if _, err := Run(context.Background(), "test.echo", Profile{}, req); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkNaiveChildMinimalHost starts internal/coldhost unconfined: it echoes one read of its
// request pipe. The floor of a Go child here.
func BenchmarkNaiveChildMinimalHost(b *testing.B) {
	host := minimalHost(b)
	var wg sync.WaitGroup
	defer wg.Wait()
	buf := make([]byte, 4)
	timed(b, func() {
		reqR, reqW, _ := os.Pipe()
		respR, respW, _ := os.Pipe()
		cmd := exec.Command(host)
		cmd.Env = []string{envNaiveChild + "=1"}
		cmd.ExtraFiles = []*os.File{reqR, respW}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		reqR.Close()
		respW.Close()
		reqW.Write([]byte("ping"))
		if _, err := io.ReadFull(respR, buf); err != nil {
			b.Fatal(err)
		}
		reqW.Close()
		respR.Close()
		wg.Add(1)
		go func() { defer wg.Done(); cmd.Wait() }()
	})
}

// BenchmarkForkExecTrue is the floor: fork and exec of /bin/true.
func BenchmarkForkExecTrue(b *testing.B) {
	timed(b, func() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkBwrapTrue is bubblewrap's start-up, for comparison (skipped without bwrap).
func BenchmarkBwrapTrue(b *testing.B) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		b.Skip("bwrap not installed")
	}
	if err := exec.Command(bwrap, "--ro-bind", "/", "/", "/bin/true").Run(); err != nil {
		b.Skipf("bwrap does not run here: %v", err)
	}
	timed(b, func() {
		if err := exec.Command(bwrap, "--ro-bind", "/", "/", "/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	})
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
		waitIdle(b, pool, p, 1)
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

// BenchmarkPoolReuse is a round trip to a worker that serves call after call.
func BenchmarkPoolReuse(b *testing.B) {
	requireConfinement(b)
	pool := NewPool(1)
	defer pool.Close()
	p := Profile{Reuse: true}
	waitIdle(b, pool, p, 1)
	req := []byte("ping")
	timed(b, func() {
		if _, err := pool.Run(context.Background(), "test.echo", p, req); err != nil {
			b.Fatal(err)
		}
	})
}
