package tooling

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolexplorer/toolexplorer/sandbox"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// outcome is what a tool's goroutine hands back.
type outcome struct {
	out   any
	err   error
	panic any
	stack []byte
	ran   time.Duration // how long Run ran, measured where it ran
	// checked is out encoded and checked by the goroutine that ran the
	// tool, whose stack is shallow, rather than by the caller's, deep in
	// the registry and its host (encoding and checking there grew a fresh
	// goroutine's stack on every call an MCP server served). Valid when
	// hasChecked.
	checked    checked
	hasChecked bool
}

// task tracks one run: state moves from running to finished (the tool
// returned first) or abandoned (the caller left first). Whoever ends last
// releases what the call holds (its slot and resource locks), so that an
// abandoned tool keeps its locks until it really returns: no call can
// overlap with it.
type task struct {
	done     chan outcome
	state    atomic.Int32
	releases []func()
	relBuf   [2]func() // releases' backing store: a slot and a lock
	once     sync.Once
	notes    notes // the tool's Decide and SetDetail

	// What the tool's goroutine runs (runToolGoroutine).
	ctx  context.Context
	e    *entry
	call Call
}

const (
	taskRunning int32 = iota
	taskFinished
	taskAbandoned
)

func (t *task) release() {
	t.once.Do(func() {
		for i := len(t.releases) - 1; i >= 0; i-- {
			t.releases[i]()
		}
	})
}

// abandonGrace is how long a call past its deadline waits for its tool to
// return before abandoning it: a tool that honours its context returns
// within it, and is not reported abandoned.
const abandonGrace = 5 * time.Millisecond

// outlive handles a call whose deadline passed while its tool ran: it
// waits up to abandonGrace for the tool's outcome, then abandons the tool
// and reports the call (done true), unless the tool finished meanwhile.
func (r *Registry) outlive(t *task, start time.Time, res *Result, parent, runCtx context.Context) (o outcome, done bool) {
	timer := time.NewTimer(abandonGrace)
	defer timer.Stop()
	select {
	case o = <-t.done:
		return o, false
	case <-timer.C:
	}
	if !r.abandon(t) {
		return <-t.done, false // it finished just now: take its outcome
	}
	res.Run = time.Since(start)
	res.Abandoned = true
	r.interrupted(res, parent, runCtx.Err(), true)
	return outcome{}, true
}

// abandon marks the task abandoned by its caller; false when the tool
// finished in the meantime (its outcome is then in t.done).
func (r *Registry) abandon(t *task) bool {
	r.abandoned.Add(1)
	if t.state.CompareAndSwap(taskRunning, taskAbandoned) {
		return true
	}
	r.abandoned.Add(-1)
	return false
}

// takeToken takes a token from the tool's rate bucket, or refuses the call.
func (r *Registry) takeToken(res *Result, e *entry, pol *toolPolicy) (key string, taken bool) {
	if pol.rate.Unlimited() {
		return "", false
	}
	ok, retry := r.buckets.Take(pol.rateKey, pol.rate, time.Now())
	if !ok {
		res.RetryAfter = retry
		res.failf(codes.RateLimited, "%s is limited to %s (bucket %q): retry in %v", e.tool.Name, pol.rate, pol.rateKey, retry.Round(time.Millisecond))
		res.Hint = pol.rateHint
		return "", false
	}
	res.decide("rate", pol.rateDecision)
	return pol.rateKey, true
}

func (r *Registry) refund(key string, taken bool) {
	if taken {
		r.buckets.Refund(key, time.Now())
	}
}

