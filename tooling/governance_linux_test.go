//go:build linux

package tooling_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestMainThreadToolsRunOnTheMainThreadInFIFOOrder(t *testing.T) {
	r := tooling.NewRegistry()
	var mu sync.Mutex
	var order []int64
	var tids []int
	gate := make(chan struct{})
	r.Register(tooling.Tool{Name: "t.main", Meta: tooling.Meta{Concurrency: tooling.MainThread},
		Input: raw(`{"type":"object","properties":{"i":{"type":"integer"},"block":{"type":"boolean"}}}`),
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			if callargs.Bool(c.Args, "block") {
				<-gate
			}
			mu.Lock()
			order = append(order, callargs.Int(c.Args, "i"))
			tids = append(tids, syscall.Gettid())
			mu.Unlock()
			return c.OnMainThread(), nil
		}})
	// Hold the main thread, queue calls one after another, then let go:
	// they must run in the order they were queued.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mustExec(t, r, "t.main", `{"i":0,"block":true}`)
	}()
	waitFor(t, func() bool { return r.Stats().MainThread.Current != "" })
	const n = 50
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := mustExec(t, r, "t.main", fmt.Sprintf(`{"i":%d}`, i))
			if string(res.Output) != "true" {
				t.Errorf("call %d: OnMainThread = %s", i, res.Output)
			}
		}()
		waitFor(t, func() bool { return r.Stats().MainThread.QueueDepth == i })
	}
	close(gate)
	wg.Wait()
	for i, got := range order {
		if got != int64(i) {
			t.Fatalf("order %v, want 0..%d", order, n)
		}
	}
	for _, tid := range tids {
		if tid != os.Getpid() {
			t.Fatalf("ran on thread %d, not the main thread %d", tid, os.Getpid())
		}
	}
	if st := r.Stats().MainThread; !st.OnMainThread || st.ThreadID != os.Getpid() || st.QueueDepth != 0 {
		t.Fatalf("main thread stats %+v", st)
	}
}
