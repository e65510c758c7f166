//go:build linux

package confine

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolexplorer/toolexplorer/sandbox/confine/internal/prestart"
)

// UnprivilegedID is the uid and gid a child runs as when the parent is root ("nobody").
const UnprivilegedID = 65534

// OutputCap bounds the child's captured stdout and stderr (together): the rest is dropped.
const OutputCap = 64 << 10

// waitDelay bounds how long the parent waits for the child's pipes once the child has exited and
// its process group was killed (a process that left the group may still hold them).
const waitDelay = time.Second

// ErrorKind says why a confined call failed.
type ErrorKind uint32

// The error kinds.
const (
	// Unavailable: the child could not be confined (no Landlock or too old an ABI, no seccomp, a
	// profile that cannot be applied, no Main in the host): the handler did not run. Fail closed.
	Unavailable ErrorKind = iota + 1
	// Denied: the confinement refused something (EACCES or EPERM on a path, a port, a system
	// call); What names it, e.g. "open /etc/shadow" or "connect 127.0.0.1:8080".
	Denied
	// Limit: the child hit a resource limit; What is cpu, memory, files, filesize or processes.
	Limit
	// Timeout: the context's deadline passed; the child's whole process group was killed.
	Timeout
	// Canceled: the context was canceled; the child's whole process group was killed.
	Canceled
	// Crashed: the child died without a response for another reason (a panic, a signal).
	Crashed
	// Failed: the handler returned an error that is none of the above; What is its message.
	Failed
)

func (k ErrorKind) String() string {
	switch k {
	case Unavailable:
		return "unavailable"
	case Denied:
		return "denied"
	case Limit:
		return "limit"
	case Timeout:
		return "timeout"
	case Canceled:
		return "canceled"
	case Crashed:
		return "crashed"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("ErrorKind(%d)", uint32(k))
}

// Error is the error of a confined call.
type Error struct {
	Kind ErrorKind
	// What: the reason (Unavailable), the operation and object (Denied), the limit (Limit), the
	// message (Failed), the signal or panic (Crashed).
	What string
	// Detail is the full error text from the child, when there is one.
	Detail string
	// Stderr is the child's captured stdout and stderr (at most OutputCap bytes).
	Stderr string
	// FromChild says that Kind, What and Detail are the child's own report (a handler's error,
	// a denial or limit as the child classified it, a panic): whatever runs in the child
	// controls them. A child may only report Denied, Limit, Crashed and Failed once it has its
	// request; the other kinds are the parent's to decide, and a child that sends one has
	// broken the protocol (Crashed, FromChild false).
	FromChild bool
}

func (e *Error) Error() string {
	s := "confine: " + e.Kind.String()
	if e.FromChild {
		s += " (reported by the child)"
	}
	if e.What != "" {
		s += ": " + e.What
	}
	if e.Detail != "" && e.Detail != e.What && !strings.Contains(e.What, e.Detail) {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap lets errors.Is see a Timeout as context.DeadlineExceeded, a Canceled as context.Canceled
// and a Denied as fs.ErrPermission.
func (e *Error) Unwrap() error {
	switch e.Kind {
	case Timeout:
		return context.DeadlineExceeded
	case Canceled:
		return context.Canceled
	case Denied:
		return fs.ErrPermission
	}
	return nil
}

// Run starts a confined child of the running binary (/proc/self/exe), has it run the handler
// registered under name with req, and returns the handler's response. The host's main must call
// Main first.
//
// The child gets a clean environment (the variables Profile.Env names, TMPDIR, and the child
// marker), its own process group, SIGKILL when the parent dies, a private temp dir (its working
// directory, removed after the call), and stdout and stderr captured up to OutputCap. When ctx
// ends, the whole process group is killed, grandchildren included. Errors are *Error.
func Run(ctx context.Context, name string, p Profile, req []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err, "")
	}
	if err := checkRunnable(name, req); err != nil {
		return nil, err
	}
	pr, err := startProc(p)
	if err != nil {
		return nil, err
	}
	resp, err := pr.call(ctx, name, req)
	pr.release()
	if len(pr.grantsW) > 0 {
		<-pr.dead // its group killed: nothing of the call's still runs
		if e := pr.sweep(); e != nil {
			return nil, e
		}
	}
	return resp, err
}

// teardowns counts the children whose reaping and temp dir removal still run in the background.
var teardowns tracker

// tracker counts work in flight, like a sync.WaitGroup, except that work may be added while Wait
// waits (a call may end while a program shuts down): Wait returns once the count reaches zero.
type tracker struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n drops to zero; nil while nobody waits
}

