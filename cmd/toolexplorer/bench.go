package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

var benchCommand = &command{
	name:    "bench",
	args:    "NAME [--args JSON | --args-file FILE | --args -] [--arg KEY=VALUE ...] [-n CALLS] [-c CALLERS] [flags]",
	summary: "call a tool many times at once and report codes, latency and concurrency",
	help: `Calls the tool NAME CALLS times (default 100) from CALLERS goroutines at once
(default 8; never more than CALLS), in this process, through the registry
with every step of governance, as run does. The arguments, origin, consent
and deadline are given as to run and are the same for every call.

Prints how many calls ended with each code (ok first; refusals such as
rate_limited or busy are results too), the latency of a whole call as the
caller sees it (p50, p95, p99 and max, exact from the sorted samples), the
throughput over the wall time, the mean and p95 of the time calls waited
(queued for a slot, a resource lock or the main thread) and of the time the
tool ran, the most calls of the tool in flight at once (counted exactly
around each call; calls queued behind a lock are in flight too), how many
of those were seen queued at once (the registry's counters, read every
millisecond), the most calls running at once (exact: the registry's
high-water mark of calls inside the tool's Run) and the mean number running
(total run time over the wall time), and the wall time. With --json, all
of it as one JSON object, times in milliseconds.

Ctrl-C stops the bench: the calls still running are canceled and left out,
and what was measured until then is printed, with a line saying so. Ctrl-C
while the arguments are read (--args -) stops before any call. A second
Ctrl-C ends the program at once.

Example: demo.kv_put is exclusive on the resource kv, so its calls run one
at a time however many callers there are: the others are in flight, queued
for the lock, and at most one runs:

  $ toolexplorer bench demo.kv_put --args '{"key":"k","value":"v"}' --consent -n 1000 -c 32
  demo.kv_put: 1000 calls from 32 callers
    ok        1000
  latency     p50 72.89ms   p95 76.49ms  p99 78.12ms  max 78.57ms
  wait        mean 69.76ms  p95 74.04ms
  run         mean 2.23ms   p95 2.31ms
  throughput  437.2 calls/s
  in flight   at most 32 at once (counted around each call; queued calls included)
  queued      at most 31 at once (the registry's counters, read every millisecond)
  running     at most 1 at once (exact), 0.97 on average (total run time / wall time)
  wall time   2.287s

Exit status:
  0  the bench ran and at least one call was not refused, whatever the
     codes of its calls
  1  the bench was interrupted (what was measured is printed), also while
     the arguments were read (then no call was made), or the report could
     not be written
  2  usage error: bad flags, missing NAME, CALLS or CALLERS under 1, CALLS
     over 10000000, more than one source of arguments, an unreadable
     arguments file, a bad config file
  3  no tool has that name (with a did-you-mean), or every call was
     refused before the tool ran (status denied: consent_required,
     origin_denied, validation_error, ...): the report is printed, and
     the codes are named on stderr
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			cf             callFlags
			calls, callers int
			asJSON         bool
		)
		cf.declare(fs)
		fs.IntVar(&calls, "n", 100, "make `CALLS` calls in all (at most "+strconv.Itoa(maxBenchCalls)+")")
		fs.IntVar(&callers, "c", 8, "make them from `CALLERS` goroutines at once (at most CALLS)")
		fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
		return func(a *app, args []string) int {
			switch {
			case len(args) == 0:
				return a.usageError("bench", "missing the tool NAME")
			case len(args) > 1:
				return a.usageError("bench", "too many arguments: %s (pass the tool's arguments with --args)", strings.Join(args[1:], " "))
			case calls < 1:
				return a.usageError("bench", "-n must be at least 1, got %d", calls)
			case calls > maxBenchCalls:
				return a.usageError("bench", "-n must be at most %d, got %d (every call is kept to compute exact quantiles)", maxBenchCalls, calls)
			case callers < 1:
				return a.usageError("bench", "-c must be at least 1, got %d", callers)
			}
			raw, opts, code := cf.resolve(a, "bench", args[0], fs, exitFailed)
			if code != exitOK {
				return code
			}
			t, ok := a.reg.Lookup(args[0])
			if !ok {
				return a.notFound("bench", args[0])
			}
			rep := runBench(a.ctx, benchSpec{reg: a.reg, tool: t.Name, args: raw, opts: opts, calls: calls, callers: min(callers, calls)})
			if asJSON {
				if c := a.writeJSON(rep); c != exitOK {
					return c
				}
			} else {
				var b strings.Builder
				writeBench(&b, rep)
				if _, err := io.WriteString(a.stdout, b.String()); err != nil {
					a.errorf("cannot write output: %v", err)
					return exitFailed
				}
			}
			if rep.Interrupted {
				a.errorf("bench %s: interrupted after %d of %d calls", rep.Tool, rep.Done, rep.Calls)
				return exitFailed
			}
			if rep.Done > 0 && rep.refused() == rep.Done {
				a.errorf("bench %s: every call was refused before the tool ran (%s)", rep.Tool, rep.codeList())
				return exitRefused
			}
			return exitOK
		}
	},
}

// refused counts the measured calls refused before the tool ran.
func (rep *benchReport) refused() int { return rep.denied }

// codeList names the codes of the report with their counts,
// in the order of the report: "consent_required 100".
func (rep *benchReport) codeList() string {
	var parts []string
	for _, c := range sortedCodes(rep.Codes) {
		parts = append(parts, fmt.Sprintf("%s %d", c, rep.Codes[c]))
	}
	return strings.Join(parts, ", ")
}

// maxBenchCalls is the most calls one bench makes: it keeps a sample of
// every call, some 50 bytes each, and sorted copies of their times.
const maxBenchCalls = 10_000_000

// benchSpec is what to bench: calls calls of tool in reg, made with args
// and opts from callers goroutines (1 ≤ callers ≤ calls ≤ maxBenchCalls).
type benchSpec struct {
	reg            *tooling.Registry
	tool           string
	args           json.RawMessage
	opts           []tooling.Option
	calls, callers int
}

// benchSample is one finished call.
type benchSample struct {
	latency   time.Duration // the whole call, measured by its caller
	wait, run time.Duration // Result.Wait and Result.Run
	code      codes.Code
	denied    bool // refused before the tool ran (Result.Status)
	cut       bool // canceled by the interrupt of the bench: left out
}

// benchReport is what a bench measured. Times are in milliseconds.
type benchReport struct {
	Tool        string           `json:"tool"`
	Calls       int              `json:"calls"`   // asked for
	Callers     int              `json:"callers"` // goroutines, at most Calls
	Done        int              `json:"done"`    // calls measured: Calls unless interrupted
	Interrupted bool             `json:"interrupted"`
	Cut         int              `json:"cut,omitempty"` // calls canceled by the interrupt, left out
	Codes       map[string]int   `json:"codes"`         // by code, "ok" for the calls that succeeded
	Latency     benchQuantiles   `json:"latency_ms"`
	Throughput  float64          `json:"throughput_per_s"`
	Wait        benchMeanP95     `json:"wait_ms"`
	Run         benchMeanP95     `json:"run_ms"`
	MaxInFlight int64            `json:"max_in_flight"` // exact: calls of the bench inside Execute at once
	Sampled     benchSampledPeak `json:"sampled"`
	Running     float64          `json:"mean_running"` // total run time over the wall time
	PeakRunning int64            `json:"peak_running"` // exact: the most calls of the tool running at once (the registry's high-water mark)
	WallMS      float64          `json:"wall_ms"`

	wall   time.Duration
	denied int              // calls refused before the tool ran
	lat    [4]time.Duration // p50, p95, p99, max
	wait   [2]time.Duration // mean, p95
	run    [2]time.Duration
}

type benchQuantiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

type benchMeanP95 struct {
	Mean float64 `json:"mean"`
	P95  float64 `json:"p95"`
}

// benchSampledPeak is the peak of the registry's counters of the tool, read
// about every millisecond: they count every call of the tool in the
// process, not only the bench's.
type benchSampledPeak struct {
	Samples  int   `json:"samples"`
	InFlight int64 `json:"max_in_flight"`
	Waiting  int64 `json:"max_waiting"` // queued for a slot, lock or the main thread
}

// runBench makes the calls of spec until they are done or ctx is canceled.
func runBench(ctx context.Context, spec benchSpec) *benchReport {
	samples := make([]benchSample, spec.calls)
	var (
		next, inFlight, maxInFlight atomic.Int64
		wg                          sync.WaitGroup
	)
	stopSampling := make(chan struct{})
	sampled := make(chan benchSampledPeak, 1)
	go func() { sampled <- sampleInFlight(spec.reg, spec.tool, stopSampling) }()

	start := time.Now()
	for range spec.callers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(len(samples)) {
					return
				}
				n := inFlight.Add(1)
				for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
				}
				t0 := time.Now()
				res, _ := spec.reg.Execute(ctx, spec.tool, spec.args, spec.opts...)
				lat := time.Since(t0)
				inFlight.Add(-1)
				samples[i] = benchSample{latency: lat, wait: res.Wait, run: res.Run, code: res.Code, denied: res.Status == "denied",
					cut: res.Code == codes.Canceled && ctx.Err() != nil}
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	close(stopSampling)

	started := min(int(next.Load()), spec.calls)
	rep := summarize(spec, samples[:started], wall)
	rep.Interrupted = ctx.Err() != nil && rep.Done < spec.calls
	rep.MaxInFlight = maxInFlight.Load()
	rep.Sampled = <-sampled
	if st, ok := toolStats(spec.reg, spec.tool); ok {
		rep.PeakRunning = st.Peak
	}
	return rep
}

// sampleInFlight reads the counters of tool in reg about every millisecond
// until stop is closed and returns their peaks.
func sampleInFlight(reg *tooling.Registry, tool string, stop <-chan struct{}) benchSampledPeak {
	var p benchSampledPeak
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if s, ok := toolStats(reg, tool); ok {
			p.Samples++
			p.InFlight = max(p.InFlight, s.InFlight)
			p.Waiting = max(p.Waiting, s.Waiting)
		}
		select {
		case <-stop:
			return p
		case <-tick.C:
		}
	}
}

// summarize computes the report from the samples of the calls that
// started (those cut short by an interrupt are left out).
func summarize(spec benchSpec, samples []benchSample, wall time.Duration) *benchReport {
	rep := &benchReport{Tool: spec.tool, Calls: spec.calls, Callers: spec.callers, Codes: map[string]int{}, wall: wall}
	var lat, wait, run []time.Duration
	var totalRun time.Duration
	for _, s := range samples {
		if s.cut {
			rep.Cut++
			continue
		}
		rep.Codes[codeName(s.code)]++
		if s.denied {
			rep.denied++
		}
		lat = append(lat, s.latency)
		wait = append(wait, s.wait)
		run = append(run, s.run)
		totalRun += s.run
	}
	rep.Done = len(lat)
	slices.Sort(lat)
	slices.Sort(wait)
	slices.Sort(run)
	rep.lat = [4]time.Duration{quantile(lat, 0.50), quantile(lat, 0.95), quantile(lat, 0.99), quantile(lat, 1)}
	rep.wait = [2]time.Duration{mean(wait), quantile(wait, 0.95)}
	rep.run = [2]time.Duration{mean(run), quantile(run, 0.95)}
	if wall > 0 {
		rep.Throughput = float64(rep.Done) / wall.Seconds()
		rep.Running = float64(totalRun) / float64(wall)
	}
	rep.Latency = benchQuantiles{P50: msf(rep.lat[0]), P95: msf(rep.lat[1]), P99: msf(rep.lat[2]), Max: msf(rep.lat[3])}
	rep.Wait = benchMeanP95{Mean: msf(rep.wait[0]), P95: msf(rep.wait[1])}
	rep.Run = benchMeanP95{Mean: msf(rep.run[0]), P95: msf(rep.run[1])}
	rep.WallMS = msf(wall)
	return rep
}

func codeName(c codes.Code) string {
	if c == codes.OK {
		return "ok"
	}
	return string(c)
}

// quantile returns the q-quantile of sorted by the nearest rank: the
// smallest sample with at least a fraction q of the samples at or below it.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func mean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

// msf is d in milliseconds, to the nanosecond.
func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// sortedCodes lists the codes of codes, "ok" first and then by name.
func sortedCodes(codes map[string]int) []string {
	var out []string
	for c := range codes {
		if c != "ok" {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	if _, ok := codes["ok"]; ok {
		out = append([]string{"ok"}, out...)
	}
	return out
}

// writeBench prints a report for people.
func writeBench(w io.Writer, rep *benchReport) {
	fmt.Fprintf(w, "%s: %s from %s\n", rep.Tool, plural(rep.Calls, "call"), plural(rep.Callers, "caller"))
	if rep.Interrupted {
		fmt.Fprintf(w, "interrupted after %d of %d calls", rep.Done, rep.Calls)
		if rep.Cut > 0 {
			fmt.Fprintf(w, " (%d more canceled by the interrupt are left out)", rep.Cut)
		}
		fmt.Fprintln(w)
	}
	if rep.Done == 0 {
		fmt.Fprintln(w, "no call finished")
		fmt.Fprintf(w, "wall time  %s\n", roundDuration(rep.wall))
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range sortedCodes(rep.Codes) {
		fmt.Fprintf(tw, "  %s\t%d\n", c, rep.Codes[c])
	}
	fmt.Fprintf(tw, "latency\tp50 %s\tp95 %s\tp99 %s\tmax %s\n", roundDuration(rep.lat[0]), roundDuration(rep.lat[1]), roundDuration(rep.lat[2]), roundDuration(rep.lat[3]))
	fmt.Fprintf(tw, "wait\tmean %s\tp95 %s\n", roundDuration(rep.wait[0]), roundDuration(rep.wait[1]))
	fmt.Fprintf(tw, "run\tmean %s\tp95 %s\n", roundDuration(rep.run[0]), roundDuration(rep.run[1]))
	fmt.Fprintf(tw, "throughput\t%.1f calls/s\n", rep.Throughput)
	fmt.Fprintf(tw, "in flight\tat most %d at once (counted around each call; queued calls included)\n", rep.MaxInFlight)
	fmt.Fprintf(tw, "queued\tat most %d at once (the registry's counters, read every millisecond)\n", rep.Sampled.Waiting)
	fmt.Fprintf(tw, "running\tat most %d at once (exact), %.2f on average (total run time / wall time)\n", rep.PeakRunning, rep.Running)
	fmt.Fprintf(tw, "wall time\t%s\n", roundDuration(rep.wall))
	tw.Flush()
}

// toolStats returns the counters of the named tool, and false when it has
// not been called yet.
func toolStats(reg *tooling.Registry, name string) (tooling.ToolStats, bool) {
	for _, ts := range reg.Stats().Tools {
		if ts.Tool == name {
			return ts, true
		}
	}
	return tooling.ToolStats{}, false
}
