package confinehook

import (
	"context"
	"sync/atomic"
	"time"
)

// Limits are a confined child's resource limits (zero: the default).
type Limits struct {
	CPUSeconds, MemoryBytes, OpenFiles, FileSizeBytes, Processes, ResponseBytes, TmpBytes, TmpInodes uint64
}

// Spec is what a confined call may reach, with the config's bounds that
// narrow it.
type Spec struct {
	Read, Write, Exec   []string
	ConnectTCP, BindTCP []uint16
	Env                 []string
	Reuse               bool
	ReuseKey            string
	Limits              Limits

	AllowedRoots    []string
	AllowedPorts    []uint16 // nil: no narrowing
	AllowUnconfined bool
	MaxLimits       Limits
}

// Profile is a narrowed Spec, ready to run.
type Profile interface {
	// Hash identifies what the profile grants.
	Hash() string
	// Granted is what the profile grants (paths with their symlinks
	// resolved, limits lowered), without bounds.
	Granted() Spec
}

// Kind says why a confined call failed.
type Kind int

// The kinds of Failure.
const (
	Unavailable Kind = iota + 1
	Denied
	Limit
	Timeout
	Canceled
	Crashed
	Failed
)

// Failure is a confined call's failure as the runner classified it.
type Failure struct {
	Kind Kind
	// What names the operation, limit or message; Stderr is the child's
	// captured output; FromChild says that the child reported it.
	What, Stderr string
	FromChild    bool
	// Err is the runner's own error, whose text Error returns.
	Err error
}

func (f *Failure) Error() string { return f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

// Runner runs confined calls in children of the running binary.
type Runner interface {
	// Available says why confinement cannot be applied here, or nil.
	Available() error
	// Narrow turns a spec into the profile it allows, and says what the
	// bounds dropped or lowered.
	Narrow(Spec) (Profile, []string)
	// Grants is path as a write grant resolves for a child: none when a
	// symlink on the way is not root's.
	Grants(path string) []string
	// Workspace makes the workspace directory, reachable (and writable
	// for write) by the children's user.
	Workspace(dir string, write bool) error
	// Protection words how protected names are kept read-only in write
	// grants here.
	Protection() string
	// Run has a child serve req under the registered handler, from a pool
	// of pool workers when pool > 0. Its errors are *Failure, or another
	// error for what is no confined call's failure.
	Run(ctx context.Context, p Profile, req []byte, pool int) ([]byte, error)
	// Serve serves this process's calls and exits in a confined child;
	// elsewhere it returns at once.
	Serve()
	// Shutdown stops the pre-started workers and removes the temp dirs of
	// confined calls.
	Shutdown()
	// CPU is the CPU time, user and system, this process has used.
	CPU() time.Duration
}

var (
	runner atomic.Pointer[Runner]
	serve  atomic.Pointer[func(context.Context, []byte) ([]byte, error)]
)

// Install makes r the runner of confined calls.
func Install(r Runner) { runner.Store(&r) }

// Installed is the runner, or nil when the host did not link one.
func Installed() Runner {
	if r := runner.Load(); r != nil {
		return *r
	}
	return nil
}

// SetServe is how tooling hands over the function a confined child serves
// calls with.
func SetServe(f func(context.Context, []byte) ([]byte, error)) { serve.Store(&f) }

// Serve runs a confined call in the child, with the function tooling
// handed over.
func Serve(ctx context.Context, req []byte) ([]byte, error) {
	if f := serve.Load(); f != nil {
		return (*f)(ctx, req)
	}
	return nil, errNoServe
}

type hookError string

func (e hookError) Error() string { return string(e) }

const errNoServe = hookError("tooling is not linked into this child")