func (t *tracker) Add(d int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n += d; t.n < 0 {
		panic("confine: tracker count below zero")
	}
	if t.n == 0 && t.zero != nil {
		close(t.zero)
		t.zero = nil
	}
}

func (t *tracker) Done() { t.Add(-1) }

func (t *tracker) Wait() {
	t.mu.Lock()
	if t.n == 0 {
		t.mu.Unlock()
		return
	}
	if t.zero == nil {
		t.zero = make(chan struct{})
	}
	zero := t.zero
	t.mu.Unlock()
	<-zero
}

// Settle waits until every child of a finished call has been reaped and its temp dir removed.
// [Run] and [Pool.Run] return as soon as the answer is in and the child's process group has been
// sent SIGKILL; this cleanup finishes shortly after, in the background. Tests that check for
// leaked goroutines, and programs about to exit, may call Settle first; it also removes the
// private dirs made ahead for later children.
func Settle() {
	teardowns.Wait()
	dropSpares()
}

// checkRunnable refuses what cannot work before a child is started.
func checkRunnable(name string, req []byte) error {
	if !mainCalled {
		return &Error{Kind: Unavailable, What: "confine.Main is not called first in main (or TestMain): a child would run the host's main"}
	}
	if lookup(name) == nil {
		return &Error{Kind: Failed, What: fmt.Sprintf("no handler named %q", name)}
	}
	if len(req) > MaxMessageBytes {
		return &Error{Kind: Failed, What: fmt.Sprintf("request of %d bytes is over the limit of %d", len(req), MaxMessageBytes)}
	}
	return nil
}

// buildSetup turns a profile into the child's setup for mode: paths resolved, protected entries
// found, limits filled in.
func buildSetup(p Profile, mode Mode) (*setupMsg, error) {
	s := &setupMsg{
		version:   protocolVersion,
		parentPID: os.Getpid(),
		connect:   p.ConnectTCP,
		bind:      p.BindTCP,
		limits:    p.Limits.WithDefaults(),
		reuse:     p.Reuse,
		env:       p.Env,
	}
	if p.Limits.Processes == 0 {
		s.limits.Processes = 0 // the child picks the default, which depends on its uid
	}
	if os.Geteuid() == 0 {
		s.dropUID, s.uid, s.gid = true, UnprivilegedID, UnprivilegedID
	}
	resolve := func(kind string, in []string) ([]string, error) {
		out := make([]string, 0, len(in))
		for _, path := range in {
			r, err := resolvePath(path)
			if err != nil {
				return nil, &Error{Kind: Unavailable, What: fmt.Sprintf("invalid profile: %s path %q: %v", kind, path, err)}
			}
			out = append(out, r)
		}
		return out, nil
	}
	var err error
	if s.read, err = resolve("read", p.ReadPaths); err != nil {
		return nil, err
	}
	if s.write, err = resolve("write", p.WritePaths); err != nil {
		return nil, err
	}
	if s.exec, err = resolve("exec", p.Exec); err != nil {
		return nil, err
	}
	if s.interp, err = checkPrograms(s.exec, s.write); err != nil {
		return nil, &Error{Kind: Unavailable, What: "invalid profile: " + err.Error()}
	}
	s.grantsW = slices.Clone(s.write)
	if mode == ModeNamespace || mode == ModeSupervised {
		s.nsMode, s.supervise = true, mode == ModeSupervised
		found, err := findProtected(s.write, 0)
		if err != nil {
			return nil, &Error{Kind: Unavailable, What: "looking for protected names: " + err.Error()}
		}
		s.protect = mountTargets(found)
		s.known = knownProtected(found)
	} else {
		var readOnly, found []string
		if s.write, readOnly, found, err = protectedWrites(s.write); err != nil {
			return nil, &Error{Kind: Unavailable, What: err.Error()}
		}
		s.read = append(s.read, readOnly...)
		s.known = knownProtected(found)
	}
	key := sha256.New()
	for _, path := range slices.Concat(s.read, s.write, s.exec, s.interp, s.protect) {
		id, err := pathID(path)
		if err != nil {
			return nil, &Error{Kind: Unavailable, What: fmt.Sprintf("invalid profile: %s: %v", path, err)}
		}
		s.ids = append(s.ids, id)
		fmt.Fprintf(key, "%s\x00%d %d\n", path, id.dev, id.ino)
	}
	s.protectKey = string(key.Sum(nil))
	for _, n := range p.Env {
		if err := checkEnvName(n); err != nil {
			return nil, &Error{Kind: Unavailable, What: fmt.Sprintf("invalid profile: env %q: %v", n, err)}
		}
	}
	s.procs = uint32(runtime.GOMAXPROCS(0))
	if slices.Contains(p.Env, "GOMAXPROCS") {
		if v, ok := os.LookupEnv("GOMAXPROCS"); ok {
			s.goMaxProcs = v
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				s.procs = uint32(n)
			}
		}
	}
	if p.Reuse && len(p.Exec) > 0 {
		// Processes the handler started would outlive its call in a reused worker's group.
		return nil, &Error{Kind: Unavailable, What: "invalid profile: Reuse cannot be combined with Exec"}
	}
	if s.seccomp, err = seccompProgram(s.seccompPolicy()); err != nil {
		return nil, &Error{Kind: Unavailable, What: err.Error()}
	}
	return s, nil
}

