package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// decodeBench reads the report bench --json prints.
func decodeBench(t *testing.T, o outcome) *benchReport {
	t.Helper()
	var rep benchReport
	if err := json.Unmarshal([]byte(o.stdout), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, o)
	}
	return &rep
}

// benchJSON runs bench --json and wants exit 0 and nothing on stderr.
func benchJSON(t *testing.T, args ...string) *benchReport {
	t.Helper()
	o := cli(t, "", append([]string{"bench", "--json"}, args...)...)
	if o.code != exitOK || o.stderr != "" {
		t.Fatalf("want exit 0 and nothing on stderr\n%s", o)
	}
	return decodeBench(t, o)
}

// needTool skips the test when the default registry lacks name.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, ok := tooling.Default().Lookup(name); !ok {
		t.Skipf("%s is not registered (demotools does not define it yet)", name)
	}
}

func TestBenchEcho(t *testing.T) {
	rep := benchJSON(t, "demo.echo", "--args", `{"text":"hi"}`, "-n", "200", "-c", "8")
	if rep.Tool != "demo.echo" || rep.Calls != 200 || rep.Callers != 8 || rep.Done != 200 || rep.Interrupted {
		t.Errorf("tool %q, calls %d, callers %d, done %d, interrupted %v: want demo.echo, 200, 8, 200, false",
			rep.Tool, rep.Calls, rep.Callers, rep.Done, rep.Interrupted)
	}
	if len(rep.Codes) != 1 || rep.Codes["ok"] != 200 {
		t.Errorf("codes %v, want 200 ok", rep.Codes)
	}
	// Calls of a few microseconds may or may not overlap on a busy
	// machine (TestBenchSlowOverlaps proves read-only calls do); never
	// more than the callers.
	if rep.MaxInFlight < 1 || rep.MaxInFlight > 8 {
		t.Errorf("max in flight %d, want 1 to 8", rep.MaxInFlight)
	}
	l := rep.Latency
	if !(0 < l.P50 && l.P50 <= l.P95 && l.P95 <= l.P99 && l.P99 <= l.Max && l.Max <= rep.WallMS) {
		t.Errorf("latency %+v (wall %vms): want 0 < p50 ≤ p95 ≤ p99 ≤ max ≤ wall", l, rep.WallMS)
	}
	if want := 200 / (rep.WallMS / 1000); math.Abs(rep.Throughput-want) > want*1e-9 {
		t.Errorf("throughput %v, want %v (calls over wall time)", rep.Throughput, want)
	}
	if rep.Run.Mean <= 0 || rep.Wait.Mean < 0 || rep.Run.P95 <= 0 {
		t.Errorf("wait %+v, run %+v: want the tool's run time", rep.Wait, rep.Run)
	}
}

func TestBenchSlowOverlaps(t *testing.T) {
	rep := benchJSON(t, "demo.slow", "--args", `{"ms":20}`, "-n", "16", "-c", "16")
	// demo.slow's own deadline is 500 ms: on a very busy machine a call
	// may run into it, which changes nothing here.
	if rep.Done != 16 || rep.Codes["ok"]+rep.Codes[string(codes.Timeout)] != 16 {
		t.Fatalf("done %d, codes %v: want 16 ok (or timeout)", rep.Done, rep.Codes)
	}
	if rep.MaxInFlight <= 1 {
		t.Errorf("max in flight %d, want more than 1", rep.MaxInFlight)
	}
	if rep.Run.Mean < 20 || rep.Latency.P50 < 20 {
		t.Errorf("run %+v, latency %+v: want at least the 20 ms slept", rep.Run, rep.Latency)
	}
}

func TestBenchRateLimited(t *testing.T) {
	needTool(t, "demo.limited")
	for _, b := range tooling.Default().Stats().Buckets {
		if b.Key == "demo.limited" && b.Tokens < 2 {
			t.Skipf("the bucket of demo.limited holds %.2f tokens: an earlier run in this process took them", b.Tokens)
		}
	}
	rep := benchJSON(t, "demo.limited", "-n", "5")
	if rep.Callers != 5 {
		t.Errorf("callers %d, want 5 (clamped to the calls)", rep.Callers)
	}
	if len(rep.Codes) != 2 || rep.Codes["ok"] != 2 || rep.Codes[string(codes.RateLimited)] != 3 {
		t.Errorf("codes %v, want 2 ok and 3 rate_limited", rep.Codes)
	}
}

