package sandbox

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Main is the process-wide main-thread scheduler. A host makes it the real
// main thread by calling Main.Run from main(); otherwise it starts on its
// own locked thread at the first Call.
var Main = NewMainThread()

// DefaultStuckAfter is the StuckAfter used when that field is zero.
const DefaultStuckAfter = time.Second

// ErrQueueTimeout is returned by Call when its context ends while the func
// still waits in the queue: the func is removed and never runs. The error
// also wraps the context's error, so errors.Is matches both.
var ErrQueueTimeout = errors.New("sandbox: gave up waiting in the main-thread queue")

// ErrMainThreadStopped is returned by Call once the scheduler has stopped:
// after Close, or after Run returned. Funcs still queued at that moment fail
// with it too and never run.
var ErrMainThreadStopped = errors.New("sandbox: main-thread scheduler stopped")

// ErrGoexit is returned by Call when the func called runtime.Goexit (for
// instance t.FailNow inside the func). The loop goroutine cannot survive it:
// the scheduler goes on serving from a new goroutine on a new thread, which
// is never the process main thread. A Run whose goroutine ended this way
// never returns.
var ErrGoexit = errors.New("sandbox: main-thread func called runtime.Goexit")

// PanicError is returned by Call when the func panicked. The panic is
// recovered on the loop thread, which goes on serving.
type PanicError struct {
	Label string // the label given to Call
	Value any    // the value passed to panic
	Stack []byte // the stack of the panicking func, from runtime/debug.Stack
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("sandbox: main-thread func %q panicked: %v", e.Label, e.Value)
}

// MainThreadStats is a snapshot of a scheduler, from Stats.
type MainThreadStats struct {
	Started      bool // the loop is (or was) serving: Run was called, or a Call started it
	OnMainThread bool // Run was handed the process main thread
	ThreadID     int  // the loop thread's id (gettid; the process id on the main thread); 0 before start and off Linux

	QueueDepth   int       // funcs waiting, not counting the one running
	Current      string    // label of the func running; "" when idle
	CurrentSince time.Time // when Current started; zero when idle
	Stuck        bool      // Current has run longer than StuckAfter

	Served uint64 // funcs that ran to the end, panics included
}

// MainThread runs funcs one at a time, in FIFO order, on one locked OS
// thread. Create it with NewMainThread; the process-wide one is Main.
//
// Waking a goroutine that is locked to a thread needs an OS thread
// hand-off, and waking a thread on an idle CPU of a virtual machine can
// take tens of microseconds more. So a Call works in one of two ways:
//
//   - Hand-off, the default: a caller that finds the loop parked wakes it and
//     blocks at once, so that its processor passes straight to the loop's
//     thread; once the func is done, the loop parks at once, so that the
//     processor passes straight back. Two thread switches on one CPU, about
//     what a plain channel round trip to a locked goroutine costs.
//   - Hot: the loop spins for up to loopSpin after each func before it
//     parks, and a caller whose loop is spinning spins too (yielding its
//     processor between polls) for up to callerSpin before it blocks. With
//     both on their own CPU a round trip is well under a microsecond.
//
// A call that arrives within loopSpin of the loop parking (a stream) tries
// to turn it hot: its caller spins instead of blocking. A try pays if the
// loop then catches tryPays funcs while spinning; while tries do not pay
// (when the CPUs are busy with other work, spinning only gets in the way),
// they back off exponentially, down to one stream in 1024. Nothing spins
// when GOMAXPROCS is 1, and an idle scheduler parks: it costs no CPU.
type MainThread struct {
	// StuckAfter is how long the running func may take before Stats reports
	// it Stuck; zero means DefaultStuckAfter. Set it before the first Call.
	StuckAfter time.Duration

	mu      sync.Mutex
	head    *call // queued funcs, oldest first
	tail    *call
	onMain  bool
	stopped bool
	start   chan struct{} // closed once the loop has its thread id (own thread)
	exited  chan struct{} // closed when the own-thread loop has returned

	started atomic.Bool
	depth   atomic.Int64
	tid     atomic.Int64
	served  atomic.Uint64
	cur     atomic.Pointer[call] // the func running, nil when idle
	parked  atomic.Bool          // the loop is (about to be) blocked on wake
	wake    chan struct{}        // capacity 1: a token that unparks the loop
	stop    chan struct{}        // closed by Close

	parkedAt   atomic.Int64 // when the loop last parked, in ns since epoch
	hotCalls   atomic.Int64 // funcs the loop found while spinning
	judging    atomic.Bool  // the last try turned the loop hot: did it pay?
	tryFails   atomic.Int32 // tries that did not pay, in a row
	trySkipped atomic.Int32 // streams to let pass before the next try
}