// pathID opens path without following any symlink and returns its device and inode, {0, 0}
// when it does not exist.
func pathID(path string) (dirID, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ENOENT) {
		return dirID{}, nil
	}
	if err != nil {
		return dirID{}, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return dirID{}, err
	}
	return dirID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// proc is one started child.
type proc struct {
	cmd    *exec.Cmd
	pid    int
	tmpDir string
	// keepDir: the child could not change the dir's mode or attributes, so the dir may serve
	// another child once emptied; dirUID is its owner.
	keepDir bool
	// measure: the dir is no tmpfs of its own, so the parent measures it during calls.
	measure bool
	tmpOver atomic.Bool // the dir went over its budget: the child was killed
	dirUID  int
	// protectKey and grantsW: what the child's protection was made from (see setupMsg).
	protectKey string
	grantsW    []string
	nsMode     bool
	mode       Mode
	known      map[string]dirID
	limits     Limits
	reqW       *os.File
	respR      *os.File
	respRC     syscall.RawConn // respR's descriptor, without making it blocking as Fd would
	outR       *os.File
	out        *capBuffer
	frames     *frameReader // reads respR; used by one call at a time

	outDone chan struct{} // closed when the output copy has returned
	exited  chan struct{} // closed once the child exited, its group was killed, it was reaped
	dead    chan struct{} // closed once the child exited and its group was sent SIGKILL

	// sigMu orders signals against reaping: once reaped is set the child's pid and group id may
	// belong to another process (pids wrap quickly where pid_max is 32768), and kill sends nothing.
	sigMu  sync.Mutex
	reaped bool

	killedBy atomic.Value // error: the context error that made the parent kill the child
	broken   atomic.Bool  // the child was or is being killed: it serves no further call
	ready    *readyMsg    // set by call once the ready frame arrived
	waitErr  error
	state    *os.ProcessState
	stopOnce sync.Once
}

// The parent polls for a response this long before it parks (see pipeSource).
const responseSpin = 100 * time.Microsecond

// startProc starts a child for p and sends it its setup; it does not wait for the child to be
// ready.
func startProc(p Profile) (_ *proc, err error) {
	if !mainCalled {
		return nil, &Error{Kind: Unavailable, What: "confine.Main is not called first in main (or TestMain): a child would run the host's main"}
	}
	s, err := buildSetup(p, profileMode(p))
	if err != nil {
		return nil, err
	}
	return startSetup(s)
}

