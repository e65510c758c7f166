//go:build linux

package confine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolexplorer/toolexplorer/internal/childmark"
	"github.com/toolexplorer/toolexplorer/sandbox/confine/internal/prestart"
)

// Handler runs inside a confined child. ctx carries the caller's deadline; req and the result are
// opaque bytes. An error that is a permission error (fs.ErrPermission, EACCES, EPERM) comes back
// from Run as Denied, EMFILE, EFBIG and ENOSPC as Limit, anything else as Failed.
type Handler func(ctx context.Context, req []byte) ([]byte, error)

// How the parent finds a child (see package childmark).
const (
	envMarker   = childmark.EnvMarker
	markerValue = childmark.MarkerValue
	childArgv0  = childmark.Argv0
)

// Exit statuses of a child that ends without a response.
const (
	// exitUnavailable: the child could not confine itself (or could not read its setup); it
	// never ran the handler.
	exitUnavailable = 111
	// exitProtocol: the parent sent something the child could not read.
	exitProtocol = 113
	// exitStale: a reused worker found that code ran in it while it waited for the request it
	// read (a timer of an earlier call, say): it ends without running the request.
	exitStale = 114
)

// The child's request and response pipes.
const (
	requestFD  = 3
	responseFD = 4
)

var (
	handlersMu sync.RWMutex
	handlers   = map[string]Handler{}

	// mainCalled is set by Main in a process that is not a child: Run refuses to start children
	// of a binary whose main does not call Main, as such a child would run the host's own main.
	mainCalled bool

	// beforeConfine, when set, runs in the child before it confines itself (tests start a
	// thread there, to prove that threads started earlier are confined too).
	beforeConfine func()

	// installSeccomp installs the seccomp program of the setup in the child, on all threads. A
	// child whose installSeccomp is nil fails closed (unless allowMissingSeccomp).
	installSeccomp = installFilter

	// servingNonce is the nonce of the request being served (tests forge frames with it, as a
	// handler that searched its own memory could).
	servingNonce atomic.Uint64

	// retireOnLeftovers makes a reused worker retire after a call that left goroutines running.
	// Only the package's own tests clear it, to show the attack it stops.
	retireOnLeftovers = true

	// allowMissingSeccomp lets a child without a seccomp filter go on, with a note, instead of
	// failing closed. Only the package's own tests set it.
	allowMissingSeccomp bool
)

// Handle registers h under name. Call it from init(): a child looks the handler up by name, and
// the child is the same binary, so every handler a parent may name must be registered in every
// process. It panics on an empty name, a nil handler or a duplicate.
func Handle(name string, h Handler) {
	if name == "" || h == nil {
		panic("confine: Handle needs a name and a handler")
	}
	handlersMu.Lock()
	defer handlersMu.Unlock()
	if _, dup := handlers[name]; dup {
		panic(fmt.Sprintf("confine: handler %q registered twice", name))
	}
	handlers[name] = h
}

