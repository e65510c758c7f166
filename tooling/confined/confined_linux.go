package confined

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
	"github.com/toolexplorer/toolexplorer/tooling/internal/confinehook"
)

// handler is the name the child serves tool calls under.
const handler = "tooling.call"

func init() {
	confine.Handle(handler, confinehook.Serve)
	confinehook.Install(newRunner())
}

func newRunner() *runner {
	return &runner{pools: map[int]*confine.Pool{}, wsReady: map[string]bool{}, wsReachable: map[string]bool{}}
}

type runner struct {
	poolMu sync.Mutex
	pools  map[int]*confine.Pool

	wsMu        sync.Mutex
	wsReady     map[string]bool // made, and handed over on a root host
	wsReachable map[string]bool // made, reachable for reading
}

// profile is a narrowed confine.Profile.
type profile struct{ p confine.Profile }

func (p profile) Hash() string { return p.p.Hash() }

func (p profile) Granted() confinehook.Spec {
	l := p.p.Limits
	return confinehook.Spec{Read: p.p.ReadPaths, Write: p.p.WritePaths, Exec: p.p.Exec, ConnectTCP: p.p.ConnectTCP, BindTCP: p.p.BindTCP,
		Env: p.p.Env, Reuse: p.p.Reuse, ReuseKey: p.p.ReuseKey, Limits: confinehook.Limits{CPUSeconds: l.CPUSeconds, MemoryBytes: l.MemoryBytes,
			OpenFiles: l.OpenFiles, FileSizeBytes: l.FileSizeBytes, Processes: l.Processes, ResponseBytes: l.ResponseBytes, TmpBytes: l.TmpBytes,
			TmpInodes: l.TmpInodes}}
}

func limits(l confinehook.Limits) confine.Limits {
	return confine.Limits{CPUSeconds: l.CPUSeconds, MemoryBytes: l.MemoryBytes, OpenFiles: l.OpenFiles, FileSizeBytes: l.FileSizeBytes,
		Processes: l.Processes, ResponseBytes: l.ResponseBytes, TmpBytes: l.TmpBytes, TmpInodes: l.TmpInodes}
}

func (*runner) Available() error { return confine.Available() }

func (*runner) Narrow(s confinehook.Spec) (confinehook.Profile, []string) {
	p := confine.Profile{ReadPaths: s.Read, WritePaths: s.Write, Exec: s.Exec, ConnectTCP: s.ConnectTCP, BindTCP: s.BindTCP, Env: s.Env,
		Reuse: s.Reuse, ReuseKey: s.ReuseKey, Limits: limits(s.Limits)}
	n, dropped := p.Narrow(confine.Bounds{AllowedRoots: s.AllowedRoots, AllowedPorts: s.AllowedPorts, AllowUnconfined: s.AllowUnconfined,
		MaxLimits: limits(s.MaxLimits)})
	return profile{n}, dropped
}

func (*runner) Grants(path string) []string {
	p, _ := confine.Profile{WritePaths: []string{path}}.Narrow(confine.Bounds{})
	return p.WritePaths
}

func (*runner) Protection() string {
	m, why := confine.ProtectionMode()
	text := "protected names, " + m.String() + " mode: " + m.Promise()
	if why != "" {
		text += " (" + why + ")"
	}
	return text
}

func (r *runner) Run(ctx context.Context, p confinehook.Profile, req []byte, pool int) ([]byte, error) {
	prof := p.(profile).p
	var out []byte
	var err error
	if pool > 0 {
		out, err = r.pool(pool).Run(ctx, handler, prof, req)
	} else {
		out, err = confine.Run(ctx, handler, prof, req)
	}
	var ce *confine.Error
	if err != nil && errors.As(err, &ce) {
		return out, &confinehook.Failure{Kind: kinds[ce.Kind], What: ce.What, Stderr: ce.Stderr, FromChild: ce.FromChild, Err: err}
	}
	return out, err
}

var kinds = map[confine.ErrorKind]confinehook.Kind{
	confine.Unavailable: confinehook.Unavailable, confine.Denied: confinehook.Denied, confine.Limit: confinehook.Limit,
	confine.Timeout: confinehook.Timeout, confine.Canceled: confinehook.Canceled, confine.Crashed: confinehook.Crashed,
	confine.Failed: confinehook.Failed,
}

// pool returns the process-wide pool of confined workers of size n.
func (r *runner) pool(n int) *confine.Pool {
	r.poolMu.Lock()
	defer r.poolMu.Unlock()
	p := r.pools[n]
	if p == nil {
		p = confine.NewPool(n)
		r.pools[n] = p
	}
	return p
}

func (*runner) Serve() { confine.Main() }

func (r *runner) Shutdown() {
	r.poolMu.Lock()
	ps := r.pools
	r.pools = map[int]*confine.Pool{}
	r.poolMu.Unlock()
	for _, p := range ps {
		p.Close()
	}
	confine.Shutdown()
}

func (*runner) CPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var hostIsRoot = os.Geteuid() == 0

// Workspace creates the workspace directory on demand; when the host runs
// as root, children run as an unprivileged user, so the directory is given
// to that user.
func (r *runner) Workspace(dir string, write bool) error {
	r.wsMu.Lock()
	defer r.wsMu.Unlock()
	if r.wsReady[dir] || !write && r.wsReachable[dir] {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if hostIsRoot {
		// The unprivileged user must be able to reach the directory.
		for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
			if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o001 == 0 {
				return fmt.Errorf("confined tools run as uid %d, which cannot reach it: %s is mode %#o; choose a confinement.workspace outside it",
					confine.UnprivilegedID, p, st.Mode().Perm())
			}
			if p == filepath.Dir(p) {
				break
			}
		}
		if !write {
			r.wsReachable[dir] = true
			return nil // reading needs no hand-over
		}
		if err := handOver(dir); err != nil {
			return err
		}
	}
	r.wsReady[dir] = true
	return nil
}

// handOver gives the workspace directory to the children's user. A
// directory that already holds something and belongs to another user is
// never handed over: whatever it holds (a repository, a config file, the
// host's binary) would become the children's to rename or replace. The
// directory is opened without following a symlink and changed through that
// descriptor.
func handOver(dir string) error {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Uid == confine.UnprivilegedID && st.Gid == confine.UnprivilegedID {
		return nil
	}
	if names, _ := f.Readdirnames(1); len(names) > 0 {
		return fmt.Errorf("confined tools run as uid %d and the directory already holds files of uid %d: it is not handed over (choose a new or empty confinement.workspace, or give it to uid %d yourself)",
			confine.UnprivilegedID, st.Uid, confine.UnprivilegedID)
	}
	return f.Chown(confine.UnprivilegedID, confine.UnprivilegedID)
}
