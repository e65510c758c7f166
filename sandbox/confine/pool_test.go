//go:build linux

package confine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

func init() {
	// test.global and test.global2 keep "set:X" in a global and answer it to "get".
	global := func(ctx context.Context, req []byte) ([]byte, error) {
		if v, ok := strings.CutPrefix(string(req), "set:"); ok {
			workerGlobal = v
		}
		return []byte(workerGlobal), nil
	}
	Handle("test.global", global)
	Handle("test.global2", global)
	// test.steal, sent "plant", leaves a goroutine that answers the worker's next request
	// before its handler does ("stolen"); sent anything else it answers "own answer", once a
	// planted goroutine (if any) has answered.
	Handle("test.steal", func(ctx context.Context, req []byte) ([]byte, error) {
		if string(req) != "plant" {
			if stolen != nil {
				<-stolen
			}
			return []byte("own answer"), nil
		}
		planted := servingNonce.Load()
		stolen = make(chan struct{})
		go func() {
			defer close(stolen)
			for servingNonce.Load() == planted {
				time.Sleep(time.Millisecond)
			}
			m := responseMsg{nonce: servingNonce.Load(), body: []byte("stolen")}
			writeFrame(os.NewFile(responseFD, "stolen"), frameResponse, m.encode())
		}()
		return []byte("planted"), nil
	})
	// test.double, sent "double", answers "forged first" in a frame of its own with the
	// request's nonce, then "real" as usual; sent anything else it answers "own answer".
	Handle("test.double", func(ctx context.Context, req []byte) ([]byte, error) {
		if string(req) != "double" {
			return []byte("own answer"), nil
		}
		m := responseMsg{nonce: servingNonce.Load(), body: []byte("forged first")}
		if err := writeFrame(os.NewFile(responseFD, "forged"), frameResponse, m.encode()); err != nil {
			return nil, err
		}
		return []byte("real"), nil
	})
	// test.pid answers its pid; sent "spin", it spins instead.
	Handle("test.pid", func(ctx context.Context, req []byte) ([]byte, error) {
		if string(req) == "spin" {
			spin()
		}
		return []byte(strconv.Itoa(os.Getpid())), nil
	})
}

// State a reused worker's handlers leave behind.
var (
	workerGlobal string
	stolen       chan struct{}
)

// waitIdle waits until the pool holds n ready workers for handler name and p.
func waitIdle(t testing.TB, pool *Pool, name string, p Profile, n int) {
	t.Helper()
	set, err := pool.set(name, p)
	if err != nil {
		t.Fatal(err)
	}
	pool.fill(set)
	deadline := time.Now().Add(20 * time.Second)
	for set.ready() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the pool has %d ready workers after 20s, want %d (last error %v)", set.ready(), n, set.lastErr)
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
		waitIdle(t, pool, "test.pid", p, 1)
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
	waitIdle(t, pool, "test.pid", p, 1)
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
	_, err := pool.Run(ctx, "test.pid", p, []byte("spin"))
	expect(t, "pool: reused worker, busy loop past the deadline [full]", Timeout, nil, err)
	resp, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.pid", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if seen[string(resp)] != 0 {
		t.Errorf("the worker killed at the deadline served again (pid %s)", resp)
	}
}

// TestPoolReuseKeepsToOneWorker: with two ready workers, calls one after
// another all go to the worker that served last (it is still spinning for
// its next request), not in turns to a worker that has gone to sleep.
func TestPoolReuseKeepsToOneWorker(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	pool := NewPool(2)
	defer pool.Close()
	p := Profile{Reuse: true}
	waitIdle(t, pool, "test.pid", p, 2)
	seen := map[string]int{}
	for range 10 {
		resp, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.pid", p, nil)
		if err != nil {
			t.Fatal(err)
		}
		seen[string(resp)]++
	}
	if len(seen) != 1 {
		t.Errorf("10 calls one after another went to %d workers, want 1: %v", len(seen), seen)
	}
	set, _ := pool.set("test.pid", p)
	if n := set.ready(); n != 2 {
		t.Errorf("%d ready workers after the calls, want both back", n)
	}
}