// The spin windows; see MainThread.
const (
	loopSpin      = 100 * time.Microsecond // the loop, after a func, before it parks
	callerSpin    = 50 * time.Microsecond  // a caller whose loop is hot, before it blocks
	trySpin       = 100 * time.Microsecond // a caller trying to turn the loop hot
	tryPays       = 32                     // hot calls that make a try worth it
	maxTryBackoff = 10                     // at most 1<<10 streams pass between tries
)

// epoch is the origin of MainThread.parkedAt.
var epoch = time.Now()

// NewMainThread returns a scheduler that has not started: Run hands it the
// calling goroutine's thread, or else the first Call starts it on its own
// locked goroutine.
func NewMainThread() *MainThread {
	return &MainThread{
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
	}
}

// The states of a call.
const (
	queued int32 = iota
	running
	done    // ran, or failed in the queue because the scheduler stopped
	removed // its caller gave up while it was queued
)

type call struct {
	label      string
	f          func()
	prev, next *call
	state      atomic.Int32
	queuedAt   time.Time
	startedAt  time.Time // set under MainThread.mu when it leaves the queue
	err        error     // written before state becomes done
	done       chan struct{}
	blocked    atomic.Bool // the caller stopped spinning and blocks on done
}

// Run hands the calling goroutine's thread over to m: it runs fn in a new
// goroutine and serves queued funcs on the calling thread until fn returns,
// then stops m and returns. To make it the process main thread, call it from
// main() before anything else: the runtime keeps the main goroutine on that
// thread through package initialisation, and Run locks it there (no init of
// this package does, so a program that never hands main over pays nothing):
//
//	func main() {
//		sandbox.Main.Run(realMain)
//	}
//
// Run waits for the func running when fn returns; funcs still queued then
// fail with ErrMainThreadStopped. A panic in fn ends the program, as one in
// main would. Run panics if m has already started (on its own thread at a
// Call, or by an earlier Run).
func (m *MainThread) Run(fn func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m.mu.Lock()
	if m.started.Load() {
		m.mu.Unlock()
		panic("sandbox: MainThread.Run called after the scheduler started; " +
			"call Run from main() before anything calls Main.Call")
	}
	tid := currentThread()
	m.tid.Store(tid)
	m.onMain = isProcessMainThread(tid)
	m.started.Store(true)
	m.mu.Unlock()

	fnDone := make(chan struct{})
	go func() {
		defer close(fnDone)
		fn()
	}()
	m.serve(fnDone)
	m.shutdown()
}

// Close stops m: funcs still queued fail with ErrMainThreadStopped, and so
// do later Calls. A scheduler on its own thread ends its loop goroutine;
// Close waits for the func running, if any, to return (unless Close is
// called from that func). A scheduler handed a thread by Run serves no more
// funcs, and Run still returns when its fn does. Close is idempotent.
func (m *MainThread) Close() {
	m.shutdown()
	m.mu.Lock()
	exited := m.exited
	m.mu.Unlock()
	if exited != nil && !m.onLoop() {
		<-exited
	}
}

func (m *MainThread) shutdown() {
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return
	}
	m.stopped = true
	for c := m.head; c != nil; c = c.next {
		c.err = ErrMainThreadStopped
		c.startedAt = time.Now()
		c.state.Store(done)
		close(c.done)
	}
	m.head, m.tail = nil, nil
	m.depth.Store(0)
	m.mu.Unlock()
	close(m.stop)
}

// Call queues f with a label that names it in Stats (for example
// "demo.counter call 3f2a-1"), waits for it to run on the loop thread and
// returns how long it waited in the queue.
//
// If ctx ends while f is queued, f is removed and never runs, and Call
// returns an error matching both ErrQueueTimeout and ctx.Err(). If ctx ends
// while f runs, Call returns ctx.Err() at once, unwrapped, and f keeps the
// thread until it returns. A panic in f is returned as a *PanicError. When
// called from a func running on m's loop, Call runs f at once, inline
// (queuing it would deadlock).
func (m *MainThread) Call(ctx context.Context, label string, f func()) (wait time.Duration, err error) {
	if f == nil {
		panic("sandbox: MainThread.Call with a nil func")
	}
	if m.cur.Load() != nil && m.onLoop() {
		return 0, runInline(label, f)
	}
	if err := ctx.Err(); err != nil {
		return 0, queueError(label, err)
	}
	if !m.started.Load() {
		m.startOwnThread()
	}
	c := &call{label: label, f: f, done: make(chan struct{})}

	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return 0, ErrMainThreadStopped
	}
	c.queuedAt = time.Now()
	if m.tail == nil {
		m.head = c
	} else {
		m.tail.next, c.prev = c, m.tail
	}
	m.tail = c
	m.depth.Add(1)
	m.mu.Unlock()

	// The loop stores parked before it loads depth, and we stored depth
	// before we load parked: one of us sees the other.
	woke, stream := false, false
	if m.parked.Load() {
		select {
		case m.wake <- struct{}{}:
			woke = true
			stream = time.Since(epoch)-time.Duration(m.parkedAt.Load()) < loopSpin
		default:
		}
	}

	if !m.await(c, woke, stream) {
		c.blocked.Store(true)
		select {
		case <-c.done:
		case <-ctx.Done():
			return m.abandon(c, ctx.Err())
		}
	}
	return c.startedAt.Sub(c.queuedAt), c.err
}

