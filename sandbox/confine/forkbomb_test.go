//go:build linux

package confine

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// unusedUID is a uid no process has, drawn at random from far above the ones systems give out,
// so that the tasks the kernel counts against its limit are the run's own, even with another
// run of the same test on the machine (a fixed uid made two runs count each other's bombs).
func unusedUID(t *testing.T) int {
	for range 100 {
		uid := 1<<20 + rand.IntN(1<<30)
		if n, err := userTasks(uid); err == nil && n == 0 {
			return uid
		}
	}
	t.Fatal("no unused uid found")
	return 0
}

// envForkBombHost=1 makes TestHostForkBomb the host under attack (see there).
const envForkBombHost = "TOOLEXPLORER_CONFINE_TEST_FORKBOMB_HOST"

// TestHostForkBomb: an ordinary-user host under `prlimit --nproc=300:1000` runs an Exec tool
// that starts processes until it is refused one. The kernel counts every task of the uid
// against the limit of the one that forks: a child's limit above the host's would let the bomb
// take every task the host may have, and the host dies the next time its runtime needs a thread.
// At the bomb's peak the host starts 40 threads and must live; the bomb ends at the process
// limit, below the host's own. Then, with the hard limit lowered to 300 as well, an Exec tool
// still runs (a child limit above the hard one cannot be set: sandbox_unavailable).
//
// Run as root, the test starts the host as an unused uid with the limit set; the control is the
// same bomb run unconfined by that host, which kills it.
func TestHostForkBomb(t *testing.T) {
	if os.Getenv(envForkBombHost) == "1" {
		forkBombHost(t)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give the attacked host a uid of its own")
	}
	if testing.Short() {
		t.Skip("runs a fork bomb in a host of its own; skipped with -short")
	}
	requireConfinement(t)
	forkBombHostUID := unusedUID(t)
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("", "confine-forkbomb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "confine.test")
	if err := copyFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, forkBombHostUID, forkBombHostUID); err != nil {
		t.Fatal(err)
	}
	host := func(mode string) (string, error) {
		run := exec.Command(bin, "-test.run", "^TestHostForkBomb$", "-test.count=1", "-test.v")
		run.Dir = home
		run.Env = []string{"PATH=" + filepath.Dir(sleep) + ":/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + home,
			envRequireLandlock + "=1", envForkBombHost + "=1", envForkBombHost + "_MODE=" + mode}
		// A group of its own: a host that dies leaves the bomb's processes behind, ended here.
		run.SysProcAttr = &syscall.SysProcAttr{Setpgid: true,
			Credential: &syscall.Credential{Uid: uint32(forkBombHostUID), Gid: uint32(forkBombHostUID), Groups: []uint32{}}}
		var out bytes.Buffer
		run.Stdout, run.Stderr = &out, &out
		err := run.Run()
		if run.Process != nil {
			syscall.Kill(-run.Process.Pid, syscall.SIGKILL)
		}
		// A host that died leaves the processes of its children, in their own groups: the uid
		// is this test's alone, and every process of it goes.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			n, _ := userTasks(forkBombHostUID)
			if n == 0 {
				break
			}
			killUID(forkBombHostUID)
			if time.Now().After(deadline) {
				t.Fatalf("%d tasks of uid %d are left after the host ended", n, forkBombHostUID)
			}
		}
		return out.String(), err
	}
	if n, _ := userTasks(forkBombHostUID); n != 0 {
		t.Fatalf("uid %d has %d tasks already: the attacked host must be its only user", forkBombHostUID, n)
	}
	out, err := host("confined")
	name := "fork bomb of an Exec tool, ordinary-user host under prlimit --nproc=300:1000"
	record(name+" [full]", "limit, host alive", forkBombOutcome(out, err), err == nil)
	if err != nil {
		t.Fatalf("the host did not survive the bomb: %v\n%s", err, out)
	}
	out, err = host("unconfined")
	record(name+" [unconfined control]", "host dies", forkBombOutcome(out, err), err != nil)
	if err == nil {
		t.Errorf("control: the host survived the bomb run unconfined: it proves nothing\n%s", out)
	}
}