// Handlers returns the registered handler names, sorted.
func Handlers() []string {
	handlersMu.RLock()
	defer handlersMu.RUnlock()
	names := make([]string, 0, len(handlers))
	for n := range handlers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookup(name string) Handler {
	handlersMu.RLock()
	defer handlersMu.RUnlock()
	return handlers[name]
}

// Main must be the first thing main calls (as with reexec.Init), and a TestMain that uses Run must
// call it first too. In a process started by Run it confines the process, serves the request and
// exits: it never returns there. Anywhere else it returns false at once.
//
//	func main() {
//		if confine.Main() {
//			return // not reached: a child exits inside Main
//		}
//		// ... the program
//	}
func Main() bool {
	if !IsChild() {
		mainCalled = true
		return false
	}
	os.Exit(serveChild()) // a supervisor never gets here: it serves from package init (supervise.go)
	return true
}

// IsChild reports whether this process is a confined child that Main will serve. Package
// initialisation runs in a child before Main takes over: an init() that prepares what only the
// host needs (compiles, indexes, warms caches) may skip that work when IsChild is true and so
// shorten every child's start.
func IsChild() bool {
	return childmark.IsChild()
}

// A reused worker polls for its next request this long after each response before it waits the
// ordinary way (see pipeSource): a stream of calls then costs no thread wake-ups.
const requestSpin = 100 * time.Microsecond

// child is the serving side of a confined process.
type child struct {
	in  *frameReader
	out *os.File
}

// serveChild runs the child's start-up, in order, then serves; it returns the exit status. Any
// failure before a handler runs ends the child with exitUnavailable and the reason on the
// response pipe: the handler never runs unconfined.
func serveChild() int {
	os.Unsetenv(envMarker)
	// 1. Only stdin, stdout, stderr and the two pipes survive; a descriptor the parent leaked
	// without close-on-exec is closed before anything else runs. The pipes themselves are
	// close-on-exec from now on, so a program the handler starts never sees them.
	keep := -1 // the supervisor's socket pair, when package prestart started it
	if prestart.Early != nil {
		keep = prestart.Early.Sock
	}
	closeInherited(responseFD+1, keep)
	unix.CloseOnExec(requestFD)
	unix.CloseOnExec(responseFD)
	c := &child{out: os.NewFile(responseFD, "confine-response")}
	// The request pipe's read end is this process's own (the parent closed its copy): made
	// non-blocking, the Go poller watches it, and the reads can poll before they wait.
	if err := unix.SetNonblock(requestFD, true); err != nil {
		c.ready(false, "request pipe: "+err.Error(), nil)
		return exitProtocol
	}
	src, err := newPipeSource(os.NewFile(requestFD, "confine-request"))
	if err != nil {
		c.ready(false, "request pipe: "+err.Error(), nil)
		return exitProtocol
	}
	c.in = newFrameReader(src, maxFrame)

	typ, payload, err := c.in.next(0)
	if err != nil || typ != frameSetup {
		c.ready(false, fmt.Sprintf("reading the setup: %v (frame %d)", err, typ), nil)
		return exitProtocol
	}
	var s setupMsg
	if err := s.decode(payload); err != nil {
		c.ready(false, "reading the setup: "+err.Error(), nil)
		return exitProtocol
	}
	// The private temp dir, which the parent made while this process started: the working
	// directory, and TMPDIR. It must be the very directory the parent made (its device and
	// inode), whatever happened to the path since; Landlock's rule for it is made from the same
	// descriptor.
	if err := s.openTmpDir(); err != nil {
		c.ready(false, "the private temp dir: "+err.Error(), nil)
		return exitUnavailable
	}
	os.Setenv("TMPDIR", s.tmpDir)
	if beforeConfine != nil {
		beforeConfine()
	}
	notes, err := confineSelf(&s)
	unix.Close(s.tmpFD) // the rule is made; the handler reaches the dir by its path
	s.tmpFD = -1
	if err != nil {
		c.ready(false, err.Error(), notes)
		return exitUnavailable
	}
	// Confined: the handler gets the parallelism the parent has (or the profile passes on). The
	// resize stops the world and starts threads. A request already waiting (a cold call: the
	// parent sent it with the setup) is not held up by it: the resize then runs as soon as this
	// goroutine waits, in the handler or for the next request. A worker started ahead of its
	// request resizes now, before it says it is ready.
	if s.goMaxProcs != "" {
		os.Setenv("GOMAXPROCS", s.goMaxProcs)
	} else {
		os.Unsetenv("GOMAXPROCS")
	}
	if s.procs > 1 {
		if c.in.buffered() > 0 || readable(requestFD) {
			go runtime.GOMAXPROCS(int(s.procs))
		} else {
			runtime.GOMAXPROCS(int(s.procs))
		}
	}
	// The Go runtime's own thread cap, per child: RLIMIT_NPROC counts every process of the uid
	// (all children of a root host share one), so it cannot bound one child; past this cap the
	// runtime ends the process ("thread exhaustion"), which the parent reports as the processes
	// limit.
	debug.SetMaxThreads(threadCap(s.limits))
	grants = grantSet{read: slices.Concat(s.read, s.exec), write: slices.Concat(s.write, []string{s.tmpDir}), profile: s.grantsW, nsMode: s.nsMode}
	if err := c.ready(true, "", notes); err != nil {
		return exitProtocol
	}
	return c.serve(s.reuse, s.limits)
}

// readable reports whether fd has data to read now.
func readable(fd int) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(p, 0)
	return err == nil && n > 0 && p[0].Revents&unix.POLLIN != 0
}