// startSetup starts a child for the setup s and sends it; it does not wait for the child to be
// ready.
func startSetup(s *setupMsg) (_ *proc, err error) {
	// The child's ends are plain blocking pipes the Go poller never sees (handing a pollable
	// descriptor to a child makes the start markedly slower); the parent's ends are pollable, so
	// that closing them stops a blocked read.
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	newPipe := func(parentReads bool) (parent, child *os.File, err error) {
		parent, child, err = pipePair(parentReads)
		if err == nil {
			files = append(files, parent, child)
		}
		return parent, child, err
	}
	reqW, reqR, err := newPipe(false)
	if err != nil {
		return nil, &Error{Kind: Unavailable, What: "pipe: " + err.Error()}
	}
	respR, respW, err := newPipe(true)
	if err != nil {
		closeAll()
		return nil, &Error{Kind: Unavailable, What: "pipe: " + err.Error()}
	}
	outR, outW, err := newPipe(true)
	if err != nil {
		closeAll()
		return nil, &Error{Kind: Unavailable, What: "pipe: " + err.Error()}
	}
	// MALLOC_ARENA_MAX: in a binary built with cgo, glibc reserves a 64 MiB arena per thread
	// that contends for malloc, which would eat the address-space limit.
	env := []string{envMarker + "=" + markerValue, "MALLOC_ARENA_MAX=2"}
	if raceEnabled {
		// The race runtime sleeps a second at exit by default.
		env = append(env, "GORACE=atexit_sleep_ms=0")
	}
	for _, n := range s.env {
		if v, ok := os.LookupEnv(n); ok {
			env = append(env, n+"="+v)
		}
	}
	// One P until the child is confined: the runtime then starts fewer threads, and each thread
	// costs the all-threads Landlock call a signal and a wait. The setup says what to go on with.
	env = append(env, "GOMAXPROCS=1")
	if s.supervise {
		// The child starts its supervisor as its packages are initialised (see prestart).
		env = append(env, prestart.EnvRole+"="+prestart.RoleSupervised)
	}
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if s.dropUID {
		// The switch happens between fork and exec; Go sets the parent-death signal after it
		// (a change of credentials clears that signal). The child checks the result.
		attr.Credential = &syscall.Credential{Uid: uint32(s.uid), Gid: uint32(s.gid), Groups: []uint32{}}
	}
	if s.nsMode {
		namespaceAttr(attr, s)
	}
	cmd := &exec.Cmd{
		Path:        childPath,
		Args:        []string{childArgv0},
		Env:         env,
		Dir:         "/",
		Stdout:      outW,
		Stderr:      outW,
		ExtraFiles:  []*os.File{reqR, respW}, // fds 3 and 4
		SysProcAttr: attr,
	}
	// The private temp dir is made while the child starts (a directory on a journalled file
	// system can take longer to make than the child's whole start); the setup names it and the
	// child moves into it.
	started := startChild(cmd)
	tmp, tmpID, tmpMounted, tmpErr := privateDir(s)
	err = <-started
	reqR.Close()
	respW.Close()
	outW.Close()
	if err == nil && tmpErr != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Process.Kill()
		cmd.Wait()
		err = tmpErr
	}
	if err != nil {
		reqW.Close()
		respR.Close()
		outR.Close()
		if tmp != "" {
			releaseDir(tmp, false, 0)
		}
		if tmpErr != nil {
			return nil, &Error{Kind: Unavailable, What: tmpErr.Error()}
		}
		return nil, &Error{Kind: Unavailable, What: "starting the child: " + err.Error()}
	}
	s.tmpDir, s.tmpDev, s.tmpIno = tmp, tmpID.dev, tmpID.ino
	src, err := newPipeSource(respR)
	if err != nil {
		// Not reached: respR is a pollable pipe.
		reqW.Close()
		respR.Close()
		outR.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		releaseDir(tmp, false, 0)
		return nil, &Error{Kind: Unavailable, What: "reading the child's pipe: " + err.Error()}
	}
	pr := &proc{
		cmd:     cmd,
		pid:     cmd.Process.Pid,
		tmpDir:  tmp,
		keepDir: !s.seccompPolicy().AllowTimes,
		measure: !tmpMounted && !s.nsMode,
		dirUID:  dirOwner(s),
		limits:  s.limits,

		protectKey: s.protectKey,
		grantsW:    s.grantsW,
		nsMode:     s.nsMode,
		mode:       s.mode(),
		known:      s.known,
		reqW:       reqW,
		respR:      respR,
		respRC:     src.rc,
		outR:       outR,
		out:        &capBuffer{max: OutputCap},
		frames:     newFrameReader(src, uint32(s.limits.ResponseBytes)+responseOverhead),
		outDone:    make(chan struct{}),
		exited:     make(chan struct{}),
		dead:       make(chan struct{}),
	}
	go pr.copyOutput()
	go pr.reap()
	if alterSetup != nil {
		alterSetup(s)
	}
	if err := writeFrame(reqW, frameSetup, s.encode()); err != nil {
		// The child died at once; reap tells why.
		pr.kill(nil)
	}
	return pr, nil
}