func TestBenchExclusive(t *testing.T) {
	needTool(t, "demo.kv_put")
	rep := benchJSON(t, "demo.kv_put", "--args", `{"key":"bench","value":"v"}`, "--consent", "-n", "100", "-c", "16")
	if rep.Codes["ok"] != 100 {
		t.Fatalf("codes %v, want 100 ok", rep.Codes)
	}
	// The callers' calls are all in flight, but all save one queue for the
	// lock on kv: they wait far longer than they run, and the run times,
	// which never overlap, add up to no more than the wall time (give or
	// take the registry's bookkeeping around the lock).
	if rep.MaxInFlight < 2 || rep.Sampled.Waiting < 1 {
		t.Errorf("max in flight %d, max queued %d: want callers queued for the lock", rep.MaxInFlight, rep.Sampled.Waiting)
	}
	if rep.Wait.Mean <= rep.Run.Mean {
		t.Errorf("mean wait %vms, mean run %vms: want the wait longer", rep.Wait.Mean, rep.Run.Mean)
	}
	if rep.PeakRunning != 1 {
		t.Errorf("peak running %d, want exactly 1 (calls of an exclusive tool never overlap)", rep.PeakRunning)
	}
	if rep.Running > 1.1 {
		t.Errorf("mean running %.3f, want at most 1 (calls of an exclusive tool never overlap)", rep.Running)
	}
}

func TestBenchText(t *testing.T) {
	o := cli(t, "", "bench", "demo.fail", "--args", `{"mode":"error"}`, "-n", "3", "-c", "9")
	if o.code != exitOK || o.stderr != "" {
		t.Fatalf("want exit 0 (a bench reports failures, it does not fail) and nothing on stderr\n%s", o)
	}
	for _, want := range []string{
		"demo.fail: 3 calls from 3 callers\n  tool_error  3\n", "\nlatency ", " p50 ", " p95 ", " p99 ", " max ",
		"\nwait ", "\nrun ", " mean ", "\nthroughput ", " calls/s\n", "\nin flight ", " at most ", " at once (",
		"\nqueued ", "\nrunning ", " on average (total run time", "\nwall time ",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "interrupted") {
		t.Errorf("stdout says interrupted:\n%s", o.stdout)
	}
}

func TestBenchCodesOrder(t *testing.T) {
	got := sortedCodes(map[string]int{"timeout": 1, "busy": 2, "ok": 3, "rate_limited": 4})
	if want := "ok busy rate_limited timeout"; strings.Join(got, " ") != want {
		t.Errorf("codes in order %v, want %s", got, want)
	}
	if got := sortedCodes(map[string]int{"timeout": 1}); len(got) != 1 || got[0] != "timeout" {
		t.Errorf("codes without ok in order %v, want [timeout]", got)
	}
}

func TestBenchQuantile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 200; i++ {
		ds = append(ds, time.Duration(i))
	}
	for q, want := range map[float64]time.Duration{0.5: 100, 0.95: 190, 0.99: 198, 1: 200, 0: 1} {
		if got := quantile(ds, q); got != want {
			t.Errorf("quantile %v of 1..200 = %v, want %v", q, got, want)
		}
	}
	if got := quantile(nil, 0.5); got != 0 {
		t.Errorf("quantile of nothing = %v, want 0", got)
	}
	if got := quantile([]time.Duration{7}, 0.99); got != 7 {
		t.Errorf("quantile of one sample = %v, want it", got)
	}
}

func TestBenchInterrupted(t *testing.T) {
	okCalls := func() uint64 {
		s, _ := toolStats(tooling.Default(), "demo.slow")
		return s.OK
	}
	before := okCalls()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() { // Ctrl-C once a few calls are done
		for okCalls() < before+3 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	o := cliContext(t, ctx, "", "bench", "demo.slow", "--args", `{"ms":10}`, "-n", "100000", "-c", "2", "--json")
	if o.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", o.code, exitFailed, o)
	}
	if !strings.Contains(o.stderr, "bench demo.slow: interrupted after ") || strings.Count(o.stderr, "\n") != 1 {
		t.Errorf("stderr is not one line saying the bench was interrupted:\n%s", o.stderr)
	}
	rep := decodeBench(t, o)
	counted := 0
	for _, n := range rep.Codes {
		counted += n
	}
	if !rep.Interrupted || rep.Done < 3 || rep.Done >= 100000 || counted != rep.Done || rep.Codes["canceled"] != 0 {
		t.Errorf("interrupted %v, done %d, codes %v: want interrupted after 3 calls or more, none canceled", rep.Interrupted, rep.Done, rep.Codes)
	}
	if rep.Latency.Max <= 0 || rep.WallMS <= 0 {
		t.Errorf("latency %+v, wall %vms: want what was measured", rep.Latency, rep.WallMS)
	}
}