// acquire takes a global slot and, for exclusive tools, the resource locks,
// adding their releases to t. On failure it sets busy or canceled and
// releases what it took.
func (r *Registry) acquire(parent, runCtx context.Context, res *Result, e *entry, pol *toolPolicy, call Call, t *task) bool {
	start := time.Now()
	e.counters.waiting.Add(1)
	defer e.counters.waiting.Add(-1)
	defer func() { res.Wait += time.Since(start) }()

	if !r.slots.TryAcquire() {
		if err := r.slots.Acquire(runCtx); err != nil {
			st := r.slots.Stats()
			r.waitFailed(parent, res, err, fmt.Sprintf("no free slot of the %d allowed at once (config max_concurrent)", st.Limit))
			return false
		}
	}
	t.releases = append(t.releases, r.releaseSlot)
	if e.tool.Meta.Concurrency != Exclusive {
		return true
	}
	keys := pol.lockKeys
	var release func()
	var err error
	if n := e.tool.Meta.Parallel; n > 1 {
		release, err = r.shared.acquire(runCtx, keys, n)
	} else {
		release, err = r.locks.Acquire(runCtx, keys, sandbox.Holder{Name: e.tool.Name, ID: call.ID})
	}
	if err != nil {
		r.waitFailed(parent, res, err, "resource "+r.holders(keys)+" stayed locked")
		t.release()
		return false
	}
	t.releases = append(t.releases, release)
	res.decide("lock", pol.lockDecision)
	return true
}