// dirOwner is the owner of a child's private dir.
func dirOwner(s *setupMsg) int {
	if s.dropUID {
		return s.uid
	}
	return os.Geteuid()
}

// startChild starts cmd on a spawner thread and returns where its error will be. The
// parent-death signal fires when the thread that started the child ends, not the process
// (go.dev/issue/27505), and Go ends a thread when a goroutine locked to it returns, whatever ran
// on that thread before: a goroutine of the host that locks its thread and returns would kill
// the children started from it. The spawners are goroutines locked to their threads for the
// life of the process, so no other goroutine ever runs on those threads and they never end;
// there are as many as processors, so that children still start side by side.
func startChild(cmd *exec.Cmd) <-chan error {
	spawnersOnce.Do(func() {
		spawns = make(chan spawn)
		for range max(runtime.GOMAXPROCS(0), 2) {
			go spawner()
		}
	})
	done := make(chan error, 1)
	spawns <- spawn{cmd: cmd, done: done}
	return done
}

// spawner starts the children it is given, on a thread of its own for the life of the process
// (a leak check of a host that runs confined calls ignores it).
func spawner() {
	runtime.LockOSThread() // never unlocked: the thread lives as long as the process
	for s := range spawns {
		s.done <- s.cmd.Start()
	}
}

// A spawn is a child to start on a spawner thread.
type spawn struct {
	cmd  *exec.Cmd
	done chan<- error
}

var (
	spawnersOnce sync.Once
	spawns       chan spawn
)

// pipePair returns a pipe whose parent end is pollable (non-blocking, close-on-exec) and whose
// child end is blocking; parentReads says which end the parent holds.
func pipePair(parentReads bool) (parent, child *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	pi, ci := p[1], p[0]
	if parentReads {
		pi, ci = p[0], p[1]
	}
	if err := unix.SetNonblock(pi, true); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, nil, err
	}
	return os.NewFile(uintptr(pi), "confine-parent"), os.NewFile(uintptr(ci), "confine-child"), nil
}

// copyOutput keeps the child's stdout and stderr (up to OutputCap).
func (pr *proc) copyOutput() {
	defer close(pr.outDone)
	io.Copy(pr.out, pr.outR)
}

// reap waits for the child to exit without reaping it, kills its process group (stragglers,
// grandchildren), then reaps it: the group id cannot be reused before the kill, as the leader is
// still a zombie.
func (pr *proc) reap() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pr.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	pr.sigMu.Lock()
	sendKill(-pr.pid, syscall.SIGKILL)
	pr.reaped = true
	pr.sigMu.Unlock()
	close(pr.dead)
	pr.waitErr = pr.cmd.Wait()
	pr.state = pr.cmd.ProcessState
	// The output is complete once every writer is gone; a process that escaped the group may
	// hold a pipe: then stop reading after waitDelay.
	timer := time.NewTimer(waitDelay)
	defer timer.Stop()
	select {
	case <-pr.outDone:
	case <-timer.C:
		pr.outR.Close()
		<-pr.outDone
	}
	// The same process may hold the response pipe: a read of it gives up after waitDelay.
	pr.respR.SetReadDeadline(time.Now().Add(waitDelay))
	close(pr.exited)
}

// watch kills the child when ctx ends, and stops a read of its response pipe at once; the
// returned func stops watching and reports whether it stopped before ctx ended.
func (pr *proc) watch(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		pr.kill(ctx.Err())
		pr.respR.SetReadDeadline(time.Unix(1, 0))
	})
}