func TestBenchInterruptedText(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := cliContext(t, ctx, "", "bench", "demo.echo", "--args", `{"text":"hi"}`, "-n", "10")
	if o.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", o.code, exitFailed, o)
	}
	for _, want := range []string{"demo.echo: 10 calls from 8 callers\n", "interrupted after 0 of 10 calls", "no call finished\n", "wall time  "} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
}

func TestBenchArguments(t *testing.T) {
	argsFile := writeFile(t, "args.json", `{"text":"from a file"}`)
	for _, tt := range []struct {
		name, tool string
		args       []string
		stdin      string
	}{
		{"from a file", "demo.echo", []string{"--args-file", argsFile}, ""},
		{"from stdin", "demo.echo", []string{"--args", "-"}, `{"text":"piped"}`},
		{"exported spelling", "demo__echo", []string{"--args", `{"text":"x"}`}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := cli(t, tt.stdin, append([]string{"bench", tt.tool, "-n", "5", "--json"}, tt.args...)...)
			if o.code != exitOK {
				t.Fatalf("exit %d, want 0\n%s", o.code, o)
			}
			if rep := decodeBench(t, o); rep.Tool != "demo.echo" || rep.Codes["ok"] != 5 {
				t.Errorf("tool %q, codes %v: want demo.echo, 5 ok", rep.Tool, rep.Codes)
			}
		})
	}
}

// TestBenchEveryCallRefused: a bench whose calls were all refused before
// the tool ran measured nothing of the tool: it prints its report but
// exits as run does for a refused call, naming the codes. Some refused
// calls among others are results of the bench, not a failure of it.
func TestBenchEveryCallRefused(t *testing.T) {
	for _, tt := range []struct {
		name  string
		args  []string
		codes string
	}{
		{"invalid arguments", []string{"demo.echo", "-n", "4"}, "validation_error 4"},
		{"no consent", []string{"demo.kv_put", "--args", `{"key":"k","value":"v"}`, "-n", "3"}, "consent_required 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := cli(t, "", append([]string{"bench", "--json"}, tt.args...)...)
			if o.code != exitRefused {
				t.Fatalf("exit %d, want %d\n%s", o.code, exitRefused, o)
			}
			if rep := decodeBench(t, o); rep.Done == 0 || rep.Codes["ok"] != 0 {
				t.Errorf("codes %v: want every call refused", rep.Codes)
			}
			want := "toolexplorer: bench " + tt.args[0] + ": every call was refused before the tool ran (" + tt.codes + ")\n"
			if o.stderr != want {
				t.Errorf("stderr %q, want %q", o.stderr, want)
			}
		})
	}
	// A text report is printed too before the refusal is named.
	o := cli(t, "", "bench", "demo.echo", "-n", "2")
	if o.code != exitRefused || !strings.Contains(o.stdout, "validation_error") {
		t.Errorf("want the report and exit %d\n%s", exitRefused, o)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	argsFile := writeFile(t, "args.json", `{"text":"hi"}`)
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"without NAME", []string{"bench"}, "bench: missing the tool NAME"},
		{"with two names", []string{"bench", "demo.echo", "demo.slow"}, "too many arguments: demo.slow"},
		{"no calls", []string{"bench", "demo.echo", "-n", "0"}, "-n must be at least 1, got 0"},
		{"calls past memory", []string{"bench", "demo.echo", "-n", "2000000000"}, "-n must be at most 10000000, got 2000000000"},
		{"one call too many", []string{"bench", "demo.echo", "-n", "10000001"}, "-n must be at most 10000000, got 10000001"},
		{"negative callers", []string{"bench", "demo.echo", "-c", "-1"}, "-c must be at least 1, got -1"},
		{"no callers", []string{"bench", "demo.echo", "-c", "0"}, "-c must be at least 1, got 0"},
		{"calls not a number", []string{"bench", "demo.echo", "-n", "many"}, `invalid value "many" for flag -n: want a whole number`},
		{"timeout without unit", []string{"bench", "demo.echo", "--timeout", "5"}, `invalid value "5" for flag --timeout: the unit is missing (like 5s or 5ms)`},
		{"timeout not a duration", []string{"bench", "demo.echo", "--timeout", "soon"}, `invalid value "soon" for flag --timeout: want a duration with its unit`},
		{"callers out of range", []string{"bench", "demo.echo", "-c", "99999999999999999999"}, `for flag -c: out of range`},
		{"two sources", []string{"bench", "demo.echo", "--args", "{}", "--args-file", argsFile}, "--args or --args-file, not both"},
		{"bad timeout", []string{"bench", "demo.echo", "--timeout", "0s"}, "--timeout must be positive"},
		{"misspelled origin", []string{"bench", "demo.echo", "--origin", "lmm"}, `(did you mean "llm"?)`},
		{"unknown flag", []string{"bench", "demo.echo", "--calls", "3"}, "unknown flag --calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := cli(t, "", tt.args...)
			if o.code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s", o.code, exitUsage, o)
			}
			if !strings.HasPrefix(o.stderr, "toolexplorer: ") || !strings.Contains(o.stderr, tt.stderr) || o.stdout != "" {
				t.Errorf("want nothing on stdout and stderr with %q\n%s", tt.stderr, o)
			}
		})
	}
}

