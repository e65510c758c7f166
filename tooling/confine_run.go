package tooling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/childmark"
	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/internal/confinehook"
	"github.com/toolexplorer/toolexplorer/tooling/internal/schema"
)

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
	confinehook.SetServe(serveConfined)
}

// inConfinedChild is true in a confined child, where Register defers compiling schemas.
var inConfinedChild = childmark.IsChild()

// confinedEntry serves the child's calls and exits in a confined child;
// elsewhere it returns at once.
func confinedEntry() {
	if cr := confinehook.Installed(); cr != nil {
		cr.Serve()
	} else if inConfinedChild {
		fmt.Fprintln(os.Stderr, "tooling: this program was started as a confined child but does not link package tooling/confined")
		os.Exit(111)
	}
}

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
		meta: &e.tool.Meta, Workspace: q.Workspace, confined: true}
	if c := e.tool.Meta.Confine; c != nil {
		call.programs = c.Exec
	}
	var r confinedResponse
	cr := confinehook.Installed()
	cpuBefore := cr.CPU()
	out, toolErr := func() (out any, err error) {
		defer func() {
			if p := recover(); p != nil {
				r.Panic, r.Stack = fmt.Sprint(p), string(debug.Stack())
			}
		}()
		return e.tool.Run(ctx, call)
	}()
	r.CPU = (cr.CPU() - cpuBefore).Microseconds()
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