// kill kills the child's process group; why is the context error that made it necessary (nil
// when the parent gave up for another reason).
func (pr *proc) kill(why error) {
	pr.broken.Store(true)
	if why != nil {
		pr.killedBy.CompareAndSwap(nil, why)
	}
	pr.sigMu.Lock()
	defer pr.sigMu.Unlock()
	if !pr.reaped {
		sendKill(-pr.pid, syscall.SIGKILL)
		sendKill(pr.pid, syscall.SIGKILL)
	}
}

// childPath is the program a child runs: this very binary. Benchmarks point it at another build
// of the same source, a minimal host.
var childPath = "/proc/self/exe"

// alterSetup, when set, changes a setup before it is sent (tests only).
var alterSetup func(*setupMsg)

// sendKill sends signals to children (a variable for tests).
var sendKill = syscall.Kill

// quiet reports whether the child has sent nothing since its last response: a worker that has
// is not given another call, whose answer could be what it sent.
func (pr *proc) quiet() bool {
	if pr.frames.buffered() > 0 {
		return false
	}
	quiet := false
	pr.respRC.Control(func(fd uintptr) { quiet = !readable(int(fd)) })
	return quiet
}

// alive reports whether the child may still serve a call.
func (pr *proc) alive() bool {
	if pr.broken.Load() {
		return false
	}
	select {
	case <-pr.exited:
		return false
	default:
		return true
	}
}

// release kills the child's process group now (once the child has answered, nothing it does
// matters, so the group is killed, stragglers included, rather than waited for) and leaves the
// rest of stop to the background.
func (pr *proc) release() {
	pr.kill(nil)
	teardowns.Add(1)
	go func() {
		defer teardowns.Done()
		pr.stop()
	}()
}

// stop kills the child's process group, waits until the child is reaped and removes its temp dir.
func (pr *proc) stop() {
	pr.stopOnce.Do(func() {
		pr.reqW.Close()
		pr.kill(nil)
		<-pr.exited
		pr.respR.Close()
		pr.outR.Close()
		releaseDir(pr.tmpDir, pr.keepDir, pr.dirUID)
	})
}

// awaitReady waits for the child's ready frame (or its end). The caller watches its context
// (see watch): a context that ends kills the child and stops the read.
func (pr *proc) awaitReady() error {
	if pr.ready != nil {
		return nil
	}
	typ, payload, err := pr.frames.next(0)
	if err != nil || typ != frameReady {
		return pr.failure()
	}
	var m readyMsg
	if err := m.decode(payload); err != nil {
		pr.kill(nil)
		return &Error{Kind: Unavailable, What: "reading the child's ready message: " + err.Error()}
	}
	if !m.ok {
		pr.kill(nil)
		<-pr.exited
		return &Error{Kind: Unavailable, What: m.reason, Stderr: pr.out.String()}
	}
	pr.ready = &m
	return nil
}