// await spins until c is done, if spinning is worth it (see MainThread),
// and reports whether c is done. woke tells that the caller woke the loop,
// stream that the loop had parked only just before.
func (m *MainThread) await(c *call, woke, stream bool) bool {
	switch {
	case woke && !stream:
		return false // hand-off
	case runtime.GOMAXPROCS(0) == 1:
		return c.state.Load() == done
	case !woke:
		return c.spin(callerSpin)
	case !m.mayTry():
		return false // hand-off
	}
	ok := c.spin(trySpin)
	if ok {
		m.hotCalls.Store(0)
		m.judging.Store(true)
	} else {
		m.judge(false)
	}
	return ok
}

// mayTry reports whether a stream may try to turn the loop hot. A try that
// turned it hot is judged at the next one: it paid if the loop then found
// tryPays funcs while spinning.
func (m *MainThread) mayTry() bool {
	if m.judging.Swap(false) {
		m.judge(m.hotCalls.Load() >= tryPays)
	}
	if m.trySkipped.Load() > 0 {
		m.trySkipped.Add(-1)
		return false
	}
	return true
}

// judge records whether a try to turn the loop hot paid, and backs off
// exponentially while they do not.
func (m *MainThread) judge(paid bool) {
	if paid {
		m.tryFails.Store(0)
		return
	}
	n := min(m.tryFails.Add(1), maxTryBackoff)
	m.trySkipped.Store(1<<n - 1)
}

// spin polls c for up to window, yielding the processor between polls, and
// reports whether c is done.
func (c *call) spin(window time.Duration) bool {
	var start time.Time
	for i := 0; ; i++ {
		if c.state.Load() == done {
			return true
		}
		if i&15 == 0 {
			if i == 0 {
				start = time.Now()
			} else if time.Since(start) > window {
				return false
			}
		}
		runtime.Gosched()
	}
}

// abandon is called when the caller's ctx ended with err while waiting for c.
func (m *MainThread) abandon(c *call, err error) (time.Duration, error) {
	m.mu.Lock()
	switch c.state.Load() {
	case queued:
		if c.prev == nil {
			m.head = c.next
		} else {
			c.prev.next = c.next
		}
		if c.next == nil {
			m.tail = c.prev
		} else {
			c.next.prev = c.prev
		}
		c.prev, c.next = nil, nil
		m.depth.Add(-1)
		c.state.Store(removed)
		m.mu.Unlock()
		return time.Since(c.queuedAt), queueError(c.label, err)
	case done:
		m.mu.Unlock()
		<-c.done
		return c.startedAt.Sub(c.queuedAt), c.err
	}
	m.mu.Unlock()
	return c.startedAt.Sub(c.queuedAt), err
}

func queueError(label string, err error) error {
	return fmt.Errorf("%w (%q): %w", ErrQueueTimeout, label, err)
}

// startOwnThread starts the loop on its own locked goroutine, once, and
// waits until its thread id is known.
func (m *MainThread) startOwnThread() {
	m.mu.Lock()
	if m.started.Load() || m.stopped {
		m.mu.Unlock()
		return
	}
	m.start = make(chan struct{})
	m.exited = make(chan struct{})
	m.started.Store(true)
	ready := m.start
	m.mu.Unlock()
	go m.serveOwnThread(nil, m.exited)
	<-ready
}

// serveOwnThread serves on a new locked thread until fnDone is closed (when
// it replaces a loop that Run started) or m stops.
func (m *MainThread) serveOwnThread(fnDone <-chan struct{}, exited chan struct{}) {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	m.tid.Store(currentThread())
	m.mu.Lock()
	m.onMain = false
	if m.start != nil {
		close(m.start)
		m.start = nil
	}
	m.mu.Unlock()
	m.serve(fnDone)
	if fnDone != nil { // the replacement of a loop that Run started
		m.shutdown()
	}
	if exited != nil {
		close(exited)
	}
}

