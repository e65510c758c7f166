//go:build linux

package confine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func init() {
	Handle("test.pid", func(ctx context.Context, req []byte) ([]byte, error) {
		return []byte(strconv.Itoa(os.Getpid())), nil
	})
}

// waitIdle waits until the pool holds n ready workers for p.
func waitIdle(t testing.TB, pool *Pool, p Profile, n int) {
	t.Helper()
	set, err := pool.set(p)
	if err != nil {
		t.Fatal(err)
	}
	pool.fill(set)
	deadline := time.Now().Add(20 * time.Second)
	for len(set.idle) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the pool has %d ready workers after 20s, want %d (last error %v)", len(set.idle), n, set.lastErr)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPoolSingleUse(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	pool := NewPool(2)
	defer pool.Close()
	p := Profile{}
	seen := map[string]bool{}
	for i := 0; i < 5; i++ {
		waitIdle(t, pool, p, 1)
		resp, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.pid", p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if seen[string(resp)] {
			t.Fatalf("worker %s served twice in a single-use profile", resp)
		}
		seen[string(resp)] = true
	}
	record("pool: single-use worker serves one call", "ok", fmt.Sprintf("ok: 5 calls, %d workers", len(seen)), len(seen) == 5)
}

func TestPoolReuse(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	pool := NewPool(1)
	defer pool.Close()
	p := Profile{Reuse: true}
	waitIdle(t, pool, p, 1)
	seen := map[string]int{}
	for i := 0; i < 10; i++ {
		resp, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.pid", p, nil)
		if err != nil {
			t.Fatal(err)
		}
		seen[string(resp)]++
	}
	if len(seen) != 1 {
		t.Errorf("a reused worker should serve all 10 calls: %v", seen)
	}
	// Messages larger than a pipe's buffer, both ways, between small ones.
	for i, n := range []int{10, 3 << 20, 1, 200 << 10, 0, 5} {
		req := bytes.Repeat([]byte{byte('a' + i)}, n)
		resp, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.echo", p, req)
		if err != nil || !bytes.Equal(resp, req) {
			t.Fatalf("echo of %d bytes through the reused worker: %d bytes back, %v", n, len(resp), err)
		}
	}
	// A denial leaves the worker healthy; a timeout kills it and the next call gets another.
	if _, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.read", p, []byte("/etc/shadow")); !errors.Is(err, os.ErrPermission) {
		t.Errorf("read /etc/shadow: %v, want a denial", err)
	}
	// A panic, recovered in the worker, retires it.
	if _, err := pool.Run(context.Background(), "test.panic", p, []byte("boom")); err == nil {
		t.Error("a panicking handler succeeded")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := pool.Run(ctx, "test.spin", p, nil)
	expect(t, "pool: reused worker, busy loop past the deadline [full]", Timeout, nil, err)
	resp, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.pid", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if seen[string(resp)] != 0 {
		t.Errorf("the worker killed at the deadline served again (pid %s)", resp)
	}
}

func TestPoolUnavailable(t *testing.T) {
	t.Setenv(envFakeABI, "3")
	pool := NewPool(1)
	defer pool.Close()
	p := Profile{Env: []string{envFakeABI}}
	for i := 0; i < 3; i++ {
		_, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.echo", p, []byte("must not run"))
		var e *Error
		if !errors.As(err, &e) || e.Kind != Unavailable {
			t.Fatalf("call %d: %v, want Unavailable", i, err)
		}
	}
	pool.Close()
	if _, err := pool.Run(context.Background(), "test.echo", p, nil); err == nil {
		t.Error("a closed pool served a call")
	}
}

// TestNoLeaks checks that calls of every outcome leave no goroutine behind once Settle returns
// (it runs before the parallel tests resume, so that their goroutines are not counted).
func TestNoLeaks(t *testing.T) {
	requireConfinement(t)
	ignore := goleak.IgnoreCurrent()
	ctx := ctxTimeout(t, 30*time.Second)
	Run(ctx, "test.echo", Profile{}, []byte("x"))
	Run(ctx, "test.fail", Profile{}, []byte("x"))
	Run(ctx, "test.panic", Profile{}, []byte("x"))
	Run(ctx, "test.read", Profile{}, []byte("/etc/shadow"))
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	Run(short, "test.spin", Profile{}, nil)
	cancel()
	Run(ctx, "test.echo", Profile{Env: []string{"x=y"}}, nil) // invalid profile
	pool := NewPool(2)
	for _, p := range []Profile{{}, {Reuse: true}} {
		for i := 0; i < 3; i++ {
			if _, err := pool.Run(ctx, "test.echo", p, []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
	}
	pool.Close()
	Settle()
	if err := goleak.Find(ignore); err != nil {
		t.Error(err)
	}
}

// TestNoSignalAfterReaping: once a child is reaped its pid may be another process's, so killing
// a finished proc (as release and stop do) must send nothing.
func TestNoSignalAfterReaping(t *testing.T) {
	requireConfinement(t)
	Settle() // no earlier teardown may read sendKill while the test swaps it
	pr, err := startProc(Profile{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.call(ctxTimeout(t, 30*time.Second), "test.echo", []byte("x")); err != nil {
		t.Fatal(err)
	}
	<-pr.exited // a single-use child exits after its answer, and is reaped
	var sent []int
	sendKill = func(pid int, _ syscall.Signal) error { sent = append(sent, pid); return nil }
	defer func() { sendKill = syscall.Kill }()
	pr.kill(nil)
	pr.stop()
	if len(sent) != 0 {
		t.Errorf("signals sent to %v after the child %d was reaped", sent, pr.pid)
	}
}