// openTmpDir opens the private temp dir, checks that it is the one the parent made, and moves
// into it; s.tmpFD holds it open until Landlock's rule is made.
func (s *setupMsg) openTmpDir() error {
	fd, err := unix.Open(s.tmpDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return err
	}
	if uint64(st.Dev) != s.tmpDev || st.Ino != s.tmpIno {
		unix.Close(fd)
		return fmt.Errorf("%s is not the directory the parent made", s.tmpDir)
	}
	if err := unix.Fchdir(fd); err != nil {
		unix.Close(fd)
		return err
	}
	s.tmpFD = fd
	return nil
}

// confineSelf applies the confinement of s to the whole process: user, rlimits, Landlock,
// seccomp, in that order.
func confineSelf(s *setupMsg) (notes []string, err error) {
	// 2. An unprivileged user when the parent is root. The parent already switched the child to
	// it between fork and exec (cheaper than doing it here on every thread); the child checks,
	// and switches itself if it still finds root. A change of credentials clears the
	// parent-death signal: it is set again then, and the parent checked to be alive.
	if s.dropUID {
		if err := checkCredentials(s.uid, s.gid); err != nil {
			if err := dropPrivileges(s.uid, s.gid); err != nil {
				return nil, err
			}
			if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
				return nil, fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w", err)
			}
		}
	}
	if os.Getppid() != s.parentPID {
		return nil, errors.New("the parent is gone")
	}
	// In ModeSupervised, the supervisor: package prestart started it while this process's
	// packages were initialised, with the credentials it has now (or it starts now), so that
	// its start overlaps this one. It has no capability and no_new_privs from its start; it
	// gets this process's limits, and its Landlock ruleset, memory and working directory with
	// the listener, all before the handler runs. It reads the child's memory through this
	// descriptor: once the child is not dumpable, not even the child may open its own
	// /proc/self/mem.
	var sup *supervisorLink
	if s.supervise {
		if sup, err = takeSupervisor(); err != nil {
			return nil, err
		}
		defer sup.close() // once the listener is handed over, the child keeps only the socket pair
		if sup.mem, err = unix.Open("/proc/self/mem", unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
			return nil, fmt.Errorf("supervisor: %w", err)
		}
	} else if prestart.Early != nil {
		unix.Close(prestart.Early.Sock) // not needed after all: it ends
		prestart.Early = nil
	}
	// Not dumpable: its /proc files belong to root and no process of the same uid (another
	// child) can read its memory or environment through them.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err)
	}
	// Protected names, in the private mount namespace; the namespace's capabilities go with it.
	if s.nsMode {
		if err := protectMounts(s); err != nil {
			return nil, fmt.Errorf("mount namespace: %w", err)
		}
	}
	// 3. Resource limits, the supervisor's too.
	n, err := setRlimits(s.limits, s.dropUID, len(s.exec) > 0)
	notes = append(notes, n...)
	if err != nil {
		return notes, err
	}
	if sup != nil {
		if err := sup.limit(); err != nil {
			return notes, err
		}
	}
	// 4. no_new_privs on every thread, which Landlock needs. A filter that allows everything,
	// installed with TSYNC, sets it on every thread in one call (the kernel copies the flag with
	// the filter), where prctl on each thread would take a round of signals over the threads.
	nnp := false
	if installSeccomp != nil {
		if err := installSeccomp(allowAllFilter); err != nil {
			return notes, fmt.Errorf("seccomp: %w", err)
		}
		nnp = true
	}
	// 5. Landlock, after checking the ABI.
	abi, err := childABI()
	if err != nil {
		return notes, fmt.Errorf("landlock unavailable: %w", err)
	}
	if abi < MinLandlockABI {
		return notes, fmt.Errorf("landlock ABI %d is below the minimum %d", abi, MinLandlockABI)
	}
	// The supervisor gets the ruleset the child enforces next.
	var keepRuleset func(int) error
	if sup != nil {
		keepRuleset = sup.keepRuleset
	}
	n, err = applyLandlock(s, abi, nnp, keepRuleset)
	notes = append(notes, n...)
	if err != nil {
		return notes, err
	}
	// 6. The seccomp filter, on all threads.
	switch {
	case installSeccomp != nil:
		if err := installSeccomp(s.seccomp); err != nil {
			return notes, fmt.Errorf("seccomp: %w", err)
		}
	case allowMissingSeccomp:
		notes = append(notes, "seccomp filter not applied: none built in")
	default:
		return notes, errors.New("seccomp filter not built into this binary")
	}
	// 7. In ModeSupervised, the filter that hands the calls that make a name to the supervisor.
	if sup != nil {
		if err := sup.handOver(); err != nil {
			return notes, err
		}
	}
	return notes, nil
}

