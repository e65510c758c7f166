//go:build linux

package confine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Attacks on the supervised mode from the child's own code, each named by what it tries to make
// or reach. A is the directory it works in, B a second path where one is needed.
type superviseReq struct {
	Op string `json:"op"`
	A  string `json:"a"`
	B  string `json:"b,omitempty"`
}

func init() {
	Handle("test.supervise", func(ctx context.Context, req []byte) ([]byte, error) {
		var r superviseReq
		if err := json.Unmarshal(req, &r); err != nil {
			return nil, err
		}
		return runSupervise(r)
	})
}

var superviseCfg = []byte("[core]\n\tfsmonitor = touch /tmp/owned\n")

// runSupervise carries out one attack; it fails with the first refusal.
func runSupervise(r superviseReq) ([]byte, error) {
	a := r.A
	switch r.Op {
	case "symlink-into-git": // x -> .git (which exists), then x/config and x/hooks/post-checkout
		if err := os.Symlink(".git", filepath.Join(a, "x")); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(a, "x", "config"), superviseCfg, 0o644); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Join(a, "x", "hooks"), 0o755); err != nil {
			return nil, err
		}
		return nil, os.WriteFile(filepath.Join(a, "x", "hooks", "post-checkout"), superviseCfg, 0o755)
	case "symlink-to-missing-git": // x -> .git (missing), then mkdir x/, x/config, open(x, O_CREAT)
		if err := os.Symlink(".git", filepath.Join(a, "x")); err != nil {
			return nil, err
		}
		var errs []error
		errs = append(errs, unix.Mkdir(filepath.Join(a, "x")+"/", 0o755))
		errs = append(errs, os.MkdirAll(filepath.Join(a, "x", "hooks"), 0o755))
		errs = append(errs, os.WriteFile(filepath.Join(a, "x", "config"), superviseCfg, 0o644))
		errs = append(errs, os.WriteFile(filepath.Join(a, "x"), superviseCfg, 0o644))
		if errors.Join(errs...) == nil {
			return nil, errors.New("every step succeeded")
		}
		return nil, errors.Join(errs...)
	case "rename-dir-deep": // tmp/ with config and hooks/, renamed onto d1/d2/.git/ (trailing slash)
		tmp := filepath.Join(a, "tmp")
		if err := os.MkdirAll(filepath.Join(tmp, "hooks"), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "config"), superviseCfg, 0o644); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Join(a, "d1", "d2"), 0o755); err != nil {
			return nil, err
		}
		return nil, unix.Rename(tmp+"/", filepath.Join(a, "d1", "d2", ".git")+"/")
	case "rename-git-away": // the existing .git moved aside, a new one made in its place
		if err := os.Rename(filepath.Join(a, ".git"), filepath.Join(a, "old")); err != nil {
			return nil, err
		}
		return nil, os.MkdirAll(filepath.Join(a, ".git", "hooks"), 0o755)
	case "rename-parent-away": // the directory holding .git moved, a new one made with .git
		if err := os.Rename(a, a+"-moved"); err != nil {
			return nil, err
		}
		return nil, os.MkdirAll(filepath.Join(a, ".git"), 0o755)
	case "write-through-symlink": // .envrc -> envrc-target (both there), written through with O_CREAT
		f, err := os.OpenFile(filepath.Join(a, ".envrc"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, err
		}
		_, err = f.Write(superviseCfg)
		return nil, errors.Join(err, f.Close())
	case "hardlink-out": // a hard link to .git/config outside .git, written through
		if err := os.Link(filepath.Join(a, ".git", "config"), filepath.Join(a, "cfg")); err != nil {
			return nil, err
		}
		return nil, os.WriteFile(filepath.Join(a, "cfg"), superviseCfg, 0o644)
	case "x32-mkdir": // mkdir through the x32 entry, which the notify filter does not compare
		p, _ := unix.BytePtrFromString(filepath.Join(a, ".git"))
		_, _, errno := unix.Syscall(0x40000000|unix.SYS_MKDIR, uintptr(unsafe.Pointer(p)), 0o755, 0)
		if errno != 0 {
			return nil, &os.PathError{Op: "mkdir (x32)", Path: filepath.Join(a, ".git"), Err: errno}
		}
		return nil, nil
	case "mknod-fifo": // a FIFO named .envrc
		if err := unix.Mknod(filepath.Join(a, ".envrc"), unix.S_IFIFO|0o644, 0); err != nil {
			return nil, &os.PathError{Op: "mknod", Path: filepath.Join(a, ".envrc"), Err: err}
		}
		return nil, nil
	case "bind-unix": // a unix socket bound as .envrc
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return nil, os.NewSyscallError("socket", err)
		}
		defer unix.Close(fd)
		return nil, os.NewSyscallError("bind", unix.Bind(fd, &unix.SockaddrUnix{Name: filepath.Join(a, ".envrc")}))
	case "io-uring": // io_uring, whose IORING_OP_MKDIRAT and friends no filter sees
		_, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&[120]byte{})), 0)
		if errno != 0 {
			return nil, os.NewSyscallError("io_uring_setup", errno)
		}
		return []byte("io_uring_setup succeeded"), nil
	case "kill-supervisor": // SIGKILL to the processes it started (the supervisor), then .git
		// B names the process whose children are killed (the child itself when empty); when
		// /proc does not list them, the pids that follow its own are tried.
		pid := os.Getpid()
		if r.B != "" {
			pid, _ = strconv.Atoi(r.B)
		}
		targets := childrenOf(pid)
		if len(targets) == 0 {
			for p := pid + 1; p <= pid+64; p++ {
				targets = append(targets, p)
			}
		}
		own := map[int]bool{}
		if tasks, err := os.ReadDir("/proc/self/task"); err == nil {
			for _, task := range tasks {
				n, _ := strconv.Atoi(task.Name())
				own[n] = true
			}
		}
		killed := 0
		for _, t := range targets {
			if own[t] {
				continue // its own threads
			}
			if unix.Kill(t, unix.SIGKILL) == nil {
				killed++
			}
		}
		err := os.Mkdir(filepath.Join(a, ".git"), 0o755)
		if killed > 0 {
			return nil, fmt.Errorf("killed %d of %d processes, then mkdir .git: %v", killed, len(targets), err)
		}
		if err != nil {
			return nil, fmt.Errorf("killed none of %d processes, then %w", len(targets), err)
		}
		return nil, nil
	case "supervisor-gone": // its pid in A/pid, then .git and an ordinary file once A/go exists
		if err := os.WriteFile(filepath.Join(a, "pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			return nil, err
		}
		for {
			if _, err := os.Stat(filepath.Join(a, "go")); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		errGit := os.Mkdir(filepath.Join(a, ".git"), 0o755)
		errFile := os.WriteFile(filepath.Join(a, "ordinary"), nil, 0o644)
		if errGit == nil {
			return nil, nil
		}
		return []byte(fmt.Sprintf("mkdir .git: %v; ordinary file: %v", errGit, errFile)), errGit
	case "root-ordinary": // os.Root and a changed working directory, as a tool writes its workspace
		root, err := os.OpenRoot(a)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		f, err := root.Create("made-by-root")
		if err != nil {
			return nil, err
		}
		f.Close()
		if err := root.MkdirAll("sub/deeper", 0o755); err != nil {
			return nil, err
		}
		if err := root.WriteFile("sub/deeper/file", []byte("x"), 0o644); err != nil {
			return nil, err
		}
		if err := os.Chdir(filepath.Join(a, "sub")); err != nil {
			return nil, err
		}
		if err := os.WriteFile("made-after-chdir", []byte("x"), 0o644); err != nil {
			return nil, err
		}
		return nil, os.Mkdir("dir-after-chdir", 0o755)
	case "root-envrc": // .envrc through os.Root
		root, err := os.OpenRoot(a)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		return nil, root.WriteFile(".envrc", superviseCfg, 0o644)
	case "chdir-git": // .git relative to a changed working directory
		if err := os.Chdir(a); err != nil {
			return nil, err
		}
		return nil, os.Mkdir(".git", 0o755)
	case "forged-answers": // the supervisor's requests for its descriptors answered with B
		// Every unix socket of its own gets answers, each naming the directory B (outside the
		// write grants): 16 sent ahead, numbered as a counter would number requests, and one
		// to each request a goroutine reads (as the child's own answering goroutine would, the
		// two reading in turn); then a file is made through os.Root of A. Unconfined, there is
		// no supervisor: the control makes the file in B directly.
		out, err := unix.Open(r.B, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		defer unix.Close(out)
		sent := 0
		for fd := 3; fd < 256; fd++ {
			if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || typ != unix.SOCK_SEQPACKET {
				continue
			}
			for seq := uint64(1); seq <= 16; seq++ {
				ans := binary.LittleEndian.AppendUint64(nil, seq)
				if unix.Sendmsg(fd, append(ans, 0), unix.UnixRights(out), nil, unix.MSG_DONTWAIT) == nil {
					sent++
				}
			}
			go func() {
				req := make([]byte, 12)
				for {
					n, _, _, _, err := unix.Recvmsg(fd, req, nil, 0)
					if err != nil || n == 0 {
						return
					}
					unix.Sendmsg(fd, append(req[:8:8], 0), unix.UnixRights(out), nil, unix.MSG_DONTWAIT)
				}
			}()
		}
		if sent == 0 {
			return nil, os.WriteFile(filepath.Join(r.B, "forged"), superviseCfg, 0o644)
		}
		root, err := os.OpenRoot(a)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		return nil, root.WriteFile("forged", superviseCfg, 0o644)
	case "socket-number-reused": // the socket pair's number closed and given to a file of its own
		// Then a name made through os.Root of A, whose descriptor the supervisor asks for: the
		// child's answering goroutine finds its socket's number taken. The file must stay open.
		sock := -1
		for fd := 3; fd < 256 && sock < 0; fd++ {
			if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err == nil && typ == unix.SOCK_SEQPACKET {
				sock = fd
			}
		}
		if sock < 0 {
			return nil, errors.New("no socket pair")
		}
		unix.Close(sock)
		file, err := unix.Open(filepath.Join(a, "keep"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		if file != sock {
			return nil, fmt.Errorf("the file got descriptor %d, not the socket's %d", file, sock)
		}
		root, err := os.OpenRoot(a)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		werr := root.WriteFile("after", nil, 0o644)
		if _, err := unix.FcntlInt(uintptr(file), unix.F_GETFD, 0); err != nil {
			return nil, fmt.Errorf("its file at the socket's old number was closed under it (%v); the write: %v", err, werr)
		}
		return []byte(fmt.Sprint(werr)), nil
	case "bare-repo": // a bare repository made of names that are not protected
		for _, d := range []string{"objects", "refs"} {
			if err := os.MkdirAll(filepath.Join(a, d), 0o755); err != nil {
				return nil, err
			}
		}
		if err := os.WriteFile(filepath.Join(a, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			return nil, err
		}
		cfg := fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch %s; false\"\n", r.B)
		return nil, os.WriteFile(filepath.Join(a, "config"), []byte(cfg), 0o644)
	}
	return nil, fmt.Errorf("unknown op %q", r.Op)
}

// childrenOf lists the processes pid started, from /proc/PID/task/*/children.
func childrenOf(pid int) []int {
	var out []int
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// TestSupervisedAttacks: ways around the supervised mode tried from the child's own code. Each
// has an unconfined control in a directory of its own (the attack is real there: it makes or
// writes the protected name); confined, the protected name is neither made nor changed.
func TestSupervisedAttacks(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("attacks on the supervised mode", "denied", "not applicable: "+why, true)
		t.Skip(why)
	}
	type attack struct {
		op, what string
		git      bool                    // the directory holds .git/config ("x") first
		link     bool                    // the directory holds .envrc -> envrc-target ("x") first
		intact   func(dir string) string // what is wrong after the attack, or ""
	}
	noGit := func(dir string) string {
		for _, p := range []string{filepath.Join(dir, ".git"), filepath.Join(dir, "d1", "d2", ".git"), filepath.Join(dir, "tmp", ".git")} {
			if _, err := os.Lstat(p); err == nil {
				return p + " was made"
			}
		}
		return ""
	}
	cfgIntact := func(dir string) string {
		if b, err := os.ReadFile(filepath.Join(dir, ".git", "config")); err != nil || string(b) != "x" {
			return fmt.Sprintf(".git/config holds %q (%v)", b, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git", "hooks")); err == nil {
			return ".git/hooks was made"
		}
		return ""
	}
	noEnvrc := func(dir string) string {
		if _, err := os.Lstat(filepath.Join(dir, ".envrc")); err == nil {
			return ".envrc was made"
		}
		return ""
	}
	attacks := []attack{
		{op: "symlink-into-git", what: "x -> .git, then x/config and x/hooks/post-checkout", git: true, intact: cfgIntact},
		{op: "symlink-to-missing-git", what: "x -> missing .git, then mkdir x/, x/config, open(x, O_CREAT)", intact: noGit},
		{op: "rename-dir-deep", what: "tmp/ with config renamed onto d1/d2/.git/", intact: noGit},
		{op: "rename-parent-away", what: "the directory holding .git renamed away, made again with .git", git: true, intact: func(dir string) string {
			if _, err := os.Stat(dir + "-moved"); err == nil {
				return noGit(dir) + cfgIntact(dir+"-moved")
			}
			return cfgIntact(dir)
		}},
		{op: "rename-git-away", what: "the existing .git renamed away, a new .git/hooks made", git: true, intact: cfgIntact},
		{op: "write-through-symlink", what: "an existing .envrc symlink written through with O_CREAT", link: true, intact: func(dir string) string {
			if b, err := os.ReadFile(filepath.Join(dir, "envrc-target")); err != nil || string(b) != "x" {
				return fmt.Sprintf("envrc-target holds %q (%v)", b, err)
			}
			return ""
		}},
		{op: "hardlink-out", what: "a hard link to .git/config outside .git, written", git: true, intact: cfgIntact},
		{op: "x32-mkdir", what: "mkdir .git through the x32 entry", intact: noGit},
		{op: "mknod-fifo", what: "a FIFO named .envrc (mknod)", intact: noEnvrc},
		{op: "bind-unix", what: "a unix socket bound as .envrc", intact: noEnvrc},
		{op: "io-uring", what: "io_uring_setup (IORING_OP_MKDIRAT and the like)", intact: func(string) string { return "" }},
		{op: "kill-supervisor", what: "SIGKILL to the supervisor, then mkdir .git", intact: noGit},
	}
	ws, mk := protectFixture(t)
	for i, c := range attacks {
		// The control, unconfined.
		control := filepath.Join(t.TempDir(), "w")
		os.MkdirAll(control, 0o755)
		if c.git {
			os.MkdirAll(filepath.Join(control, ".git"), 0o755)
			os.WriteFile(filepath.Join(control, ".git", "config"), []byte("x"), 0o644)
		}
		if c.link {
			os.WriteFile(filepath.Join(control, "envrc-target"), []byte("x"), 0o644)
			os.Symlink("envrc-target", filepath.Join(control, ".envrc"))
		}
		var cerr error
		na := ""
		switch c.op {
		case "kill-supervisor": // a process of its own, started and killed the same way
			sleep := exec.Command("/bin/sh", "-c", "sleep 60; true")
			if cerr = sleep.Start(); cerr == nil {
				for len(childrenOf(sleep.Process.Pid)) == 0 {
					time.Sleep(10 * time.Millisecond) // until sh has started sleep
				}
				_, cerr = runSupervise(superviseReq{Op: c.op, A: control, B: strconv.Itoa(sleep.Process.Pid)})
				sleep.Wait()
				if !strings.Contains(fmt.Sprint(cerr), "killed") {
					cerr = fmt.Errorf("the control killed nothing: %v", cerr)
				} else {
					cerr = nil
				}
			}
		case "x32-mkdir":
			_, cerr = runSupervise(superviseReq{Op: c.op, A: control})
			if errors.Is(cerr, unix.ENOSYS) {
				na = "not applicable: this kernel has no x32 entry"
			}
		case "io-uring":
			_, cerr = runSupervise(superviseReq{Op: c.op, A: control})
			if errors.Is(cerr, unix.ENOSYS) || errors.Is(cerr, unix.EPERM) {
				na = "not applicable: io_uring is off on this kernel"
			}
		default:
			_, cerr = runSupervise(superviseReq{Op: c.op, A: control})
		}
		real := c.intact(control) != ""
		if c.op == "io-uring" || c.op == "kill-supervisor" {
			real = cerr == nil
		}
		ctlOutcome := outcome(nil, cerr)
		if na != "" {
			ctlOutcome = na
		}
		record(c.what+" [unconfined control]", "ok", ctlOutcome, real || na != "")
		if !real && na == "" {
			t.Errorf("control %s: not real: %v (%s)", c.op, cerr, c.intact(control))
		}
		// The attack, confined, in a directory of the write grant.
		dir := filepath.Dir(mk(false, "a"+strconv.Itoa(i), "keep"))
		if c.git {
			mk(false, "a"+strconv.Itoa(i), ".git", "config")
		}
		if c.link {
			mk(false, "a"+strconv.Itoa(i), "envrc-target")
			if err := os.Symlink("envrc-target", filepath.Join(dir, ".envrc")); err != nil {
				t.Fatal(err)
			}
		}
		req, _ := json.Marshal(superviseReq{Op: c.op, A: dir})
		resp, err := Run(ctxTimeout(t, 60*time.Second), "test.supervise", Profile{WritePaths: []string{ws}}, req)
		bad := c.intact(dir)
		if c.op == "io-uring" && err == nil {
			bad = "io_uring_setup succeeded"
		}
		record(c.what+" (supervised)", "refused", outcome(resp, err), err != nil && bad == "")
		if err == nil || bad != "" {
			t.Errorf("%s: %v; %s", c.what, outcome(resp, err), bad)
		}
	}
}

// TestSupervisorGone: the supervisor killed from outside (as a fault or the out-of-memory
// killer would) while the child runs: the calls that make a name then fail, none is carried
// out unchecked. The control makes .git the same way unconfined.
func TestSupervisorGone(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("the supervisor killed, then mkdir .git", "denied", "not applicable: "+why, true)
		t.Skip(why)
	}
	control := t.TempDir()
	os.WriteFile(filepath.Join(control, "go"), nil, 0o644)
	_, err := runSupervise(superviseReq{Op: "supervisor-gone", A: control})
	_, lerr := os.Lstat(filepath.Join(control, ".git"))
	record("the supervisor killed, then mkdir .git [unconfined control]", "ok", outcome(nil, errors.Join(err, lerr)), err == nil && lerr == nil)
	if err != nil || lerr != nil {
		t.Errorf("control: %v %v", err, lerr)
	}
	ws, mk := protectFixture(t)
	dir := filepath.Dir(mk(false, "gone", "keep"))
	done := make(chan struct{})
	var killed int
	go func() {
		defer close(done)
		var pid int
		for pid == 0 { // until the child has written its pid
			b, _ := os.ReadFile(filepath.Join(dir, "pid"))
			pid, _ = strconv.Atoi(string(b))
			time.Sleep(5 * time.Millisecond)
		}
		sups := childrenOf(pid)
		for _, sup := range sups {
			if unix.Kill(sup, unix.SIGKILL) == nil {
				killed++
			}
		}
		for _, sup := range sups { // until each is a zombie (its listener closed) or gone
			for {
				b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", sup))
				if i := bytes.LastIndexByte(b, ')'); err != nil || i >= 0 && len(b) > i+2 && b[i+2] == 'Z' {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	}()
	req, _ := json.Marshal(superviseReq{Op: "supervisor-gone", A: dir})
	resp, err := Run(ctxTimeout(t, 60*time.Second), "test.supervise", Profile{WritePaths: []string{ws}}, req)
	<-done
	_, lerr = os.Lstat(filepath.Join(dir, ".git"))
	ok := err != nil && lerr != nil && killed > 0
	record(fmt.Sprintf("the supervisor killed (%d), then mkdir .git", killed), "failed", outcome(resp, err), ok)
	if !ok {
		t.Errorf("killed %d supervisors; call: %s; .git: %v", killed, outcome(resp, err), lerr)
	}
}

// TestSupervisedBareRepository: a limit of protected names in every mode, documented in
// SECURITY.md. Git takes a directory that holds HEAD, objects/ and refs/ for a repository of its
// own (a bare one; with core.worktree set, one with a working tree), found before the .git of a
// directory above it: none of these names is protected, so a call may make one, and its config
// runs a command at the next git status in that directory or below. The control shows git
// running it; confined, the names are made (the call succeeds).
func TestSupervisedBareRepository(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		record("a repository made of names that are not protected", "made (documented limit)", "not applicable: no git", true)
		t.Skip("no git")
	}
	control := filepath.Join(t.TempDir(), "sub")
	owned := filepath.Join(filepath.Dir(control), "owned")
	_, err = runSupervise(superviseReq{Op: "bare-repo", A: control, B: owned})
	if err == nil {
		cmd := exec.Command(git, "status")
		cmd.Dir = control
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+filepath.Dir(control))
		cmd.Run()
	}
	_, oerr := os.Stat(owned)
	record("a repository made of names that are not protected [unconfined control]", "git runs its config", outcome(nil, errors.Join(err, oerr)), err == nil && oerr == nil)
	if err != nil || oerr != nil {
		t.Errorf("control: %v; git status ran nothing: %v", err, oerr)
	}
	ws, mk := protectFixture(t)
	mk(false, ".git", "config")
	dir := filepath.Join(ws, "sub")
	req, _ := json.Marshal(superviseReq{Op: "bare-repo", A: dir, B: owned})
	resp, err := Run(ctxTimeout(t, 60*time.Second), "test.supervise", Profile{WritePaths: []string{ws}}, req)
	expect(t, "a repository made of names that are not protected (documented limit)", 0, resp, err)
}

// TestSupervisedOwnDescriptors: in the supervised mode, the child's own code makes names
// relative to descriptors of its own (os.Root) and to a working directory it changed, as a tool
// writing its workspace does; protected names are refused that way too. Then an attack: the
// child answers the supervisor's requests for its descriptors itself, naming a directory outside
// its write grants (the control writes there unconfined), and makes a file through os.Root.
func TestSupervisedOwnDescriptors(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("names made relative to the child's own descriptors", "ok", "not applicable: "+why, true)
		t.Skip(why)
	}
	f := newFixture(t)
	prof := Profile{WritePaths: []string{f.rw}}
	run := func(op, a, b string) error {
		req, _ := json.Marshal(superviseReq{Op: op, A: a, B: b})
		resp, err := Run(ctxTimeout(t, 60*time.Second), "test.supervise", prof, req)
		if err != nil {
			return fmt.Errorf("%s", outcome(resp, err))
		}
		return nil
	}
	// The ordinary case.
	ok := filepath.Join(f.rw, "ok")
	if err := os.Mkdir(ok, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		os.Chown(ok, UnprivilegedID, UnprivilegedID)
	}
	err := run("root-ordinary", ok, "")
	record("files made through os.Root and after chdir (supervised)", "ok", outcome(nil, err), err == nil)
	if err != nil {
		t.Fatalf("root-ordinary: %v", err)
	}
	for _, p := range []string{"made-by-root", "sub/deeper/file", "sub/made-after-chdir", "sub/dir-after-chdir"} {
		if _, err := os.Lstat(filepath.Join(ok, p)); err != nil {
			t.Errorf("%s was not made: %v", p, err)
		}
	}
	// Protected names, made the same ways.
	for _, c := range []struct{ op, name string }{{"root-envrc", ".envrc"}, {"chdir-git", ".git"}} {
		control := filepath.Join(t.TempDir(), "w")
		os.MkdirAll(control, 0o755)
		_, cerr := runSupervise(superviseReq{Op: c.op, A: control})
		_, serr := os.Lstat(filepath.Join(control, c.name))
		record(c.op+" [unconfined control]", "ok", outcome(nil, cerr), cerr == nil && serr == nil)
		if cerr != nil || serr != nil {
			t.Errorf("control %s: %v, %v", c.op, cerr, serr)
		}
		dir := filepath.Join(f.rw, c.op)
		os.Mkdir(dir, 0o755)
		if os.Geteuid() == 0 {
			os.Chown(dir, UnprivilegedID, UnprivilegedID)
		}
		err := run(c.op, dir, "")
		_, made := os.Lstat(filepath.Join(dir, c.name))
		record(c.op+" (supervised)", "refused", outcome(nil, err), err != nil && made != nil)
		if err == nil || made == nil {
			t.Errorf("%s: %v; %s made: %v", c.op, err, c.name, made == nil)
		} else if !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: the refusal does not name %s: %v", c.op, c.name, err)
		}
	}
	// The attack. Its control: the same op unconfined, where no supervisor asks, writes in B.
	control := t.TempDir()
	_, cerr := runSupervise(superviseReq{Op: "forged-answers", A: control, B: control})
	_, serr := os.Lstat(filepath.Join(control, "forged"))
	record("forged answers to the supervisor [unconfined control]", "ok", outcome(nil, cerr), cerr == nil && serr == nil)
	if cerr != nil || serr != nil {
		t.Errorf("control: %v, %v", cerr, serr)
	}
	dir := filepath.Join(f.rw, "forged")
	os.Mkdir(dir, 0o755)
	if os.Geteuid() == 0 {
		os.Chown(dir, UnprivilegedID, UnprivilegedID)
	}
	err = run("forged-answers", dir, f.out)
	_, outMade := os.Lstat(filepath.Join(f.out, "forged"))
	record("forged answers to the supervisor: a directory outside the write grants (supervised)", "nothing made there", outcome(nil, err), outMade != nil)
	if outMade == nil {
		t.Errorf("forged-answers made %s: %v", filepath.Join(f.out, "forged"), err)
	}
}

// TestSupervisedSocketNumberReused: a child whose code closed its socket pair with the supervisor
// and opened a file that took the socket's number keeps that file open when the supervisor next
// asks for a descriptor (the answering goroutine once closed the number on its way out).
func TestSupervisedSocketNumberReused(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		t.Skip(why)
	}
	f := newFixture(t)
	dir := filepath.Join(f.rw, "n")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "keep"), []byte("x"), 0o644)
	if os.Geteuid() == 0 {
		os.Chown(dir, UnprivilegedID, UnprivilegedID)
	}
	req, _ := json.Marshal(superviseReq{Op: "socket-number-reused", A: dir})
	resp, err := Run(ctxTimeout(t, 60*time.Second), "test.supervise", Profile{WritePaths: []string{f.rw}}, req)
	if err != nil {
		t.Fatalf("%s", outcome(resp, err))
	}
}