// endConfinement stops the pre-started confined workers and removes the
// private temp dirs of confined calls; Main calls it once the host's run
// has returned. A later confined call starts afresh.
func endConfinement() {
	if cr := confinehook.Installed(); cr != nil {
		cr.Shutdown()
	}
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
func (r *Registry) profileOf(cr confinehook.Runner, name string, c *Confinement) (confinehook.Profile, string, []string, error) {
	cfg := r.cfg.Load()
	ws, err := cfg.workspaceDir()
	if err != nil {
		return nil, "", nil, err
	}
	usesWS := func(p string) bool { return strings.HasPrefix(p, "$WORKSPACE") }
	if w := slices.ContainsFunc(c.Write, usesWS); w || slices.ContainsFunc(c.Read, usesWS) {
		if err := cr.Workspace(ws, w); err != nil {
			return nil, "", nil, fmt.Errorf("workspace %s: %w", ws, err)
		}
	}
	// The workspace as it resolves: the configuration names it, so its
	// symlinks are trusted; below it, none is followed (see sandbox/confine's Profile).
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
	spec := confinehook.Spec{Read: read, Write: write, Exec: c.Exec, ConnectTCP: expandPorts(c.ConnectTCP, cfg.Confinement.AllowedPorts), BindTCP: c.BindTCP, Env: c.Env, Reuse: c.Reuse, ReuseKey: name,
		Limits: confineLimits(c.Limits)}
	pol := cfg.Confinement
	// The allowed roots are the config's and the workspace; without any in
	// the config, the workspace and the tool's own programs (each a root of
	// its own, which covers that file alone).
	roots := append(slices.Clone(pol.AllowedRoots), ws)
	if len(pol.AllowedRoots) == 0 {
		roots = append(roots, c.Exec...)
	}
	// An empty list of ports in config means no narrowing; in the
	// bounds a non-nil empty list allows nothing, so it becomes nil.
	if len(pol.AllowedPorts) > 0 {
		spec.AllowedPorts = pol.AllowedPorts
	}
	// The parent holds a response in memory: at most the output cap and
	// room for a follow-up plan or an error's text and stack.
	spec.Limits.ResponseBytes = uint64(max(cfg.MaxOutputBytes, 0)) + responseRoom
	spec.AllowedRoots, spec.AllowUnconfined, spec.MaxLimits = roots, pol.AllowUnconfined, confineLimits(pol.MaxLimits)
	narrowed, dropped := cr.Narrow(spec)
	if err := checkWriteGrants(narrowed.Granted().Write, cfg.Source); err != nil {
		return nil, "", nil, err
	}
	if err := r.checkPrograms(cr, narrowed.Granted().Exec, ws); err != nil {
		return nil, "", nil, err
	}
	return narrowed, ws, dropped, nil
}

// checkPrograms refuses a program (resolved) that lies in a write grant
// of any confined tool of the registry: a program that one tool may
// rewrite is no allow-list for another (sandbox/confine refuses a
// program in the profile's own write grants).
func (r *Registry) checkPrograms(cr confinehook.Runner, programs []string, ws string) error {
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
		for _, w := range cr.Grants(g.path) {
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
func confineLimits(l Limits) confinehook.Limits {
	u := func(v int64) uint64 { return uint64(max(v, 0)) }
	return confinehook.Limits{CPUSeconds: u(int64(l.CPUSeconds)), MemoryBytes: u(l.MemoryBytes), OpenFiles: u(int64(l.OpenFiles)),
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
		res.failf(codes.SandboxUnavailable, "%s is confined, and a confined child serves only the registry handed to tooling.Main, which is another one", e.tool.Name)
		res.Hint = "register confined tools in the registry the host passes to tooling.Main"
		return
	}
	cfg := r.cfg.Load()
	cr := confinehook.Installed()
	if cr == nil {
		why := errNotLinked()
		if !cfg.Confinement.AllowUnconfined {
			res.failf(codes.SandboxUnavailable, "%s needs confinement: %v", e.tool.Name, why)
			res.Hint = notLinkedHint()
			return
		}
		ws, err := cfg.workspaceDir()
		if err == nil {
			err = os.MkdirAll(ws, 0o755)
		}
		if err != nil {
			res.failf(codes.SandboxUnavailable, "%s: workspace %s: %v", e.tool.Name, ws, err)
			return
		}
		r.runUnconfined(parent, runCtx, res, e, call, t, ws, why)
		return
	}
	prof, ws, dropped, err := r.profileOf(cr, e.tool.Name, e.tool.Meta.Confine)
	if err != nil {
		res.failf(codes.SandboxUnavailable, "%s cannot be confined: %v", e.tool.Name, err)
		return
	}
	res.decide("confine", "profile "+prof.Hash())
	for _, d := range dropped {
		res.decide("confine", "narrowed by config: "+d)
	}
	if err := cr.Available(); err != nil {
		if !cfg.Confinement.AllowUnconfined {
			res.failf(codes.SandboxUnavailable, "%s needs confinement, which this machine cannot apply: %v", e.tool.Name, err)
			res.Hint = "run on Linux with landlock (ABI 6 or later) and seccomp, or set confinement.allow_unconfined in the config to run such tools unconfined"
			return
		}
		r.runUnconfined(parent, runCtx, res, e, call, t, ws, err)
		return
	}
	if len(prof.Granted().Write) > 0 {
		res.decide("confine", cr.Protection())
	}
	req, err := jsonenc.Marshal(confinedRequest{Tool: e.tool.Name, CallID: call.ID, Origin: call.Origin, Principal: call.Principal, Consent: call.Consent, Args: call.Raw(), Workspace: ws, MaxOutput: cfg.MaxOutputBytes})
	if err != nil {
		res.failf(codes.ToolError, "%s: the request cannot be encoded: %v", e.tool.Name, err)
		return
	}
	res.ran = true
	start := time.Now()
	e.counters.enterRun()
	out, err := cr.Run(runCtx, prof, req, cfg.Confinement.PoolSize)
	e.counters.running.Add(-1)
	res.Run = time.Since(start)
	if err != nil {
		r.confinedFailed(parent, runCtx, res, e, err)
		return
	}
	var resp confinedResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		res.failf(codes.ToolError, "%s: the confined child answered something unreadable: %v", e.tool.Name, err)
		return
	}
	if resp.CPU > 0 {
		res.decide("cpu", cpuDecision(time.Duration(resp.CPU)*time.Microsecond))
	}
	switch {
	case resp.Panic != "":
		res.failf(codes.Panic, "%s panicked: %s", e.tool.Name, resp.Panic)
		res.Stack = resp.Stack
	case resp.Error != "":
		res.fail(codes.ToolError, resp.Error)
		res.cause = errors.New(resp.Error)
	case resp.TooLarge > 0:
		res.failf(codes.OutputInvalid, "output is %s, over the limit of %s (config max_output_bytes)", byteSize(resp.TooLarge), byteSize(cfg.MaxOutputBytes))
	default:
		if len(resp.Plan) > 0 {
			res.Plan = resp.Plan
		}
		c := r.checkOutput(e, json.RawMessage(resp.Output))
		res.takeOutput(&c)
	}
}

// runUnconfined runs a confined tool's call in the host process, as the
// config allows where confinement cannot be applied (why).
func (r *Registry) runUnconfined(parent, runCtx context.Context, res *Result, e *entry, call Call, t *task, ws string, why error) {
	res.decide("confine", "UNCONFINED: confinement is unavailable here and the config allows unconfined runs ("+why.Error()+")")
	call.Workspace = ws
	r.run(parent, runCtx, res, e, call, t)
}

// errNotLinked says why no confinement is installed.
func errNotLinked() error {
	if runtime.GOOS != "linux" {
		return errors.New("confinement exists on Linux only")
	}
	return errors.New("this program does not link confinement (package tooling/confined)")
}

// notLinkedHint says what to do about errNotLinked.
func notLinkedHint() string {
	if runtime.GOOS != "linux" {
		return "run on Linux, or set confinement.allow_unconfined in the config to run such tools unconfined"
	}
	return `import _ "github.com/toolexplorer/toolexplorer/tooling/confined" in the host's main package to run confined tools`
}

func (r *Registry) confinedFailed(parent, runCtx context.Context, res *Result, e *entry, err error) {
	var ce *confinehook.Failure
	if !errors.As(err, &ce) {
		res.failf(codes.ToolError, "%s: %v", e.tool.Name, err)
		res.cause = err
		return
	}
	res.cause = err
	switch ce.Kind {
	case confinehook.Unavailable:
		res.ran = false
		res.failf(codes.SandboxUnavailable, "%s could not be confined: %s", e.tool.Name, ce.Error())
		if hosted.Load() == nil {
			res.Hint = "a host's main hands over to tooling.Main(reg, run) first thing: confined tools run only then"
		}
	case confinehook.Denied:
		res.failf(codes.SandboxDenied, "%s was denied by the sandbox%s: %s", e.tool.Name, reported(ce), ce.What)
	case confinehook.Limit:
		res.failf(codes.SandboxDenied, "%s was stopped by its %s limit%s", e.tool.Name, ce.What, reported(ce))
	case confinehook.Timeout, confinehook.Canceled:
		r.interrupted(res, parent, runCtx.Err(), true)
	case confinehook.Failed:
		res.fail(codes.ToolError, ce.What)
	default:
		res.failf(codes.Panic, "%s: the confined child died: %s", e.tool.Name, ce.Error())
		res.Stack = ce.Stderr
	}
}

// reported marks what a confined child said of itself: its denials and
// limits are its own account (what runs in the child could write anything).
func reported(ce *confinehook.Failure) string {
	if ce.FromChild {
		return " (as the child reports)"
	}
	return ""
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
		res.failf(codes.SandboxUnavailable, "%s is confined, and a confined child serves only the registry handed to tooling.Main, which is another one", e.tool.Name)
		return
	}
	cr := confinehook.Installed()
	if cr == nil {
		if r.cfg.Load().Confinement.AllowUnconfined {
			res.decide("confine", "would run UNCONFINED, as the config allows: "+errNotLinked().Error())
			return
		}
		res.failf(codes.SandboxUnavailable, "%s needs confinement: %v", e.tool.Name, errNotLinked())
		res.Hint = notLinkedHint()
		return
	}
	prof, _, dropped, err := r.profileOf(cr, e.tool.Name, e.tool.Meta.Confine)
	if err != nil {
		res.failf(codes.SandboxUnavailable, "%s cannot be confined: %v", e.tool.Name, err)
		return
	}
	res.decide("confine", "would pass: profile "+prof.Hash())
	for _, d := range dropped {
		res.decide("confine", "narrowed by config: "+d)
	}
}
