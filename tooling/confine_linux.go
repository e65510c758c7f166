//go:build linux

package tooling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/sandbox/confine"
	"github.com/toolexplorer/toolexplorer/tooling/internal/schema"
)

// confinedHandler is the name the child serves tool calls under.
const confinedHandler = "tooling.call"

// confinedRequest is what the parent sends a confined child.
type confinedRequest struct {
	Tool      string          `json:"tool"`
	CallID    string          `json:"call_id"`
	Origin    Origin          `json:"origin"`
	Principal Principal       `json:"principal,omitzero"`
	Consent   bool            `json:"consent"`
	Args      json.RawMessage `json:"args"`
	Workspace string          `json:"workspace"`
	// MaxOutput is the config's max_output_bytes: the child answers
	// TooLarge instead of a larger output.
	MaxOutput int64 `json:"max_output"`
}

// confinedResponse is what the child answers. A tool error that is a
// permission error is not answered but returned, so that the parent reports
// sandbox_denied.
type confinedResponse struct {
	Output json.RawMessage `json:"output,omitempty"`
	Plan   json.RawMessage `json:"plan,omitempty"`
	Error  string          `json:"error,omitempty"`
	Panic  string          `json:"panic,omitempty"`
	Stack  string          `json:"stack,omitempty"`
	// TooLarge is the size of an output over the request's MaxOutput.
	TooLarge int64 `json:"too_large,omitempty"`
	// CPU is the CPU time, user and system, in microseconds, the child
	// used while the tool ran.
	CPU int64 `json:"cpu_us,omitempty"`
}

func init() {
	confine.Handle(confinedHandler, serveConfined)
}

// inConfinedChild is true in a confined child, where Register defers compiling schemas.
var inConfinedChild = confine.IsChild()

// confinedEntry serves the child's calls and exits in a confined child;
// elsewhere it returns false at once.
func confinedEntry() bool { return confine.Main() }

// serveConfined runs in the confined child: it finds the tool in the
// registry the host handed to Main and runs it.
func serveConfined(ctx context.Context, req []byte) (resp []byte, err error) {
	var q confinedRequest
	if err := json.Unmarshal(req, &q); err != nil {
		return nil, fmt.Errorf("bad request: %v", err)
	}
	// The parent validated the arguments: the tool's schemas are not compiled here.
	e := hostedRegistry().find(q.Tool)
	if e == nil {
		return nil, fmt.Errorf("no tool named %q in the child: the registry handed to tooling.Main must hold the tool before Main is called", q.Tool)
	}
	var args map[string]any
	if v, err := schema.Decode(q.Args); err == nil {
		args, _ = v.(map[string]any)
	}
	if args == nil {
		args = map[string]any{}
	}
	call := Call{ID: q.CallID, Tool: q.Tool, Origin: q.Origin, Principal: q.Principal, Consent: q.Consent, Args: args, raw: q.Args,
		meta: &e.tool.Meta, workspace: q.Workspace, confined: true}
	if c := e.tool.Meta.Confine; c != nil {
		call.programs = c.Exec
	}
	var r confinedResponse
	cpuBefore := cpuTime()
	out, toolErr := func() (out any, err error) {
		defer func() {
			if p := recover(); p != nil {
				r.Panic, r.Stack = fmt.Sprint(p), string(debug.Stack())
			}
		}()
		return e.tool.Run(ctx, call)
	}()
	r.CPU = (cpuTime() - cpuBefore).Microseconds()
	switch {
	case r.Panic != "":
	case toolErr != nil && (errors.Is(toolErr, fs.ErrPermission) || errors.Is(toolErr, syscall.EPERM) || errors.Is(toolErr, syscall.EACCES) ||
		errors.Is(toolErr, syscall.EMFILE) || errors.Is(toolErr, syscall.EFBIG) || errors.Is(toolErr, syscall.ENOSPC) ||
		errors.Is(toolErr, syscall.EROFS) || errors.Is(toolErr, syscall.EBUSY)): // EROFS, EBUSY: a protected name's read-only mount
		return nil, toolErr
	case toolErr != nil:
		r.Error = toolErr.Error()
	default:
		if f, ok := out.(Followup); ok {
			out = f.Output
			if f.Plan != nil {
				r.Plan, _ = jsonenc.Marshal(f.Plan)
			}
		}
		b, err := jsonenc.Marshal(out)
		switch {
		case err != nil:
			r.Error = fmt.Sprintf("output cannot be encoded as JSON: %v", err)
		case q.MaxOutput > 0 && int64(len(b)) > q.MaxOutput:
			r.TooLarge, r.Plan = int64(len(b)), nil
		default:
			r.Output = b
		}
	}
	return jsonenc.Marshal(r)
}