// TestPoolReuseRetiresBeforeTheCPULimit: a reused worker's CPU limit counts all its calls; it
// retires once it may have spent half of it, so no call that spends at most half the limit fails
// for what earlier calls used, however the calls' costs vary.
func TestPoolReuseRetiresBeforeTheCPULimit(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	pool := NewPool(1)
	defer pool.Close()
	p := Profile{Reuse: true, Limits: Limits{CPUSeconds: 1}}
	waitIdle(t, pool, "test.burn", p, 1)
	// Cheap calls, then one costing more than all before: a rule that judged the next call by
	// the earlier ones let a worker that had spent 700 ms serve a call of 400 ms, which the limit
	// killed. Calls of 250 ms: one worker could not serve six of them.
	var calls []string
	for _, cheap := range []int{3, 5, 7} {
		for range cheap {
			calls = append(calls, "100")
		}
		calls = append(calls, "400")
	}
	calls = append(calls, "250", "250", "250", "250", "250", "250")
	spent := map[string]int{} // CPU milliseconds each worker's calls asked for
	total := 0
	for i, ms := range calls {
		resp, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.burn", p, []byte(ms))
		if err != nil {
			t.Fatalf("call %d of %s ms (after %v): %v", i, ms, calls[:i], err)
		}
		n, _ := strconv.Atoi(ms)
		spent[string(resp)] += n
		total += n
	}
	for pid, ms := range spent {
		if ms >= 1000 {
			t.Errorf("worker %s served calls of %d ms under a 1 s limit", pid, ms)
		}
	}
	if len(spent) < 4 {
		t.Errorf("calls of %d ms in all went to %d workers under a 1 s limit", total, len(spent))
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
	if err := goleak.Find(ignore, goleak.IgnoreAnyFunction("github.com/toolexplorer/toolexplorer/sandbox/confine.spawner")); err != nil {
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

// TestSweepSessions: the session dirs no process holds are removed, and nothing else.
func TestSweepSessions(t *testing.T) {
	tmp := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "c1"), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := mk(sessionPrefix + "dead")
	held := mk(sessionPrefix + "held")
	self := mk(sessionPrefix + "self")
	other := mk("confine-test-unrelated")
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	target := mk("target")
	link := filepath.Join(tmp, sessionPrefix+"link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	keep := []string{held, self, other, link, filepath.Join(target, "c1")}
	if os.Geteuid() == 0 {
		foreign := mk(sessionPrefix + "foreign")
		if err := os.Chown(foreign, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		keep = append(keep, foreign)
	}
	sweepSessions(tmp, self)
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("%s, held by nobody, is still there (%v)", dead, err)
	}
	for _, p := range keep {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// TestSwappedDirNotFollowed: a private dir swapped for a symlink (which only this process's
// user could do, the session dir being 0711) is neither handed out nor emptied through the link.
func TestSwappedDirNotFollowed(t *testing.T) {
	requireConfinement(t)
	Settle()
	ctx := ctxTimeout(t, 30*time.Second)
	first, err := Run(ctx, "test.tmpleave", Profile{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	teardowns.Wait()
	victim := t.TempDir()
	if err := os.WriteFile(filepath.Join(victim, "keep.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	unmountTmpfs(string(first)) // a root parent's tmpfs: a mount point cannot be renamed
	if err := os.Rename(string(first), string(first)+".moved"); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(string(first) + ".moved")
	if err := os.Symlink(victim, string(first)); err != nil {
		t.Fatal(err)
	}
	second, err := Run(ctx, "test.tmplist", Profile{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(string(second), "\n")[0]; got == string(first) {
		t.Errorf("the swapped dir %s was handed out", got)
	}
	releaseDir(string(first), true, dirOwner(&setupMsg{dropUID: os.Geteuid() == 0, uid: UnprivilegedID}))
	if _, err := os.Stat(filepath.Join(victim, "keep.txt")); err != nil {
		t.Errorf("releasing the swapped dir reached through the link: %v", err)
	}
	if _, err := os.Lstat(string(first)); !os.IsNotExist(err) {
		t.Errorf("the link is still there: %v", err)
	}
}

// TestPrivateDirRecycled: a child's private dir is emptied and handed to a later child when the
// child could not change its mode; with permission changes allowed it is removed instead.
func TestPrivateDirRecycled(t *testing.T) {
	requireConfinement(t)
	Settle()
	ctx := ctxTimeout(t, 30*time.Second)
	first, err := Run(ctx, "test.tmpleave", Profile{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	teardowns.Wait() // as Settle does, without dropping the kept dirs
	session.mu.Lock()
	kept := slices.Contains(session.spares, filepath.Base(string(first)))
	session.mu.Unlock()
	if !kept {
		t.Fatalf("the dir %s of a child without permission changes was not kept", first)
	}
	if names, _ := os.ReadDir(string(first)); len(names) != 0 {
		t.Fatalf("the kept dir still holds %v", names)
	}
	second, err := Run(ctx, "test.tmplist", Profile{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(second), "\n")
	if lines[0] != string(first) || len(lines) != 1 {
		t.Errorf("the next child got %q holding %v, want %s and nothing in it", lines[0], lines[1:], first)
	}
	f := newFixture(t)
	third, err := Run(ctx, "test.tmpleave", Profile{WritePaths: []string{f.rw}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	teardowns.Wait()
	if _, err := os.Lstat(string(third)); !os.IsNotExist(err) {
		t.Errorf("the dir %s of a child that could change modes is still there (%v)", third, err)
	}
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Errorf("emptying a dir with a symlink to /etc: %v", err)
	}
	// Settle removes the kept dirs.
	teardowns.Wait()
	session.mu.Lock()
	spares := slices.Clone(session.spares)
	session.mu.Unlock()
	Settle()
	for _, d := range spares {
		if _, err := os.Lstat(filepath.Join(session.path, d)); !os.IsNotExist(err) {
			t.Errorf("Settle left the kept dir %s (%v)", d, err)
		}
	}
}

// TestShutdown: Shutdown removes the session dir with the private dirs in it, and a later call
// starts a new session.
func TestShutdown(t *testing.T) {
	requireConfinement(t)
	ctx := ctxTimeout(t, 30*time.Second)
	first, err := Run(ctx, "test.tmplist", Profile{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess := filepath.Dir(strings.Split(string(first), "\n")[0])
	Shutdown()
	if _, err := os.Lstat(sess); !os.IsNotExist(err) {
		t.Errorf("the session dir %s is still there after Shutdown (%v)", sess, err)
	}
	second, err := Run(ctx, "test.tmplist", Profile{}, nil)
	if err != nil {
		t.Fatalf("a call after Shutdown: %v", err)
	}
	if again := filepath.Dir(strings.Split(string(second), "\n")[0]); again == sess || !strings.HasPrefix(filepath.Base(again), sessionPrefix) {
		t.Errorf("the call after Shutdown ran in %s, want a new session dir", again)
	}
}

// TestTmpDirIdentity: a child moves into its private dir only if it is the very directory the
// parent made (device and inode), whatever its path leads to by then.
func TestTmpDirIdentity(t *testing.T) {
	requireConfinement(t)
	Settle()
	alterSetup = func(s *setupMsg) { s.tmpIno++ }
	defer func() { alterSetup = nil }()
	_, err := Run(ctxTimeout(t, 30*time.Second), "test.echo", Profile{}, []byte("x"))
	var e *Error
	if !errors.As(err, &e) || e.Kind != Unavailable || !strings.Contains(e.What, "not the directory the parent made") {
		t.Fatalf("a setup naming another dir: %v, want Unavailable naming the temp dir", err)
	}
}

// TestShutdownWhileCallsEnd: calls may end, and their cleanup start, while Shutdown waits for
// earlier cleanup; nothing panics, and once the calls stop, Shutdown leaves no session dir.
func TestShutdownWhileCallsEnd(t *testing.T) {
	requireConfinement(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	pool := NewPool(1)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				if i%2 == 0 {
					Run(ctx, "test.echo", Profile{}, []byte("x")) // errors are expected while shutting down
				} else {
					pool.Run(ctx, "test.echo", Profile{}, []byte("x"))
				}
				cancel()
			}
		}(i)
	}
	for end := time.Now().Add(400 * time.Millisecond); time.Now().Before(end); {
		Shutdown()
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	pool.Close()
	Shutdown()
	session.mu.Lock()
	open := session.open
	session.mu.Unlock()
	if open {
		t.Error("the session is still open after the last Shutdown")
	}
	entries, _ := os.ReadDir(os.TempDir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), sessionPrefix) && e.Name() == filepath.Base(session.path) {
			t.Errorf("the session dir %s is left", e.Name())
		}
	}
}

// TestPoolReuseIsolation: what one call leaves in a reused worker reaches no other tool's call. A
// worker is kept per handler name and ReuseKey; one that left a goroutine running retires; a
// frame sent after a response never answers the next call. Each control shows what the attack
// does where that defence does not apply.
func TestPoolReuseIsolation(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	pool := NewPool(1)
	defer pool.Close()
	run := func(name string, p Profile, req string) string {
		resp, err := pool.Run(ctxTimeout(t, 30*time.Second), name, p, []byte(req))
		return outcome(resp, err)
	}
	row := func(attack, want, got string) {
		record(attack, want, got, got == want)
		if got != want {
			t.Errorf("%s: %s, want %s", attack, got, want)
		}
	}
	p := Profile{Reuse: true}
	waitIdle(t, pool, "test.global", p, 1)
	run("test.global", p, "set:"+secretValue)
	row("pool: reused worker, a call reads its own tool's global (control)", "ok: "+secretValue, run("test.global", p, "get"))
	row("pool: reused worker, another handler reads a global", "ok: ", run("test.global2", p, "get"))
	pa, pb := Profile{Reuse: true, ReuseKey: "tool.a"}, Profile{Reuse: true, ReuseKey: "tool.b"}
	waitIdle(t, pool, "test.global", pa, 1)
	run("test.global", pa, "set:"+secretValue)
	row("pool: reused worker, another ReuseKey reads a global", "ok: ", run("test.global", pb, "get"))

	// A goroutine left by one call answers the next one.
	keep := Profile{Reuse: true, Env: []string{envTestKeepLeftovers}}
	waitIdle(t, pool, "test.steal", keep, 1)
	run("test.steal", keep, "plant")
	row("pool: reused worker, a left goroutine answers the next call (control: kept)", "ok: stolen", run("test.steal", keep, "ask"))
	waitIdle(t, pool, "test.steal", p, 1)
	run("test.steal", p, "plant")
	row("pool: reused worker, a left goroutine answers the next call", "ok: own answer", run("test.steal", p, "ask"))

	// A frame with the request's nonce answers the call; the real response that follows never
	// answers the next one.
	waitIdle(t, pool, "test.double", p, 1)
	row("pool: reused worker sends a frame of its own (control)", "ok: forged first", run("test.double", p, "double"))
	got := run("test.double", p, "ask")
	ok := got == "ok: own answer" || strings.Contains(got, "protocol violation")
	record("pool: reused worker, a frame after its response answers the next call", "own answer or refused", got, ok)
	if !ok {
		t.Errorf("the call after an extra frame: %s", got)
	}

	// A timer armed by one call fires later: its function must not run in a worker that serves
	// another call. Armed, then fired while the worker waits for the next call; and armed then
	// fired during the call that armed it (as it would during a later call).
	for _, c := range []struct{ attack, arm string }{
		{"pool: timer fired between calls", "arm"},
		{"pool: timer fired within its call", "arm-wait"},
	} {
		for _, prof := range []Profile{keep, p} {
			dir, err := os.MkdirTemp("", "confine-timer-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			os.Chmod(dir, 0o777) // the child of a root host is uid 65534
			prof.WritePaths = []string{dir}
			waitIdle(t, pool, "test.timer", prof, 1)
			if got := run("test.timer", prof, c.arm+":"+dir); got != "ok: armed" {
				t.Fatalf("%s: arming: %s", c.attack, got)
			}
			waitFile(t, filepath.Join(dir, "fired"))
			attack, want := c.attack, "ok: clean"
			if len(prof.Env) > 0 {
				attack, want = attack+" (control: kept)", "ok: fired"
			}
			row(attack, want, run("test.timer", prof, "ask:"+dir))
		}
	}

	// Reuse with Exec: processes would outlive their call.
	_, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.pid", Profile{Reuse: true, Exec: []string{"/bin/true"}}, nil)
	expect(t, "pool: Reuse with Exec", Unavailable, nil, err)
}

// timerFired is set in a process where a timer test.timer armed has run.
var timerFired atomic.Bool

func init() {
	// test.timer "arm:DIR" arms a timer that soon marks the process and writes DIR/fired;
	// "arm-wait:DIR" waits for it to fire before answering; "ask:DIR" answers "fired" in a
	// process where one has run, "clean" elsewhere.
	Handle("test.timer", func(ctx context.Context, req []byte) ([]byte, error) {
		op, dir, _ := strings.Cut(string(req), ":")
		switch op {
		case "arm", "arm-wait":
			fired := make(chan struct{})
			time.AfterFunc(time.Millisecond, func() {
				timerFired.Store(true)
				os.WriteFile(filepath.Join(dir, "fired"), nil, 0o666)
				close(fired)
			})
			if op == "arm-wait" {
				select {
				case <-fired:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return []byte("armed"), nil
		case "ask":
			if timerFired.Load() {
				return []byte("fired"), nil
			}
			return []byte("clean"), nil
		}
		return nil, fmt.Errorf("unknown op %q", op)
	})
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(time.Millisecond)
	}
}