// dropPrivileges switches every thread to uid and gid with no supplementary groups, and checks
// that root cannot be regained.
func dropPrivileges(uid, gid int) error {
	if err := syscall.Setgroups([]int{}); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("setresgid(%d): %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("setresuid(%d): %w", uid, err)
	}
	return checkCredentials(uid, gid)
}

// checkCredentials checks that every uid is uid, every gid is gid, and there are no
// supplementary groups.
func checkCredentials(uid, gid int) error {
	ru, eu, su := unix.Getresuid()
	rg, eg, sg := unix.Getresgid()
	groups, err := unix.Getgroups()
	if err != nil {
		return fmt.Errorf("getgroups: %w", err)
	}
	if ru != uid || eu != uid || su != uid || rg != gid || eg != gid || sg != gid || len(groups) != 0 {
		return fmt.Errorf("credentials are uids %d %d %d, gids %d %d %d, groups %v; want %d, %d and none", ru, eu, su, rg, eg, sg, groups, uid, gid)
	}
	return nil
}

// closeInherited closes every descriptor from first up but keep (-1: none) and the Go
// runtime's own epoll and eventfd: they exist already when init code touched the poller before Main took over, and
// closing them would kill the runtime ("netpoll failed"). Everything else goes: descriptors
// inherited through exec, and files that package init code opened in the child before it was
// confined (Landlock does not govern what is already open).
//
// The open descriptors are found with one poll(2) over the first fdWindow numbers, which marks
// the closed ones; everything above the window is closed with close_range. The runtime opened its
// two at the lowest free numbers, so they are in the window unless every number in it was taken:
// when the window's last number is open, the descriptors are listed from /proc instead.
func closeInherited(first, keep int) {
	fds, above := openDescriptors(first)
	// A descriptor without close-on-exec came through exec (the runtime sets the flag on its
	// own); one with it is kept only if it is the runtime's epoll or eventfd, anonymous inodes
	// (no file type), which readlink names.
	link := make([]byte, 64)
	for _, fd := range fds {
		if fd == keep {
			continue
		}
		var st unix.Stat_t
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC != 0 &&
			unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == 0 { // an anonymous inode: look closer
			if n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), link); err == nil {
				if t := string(link[:n]); t == "anon_inode:[eventpoll]" || t == "anon_inode:[eventfd]" {
					continue
				}
			}
		}
		unix.Close(fd)
	}
	if above >= 0 {
		if keep >= above {
			for fd := above; fd < keep; fd++ {
				unix.Close(fd)
			}
			above = keep + 1
		}
		closeFrom(above)
	}
}

// fdWindow is how many descriptor numbers closeInherited looks at one by one.
const fdWindow = 256

// openDescriptors returns the open descriptors from first up, and the number from which every
// descriptor is to be closed wholesale (-1: none, the list is complete).
func openDescriptors(first int) (fds []int, above int) {
	n := fdWindow
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Cur < uint64(first+n) {
		// poll(2) takes no more entries than the limit; no descriptor is above it either.
		n = max(int(lim.Cur)-first, 0)
	}
	if n == 0 {
		return nil, first
	}
	pfds := make([]unix.PollFd, n)
	for i := range pfds {
		pfds[i].Fd = int32(first + i)
	}
	if _, err := unix.Poll(pfds, 0); err == nil && pfds[n-1].Revents&unix.POLLNVAL != 0 {
		for _, p := range pfds {
			if p.Revents&unix.POLLNVAL == 0 {
				fds = append(fds, int(p.Fd))
			}
		}
		return fds, first + n
	}
	return procDescriptors(first), -1
}

