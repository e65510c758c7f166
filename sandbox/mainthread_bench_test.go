package sandbox

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// Round trips of an empty func. Each benchmark records the latency of every
// op and reports its median and 99th percentile as p50-ns and p99-ns:
//
//	go test -run '^$' -bench 'MainThread|LockedThread' -benchmem -count 6 ./sandbox/
//
// BenchmarkChannelLockedThreadBaseline is the plain hand-off that the
// scheduler's spinning improves on.

// latencies collects per-op round trips.
type latencies struct {
	mu  sync.Mutex
	all []time.Duration
}

func (l *latencies) add(d []time.Duration) {
	l.mu.Lock()
	l.all = append(l.all, d...)
	l.mu.Unlock()
}

func (l *latencies) report(b *testing.B) {
	if len(l.all) == 0 {
		return
	}
	slices.Sort(l.all)
	at := func(p float64) float64 { return float64(l.all[int(p*float64(len(l.all)-1))].Nanoseconds()) }
	b.ReportMetric(at(0.50), "p50-ns")
	b.ReportMetric(at(0.99), "p99-ns")
}

// benchSequential times b.N round trips of call from one goroutine.
func benchSequential(b *testing.B, call func()) {
	for range 1000 { // warm up: the first call starts a loop and its thread
		call()
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		call()
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	l := latencies{all: lat}
	l.report(b)
}

// benchParallel times round trips of call from GOMAXPROCS goroutines.
func benchParallel(b *testing.B, call func()) {
	for range 1000 {
		call()
	}
	var l latencies
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var lat []time.Duration
		for pb.Next() {
			start := time.Now()
			call()
			lat = append(lat, time.Since(start))
		}
		l.add(lat)
	})
	b.StopTimer()
	l.report(b)
}

func mainThreadCall(b *testing.B, m *MainThread) func() {
	ctx := context.Background()
	f := func() {}
	return func() {
		if _, err := m.Call(ctx, "bench", f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMainThreadCall: a steady stream of calls from one goroutine to
// Main, which TestMain handed the process main thread.
func BenchmarkMainThreadCall(b *testing.B) {
	benchSequential(b, mainThreadCall(b, Main))
}

// BenchmarkMainThreadCallOwnThread: the same, to a scheduler on its own thread.
func BenchmarkMainThreadCallOwnThread(b *testing.B) {
	m := NewMainThread()
	defer m.Close()
	benchSequential(b, mainThreadCall(b, m))
}

// BenchmarkMainThreadCallParallel: GOMAXPROCS goroutines calling Main.
func BenchmarkMainThreadCallParallel(b *testing.B) {
	benchParallel(b, mainThreadCall(b, Main))
}

// benchAfterIdle times round trips of call made 1ms apart, so that every
// call finds the other side parked and pays for waking it. The timer runs
// through the sleeps (ns/op is about 1ms); p50-ns and p99-ns are the figures.
func benchAfterIdle(b *testing.B, call func()) {
	call()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		time.Sleep(time.Millisecond)
		start := time.Now()
		call()
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	l := latencies{all: lat}
	l.report(b)
}

// BenchmarkMainThreadCallAfterIdle: calls to Main 1ms apart.
func BenchmarkMainThreadCallAfterIdle(b *testing.B) {
	benchAfterIdle(b, mainThreadCall(b, Main))
}

// lockedThread is the plain hand-off: a goroutine locked to its thread that
// receives funcs on a channel and answers on another.
type lockedThread struct {
	in   chan func()
	done chan struct{}
}

func startLockedThread() *lockedThread {
	t := &lockedThread{in: make(chan func()), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for f := range t.in {
			f()
			t.done <- struct{}{}
		}
	}()
	return t
}

func (t *lockedThread) call(f func()) {
	t.in <- f
	<-t.done
}

// BenchmarkChannelLockedThreadBaseline: one goroutine hands empty funcs to a
// locked goroutine over unbuffered channels.
func BenchmarkChannelLockedThreadBaseline(b *testing.B) {
	t := startLockedThread()
	defer close(t.in)
	f := func() {}
	benchSequential(b, func() { t.call(f) })
}

// BenchmarkChannelLockedThreadBaselineAfterIdle: the same, 1ms apart.
func BenchmarkChannelLockedThreadBaselineAfterIdle(b *testing.B) {
	t := startLockedThread()
	defer close(t.in)
	f := func() {}
	benchAfterIdle(b, func() { t.call(f) })
}