// call sends one request and waits for its response. On any failure the child is dead when call
// returns.
func (pr *proc) call(ctx context.Context, name string, req []byte) ([]byte, error) {
	if err := checkRunnable(name, req); err != nil {
		pr.kill(nil)
		return nil, err
	}
	stopWatch := pr.watch(ctx)
	defer func() {
		if !stopWatch() {
			pr.broken.Store(true) // the context ended: the child is being killed
		}
	}()

	m := requestMsg{nonce: rand.Uint64(), name: name, body: req}
	if d, ok := ctx.Deadline(); ok {
		m.deadline = d.UnixNano()
	}
	f := appendFrame(nil, frameRequest, m.encode())
	if pr.ready != nil || len(f) <= pipeAtomic {
		// A ready child is reading, and a pipe takes a small frame whole. A child that died
		// makes the write fail, which the read below reports better.
		pr.reqW.Write(f)
	} else {
		// A large request would fill the pipe before the child, still confining itself,
		// reads it.
		go pr.reqW.Write(f)
	}
	if err := pr.awaitReady(); err != nil {
		return nil, err
	}
	stopMeasure := pr.measureTmp()
	typ, payload, err := pr.frames.next(responseSpin)
	if !stopMeasure() {
		err = errTmpOver // measured over budget during the call, or once it answered
	}
	if errors.Is(err, errTmpOver) {
		pr.kill(nil)
		<-pr.exited
		return nil, &Error{Kind: Limit, What: "tmpdir", Detail: fmt.Sprintf("the private temp dir went over its budget of %d bytes and %d entries", pr.limits.TmpBytes, pr.limits.TmpInodes), Stderr: pr.out.String()}
	}
	if tl := (*tooLargeError)(nil); errors.As(err, &tl) {
		pr.kill(nil)
		<-pr.exited
		return nil, &Error{Kind: Limit, What: "response", Detail: fmt.Sprintf("the child sent a response frame of %d bytes, over the limit of %d: refused unread", tl.size, tl.max), Stderr: pr.out.String()}
	}
	if err != nil || typ != frameResponse {
		return nil, pr.failure()
	}
	var r responseMsg
	if err := r.decode(payload); err != nil {
		pr.kill(nil)
		return nil, &Error{Kind: Crashed, What: "unreadable response: " + err.Error()}
	}
	if r.nonce != m.nonce {
		pr.kill(nil)
		<-pr.exited
		return nil, &Error{Kind: Crashed, What: "protocol violation: the child sent a response that does not answer this request", Stderr: pr.out.String()}
	}
	if pr.frames.buffered() > 0 {
		// More than one frame: the child is not to be trusted with another call.
		pr.kill(nil)
	}
	if r.last {
		pr.broken.Store(true) // it exits now: not to be put back in a pool
	}
	if r.kind == 0 {
		return r.body, nil
	}
	if !childMayReport(r.kind) {
		pr.kill(nil)
		<-pr.exited
		return nil, &Error{Kind: Crashed, What: fmt.Sprintf("protocol violation: the child answered %q, which only the parent decides", r.kind), Stderr: pr.out.String()}
	}
	e := &Error{Kind: r.kind, What: r.what, Detail: r.detail, FromChild: true}
	if r.kind == Crashed || r.kind == Limit {
		// Not fit to serve again (a reused worker would not exit by itself).
		pr.kill(nil)
		<-pr.exited
		e.Stderr = pr.out.String()
	}
	return nil, e
}

// errStale: a reused worker did not run the request, as code of an earlier call had run in it
// since (see child.serve); the request goes to a fresh worker.
var errStale = &Error{Kind: Crashed, What: "the reused worker ran code of an earlier call between calls, and did not run this one"}

// errTmpOver: the private temp dir went over its budget.
var errTmpOver = errors.New("the private temp dir is over its budget")

// measureInterval is how often the parent measures a private temp dir that is no tmpfs (less
// often when measuring takes more than a quarter of it).
const measureInterval = 20 * time.Millisecond

// measureTmp measures the child's temp dir every measureInterval until the returned func is
// called, killing the child when the dir is over its budget; the func measures once more and
// reports whether the dir stayed within it. Without measuring (a tmpfs) it does nothing.
func (pr *proc) measureTmp() (stop func() bool) {
	if !pr.measure {
		return func() bool { return true }
	}
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTimer(measureInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				start := time.Now()
				if overBudget(pr.tmpDir, pr.limits.TmpBytes, pr.limits.TmpInodes) {
					pr.tmpOver.Store(true)
					pr.kill(nil)
					return
				}
				// A dir of many entries takes long to measure: measuring never takes more
				// than a fifth of the time.
				t.Reset(max(measureInterval, 4*time.Since(start)))
			}
		}
	}()
	return func() bool {
		close(done)
		<-ended
		if !pr.tmpOver.Load() && overBudget(pr.tmpDir, pr.limits.TmpBytes, pr.limits.TmpInodes) {
			pr.tmpOver.Store(true)
		}
		return !pr.tmpOver.Load()
	}
}

// childMayReport reports whether a child may answer a request with an error of kind k. Whether the
// child was confined (Unavailable), and whether the caller's deadline or cancellation ended the
// call (Timeout, Canceled), only the parent knows: a child that claims one after the handler
// ran could make a call that had side effects look as if nothing happened.
func childMayReport(k ErrorKind) bool {
	switch k {
	case Denied, Limit, Crashed, Failed:
		return true
	}
	return false
}