// procDescriptors lists the open descriptors from first up from /proc/self/fd. Without /proc it
// returns none, and closes every descriptor from first up itself.
func procDescriptors(first int) []int {
	dir, err := unix.Open("/proc/self/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		closeFrom(first)
		return nil
	}
	defer unix.Close(dir)
	var fds []int
	buf := make([]byte, 4096)
	for {
		n, err := unix.Getdents(dir, buf)
		if err != nil || n <= 0 {
			break
		}
		_, _, names := unix.ParseDirent(buf[:n], -1, nil)
		for _, name := range names {
			if fd, err := strconv.Atoi(name); err == nil && fd >= first && fd != dir {
				fds = append(fds, fd)
			}
		}
	}
	return fds
}

// closeFrom closes every descriptor from first up.
func closeFrom(first int) {
	if err := unix.CloseRange(uint(first), ^uint(0), 0); err != nil {
		for fd := first; fd < 65536; fd++ {
			unix.Close(fd)
		}
	}
}

func (c *child) ready(ok bool, reason string, notes []string) error {
	m := readyMsg{ok: ok, reason: reason, notes: notes}
	return writeFrame(c.out, frameReady, m.encode())
}

// retireAt is the share of its CPU limit after which a reused worker retires: its limit counts
// all its calls, and a worker that hit it would fail a call that has done nothing wrong. A
// worker serves a call only while it has spent less than half its limit (it reads its CPU time
// once the calls since the last reading could have spent checkEvery, and retires once that
// could take it to half), so a call that spends at most half the limit never meets it for what
// earlier calls spent. A rule that guesses the next call's cost from earlier ones fails the
// first call that costs more than they did.
const (
	retireAt   = 0.5
	checkEvery = 50 * time.Millisecond
)

// serve answers requests until the parent closes the request pipe, or after one when the
// worker is single-use. A reused worker that could have spent retireAt of its CPU limit
// (cpuSeconds) by the end of its next reading says so in its response and exits.
func (c *child) serve(reuse bool, limits Limits) int {
	cpuSeconds := limits.CPUSeconds
	retire := time.Duration(retireAt*float64(cpuSeconds)*float64(time.Second)) - checkEvery
	var spin time.Duration  // none before the first request: it may be long in coming
	unread := checkEvery    // CPU the worker could have used since the last getrusage: its start
	served := false         // a call was served
	last := time.Now()      // when the last response was written (or serving began)
	var createdAfter uint64 // goroutines made in the process when the last call ended
	for {
		typ, payload, err := c.in.next(spin)
		spin = requestSpin
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
				return 0
			}
			return exitProtocol
		}
		var req requestMsg
		if typ != frameRequest || req.decode(payload) != nil {
			return exitProtocol
		}
		// Nothing may have run in a reused worker since its last call ended: a goroutine made
		// meanwhile is code of an earlier call (a timer's function, a cleanup). The request
		// is then left to a fresh worker.
		// Only a reused worker reads the count: the first read sets up the runtime's whole
		// table of metrics, which a single-use child would pay for nothing.
		watch := reuse && retireOnLeftovers
		var createdBefore uint64
		if watch {
			createdBefore = goroutinesCreated()
		}
		if served && watch && createdBefore != createdAfter {
			return exitStale
		}
		goroutines := runtime.NumGoroutine()
		servingNonce.Store(req.nonce)
		resp := runHandler(&req, limits.ResponseBytes)
		resp.nonce = req.nonce
		// A goroutine the handler left running could read the next request, or answer it,
		// before this loop does: a worker with one retires after this response. So does one in
		// which any goroutine was made during the call: by the handler, or by a timer an
		// earlier call armed, whose function would run again in the next call.
		if watch {
			createdAfter = goroutinesCreated()
		}
		served = true
		leftover := watch && (leftGoroutines(goroutines) || createdAfter != createdBefore)
		// getrusage costs a microsecond or two, so it is read once the worker could have used
		// checkEvery of CPU since the last reading: the wall time since the last response
		// (the call, and the spin for its request) on every P.
		now := time.Now()
		unread += now.Sub(last) * time.Duration(runtime.GOMAXPROCS(0))
		last = now
		spent := false
		if reuse && cpuSeconds > 0 && unread >= checkEvery {
			unread = 0
			spent = cpuUsed() >= retire
		}
		resp.last = !reuse || leftover || spent
		if err := writeFrame(c.out, frameResponse, resp.encode()); err != nil {
			return exitProtocol
		}
		if resp.last {
			return 0
		}
	}
}