var (
	poolMu      sync.Mutex
	pools       = map[int]*confine.Pool{}
	wsMu        sync.Mutex
	wsReady     = map[string]bool{} // made, and handed over on a root host
	wsReachable = map[string]bool{} // made, reachable for reading
	hostIsRoot  = os.Geteuid() == 0
)

// endConfinement stops the pre-started confined workers and removes the
// private temp dirs of confined calls; Main calls it once the host's run
// has returned. A later confined call starts afresh.
func endConfinement() {
	poolMu.Lock()
	ps := pools
	pools = map[int]*confine.Pool{}
	poolMu.Unlock()
	for _, p := range ps {
		p.Close()
	}
	confine.Shutdown()
}

// confinePool returns the process-wide pool of confined workers of size n.
func confinePool(n int) *confine.Pool {
	poolMu.Lock()
	defer poolMu.Unlock()
	p := pools[n]
	if p == nil {
		p = confine.NewPool(n)
		pools[n] = p
	}
	return p
}

// workspace creates the workspace directory on demand; when the host runs
// as root, children run as an unprivileged user, so the directory is given
// to that user.
func workspace(dir string, write bool) error {
	wsMu.Lock()
	defer wsMu.Unlock()
	if wsReady[dir] || !write && wsReachable[dir] {
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
			wsReachable[dir] = true
			return nil // reading needs no hand-over
		}
		if err := handOver(dir); err != nil {
			return err
		}
	}
	wsReady[dir] = true
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

// checkWriteGrants refuses write grants that hold the config file or the
// host's executable: a child could rewrite what the next start reads or
// runs.
func checkWriteGrants(write []string, configFile string) error {
	if len(write) == 0 {
		return nil
	}
	var guarded []string
	if configFile != "" {
		guarded = append(guarded, configFile)
	}
	if exe, err := hostExecutable(); err == nil {
		guarded = append(guarded, exe)
	}
	for _, g := range guarded {
		if abs, err := filepath.Abs(g); err == nil {
			g = abs
		}
		if real, err := filepath.EvalSymlinks(g); err == nil {
			g = real
		}
		for _, w := range write {
			if g == w || strings.HasPrefix(g, strings.TrimSuffix(w, "/")+"/") {
				return fmt.Errorf("the write path %s holds %s, which a confined tool must not change; keep the config file and the program outside the workspace and the write paths", w, g)
			}
		}
	}
	return nil
}

// hostExecutable is the running program's path (the kernel's, with its
// symlinks resolved), which cannot change while it runs.
var hostExecutable = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return exe, nil
})