// failure explains a child that stopped talking: it waits for the child's end and reads its exit.
func (pr *proc) failure() error {
	pr.kill(nil)
	<-pr.exited
	stderr := pr.out.String()
	if why, _ := pr.killedBy.Load().(error); why != nil {
		return ctxError(why, stderr)
	}
	e := &Error{Stderr: stderr}
	if pr.state == nil {
		e.Kind, e.What = Crashed, fmt.Sprintf("the child could not be waited for: %v", pr.waitErr)
		return e
	}
	ws, _ := pr.state.Sys().(syscall.WaitStatus)
	if ws.Exited() && ws.ExitStatus() == exitStale && pr.ready != nil {
		return errStale
	}
	switch {
	case ws.Exited() && (ws.ExitStatus() == exitUnavailable || ws.ExitStatus() == exitProtocol) && pr.ready == nil:
		e.Kind, e.What = Unavailable, "the child could not confine itself"
	case (ws.Exited() && ws.ExitStatus() == 2 || ws.Signaled() && ws.Signal() == syscall.SIGABRT) && threadLimitDeath(stderr):
		e.Kind, e.What = Limit, "processes"
	case ws.Signaled():
		e.Kind, e.What = pr.signalKind(ws.Signal())
	case ws.Exited() && ws.ExitStatus() == 2 && runtimeOOM(stderr):
		e.Kind, e.What = Limit, "memory"
	case pr.ready == nil:
		e.Kind, e.What = Unavailable, fmt.Sprintf("the child ended before confining itself (%v)", pr.state)
	default:
		e.Kind, e.What = Crashed, fmt.Sprintf("the child ended without a response (%v)", pr.state)
	}
	return e
}

// signalKind names the limit or crash behind a child's death by signal.
func (pr *proc) signalKind(sig syscall.Signal) (ErrorKind, string) {
	switch sig {
	case syscall.SIGXCPU:
		return Limit, "cpu"
	case syscall.SIGXFSZ:
		return Limit, "filesize"
	case syscall.SIGSYS:
		return Denied, "system call (seccomp)"
	case syscall.SIGKILL:
		if ru, ok := pr.state.SysUsage().(*syscall.Rusage); ok {
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			if pr.limits.CPUSeconds > 0 && cpu >= time.Duration(pr.limits.CPUSeconds)*time.Second-50*time.Millisecond {
				return Limit, "cpu"
			}
			return Crashed, fmt.Sprintf("killed by %s after %v of CPU time", unix.SignalName(sig), cpu.Round(time.Millisecond))
		}
	}
	return Crashed, "killed by " + unix.SignalName(sig)
}

// threadLimitDeath reports whether the output is the Go runtime's death for want of a thread:
// past its own cap (debug.SetMaxThreads), or refused one by RLIMIT_NPROC, which the runtime
// notices in clone without cgo ("failed to create new OS thread", errno 11 EAGAIN) and in
// pthread_create with cgo, which aborts (SIGABRT, that the runtime turns into exit status 2).
func threadLimitDeath(out string) bool {
	return strings.Contains(out, "fatal error: thread exhaustion") ||
		strings.Contains(out, "failed to create new OS thread") && strings.Contains(out, "errno=11") ||
		strings.Contains(out, "runtime/cgo: pthread_create failed: Resource temporarily unavailable")
}

// runtimeOOM reports whether the output is the Go runtime's death for want of memory.
func runtimeOOM(out string) bool {
	return strings.Contains(out, "out of memory") || strings.Contains(out, "cannot allocate memory") ||
		strings.Contains(out, "errno=12")
}

func ctxError(err error, stderr string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: Timeout, What: "deadline exceeded", Stderr: stderr}
	}
	return &Error{Kind: Canceled, What: err.Error(), Stderr: stderr}
}

// capBuffer keeps the first max bytes written to it and counts the rest.
type capBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.max - len(b.buf)
	if room > len(p) {
		room = len(p)
	}
	b.buf = append(b.buf, p[:room]...)
	b.dropped += len(p) - room
	return len(p), nil
}

func (b *capBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped > 0 {
		return fmt.Sprintf("%s\n[%d more bytes dropped]", b.buf, b.dropped)
	}
	return string(b.buf)
}
