//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// newMainThread returns a scheduler on its own thread, closed when the test ends.
func newMainThread(t *testing.T) *MainThread {
	t.Helper()
	m := NewMainThread()
	t.Cleanup(m.Close)
	return m
}

// mustCall calls f on m and marks the test failed on an error. It may be
// called from any goroutine.
func mustCall(t *testing.T, m *MainThread, label string, f func()) {
	t.Helper()
	if _, err := m.Call(context.Background(), label, f); err != nil {
		t.Errorf("Call(%q): %v", label, err)
	}
}

// blockLoop runs a func on m that holds the loop until the returned release
// is called (at the latest when the test ends), and returns once it runs.
// The error of its Call goes to errc when it returns.
func blockLoop(t *testing.T, m *MainThread, label string) (release func(), errc <-chan error) {
	t.Helper()
	started, unblock, ec := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		_, err := m.Call(context.Background(), label, func() {
			close(started)
			<-unblock
		})
		ec <- err
	}()
	<-started
	var once sync.Once
	release = func() { once.Do(func() { close(unblock) }) }
	t.Cleanup(release)
	return release, ec
}

// waitFor polls cond until it holds, failing the test after 5s. It is for
// states no event announces, such as the depth of a queue.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func TestMainThreadRunsOnProcessMainThread(t *testing.T) {
	var tid int
	var onLoop bool
	wait, err := Main.Call(context.Background(), "test tid", func() {
		tid = unix.Gettid()
		onLoop = IsMainThread()
	})
	if err != nil {
		t.Fatal(err)
	}
	if wait < 0 {
		t.Errorf("wait = %v, want >= 0", wait)
	}
	if pid := os.Getpid(); tid != pid {
		t.Errorf("func ran on thread %d, want the main thread %d", tid, pid)
	}
	if !onLoop {
		t.Error("IsMainThread() = false inside a func of Main")
	}
	if IsMainThread() {
		t.Error("IsMainThread() = true outside Main's loop")
	}
	s := Main.Stats()
	if !s.Started || !s.OnMainThread || s.ThreadID != os.Getpid() || Main.ThreadID() != os.Getpid() {
		t.Errorf("Stats() = %+v, ThreadID() = %d; want started on the main thread %d", s, Main.ThreadID(), os.Getpid())
	}
}

func TestMainThreadOwnThread(t *testing.T) {
	m := newMainThread(t)
	if s := m.Stats(); s.Started || s.ThreadID != 0 {
		t.Fatalf("Stats() before the first Call = %+v, want not started", s)
	}
	tids := make(map[int]bool)
	for range 20 {
		mustCall(t, m, "test tid", func() {
			tids[unix.Gettid()] = true
			if !m.IsMainThread() {
				t.Error("m.IsMainThread() = false inside a func of m")
			}
		})
	}
	if len(tids) != 1 {
		t.Fatalf("funcs ran on %d threads %v, want 1", len(tids), tids)
	}
	for tid := range tids {
		if tid == os.Getpid() {
			t.Errorf("own thread is the main thread %d", tid)
		}
		if s := m.Stats(); !s.Started || s.OnMainThread || s.ThreadID != tid || s.Served != 20 {
			t.Errorf("Stats() = %+v, want started on thread %d, not the main one, 20 served", s, tid)
		}
	}
}

func TestMainThreadRunOnOtherGoroutine(t *testing.T) {
	m := NewMainThread()
	ran := make(chan int, 1)
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		runtime.LockOSThread() // so that the thread id read here is the one Run hands over
		defer runtime.UnlockOSThread()
		tid := unix.Gettid()
		m.Run(func() {
			mustCall(t, m, "test tid", func() { ran <- unix.Gettid() })
			if s := m.Stats(); !s.Started || s.OnMainThread || s.ThreadID != tid {
				t.Errorf("Stats() = %+v, want started on thread %d, not the main one", s, tid)
			}
		})
		if got := <-ran; got != tid {
			t.Errorf("func ran on thread %d, want Run's thread %d", got, tid)
		}
	}()
	<-returned
	if _, err := m.Call(context.Background(), "late", func() { t.Error("func ran after Run returned") }); !errors.Is(err, ErrMainThreadStopped) {
		t.Errorf("Call after Run returned: err = %v, want ErrMainThreadStopped", err)
	}
}

