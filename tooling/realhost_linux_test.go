package tooling_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkRealHostColdCall is a confined call in a real host: the program in
// internal/realhost, built static as `make build` builds the console, whose
// children run the whole initialisation of a program that links tooling. It
// runs b.N cold calls interleaved with `bwrap --unshare-all --ro-bind / /
// /bin/true` and fork+exec of /bin/true, and reports each case's median
// (p50-ns-CASE) and its ratio to bwrap's (x-bwrap-CASE), and the same of
// the processor time of the processes each case started (cpu-CASE):
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
	// The writing tool's Workspace: a git repository, handed to the
	// children's user on a root host.
	ws := filepath.Join(dir, "ws")
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Skipf("git init: %v %s", err, out)
	}
	if os.Geteuid() == 0 {
		filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error { return os.Chown(p, 65534, 65534) })
	}
	b.ResetTimer()
	out, err := exec.Command(bin, "-calls", strconv.Itoa(b.N), "-workspace", ws).Output()
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
	for name, v := range p50 {
		base := "bwrap"
		if strings.HasPrefix(name, "cpu-") {
			base = "cpu-bwrap"
		}
		if bw := p50[base]; bw > 0 && name != base {
			b.ReportMetric(v/bw, "x-bwrap-"+name)
		}
		// Against bwrap confining the same tool (the host binary started
		// again to write the same file): the peer a user would pick.
		// (Durations only: the processor time of what bwrap starts in its
		// own pid namespace is not all reaped by this process.)
		if bt := p50["bwrap-tool"]; bt > 0 && strings.HasPrefix(name, "call-write") {
			b.ReportMetric(v/bt, "x-bwrap-tool-"+name)
		}
	}
}

// BenchmarkRealHostReuse times calls of a Reuse tool through
// Registry.Execute, the figure users get, against the confine-level round
// trip to a reused worker (confine.Pool.Run), interleaved call by call in
// the real host: p50 of each and their ratio (x-confine-registry).
//
//	go test -run '^$' -bench RealHostReuse -benchtime 2000x -count 4 ./tooling
func BenchmarkRealHostReuse(b *testing.B) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go command to build the host with")
	}
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
	out, err := exec.Command(bin, "-calls", strconv.Itoa(b.N), "-reuse").Output()
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
	if c := p50["confine"]; c > 0 {
		b.ReportMetric(p50["registry"]/c, "x-confine-registry")
	}
}
