package tooling

import (
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// latencyBuckets is a histogram of call latencies: bucket i counts
// latencies below 2^i microseconds (the last bucket takes the rest), so
// recording is one atomic add and quantiles are read to within a factor of 2.
const latencyBuckets = 32

type histogram struct {
	counts [latencyBuckets]atomic.Uint64
}

func (h *histogram) record(d time.Duration) {
	us := uint64(d / time.Microsecond)
	i := bits.Len64(us) // 0 for <1µs, 1 for 1µs, 2 for 2-3µs, ...
	if i >= latencyBuckets {
		i = latencyBuckets - 1
	}
	h.counts[i].Add(1)
}

// quantile returns the upper bound of the bucket holding quantile q.
func (h *histogram) quantile(q float64) time.Duration {
	var counts [latencyBuckets]uint64
	var total uint64
	for i := range h.counts {
		counts[i] = h.counts[i].Load()
		total += counts[i]
	}
	if total == 0 {
		return 0
	}
	rank := uint64(q*float64(total-1)) + 1
	var seen uint64
	for i, c := range counts {
		seen += c
		if seen >= rank {
			return time.Duration(uint64(1)<<i) * time.Microsecond
		}
	}
	return time.Duration(uint64(1)<<(latencyBuckets-1)) * time.Microsecond
}

// codeIndex numbers the codes for counters: index 0 is ok, then allCodes'
// order; a code not in allCodes gets otherCodes, the slot after them.
func codeIndex(c codes.Code) int {
	for i, k := range allCodes {
		if k == c {
			return i
		}
	}
	return otherCodes
}

// otherCodes is the counter slot of codes not in allCodes; ToolStats
// reports them under codeOther.
const otherCodes = len(allCodes)

// codeOther is the key under which ToolStats.Errors counts calls that ended
// with a code that is not one of the registry's (a middleware's own).
const codeOther codes.Code = "other"

// One counter per code and one for the others (a compile-time check).
var _ = [1]struct{}{}[len(toolCounters{}.byCode)-len(allCodes)-1]

// toolCounters are one tool's live counters.
type toolCounters struct {
	calls    atomic.Uint64
	byCode   [len(allCodes) + 1]atomic.Uint64 // by codeIndex
	inFlight atomic.Int64
	waiting  atomic.Int64
	running  atomic.Int64
	peak     atomic.Int64 // the most running at once
	lastNS   atomic.Int64
	latency  histogram
}

// enterRun counts a Run starting and keeps the high-water mark.
func (c *toolCounters) enterRun() {
	n := c.running.Add(1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func (c *toolCounters) finish(res *Result) {
	c.byCode[codeIndex(res.Code)].Add(1)
	total := res.Wait + res.Run
	c.lastNS.Store(int64(total))
	if statusOf(res.Code, true) != statusDenied { // a refusal says nothing of latency
		c.latency.record(total)
	}
}

// ToolStats are one tool's counters since the registry started.
type ToolStats struct {
	Tool     string                `json:"tool"`
	Calls    uint64                `json:"calls"`
	OK       uint64                `json:"ok"`
	Errors   map[codes.Code]uint64 `json:"errors,omitempty"` // by code, refusals included; "other" counts codes of a middleware's own
	InFlight int64                 `json:"in_flight"`        // calls between begin and end
	Waiting  int64                 `json:"waiting"`          // of those, calls queued for a slot, lock or thread
	Running  int64                 `json:"running"`          // calls whose Run is executing now (abandoned ones included)
	Peak     int64                 `json:"peak_running"`     // the most calls running at once since the registry started
	Last     time.Duration         `json:"last_ns"`          // latency (wait + run) of the latest call
	P50      time.Duration         `json:"p50_ns"`           // latency quantiles of calls that ran, to within a factor of 2
	P95      time.Duration         `json:"p95_ns"`
}

func (e *entry) stats() ToolStats {
	c := &e.counters
	s := ToolStats{Tool: e.tool.Name, Calls: c.calls.Load(), OK: c.byCode[0].Load(),
		InFlight: c.inFlight.Load(), Waiting: c.waiting.Load(), Running: c.running.Load(), Peak: c.peak.Load(), Last: time.Duration(c.lastNS.Load()),
		P50: c.latency.quantile(0.50), P95: c.latency.quantile(0.95)}
	for i := 1; i < len(c.byCode); i++ {
		if n := c.byCode[i].Load(); n > 0 {
			if s.Errors == nil {
				s.Errors = make(map[codes.Code]uint64)
			}
			code := codeOther
			if i < len(allCodes) {
				code = allCodes[i]
			}
			s.Errors[code] = n
		}
	}
	return s
}

// toolStats returns the counters of every tool that has been called,
// sorted by name (Stats.Tools). Reading them is cheap: a few
// atomic loads per tool.
func (r *Registry) toolStats() []ToolStats {
	var out []ToolStats
	for _, e := range r.entries() {
		if e.counters.calls.Load() > 0 {
			out = append(out, e.stats())
		}
	}
	return out
}