func TestMainThreadRunAfterStartPanics(t *testing.T) {
	m := newMainThread(t)
	mustCall(t, m, "start", func() {})
	defer func() {
		v := recover()
		if s, _ := v.(string); !strings.Contains(s, "Run called after the scheduler started") {
			t.Errorf("Run after start: recovered %v, want a panic that says why", v)
		}
	}()
	m.Run(func() { t.Error("fn ran") })
}

func TestMainThreadFIFOOneGoroutine(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *MainThread
	}{{"main", Main}, {"own", newMainThread(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for i := range 1000 {
				mustCall(t, tc.m, "test fifo", func() { got = append(got, i) })
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("call %d ran as number %d", v, i)
				}
			}
		})
	}
}

// TestMainThreadFIFOQueued queues calls from many goroutines while the loop
// is busy, one after the other, and checks they run in that order.
func TestMainThreadFIFOQueued(t *testing.T) {
	m := newMainThread(t)
	release, _ := blockLoop(t, m, "blocker")
	const n = 50
	var got []int
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			mustCall(t, m, "test fifo", func() { got = append(got, i) })
		})
		waitFor(t, "call is queued", func() bool { return m.Stats().QueueDepth == i+1 })
	}
	release()
	wg.Wait()
	if len(got) != n {
		t.Fatalf("%d funcs ran, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("queued as number %d, ran as number %d: %v", v, i, got)
		}
	}
}

func TestMainThreadFIFOManyGoroutines(t *testing.T) {
	const goroutines, calls = 8, 200
	type step struct{ g, i int }
	var got []step
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range calls {
				mustCall(t, Main, "test fifo", func() { got = append(got, step{g, i}) })
			}
		})
	}
	wg.Wait()
	if len(got) != goroutines*calls {
		t.Fatalf("%d funcs ran, want %d", len(got), goroutines*calls)
	}
	next := make([]int, goroutines)
	for _, s := range got {
		if s.i != next[s.g] {
			t.Fatalf("goroutine %d: call %d ran when %d was due", s.g, s.i, next[s.g])
		}
		next[s.g]++
	}
}

func TestMainThreadStuck(t *testing.T) {
	m := newMainThread(t)
	m.StuckAfter = 20 * time.Millisecond
	release, blockErr := blockLoop(t, m, "demo.block call 1")
	waitFor(t, "Stats reports Stuck", func() bool { return m.Stats().Stuck })
	if s := m.Stats(); s.Current != "demo.block call 1" || s.CurrentSince.IsZero() {
		t.Errorf("Stats() = %+v, want Current demo.block call 1 since some time", s)
	}

	const n = 5
	const timeout = 50 * time.Millisecond
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			start := time.Now()
			wait, err := m.Call(ctx, "waiting", func() { t.Errorf("queued func %d ran after its caller gave up", i) })
			if elapsed := time.Since(start); elapsed < timeout || wait < timeout-time.Millisecond {
				t.Errorf("gave up after %v (wait %v), before the deadline of %v", elapsed, wait, timeout)
			}
			errs <- err
		})
	}
	waitFor(t, "calls are queued", func() bool { return m.Stats().QueueDepth > 0 })
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrQueueTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want ErrQueueTimeout and DeadlineExceeded", err)
		}
	}
	if s := m.Stats(); s.QueueDepth != 0 || !s.Stuck {
		t.Errorf("Stats() after the callers gave up = %+v, want QueueDepth 0 and still Stuck", s)
	}

	release()
	if err := <-blockErr; err != nil {
		t.Errorf("blocking call: %v", err)
	}
	mustCall(t, m, "after", func() {})
	if s := m.Stats(); s.Stuck || s.Current != "" || s.Served != 2 {
		t.Errorf("Stats() after release = %+v, want idle, 2 served", s)
	}
}