func TestBenchUnknownTool(t *testing.T) {
	for _, name := range []string{"demo.ecoh", "echo"} {
		o := cli(t, "", "bench", name, "-n", "5")
		if o.code != exitRefused {
			t.Fatalf("exit %d, want %d\n%s", o.code, exitRefused, o)
		}
		if !strings.HasPrefix(o.stderr, `toolexplorer: bench `+name+`: not_found: no tool named "`+name+`" (did you mean "demo.echo"?)`) || o.stdout != "" {
			t.Errorf("want the did-you-mean on stderr and nothing on stdout\n%s", o)
		}
	}
}

// TestBenchUsesTheAppRegistry: bench looks up, calls and watches the tool
// in the registry of the app, not in the default one.
func TestBenchUsesTheAppRegistry(t *testing.T) {
	const name = "bench.ping"
	if _, ok := tooling.Default().Lookup(name); ok {
		t.Fatalf("the default registry has %s", name)
	}
	reg := tooling.NewRegistry()
	var ran atomic.Int64
	reg.Register(tooling.Tool{
		Name:        name,
		Description: "Sleeps a millisecond.",
		Meta:        tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			ran.Add(1)
			time.Sleep(time.Millisecond)
			return map[string]any{"ok": true}, nil
		},
	})
	var stdout, stderr bytes.Buffer
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(string) string { return "" }, reg: reg}
	code := a.main([]string{"bench", name, "-n", "20", "-c", "4", "--json"})
	o := outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
	if code != exitOK || o.stderr != "" {
		t.Fatalf("want exit 0 and nothing on stderr\n%s", o)
	}
	rep := decodeBench(t, o)
	if rep.Codes["ok"] != 20 || ran.Load() != 20 {
		t.Errorf("codes %v, %d runs: want 20 ok calls of the app's tool", rep.Codes, ran.Load())
	}
	if rep.PeakRunning < 1 || rep.Sampled.Samples < 1 {
		t.Errorf("peak running %d, %d samples: want the app registry's counters of the tool", rep.PeakRunning, rep.Sampled.Samples)
	}
}

func TestBenchHelp(t *testing.T) {
	for _, args := range [][]string{{"bench", "--help"}, {"help", "bench"}, {"bench", "demo.echo", "-n", "0", "-h"}} {
		o := cli(t, "", args...)
		if o.code != exitOK || o.stderr != "" {
			t.Fatalf("%v: want exit 0 and nothing on stderr\n%s", args, o)
		}
		for _, want := range []string{"Usage: toolexplorer bench NAME", "  -n CALLS ", "  -c CALLERS ", "  --args-file FILE ", "demo.kv_put", "-n 1000 -c 32", "Exit status:"} {
			if !strings.Contains(o.stdout, want) {
				t.Errorf("%v: stdout lacks %q:\n%s", args, want, o.stdout)
			}
		}
	}
	if o := cli(t, "", "--help"); !strings.Contains(o.stdout, "  bench ") {
		t.Errorf("the command list lacks bench:\n%s", o.stdout)
	}
}

// TestBenchOneCall: a count of one is singular in the report.
func TestBenchOneCall(t *testing.T) {
	o := cli(t, "", "bench", "demo.echo", "--args", `{"text":"hi"}`, "-n", "1")
	if o.code != exitOK || !strings.HasPrefix(o.stdout, "demo.echo: 1 call from 1 caller\n") {
		t.Errorf("want one call from one caller\n%s", o)
	}
}