// holders names who holds keys now, for busy messages.
func (r *Registry) holders(keys []string) string {
	var parts []string
	for _, st := range r.locks.Stats() {
		for _, k := range keys {
			if st.Key == k && st.Holder != nil {
				parts = append(parts, fmt.Sprintf("%q (held by %s, call %s)", k, st.Holder.Name, st.Holder.ID))
			}
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%q", strings.Join(keys, ", "))
	}
	return strings.Join(parts, ", ")
}

// waitFailed reports a call that gave up waiting: canceled when its caller
// canceled it, else busy.
func (r *Registry) waitFailed(parent context.Context, res *Result, err error, what string) {
	res.cause = err
	if perr := parent.Err(); perr != nil && !errors.Is(perr, context.DeadlineExceeded) {
		res.failf(codes.Canceled, "%s was canceled by its caller while waiting: %s", res.Tool, what)
		return
	}
	res.failf(codes.Busy, "%s waited %v, up to its deadline of %v: %s", res.Tool, time.Since(res.Started).Round(time.Millisecond), res.Timeout, what)
	res.Hint = "try again later, or with a longer deadline"
}

// run runs the tool under runCtx: on the main-thread scheduler for
// MainThread tools, else in a goroutine of its own. It returns by the
// deadline whatever the tool does.
func (r *Registry) run(parent, runCtx context.Context, res *Result, e *entry, call Call, t *task) {
	start := time.Now()
	var o outcome
	call.notes = &t.notes
	defer func() {
		decisions, detail := t.notes.close()
		res.Governance = append(res.Governance, decisions...)
		res.detail = detail
	}()
	if e.tool.Meta.Concurrency == MainThread {
		var stop bool
		if o, stop = r.runOnMainThread(parent, runCtx, res, e, call, t, start); stop {
			return
		}
	} else {
		res.ran = true
		// The tool's goroutine gets its call from t: a call passed to it
		// as an argument would be copied to the heap once more.
		t.ctx, t.e, t.call = runCtx, e, call
		// The caller waits for the tool parked, not yielding its
		// processor to it: a yield puts the caller at the back of the
		// global run queue, behind every goroutine runnable, which under
		// concurrent calls made a served call wait hundreds of
		// microseconds (BENCHMARKS.md, the served endpoint).
		go r.runToolGoroutine(t)
		select {
		case o = <-t.done:
		case <-runCtx.Done():
			var done bool
			if o, done = r.outlive(t, start, res, parent, runCtx); done {
				return
			}
		}
	}
	t.release()
	res.Run = o.ran
	switch {
	case o.panic != nil:
		res.failf(codes.Panic, "%s panicked: %v", e.tool.Name, o.panic)
		res.Stack = string(o.stack)
	case o.err != nil && runCtx.Err() != nil && errors.Is(o.err, runCtx.Err()):
		r.interrupted(res, parent, runCtx.Err(), true)
		res.cause = o.err
	case o.err != nil:
		res.fail(codes.ToolError, o.err.Error())
		res.cause = o.err
	default:
		if !o.hasChecked {
			o.checked = r.checkOutput(e, o.out)
		}
		res.takeOutput(&o.checked)
	}
}

// runOnMainThread runs a MainThread tool on the main-thread scheduler and
// returns its outcome; stop when the call ended without one (it never
// ran, or it was abandoned), res saying why. It is a function of its own
// so that the call, which its closures capture, is copied to the heap only
// for MainThread tools.
func (r *Registry) runOnMainThread(parent, runCtx context.Context, res *Result, e *entry, call Call, t *task, start time.Time) (o outcome, stop bool) {
	// The scheduler says whether f was dequeued before it ran
	// (ErrQueueTimeout, ErrMainThreadStopped: it never runs) or is
	// running (a plain context error: it runs on, abandoned). Whoever
	// flips started first stops counting the call as waiting.
	var started atomic.Bool
	stopWaiting := func() {
		if started.CompareAndSwap(false, true) {
			e.counters.waiting.Add(-1)
		}
	}
	e.counters.waiting.Add(1)
	wait, err := r.mainThread().Call(runCtx, e.tool.Name+" call "+call.ID, func() {
		stopWaiting()
		r.runTool(runCtx, e, call, t)
	})
	res.Wait += wait
	start = start.Add(wait)
	switch {
	case err == nil:
		res.ran = true
		o = <-t.done
	case errors.Is(err, sandbox.ErrQueueTimeout) || errors.Is(err, sandbox.ErrMainThreadStopped):
		stopWaiting()
		t.release()
		r.waitFailed(parent, res, err, r.mainThreadBusy(err))
		return o, true
	default: // the deadline passed while the tool ran on the main thread
		res.ran = true
		var done bool
		if o, done = r.outlive(t, start, res, parent, runCtx); done {
			return o, true
		}
	}
	res.decide("main_thread", fmt.Sprintf("ran on the main thread after %v in its queue", wait.Round(time.Microsecond)))
	return o, false
}

func (r *Registry) mainThreadBusy(err error) string {
	if errors.Is(err, sandbox.ErrMainThreadStopped) {
		return "the main-thread scheduler has stopped"
	}
	st := r.mainThread().Stats()
	if st.Current == "" {
		return fmt.Sprintf("the main thread's queue did not reach it (%d queued)", st.QueueDepth)
	}
	msg := fmt.Sprintf("the main thread was busy with %s for %v", st.Current, time.Since(st.CurrentSince).Round(time.Millisecond))
	if st.Stuck {
		msg += " (stuck)"
	}
	return msg
}

// runTool runs the tool and hands its outcome back; when the caller has
// abandoned the call, it releases what the call held.
func (r *Registry) runTool(ctx context.Context, e *entry, call Call, t *task) {
	var o outcome
	returned := false
	e.counters.enterRun()
	start := time.Now()
	defer func() {
		if !returned {
			o.ran = time.Since(start)
		}
		e.counters.running.Add(-1)
		if p := recover(); p != nil {
			o.panic, o.stack = p, debug.Stack()
		} else if !returned {
			o.panic, o.stack = "runtime.Goexit called", debug.Stack()
		}
		t.done <- o
		if !t.state.CompareAndSwap(taskRunning, taskFinished) {
			r.abandoned.Add(-1)
			t.release()
		}
	}()
	o.out, o.err = e.tool.Run(ctx, call)
	returned = true
	o.ran = time.Since(start)
	if o.err == nil {
		o.checked, o.hasChecked = r.checkOutput(e, o.out), true
	}
}

// runToolGoroutine is runTool as the goroutine of its own that a tool runs
// on, with the call t holds: its stack is grown first (growStack).
func (r *Registry) runToolGoroutine(t *task) {
	growStack()
	r.runTool(t.ctx, t.e, t.call, t)
}

// growStack grows a new goroutine's stack, in one step, to what a tool
// that decodes and encodes JSON uses (8 KiB). A goroutine starts with a
// small stack (2 KiB, unless the runtime saw larger ones) and doubles it
// each time it runs out, copying its frames and adjusting their pointers:
// the echo a served call runs outgrew it twice, deep in encoding/json's
// frames, where the copy is dearest. Grown here, with two frames to copy,
// it costs a fraction of that (BENCHMARKS.md, the served endpoint).
//
//go:noinline
func growStack() {
	var frame [5 << 10]byte // with the stack's guard, more than 4 KiB: doubled to 8
	touchFrame(frame[:])
}

// touchFrame uses frame, so that growStack's frame is not optimized away.
//
//go:noinline
func touchFrame(frame []byte) {
	if len(frame) == 0 {
		panic("tooling: no frame")
	}
}