// createdSample reads how many goroutines the process has made since it started.
var createdSample = []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}

// goroutinesCreated is the number of goroutines the process has made since it started. Every
// function that runs outside the goroutines that exist (a timer's, from time.AfterFunc or a
// context's deadline; a cleanup's) runs in one made for it.
func goroutinesCreated() uint64 {
	metrics.Read(createdSample)
	if createdSample[0].Value.Kind() != metrics.KindUint64 {
		return createdUnknown.Add(1) // a runtime without the metric: never the same twice
	}
	return createdSample[0].Value.Uint64()
}

var createdUnknown atomic.Uint64

// leftGoroutines reports whether more goroutines run than before a call (n), after letting those
// that are just ending finish.
func leftGoroutines(n int) bool {
	for i := 0; i < 3 && runtime.NumGoroutine() > n; i++ {
		runtime.Gosched()
	}
	return runtime.NumGoroutine() > n
}

// cpuUsed is the CPU time the process has used, all threads.
func cpuUsed() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runHandler runs the named handler and turns its outcome into a response.
func runHandler(req *requestMsg, maxBody uint64) (resp responseMsg) {
	defer func() {
		resp.what, resp.detail = cutText(resp.what), cutText(resp.detail)
	}()
	h := lookup(req.name)
	if h == nil {
		return responseMsg{kind: Failed, what: "no handler " + req.name, detail: fmt.Sprintf("no handler named %q in the child", req.name)}
	}
	ctx := context.Background()
	if req.deadline != 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Unix(0, req.deadline))
		defer cancel()
	}
	defer func() {
		if v := recover(); v != nil {
			resp = responseMsg{kind: Crashed, what: fmt.Sprintf("panic: %v", v), detail: string(debug.Stack())}
		}
	}()
	body, err := h(ctx, req.body)
	if err != nil {
		kind, what := classify(err)
		return responseMsg{kind: kind, what: what, detail: err.Error()}
	}
	if uint64(len(body)) > maxBody {
		return responseMsg{kind: Limit, what: "response", detail: fmt.Sprintf("a response of %d bytes is over the limit of %d", len(body), maxBody)}
	}
	return responseMsg{body: body}
}

// cutText cuts an error text to maxText bytes.
func cutText(s string) string {
	if len(s) <= maxText {
		return s
	}
	const mark = " [cut]"
	return s[:maxText-len(mark)] + mark
}

// defaultThreadCap is the Go runtime's thread cap in a child whose profile sets no process limit.
const defaultThreadCap = 128

// threadCap is the runtime thread cap of a child with limits l.
func threadCap(l Limits) int {
	if l.Processes != 0 {
		return int(min(l.Processes, 1<<20))
	}
	return defaultThreadCap
}

// grantSet is what the profile of a confined child grants, for telling Landlock's refusals from
// the file's own permissions.
type grantSet struct {
	read, write []string
	// profile are the write grants as the profile gave them, before a split (ModeSplit); nsMode
	// says that protected entries are read-only mounts (ModeNamespace).
	profile []string
	nsMode  bool
}

// grants is set once the child is confined.
var grants grantSet

// permissionRefusal reports whether an EACCES on path came from the file's own permissions rather
// than from Landlock: under a write grant Landlock allows every access the handler makes, so the
// refusal is the file's; under a read grant it is the file's when even reading is refused (a
// refused write there is Landlock's). Outside every grant (a symlink's target included) it is
// counted as the sandbox's.
func permissionRefusal(path string) bool {
	if path == "" || !filepath.IsAbs(path) {
		return false
	}
	// The grants are resolved paths; a symlink under a grant may point anywhere (stat and
	// readlink are not Landlock's to refuse, so the link resolves here).
	path, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	switch {
	case underAny(path, grants.write):
		return true
	case underAny(path, grants.read):
		return unix.Faccessat(unix.AT_FDCWD, path, unix.R_OK, 0) == unix.EACCES
	}
	return false
}