// profileOf turns tool name's Confinement into a profile narrowed by the
// config's confinement bounds, with $WORKSPACE expanded.
func (r *Registry) profileOf(name string, c *Confinement) (confine.Profile, string, []string, error) {
	cfg := r.cfg.Load()
	ws, err := cfg.workspaceDir()
	if err != nil {
		return confine.Profile{}, "", nil, err
	}
	usesWS := func(p string) bool { return strings.HasPrefix(p, "$WORKSPACE") }
	if w := slices.ContainsFunc(c.Write, usesWS); w || slices.ContainsFunc(c.Read, usesWS) {
		if err := workspace(ws, w); err != nil {
			return confine.Profile{}, "", nil, fmt.Errorf("workspace %s: %w", ws, err)
		}
	}
	// The workspace as it resolves: the configuration names it, so its
	// symlinks are trusted; below it, none is followed (see confine.Profile).
	// Resolved on every call that names a path (a link on the way may be
	// changed); a tool that names none needs no workspace.
	if len(c.Read)+len(c.Write)+len(c.Exec) > 0 {
		if real, err := filepath.EvalSymlinks(ws); err == nil {
			ws = real
		}
	}
	expand := func(paths []string) []string {
		out := make([]string, len(paths))
		for i, p := range paths {
			if rest, ok := strings.CutPrefix(p, "$WORKSPACE"); ok {
				p = ws + rest
			}
			out[i] = p
		}
		return out
	}
	read, write := expand(c.Read), expand(c.Write)
	p := confine.Profile{ReadPaths: read, WritePaths: write, Exec: c.Exec, ConnectTCP: expandPorts(c.ConnectTCP, cfg.Confinement.AllowedPorts), BindTCP: c.BindTCP, Env: c.Env, Reuse: c.Reuse, ReuseKey: name,
		Limits: confineLimits(c.Limits)}
	pol := cfg.Confinement
	// The allowed roots are the config's and the workspace; without any in
	// the config, the workspace and the tool's own programs (each a root of
	// its own, which covers that file alone).
	roots := append(slices.Clone(pol.AllowedRoots), ws)
	if len(pol.AllowedRoots) == 0 {
		roots = append(roots, c.Exec...)
	}
	// An empty list of ports in config means no narrowing; in
	// confine.Bounds a non-nil empty list allows nothing, so it becomes nil.
	var ports []uint16
	if len(pol.AllowedPorts) > 0 {
		ports = pol.AllowedPorts
	}
	// The parent holds a response in memory: at most the output cap and
	// room for a follow-up plan or an error's text and stack.
	p.Limits.ResponseBytes = uint64(max(cfg.MaxOutputBytes, 0)) + responseRoom
	narrowed, dropped := p.Narrow(confine.Bounds{AllowedRoots: roots, AllowedPorts: ports, AllowUnconfined: pol.AllowUnconfined,
		MaxLimits: confineLimits(pol.MaxLimits)})
	if err := checkWriteGrants(narrowed.WritePaths, cfg.Source); err != nil {
		return confine.Profile{}, "", nil, err
	}
	if err := r.checkPrograms(narrowed.Exec, ws); err != nil {
		return confine.Profile{}, "", nil, err
	}
	return narrowed, ws, dropped, nil
}

// checkPrograms refuses a program (resolved) that lies in a write grant
// of any confined tool of the registry: a program that one tool may
// rewrite is no allow-list for another (sandbox/confine refuses a
// program in the profile's own write grants).
func (r *Registry) checkPrograms(programs []string, ws string) error {
	if len(programs) == 0 {
		return nil
	}
	type grant struct{ tool, path string }
	var grants []grant
	r.mu.RLock()
	for name, e := range r.tools {
		if c := e.tool.Meta.Confine; c != nil {
			for _, w := range c.Write {
				if rest, ok := strings.CutPrefix(w, "$WORKSPACE"); ok {
					w = ws + rest
				}
				grants = append(grants, grant{name, w})
			}
		}
	}
	r.mu.RUnlock()
	for _, g := range grants {
		// The path as a child of that tool is granted it (symlinks that
		// are not root's are not followed: such a grant is dropped).
		p, _ := confine.Profile{WritePaths: []string{g.path}}.Narrow(confine.Bounds{})
		for _, w := range p.WritePaths {
			for _, prog := range programs {
				if prog == w || strings.HasPrefix(prog, strings.TrimSuffix(w, "/")+"/") {
					return fmt.Errorf("the program %s lies in the write path %s of the confined tool %s, which could replace it: a program a confined tool may rewrite is not an allow-list; keep programs outside every write path", prog, w, g.tool)
				}
			}
		}
	}
	return nil
}