// serve is the loop: it runs queued funcs until fnDone is closed (a nil
// fnDone never is) or, unless fnDone is set, until m stops.
func (m *MainThread) serve(fnDone <-chan struct{}) {
	exited := m.exited
	ok := false
	defer func() {
		if !ok { // a func called runtime.Goexit: go on from a new thread
			go m.serveOwnThread(fnDone, exited)
		}
	}()
	stop := m.stop
	wokeCaller := false // since the loop last went idle
	for {
		if c := m.next(); c != nil {
			m.run(c)
			wokeCaller = wokeCaller || c.blocked.Load()
			continue
		}
		// A caller that blocked was made runnable on this loop's
		// processor, which a spin would keep from it: park at once.
		woke := wokeCaller
		wokeCaller = false
		if !woke && m.spin() {
			m.hotCalls.Add(1)
			continue
		}
		m.parkedAt.Store(int64(time.Since(epoch)))
		m.parked.Store(true)
		if m.depth.Load() > 0 {
			m.parked.Store(false)
			continue
		}
		select {
		case <-m.wake:
		case <-stop:
			if fnDone == nil {
				ok = true
				return
			}
			stop = nil // handed over: wait for fnDone only
		case <-fnDone:
			ok = true
			m.parked.Store(false)
			return
		}
		m.parked.Store(false)
	}
}

// spin waits for up to loopSpin for a func to be queued, without yielding:
// a locked goroutine that yields gives its thread away. It reports whether
// one was.
func (m *MainThread) spin() bool {
	if runtime.GOMAXPROCS(0) == 1 {
		return false
	}
	start := time.Now()
	for i := 1; ; i++ {
		if m.depth.Load() > 0 {
			return true
		}
		if i&63 == 0 && time.Since(start) > loopSpin {
			return false
		}
	}
}

// next takes the oldest queued func off the queue, or returns nil.
func (m *MainThread) next() *call {
	if m.depth.Load() == 0 {
		return nil
	}
	m.mu.Lock()
	c := m.head
	if c == nil || m.stopped {
		m.mu.Unlock()
		return nil
	}
	m.head = c.next
	if m.head == nil {
		m.tail = nil
	} else {
		m.head.prev = nil
	}
	c.next = nil
	m.depth.Add(-1)
	c.startedAt = time.Now()
	c.state.Store(running)
	m.mu.Unlock()
	return c
}

// run runs c on the loop, recovering a panic.
func (m *MainThread) run(c *call) {
	m.cur.Store(c)
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				c.err = &PanicError{Label: c.label, Value: v, Stack: debug.Stack()}
			} else {
				c.err = ErrGoexit
			}
		}
		m.cur.Store(nil)
		m.served.Add(1)
		c.state.Store(done)
		close(c.done)
	}()
	c.f()
	returned = true
}

// runInline runs f on the calling goroutine, as run would.
func runInline(label string, f func()) (err error) {
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				err = &PanicError{Label: label, Value: v, Stack: debug.Stack()}
			} else {
				err = ErrGoexit
			}
		}
	}()
	f()
	returned = true
	return nil
}

// Stats returns a snapshot of m.
func (m *MainThread) Stats() MainThreadStats {
	m.mu.Lock()
	onMain := m.onMain
	m.mu.Unlock()
	s := MainThreadStats{
		Started:      m.started.Load(),
		OnMainThread: onMain,
		ThreadID:     threadID(m.tid.Load()),
		QueueDepth:   int(m.depth.Load()),
		Served:       m.served.Load(),
	}
	if c := m.cur.Load(); c != nil {
		after := m.StuckAfter
		if after <= 0 {
			after = DefaultStuckAfter
		}
		s.Current, s.CurrentSince = c.label, c.startedAt
		s.Stuck = time.Since(c.startedAt) > after
	}
	return s
}

// ThreadID returns the loop thread's id (gettid), or 0 before m starts and off Linux.
func (m *MainThread) ThreadID() int {
	return threadID(m.tid.Load())
}

// IsMainThread reports whether the calling goroutine is m's loop, that is,
// whether it runs inside a func that m is running.
func (m *MainThread) IsMainThread() bool {
	return m.onLoop()
}

// IsMainThread reports whether the calling goroutine is the loop of Main.
func IsMainThread() bool {
	return Main.onLoop()
}

// onLoop compares thread ids, which is sound because the loop goroutine is
// locked to its thread: no other goroutine runs there.
func (m *MainThread) onLoop() bool {
	tid := m.tid.Load()
	return tid > 0 && currentThread() == tid
}