func TestMainThreadCancelQueued(t *testing.T) {
	m := newMainThread(t)
	release, _ := blockLoop(t, m, "blocker")
	ctx, cancel := context.WithCancel(context.Background())
	ran := false
	errc := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, "canceled", func() { ran = true })
		errc <- err
	}()
	waitFor(t, "call is queued", func() bool { return m.Stats().QueueDepth == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, ErrQueueTimeout) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want ErrQueueTimeout and Canceled", err)
	}
	release()
	mustCall(t, m, "flush", func() {})
	if ran {
		t.Error("a func whose caller gave up in the queue ran")
	}
}

func TestMainThreadCanceledBeforeCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Main.Call(ctx, "never", func() { t.Error("func ran with a canceled context") })
	if !errors.Is(err, ErrQueueTimeout) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want ErrQueueTimeout and Canceled", err)
	}
}

func TestMainThreadCancelRunning(t *testing.T) {
	m := newMainThread(t)
	ctx, cancel := context.WithCancel(context.Background())
	started, unblock, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, "slow", func() {
			close(started)
			<-unblock
			close(finished)
		})
		errc <- err
	}()
	<-started
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrQueueTimeout) {
			t.Errorf("err = %v, want Canceled and not ErrQueueTimeout", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Call did not return when its context was canceled while the func ran")
	}
	if s := m.Stats(); s.Current != "slow" {
		t.Errorf("Stats().Current = %q, want the abandoned func still running", s.Current)
	}
	close(unblock)
	<-finished
	mustCall(t, m, "after", func() {})
}

func TestMainThreadPanic(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *MainThread
	}{{"main", Main}, {"own", newMainThread(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			served := tc.m.Stats().Served
			_, err := tc.m.Call(context.Background(), "demo.panic call 1", func() { panic("boom") })
			var pe *PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *PanicError", err)
			}
			if pe.Value != "boom" || pe.Label != "demo.panic call 1" || !strings.Contains(string(pe.Stack), "TestMainThreadPanic") {
				t.Errorf("PanicError = {%q %v}, stack:\n%s", pe.Label, pe.Value, pe.Stack)
			}
			if want := `sandbox: main-thread func "demo.panic call 1" panicked: boom`; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
			mustCall(t, tc.m, "after", func() {})
			if got := tc.m.Stats().Served; got != served+2 {
				t.Errorf("Served = %d, want %d", got, served+2)
			}
		})
	}
}

func TestMainThreadGoexit(t *testing.T) {
	m := newMainThread(t)
	var before, after int
	mustCall(t, m, "before", func() { before = unix.Gettid() })
	if _, err := m.Call(context.Background(), "goexit", runtime.Goexit); !errors.Is(err, ErrGoexit) {
		t.Fatalf("err = %v, want ErrGoexit", err)
	}
	mustCall(t, m, "after", func() { after = unix.Gettid() })
	if before == after || m.ThreadID() != after {
		t.Errorf("threads: %d before, %d after, ThreadID() %d; want a new thread after Goexit", before, after, m.ThreadID())
	}
}

func TestMainThreadReentrant(t *testing.T) {
	m := newMainThread(t)
	var order []string
	mustCall(t, m, "outer", func() {
		order = append(order, "outer")
		wait, err := m.Call(context.Background(), "inner", func() { order = append(order, "inner") })
		if wait != 0 || err != nil {
			t.Errorf("inner Call = %v, %v; want 0, nil", wait, err)
		}
		order = append(order, "outer end")
	})
	if got := strings.Join(order, ","); got != "outer,inner,outer end" {
		t.Errorf("order = %s, want the inner func to run inline", got)
	}
}

