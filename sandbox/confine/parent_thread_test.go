//go:build linux

package confine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func init() {
	// test.wait-file waits until the file named by req exists.
	Handle("test.wait-file", func(ctx context.Context, req []byte) ([]byte, error) {
		for {
			if _, err := os.Stat(string(req)); err == nil {
				return []byte("there"), nil
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
}

// confinedChildren counts this process's children that are confined children.
func confinedChildren() int {
	n := 0
	for _, pid := range childrenOf(os.Getpid()) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if strings.HasPrefix(string(b), childArgv0+"\x00") {
			n++
		}
	}
	return n
}

// TestChildrenOutliveEndedThreads: a child's parent-death signal is sent when the thread that
// started it ends, not the process, and Go ends a thread when a goroutine locked to it returns,
// whatever ran on that thread before. A host goroutine that locks its thread and returns must
// not kill the confined children of calls still running. Not parallel: before the children were
// started from threads that never end, this killed other tests' children too.
func TestChildrenOutliveEndedThreads(t *testing.T) {
	requireConfinement(t)
	dir := newFixture(t).ro
	release := filepath.Join(dir, "go")
	const calls = 6
	errs := make(chan error, calls)
	var wg sync.WaitGroup
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := Run(ctxTimeout(t, 2*time.Minute), "test.wait-file", Profile{ReadPaths: []string{dir}}, []byte(release))
			errs <- err
		}()
	}
	for confinedChildren() < calls { // until every child is started
		select {
		case err := <-errs:
			t.Fatalf("a call ended before its child started: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	// Goroutines that lock their thread and return: each ends a thread of this process, and
	// the runtime takes the idle ones, those the children were started from among them.
	var ended sync.WaitGroup
	for range 200 {
		ended.Add(1)
		go func() {
			defer ended.Done()
			runtime.LockOSThread()
		}()
		runtime.Gosched()
	}
	ended.Wait()
	os.WriteFile(release, nil, 0o644)
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			t.Errorf("call: %s", outcome(nil, err))
		}
	}
	record("threads of the host end while calls run: the calls' children", "ok", fmt.Sprintf("%d of %d killed", failed, calls), failed == 0)
}