// confineLimits is l as the limits of a confined child (Register and
// Configure refuse negative fields).
func confineLimits(l Limits) confine.Limits {
	u := func(v int64) uint64 { return uint64(max(v, 0)) }
	return confine.Limits{CPUSeconds: u(int64(l.CPUSeconds)), MemoryBytes: u(l.MemoryBytes), OpenFiles: u(int64(l.OpenFiles)),
		FileSizeBytes: u(l.FileSizeBytes), Processes: u(int64(l.Processes)), TmpBytes: u(l.TmpBytes), TmpInodes: u(int64(l.TmpInodes))}
}

// responseRoom is what a confined child's response may hold besides the
// output: a follow-up plan, an error's text, a panic's stack.
const responseRoom = 1 << 20

// expandPorts replaces a 0 in a tool's ports by every port of the config's
// allowed ports (nothing when there are none), without duplicates.
func expandPorts(ports, allowed []uint16) []uint16 {
	if !slices.Contains(ports, 0) {
		return ports
	}
	var out []uint16
	add := func(p uint16) {
		if p != 0 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range ports {
		if p != 0 {
			add(p)
			continue
		}
		for _, a := range allowed {
			add(a)
		}
	}
	return out
}

// runConfined runs a confined tool's call in a child and reports it.
func (r *Registry) runConfined(parent, runCtx context.Context, res *Result, e *entry, call Call, t *task) {
	defer t.release()
	if h := hosted.Load(); h != nil && h != r {
		res.failf(CodeSandboxUnavailable, "%s is confined, and a confined child serves only the registry handed to tooling.Main, which is another one", e.tool.Name)
		res.Hint = "register confined tools in the registry the host passes to tooling.Main"
		return
	}
	prof, ws, dropped, err := r.profileOf(e.tool.Name, e.tool.Meta.Confine)
	if err != nil {
		res.failf(CodeSandboxUnavailable, "%s cannot be confined: %v", e.tool.Name, err)
		return
	}
	res.decide("confine", "profile "+prof.Hash())
	for _, d := range dropped {
		res.decide("confine", "narrowed by config: "+d)
	}
	cfg := r.cfg.Load()
	if err := confine.Available(); err != nil {
		if !cfg.Confinement.AllowUnconfined {
			res.failf(CodeSandboxUnavailable, "%s needs confinement, which this machine cannot apply: %v", e.tool.Name, err)
			res.Hint = "run on Linux with landlock (ABI 6 or later) and seccomp, or set confinement.allow_unconfined in the config to run such tools unconfined"
			return
		}
		res.decide("confine", "UNCONFINED: confinement is unavailable here and the config allows unconfined runs ("+err.Error()+")")
		call.workspace = ws
		r.run(parent, runCtx, res, e, call, t)
		return
	}
	if len(prof.WritePaths) > 0 {
		m, why := confine.ProtectionMode()
		text := "protected names, " + m.String() + " mode: " + m.Promise()
		if why != "" {
			text += " (" + why + ")"
		}
		res.decide("confine", text)
	}
	req, err := jsonenc.Marshal(confinedRequest{Tool: e.tool.Name, CallID: call.ID, Origin: call.Origin, Principal: call.Principal, Consent: call.Consent, Args: call.Raw(), Workspace: ws, MaxOutput: cfg.MaxOutputBytes})
	if err != nil {
		res.failf(CodeToolError, "%s: the request cannot be encoded: %v", e.tool.Name, err)
		return
	}
	res.ran = true
	start := time.Now()
	e.counters.enterRun()
	var out []byte
	if n := cfg.Confinement.PoolSize; n > 0 {
		out, err = confinePool(n).Run(runCtx, confinedHandler, prof, req)
	} else {
		out, err = confine.Run(runCtx, confinedHandler, prof, req)
	}
	e.counters.running.Add(-1)
	res.Run = time.Since(start)
	if err != nil {
		r.confinedFailed(parent, runCtx, res, e, err)
		return
	}
	var resp confinedResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		res.failf(CodeToolError, "%s: the confined child answered something unreadable: %v", e.tool.Name, err)
		return
	}
	if resp.CPU > 0 {
		res.decide("cpu", cpuDecision(time.Duration(resp.CPU)*time.Microsecond))
	}
	switch {
	case resp.Panic != "":
		res.failf(CodePanic, "%s panicked: %s", e.tool.Name, resp.Panic)
		res.Stack = resp.Stack
	case resp.Error != "":
		res.fail(CodeToolError, resp.Error)
		res.cause = errors.New(resp.Error)
	case resp.TooLarge > 0:
		res.failf(CodeOutputInvalid, "output is %s, over the limit of %s (config max_output_bytes)", byteSize(resp.TooLarge), byteSize(cfg.MaxOutputBytes))
	default:
		if len(resp.Plan) > 0 {
			res.Plan = resp.Plan
		}
		c := r.checkOutput(e, json.RawMessage(resp.Output))
		res.takeOutput(&c)
	}
}

