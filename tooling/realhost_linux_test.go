package tooling_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// BenchmarkRealHostColdCall is a confined call in a real host: the program in
// internal/realhost, built static as `make build` builds the console, whose
// children run the whole initialisation of a program that links tooling. It
// runs b.N cold calls interleaved with `bwrap --unshare-all --ro-bind / /
// /bin/true` and fork+exec of /bin/true, and reports each case's median
// (p50-ns-CASE) and its ratio to bwrap's (x-bwrap-CASE):
//
//	go test -run '^$' -bench RealHostColdCall -benchtime 100x -count 6 ./tooling
func BenchmarkRealHostColdCall(b *testing.B) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go command to build the host with")
	}
	// A directory every user may enter: a confined child switches to an
	// unprivileged user before it runs the host binary again.
	dir, err := os.MkdirTemp("", "toolexplorer-realhost-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "realhost")
	build := exec.Command(goCmd, "build", "-o", bin, "./internal/realhost")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	b.ResetTimer()
	out, err := exec.Command(bin, "-calls", strconv.Itoa(b.N)).Output()
	b.StopTimer()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		b.Fatalf("realhost: %v\n%s", err, stderr)
	}
	var runs map[string][]int64
	if err := json.Unmarshal(out, &runs); err != nil {
		b.Fatalf("realhost printed %q: %v", out, err)
	}
	p50 := map[string]float64{}
	for name, d := range runs {
		slices.Sort(d)
		p50[name] = float64(d[len(d)/2])
		b.ReportMetric(p50[name], "p50-ns-"+name)
	}
	if bw := p50["bwrap"]; bw > 0 {
		for name, v := range p50 {
			if name != "bwrap" {
				b.ReportMetric(v/bw, "x-bwrap-"+name)
			}
		}
	}
}