// killUID sends SIGKILL to every process whose real uid is uid.
func killUID(uid int) {
	names, _ := filepath.Glob("/proc/[0-9]*/status")
	want := "\nUid:\t" + strconv.Itoa(uid) + "\t"
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil || !strings.Contains(string(b), want) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(name))); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// forkBombOutcome is what a host run ended with, for the table.
func forkBombOutcome(out string, err error) string {
	for _, l := range strings.Split(out, "\n") {
		if _, l, ok := strings.Cut(l, "forkbomb: "); ok {
			if err != nil {
				return l + " (then " + err.Error() + ")"
			}
			return l
		}
	}
	if i := strings.Index(out, "failed to create new OS thread"); i >= 0 {
		return "host died: runtime: failed to create new OS thread"
	}
	if err != nil {
		return "host died: " + err.Error()
	}
	return "host alive"
}

// forkBombHost is the host under attack, an ordinary user: it limits itself as prlimit would,
// runs the bomb (confined, or in its own process for the control) and starts 40 threads at the
// bomb's peak.
func forkBombHost(t *testing.T) {
	if err := syscall.Setrlimit(unix.RLIMIT_NPROC, &syscall.Rlimit{Cur: 300, Max: 1000}); err != nil {
		t.Fatal(err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	sleep, _ = filepath.EvalSymlinks(sleep)
	dir := t.TempDir()
	for _, name := range []string{"peak", "go"} {
		if err := unix.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	req, _ := json.Marshal(kernelOp{Op: "fork-bomb", A: sleep, B: dir, N: 600})
	type result struct {
		resp []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		if os.Getenv(envForkBombHost+"_MODE") == "unconfined" {
			r.resp, r.err = lookup("test.kernel")(context.Background(), req)
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			r.resp, r.err = Run(ctx, "test.kernel", Profile{Exec: []string{sleep}, WritePaths: []string{dir}}, req)
		}
		done <- r
	}()
	peakCh := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(filepath.Join(dir, "peak"))
		peakCh <- b
	}()
	var peak []byte
	select {
	case peak = <-peakCh:
	case r := <-done:
		// The call ended before its peak: the reader waits for a writer that will not come.
		if f, err := os.OpenFile(filepath.Join(dir, "peak"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-peakCh
		t.Fatalf("forkbomb: the call ended before the bomb's peak: %s", outcome(r.resp, r.err))
	}
	// At the peak, the host needs threads: 40 goroutines, each locked to one of its own.
	var started, ended sync.WaitGroup
	release := make(chan struct{})
	for range 40 {
		started.Add(1)
		ended.Add(1)
		go func() {
			defer ended.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			started.Done()
			<-release
		}()
	}
	started.Wait()
	close(release)
	ended.Wait()
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte("go\n"), 0); err != nil {
		t.Fatal(err)
	}
	r := <-done
	t.Logf("forkbomb: %s processes at the peak, the host started 40 threads then; the call: %s", peak, outcome(r.resp, r.err))
	if e, ok := r.err.(*Error); !ok || e.Kind != Limit || e.What != "processes" {
		t.Errorf("the bomb ended with %s, want the processes limit", outcome(r.resp, r.err))
	}
	// Nothing of the bomb is left: the uid's tasks are this process's own again.
	deadline := time.Now().Add(time.Minute)
	for {
		n, _ := userTasks(os.Getuid())
		own := uint64(threadsOf(t))
		if n <= own {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tasks of uid %d remain, %d of them this process's", n, os.Getuid(), own)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A hard limit below what the user's count plus the default would be: Exec tools still run.
	if err := syscall.Setrlimit(unix.RLIMIT_NPROC, &syscall.Rlimit{Cur: 300, Max: 300}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	truePath, _ := exec.LookPath("true")
	truePath, _ = filepath.EvalSymlinks(truePath)
	resp, err := Run(ctx, "test.kernel", Profile{Exec: []string{truePath}}, kernelReq("exec", truePath, 0))
	if err != nil {
		t.Errorf("an Exec tool under --nproc=300:300: %s, want it to run", outcome(resp, err))
	}
}

// threadsOf is this process's thread count.
func threadsOf(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "\nThreads:\t")
	n, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]))
	return n
}