func (r *Registry) confinedFailed(parent, runCtx context.Context, res *Result, e *entry, err error) {
	var ce *confine.Error
	if !errors.As(err, &ce) {
		res.failf(CodeToolError, "%s: %v", e.tool.Name, err)
		res.cause = err
		return
	}
	res.cause = err
	switch ce.Kind {
	case confine.Unavailable:
		res.ran = false
		res.failf(CodeSandboxUnavailable, "%s could not be confined: %s", e.tool.Name, ce.Error())
		if hosted.Load() == nil {
			res.Hint = "a host's main hands over to tooling.Main(reg, run) first thing: confined tools run only then"
		}
	case confine.Denied:
		res.failf(CodeSandboxDenied, "%s was denied by the sandbox%s: %s", e.tool.Name, reported(ce), ce.What)
	case confine.Limit:
		res.failf(CodeSandboxDenied, "%s was stopped by its %s limit%s", e.tool.Name, ce.What, reported(ce))
	case confine.Timeout, confine.Canceled:
		r.interrupted(res, parent, runCtx.Err(), true)
	case confine.Failed:
		res.fail(CodeToolError, ce.What)
	default:
		res.failf(CodePanic, "%s: the confined child died: %s", e.tool.Name, ce.Error())
		res.Stack = ce.Stderr
	}
}

// reported marks what a confined child said of itself: its denials and
// limits are its own account (what runs in the child could write anything).
func reported(ce *confine.Error) string {
	if ce.FromChild {
		return " (as the child reports)"
	}
	return ""
}

// cpuTime is the CPU time, user and system, the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuDecision words the "cpu" decision of a confined call: the duration
// first, as time.Duration writes it, so that a budget can read it back.
func cpuDecision(d time.Duration) string {
	return d.String() + " of CPU in the confined child"
}

// explainConfine is the confinement step of Explain: the profile the call
// would run under and its hash.
func (r *Registry) explainConfine(res *Result, e *entry) {
	if h := hosted.Load(); h != nil && h != r {
		res.failf(CodeSandboxUnavailable, "%s is confined, and a confined child serves only the registry handed to tooling.Main, which is another one", e.tool.Name)
		return
	}
	prof, _, dropped, err := r.profileOf(e.tool.Name, e.tool.Meta.Confine)
	if err != nil {
		res.failf(CodeSandboxUnavailable, "%s cannot be confined: %v", e.tool.Name, err)
		return
	}
	res.decide("confine", "would pass: profile "+prof.Hash())
	for _, d := range dropped {
		res.decide("confine", "narrowed by config: "+d)
	}
}