// classify maps a handler's error to an error kind and what it concerns.
func classify(err error) (ErrorKind, string) {
	var pe *fs.PathError
	if why := protectedRefusal(err); why != "" {
		return Denied, describe(err) + ": " + why
	}
	switch {
	case errors.Is(err, syscall.EACCES) && errors.As(err, &pe) && permissionRefusal(pe.Path):
		return Failed, describe(err) + ": refused by the file's own permissions, not by the sandbox"
	case errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE):
		return Limit, "files"
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		return Limit, "disk"
	case errors.Is(err, syscall.EFBIG):
		return Limit, "filesize"
	case errors.Is(err, syscall.ENOMEM):
		return Limit, "memory"
	case errors.Is(err, syscall.EAGAIN) && isStartError(err):
		return Limit, "processes"
	case errors.Is(err, fs.ErrPermission): // EACCES and EPERM
		return Denied, describe(err)
	case errors.Is(err, syscall.EXDEV) && isLinkError(err):
		// Landlock refuses to link or move a file between directories without the refer
		// right with EXDEV.
		return Denied, describe(err)
	}
	return Failed, err.Error()
}

// describe names the operation and object of a denial: "open /etc/shadow",
// "connect 127.0.0.1:8080", "link /a /b/c".
func describe(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) {
		op := oe.Op
		var se *os.SyscallError
		if errors.As(oe.Err, &se) {
			op = se.Syscall
		}
		if oe.Addr != nil {
			return op + " " + oe.Addr.String()
		}
		if oe.Source != nil {
			return op + " " + oe.Source.String()
		}
		return op
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Op + " " + le.Old + " " + le.New
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + " " + pe.Path
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Syscall
	}
	return err.Error()
}

func isStartError(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && (pe.Op == "fork/exec" || pe.Op == "fork")
}

func isLinkError(err error) bool {
	var le *os.LinkError
	return errors.As(err, &le)
}

// protectedRefusal explains a refusal that a protected name caused: a write refused (EROFS, a
// read-only mount; EBUSY, a mount point moved or removed; EACCES or EPERM, Landlock) under a
// write grant of the profile, at a path through a protected name, or, in ModeSplit, in a
// directory made read-only because it holds one. It returns "" for any other error.
func protectedRefusal(err error) string {
	if !errors.Is(err, syscall.EROFS) && !errors.Is(err, syscall.EBUSY) && !errors.Is(err, fs.ErrPermission) {
		return ""
	}
	var paths []string
	var pe *fs.PathError
	var le *os.LinkError
	dirOp := true // the refusal concerns the directory (a name made, removed or moved)
	switch {
	case errors.As(err, &le):
		paths = []string{le.Old, le.New}
	case errors.As(err, &pe):
		paths = []string{pe.Path}
		if pe.Op == "open" {
			_, statErr := os.Lstat(pe.Path)
			dirOp = errors.Is(statErr, fs.ErrNotExist)
		}
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) || !underAny(filepath.Clean(p), grants.profile) {
			continue
		}
		p = filepath.Clean(p)
		for _, name := range strings.Split(p, "/") {
			if slices.Contains(ProtectedNames, name) {
				return fmt.Sprintf("%s is a protected name, read-only inside write grants: %s; change it outside the sandbox if it must change, and write elsewhere", name, protectedWhy(name))
			}
		}
		if !grants.nsMode && (!underAny(p, grants.write) || dirOp && !underAny(filepath.Dir(p), grants.write)) {
			dir := filepath.Dir(p)
			held := "a protected name"
			if entries, err := os.ReadDir(dir); err == nil {
				for _, e := range entries {
					if slices.Contains(ProtectedNames, e.Name()) {
						held = "the protected name " + e.Name()
						break
					}
				}
			}
			return fmt.Sprintf("%s is read-only because it holds %s (or a directory below it does): without user namespaces on this machine, a directory that holds a protected name cannot be written as a whole; write in a subdirectory without one, or enable unprivileged user namespaces", dir, held)
		}
	}
	return ""
}

// protectedWhy says why name is protected.
func protectedWhy(name string) string {
	switch name {
	case ".git", ".hg", ".svn", ".bzr", ".gitmodules", ".gitattributes":
		return "version control runs commands it names (a .git/config with core.fsmonitor runs one at the next git status)"
	case ".envrc":
		return "direnv runs it on entering the directory"
	case ".vscode", ".idea", ".devcontainer":
		return "an editor runs the tasks and settings it holds when the directory is opened"
	}
	return "a shell runs it at start-up"
}