func TestMainThreadClose(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	defer func() { // the loop goroutine is gone
		if err := findLeaks(ignore); err != nil {
			t.Error(err)
		}
	}()
	m := NewMainThread()
	release, blockErr := blockLoop(t, m, "blocker")
	errc := make(chan error, 1)
	go func() {
		_, err := m.Call(context.Background(), "queued", func() { t.Error("queued func ran after Close") })
		errc <- err
	}()
	waitFor(t, "call is queued", func() bool { return m.Stats().QueueDepth == 1 })
	closed := make(chan struct{})
	go func() {
		m.Close()
		close(closed)
	}()
	if err := <-errc; !errors.Is(err, ErrMainThreadStopped) {
		t.Errorf("queued call: err = %v, want ErrMainThreadStopped", err)
	}
	select {
	case <-closed:
		t.Error("Close returned while a func was running")
	case <-time.After(10 * time.Millisecond):
	}
	release()
	<-closed
	if err := <-blockErr; err != nil {
		t.Errorf("running call: %v", err)
	}
	if _, err := m.Call(context.Background(), "late", func() {}); !errors.Is(err, ErrMainThreadStopped) {
		t.Errorf("Call after Close: err = %v, want ErrMainThreadStopped", err)
	}
	m.Close() // idempotent
}

// threadState is the state letter of thread tid of this process in /proc (R running or
// runnable, S asleep, ...).
func threadState(t *testing.T, tid int) byte {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || len(s) < i+3 {
		t.Fatalf("/proc/self/task/%d/stat: %q", tid, s)
	}
	return s[i+2]
}

// TestMainThreadIdleCPU checks that the spinning that makes a steady stream
// fast stops when the stream does: an idle scheduler parks, its thread asleep
// in the kernel (not runnable, as a spinning thread is however loaded the
// machine), and stays so while no call comes. The loop's spin lasts
// microseconds; the deadline is only a hang guard.
func TestMainThreadIdleCPU(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *MainThread
	}{{"main", Main}, {"own", newMainThread(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			for range 1000 {
				mustCall(t, tc.m, "warm", func() {})
			}
			tid := tc.m.ThreadID()
			asleep := func() bool { return tc.m.parked.Load() && threadState(t, tid) == 'S' }
			waitFor(t, "the idle loop parks and its thread sleeps", asleep)
			for range 20 {
				time.Sleep(5 * time.Millisecond)
				if !asleep() {
					t.Fatalf("the idle loop woke with no call: parked %t, thread state %c", tc.m.parked.Load(), threadState(t, tid))
				}
			}
		})
	}
}

func TestMainThreadNilFuncPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Call with a nil func did not panic")
		}
	}()
	_, _ = Main.Call(context.Background(), "nil", nil)
}

// TestMainThreadOneProcessor runs calls with GOMAXPROCS 1, where nothing
// spins: a spinning loop would keep the only processor from its callers.
func TestMainThreadOneProcessor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, tc := range []struct {
		name string
		m    *MainThread
	}{{"main", Main}, {"own", newMainThread(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for range 100 {
						mustCall(t, tc.m, "test one processor", func() { n++ })
					}
				})
			}
			wg.Wait()
			if n != 400 {
				t.Errorf("%d funcs ran, want 400", n)
			}
		})
	}
}

func ExampleMainThread_Call() {
	m := NewMainThread() // a host uses Main
	defer m.Close()
	sum := 0
	for i := 1; i <= 3; i++ {
		// Label each call so that Stats can say what holds the thread.
		if _, err := m.Call(context.Background(), fmt.Sprintf("example.add call %d", i), func() { sum += i }); err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println(sum, m.Stats().Served)
	// Output: 6 3
}

func ExampleMainThread_Run() {
	// A host hands its main thread over from main():
	//
	//	func main() { sandbox.Main.Run(realMain) }
	//
	// Here a fresh scheduler takes the example's thread the same way.
	m := NewMainThread()
	m.Run(func() {
		_, err := m.Call(context.Background(), "example.where", func() {
			fmt.Println("on the loop:", m.IsMainThread())
		})
		fmt.Println("err:", err)
	})
	_, err := m.Call(context.Background(), "example.late", func() {})
	fmt.Println("after Run:", err)
	// Output:
	// on the loop: true
	// err: <nil>
	// after Run: sandbox: main-thread scheduler stopped
}
