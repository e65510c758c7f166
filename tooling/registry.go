package tooling

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/sandbox"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/idempotency"
	"github.com/toolexplorer/toolexplorer/tooling/internal/schema"
)

// Registry holds tools and runs them. The zero value is not usable: use
// NewRegistry, or the package-level functions, which use Default.
type Registry struct {
	mu      sync.RWMutex
	tools   map[string]*entry
	exports map[string]string // toolname.Export(name) -> name, to keep exported names unique
	sorted  []*entry          // nil when a registration made it stale
	index   *nameIndex        // built by the first miss; nil when a registration made it stale

	cfg atomic.Pointer[Settings] // with its defaults spelled out
	// audit are the synchronous hooks of every call (Audit).
	audit audits
	// states are the hooks of the changes of tool states only
	// (internal/toolstates), which no call reports to.
	states audits

	consent consents

	middleware []Middleware                      // in the order of Use
	chain      atomic.Pointer[Handler]           // middleware around proceed; nil without middleware
	dryChain   atomic.Pointer[dryChain]          // the middleware Explain consults; nil without middleware
	planChain  atomic.Pointer[Handler]           // the middleware that plan (internal/batch); nil without one
	authz      atomic.Pointer[Authorizer]        // SetAuthorizer; nil without one
	idem       atomic.Pointer[idempotency.Store] // SetIdempotencyStore; nil until a keyed call makes the in-memory one

	slots       *sandbox.Slots
	releaseSlot func() // slots.Release, made once: a method value allocates
	locks       *sandbox.Locks
	shared      sharedKeys // the keys of Exclusive tools with Meta.Parallel above one
	buckets     *sandbox.Buckets

	stateMu sync.Mutex // orders the changes of tools' states

	prefix    string
	seq       atomic.Uint64
	inFlight  atomic.Int64
	abandoned atomic.Int64
}

// entry is a registered tool with what Register compiled for it.
type entry struct {
	tool     Tool
	in, out  *schema.Schema
	haystack string    // lower-case name, title, description and parameter names
	deferred bool      // a confined child's: schemas not compiled, search text not built; ready does both
	once     sync.Once // ready's
	disabled atomic.Bool
	// runState is the state SetState gave the tool, cfgState the config's
	// (Override.State); nil when none.
	runState, cfgState atomic.Pointer[toolState]
	pol                atomic.Pointer[toolPolicy]
	counters           toolCounters
}

// defaultRegistry is the one Default returns.
var defaultRegistry = NewRegistry()

// Default returns the registry that Register, ExecuteTool and Main (given
// nil) use: one registry for the process, made at start-up, that no
// package can replace.
func Default() *Registry { return defaultRegistry }

// NewRegistry returns an empty registry with the default Settings.
func NewRegistry() *Registry {
	// The prefix keeps the call ids of registries and processes apart; it is
	// no secret. It comes from the runtime's generator: crypto/rand's first
	// read sets up a DRBG and a timer, which every process would pay at start,
	// confined children included (a registry is made in package
	// initialisation, for Default).
	cfg := Settings{}.WithDefaults()
	r := &Registry{tools: make(map[string]*entry), exports: make(map[string]string), prefix: fmt.Sprintf("%08x-", rand.Uint32()),
		slots: sandbox.NewSlots(cfg.MaxConcurrent), locks: sandbox.NewLocks(), buckets: sandbox.NewBuckets()}
	r.releaseSlot = r.slots.Release
	r.cfg.Store(&cfg)
	return r
}

// mainThread is the scheduler of MainThread tools: the process-wide one,
// which Main hands the process main thread.
func (r *Registry) mainThread() *sandbox.MainThread { return sandbox.Main }

// RegisterError says why a tool cannot be registered.
type RegisterError struct {
	Tool     string
	Problems []string
}

func (e *RegisterError) Error() string {
	return fmt.Sprintf("tooling: Register(%q): %s", e.Tool, strings.Join(e.Problems, "; "))
}

// Register adds tools to the Default registry. It is meant for init() (or
// a host's main, for tools a constructor built) and panics on a bad name, a
// duplicate, a schema that does not compile or is not an object, or
// metadata that contradicts itself; the message names the tool and the fix.
func Register(tools ...Tool) { defaultRegistry.Register(tools...) }

// Register adds tools to r, panicking as the package-level Register does
// (and on a confined tool once tooling.Main hosts another registry: see
// Add). The tools before a bad one are added.
func (r *Registry) Register(tools ...Tool) {
	entries, problems := newEntries(tools)
	for i, e := range entries {
		if len(problems[i]) > 0 {
			panic(&RegisterError{Tool: tools[i].Name, Problems: problems[i]})
		}
		if err := r.unhosted(&tools[i]); err != nil {
			panic(err)
		}
		if err := r.insert(e); err != nil {
			panic(err)
		}
	}
}

// parallelFrom is the smallest batch of tools whose schemas newEntries
// compiles on several goroutines.
const parallelFrom = 16

// newEntries builds the entries of tools, as newEntry does, on up to
// GOMAXPROCS goroutines for a large batch (a gateway's or a tools file's
// thousands of tools): compiling a schema is the whole cost of adding a tool,
// and each compiles on its own.
func newEntries(tools []Tool) ([]*entry, [][]string) {
	entries := make([]*entry, len(tools))
	problems := make([][]string, len(tools))
	workers := min(runtime.GOMAXPROCS(0), len(tools)/parallelFrom+1)
	if workers <= 1 {
		for i, t := range tools {
			entries[i], problems[i] = newEntry(t)
		}
		return entries, problems
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(tools) {
					return
				}
				entries[i], problems[i] = newEntry(tools[i])
			}
		})
	}
	wg.Wait()
	return entries, problems
}

// notHosted is why a confined tool cannot be added to a registry other
// than the one Main hosts, once Main runs.
const notHosted = "it is confined, and a confined child serves only the registry handed to tooling.Main, which is another one: register it there"

// unhosted refuses a confined tool once Main hosts another registry than
// r; nil otherwise.
func (r *Registry) unhosted(t *Tool) error {
	if t.Meta.Confine != nil {
		if h := hosted.Load(); h != nil && h != r {
			return &RegisterError{Tool: t.Name, Problems: []string{notHosted}}
		}
	}
	return nil
}

// Add adds t to r, or returns a *RegisterError saying every problem found.
//
// Once tooling.Main runs, a confined tool (Meta.Confine) is refused by
// every registry but the one Main was handed: Add and Replace return the
// error, Register panics with it. Before Main, any registry takes it, and
// its calls end sandbox_unavailable unless that registry is the one
// handed to Main.
func (r *Registry) Add(t Tool) error {
	e, problems := newEntry(t)
	if len(problems) > 0 {
		return &RegisterError{Tool: t.Name, Problems: problems}
	}
	if err := r.unhosted(&t); err != nil {
		return err
	}
	return r.insert(e)
}

func (r *Registry) insert(e *entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.insertLocked(e)
}

// insertLocked adds e, r.mu held.
func (r *Registry) insertLocked(e *entry) error {
	t := e.tool
	if _, dup := r.tools[t.Name]; dup {
		return &RegisterError{Tool: t.Name, Problems: []string{"a tool with this name is already registered: rename one of them (is the package imported twice under different paths?)"}}
	}
	exported := toolname.Export(t.Name)
	if other, clash := r.exports[exported]; clash {
		return &RegisterError{Tool: t.Name, Problems: []string{fmt.Sprintf("its exported name %q is already the exported name of %q: models could not tell them apart; rename one", exported, other)}}
	}
	if _, clash := r.tools[exported]; clash {
		return &RegisterError{Tool: t.Name, Problems: []string{fmt.Sprintf("its exported name %q is the name of another tool: rename one", exported)}}
	}
	if rk := t.Meta.Rate; !rk.unlimited() && rk.Key != "" {
		for _, o := range r.tools {
			or := o.tool.Meta.Rate
			if or.Key == rk.Key && !or.unlimited() && (or.PerMinute != rk.PerMinute || max(or.Burst, 1) != max(rk.Burst, 1)) {
				return &RegisterError{Tool: t.Name, Problems: []string{fmt.Sprintf("Meta.Rate %s shares the bucket %q with %s, which declares %s: tools sharing a bucket must declare the same rate", rk, rk.Key, o.tool.Name, or)}}
			}
		}
	}
	e.pol.Store(policyFor(e, r.cfg.Load()))
	r.tools[t.Name] = e
	r.exports[exported] = t.Name
	r.stale()
	return nil
}

func newEntry(t Tool) (*entry, []string) { return newEntryWith(t, true) }

// newEntryWith compiles t; strictName applies the "group.name" grammar of
// Go tools (preview tools keep MCP names).
func newEntryWith(t Tool, strictName bool) (*entry, []string) {
	var problems []string
	if strictName {
		if p := checkName(t.Name); p != "" {
			problems = append(problems, p)
		}
	}
	if t.Run == nil {
		problems = append(problems, "Run is nil: give the tool a Run func")
	}
	problems = append(problems, t.Meta.check()...)
	e := &entry{tool: t}
	if inConfinedChild {
		// A confined child runs only init() and the tool's Run, with arguments its parent
		// validated: compiling every schema there would only slow each child's start.
		e.deferred = true
		return e, problems
	}
	// A compiled schema keeps what calls need, not the library's schema
	// graph: a registry of many tools keeps little more than their search
	// text and quick checks, called or not (see schema.Schema).
	problems = append(problems, e.compile()...)
	return e, problems
}

// compile compiles the tool's schemas and builds its search text.
func (e *entry) compile() (problems []string) {
	problems = e.compileSchemas()
	t := e.tool
	var hay strings.Builder
	hay.WriteString(strings.ToLower(t.Name + "\x00" + t.Title + "\x00" + t.Description))
	if e.in != nil {
		for _, p := range e.in.Params() {
			hay.WriteString("\x00" + strings.ToLower(p))
		}
	}
	e.haystack = hay.String()
	return problems
}

// compileSchemas compiles the tool's input and output schemas.
func (e *entry) compileSchemas() (problems []string) {
	t := e.tool
	in := t.Input
	if len(in) == 0 {
		in = schema.EmptyObject
	}
	var err error
	if e.in, err = schema.Compile(t.Name, "input", in, true); err != nil {
		problems = append(problems, err.Error())
	}
	if len(t.Output) > 0 {
		if e.out, err = schema.Compile(t.Name, "output", t.Output, false); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return problems
}

// ready compiles a deferred entry's schemas and search text on first use (in a confined
// child, where a tool may still call ExecuteTool or list tools). Should a schema not compile
// there, the entry takes no arguments rather than holding no schema.
func (e *entry) ready() *entry {
	if e != nil && e.deferred {
		e.once.Do(func() {
			e.compile()
			if e.in == nil {
				e.in, _ = schema.Compile(e.tool.Name, "input", schema.EmptyObject, true)
			}
		})
	}
	return e
}

// Replace removes the named tools and adds tools in one step: a call that
// starts meanwhile sees the registry before or after, never between. Each
// tool is checked as Add checks it; if any is refused, or a name to remove
// is not registered, nothing changes and the error (errors.Join of
// *RegisterError, one per refused tool) says why. Calls already running on
// a removed tool finish. For embedders that load, reload and unload
// tools (Replace(names, nil) removes).
func (r *Registry) Replace(remove []string, tools []Tool) error {
	entries, problems := newEntries(tools)
	var errs []error
	for i, t := range tools {
		if len(problems[i]) > 0 {
			errs = append(errs, &RegisterError{Tool: t.Name, Problems: problems[i]})
		} else if err := r.unhosted(&tools[i]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	removed := make([]*entry, 0, len(remove))
	for _, name := range remove {
		e, ok := r.tools[name]
		if !ok {
			errs = append(errs, &RegisterError{Tool: name, Problems: []string{"Replace: no tool with this name is registered, so it cannot be removed"}})
			continue
		}
		removed = append(removed, e)
		delete(r.tools, name)
		delete(r.exports, toolname.Export(name))
	}
	var added []*entry
	if len(errs) == 0 {
		for _, e := range entries {
			if err := r.insertLocked(e); err != nil {
				errs = append(errs, err)
				continue
			}
			added = append(added, e)
		}
	}
	if len(errs) > 0 {
		for _, e := range added {
			delete(r.tools, e.tool.Name)
			delete(r.exports, toolname.Export(e.tool.Name))
		}
		for _, e := range removed {
			r.tools[e.tool.Name] = e
			r.exports[toolname.Export(e.tool.Name)] = e.tool.Name
		}
		return errors.Join(errs...)
	}
	r.stale()
	return nil
}

// lookup finds a tool by name or by its exported spelling, its schemas
// compiled.
func (r *Registry) lookup(name string) *entry { return r.find(name).ready() }

// find finds a tool as lookup does, without compiling a deferred entry's
// schemas: for a confined child serving a call its parent validated.
func (r *Registry) find(name string) *entry {
	if len(name) > maxLookupLen {
		return nil // no tool has so long a name: not worth hashing
	}
	r.mu.RLock()
	e := r.tools[name]
	r.mu.RUnlock()
	if e == nil && strings.Contains(name, "__") {
		r.mu.RLock()
		e = r.tools[toolname.ParseExport(name)]
		r.mu.RUnlock()
	}
	return e
}

// Lookup returns the tool registered under name (or its exported
// spelling, "." as "__"). The returned Tool shares its slices with the registry: do not modify them.
func (r *Registry) Lookup(name string) (Tool, bool) {
	if e := r.lookup(name); e != nil {
		return e.tool, true
	}
	return Tool{}, false
}

func (r *Registry) entries() []*entry {
	r.mu.RLock()
	s := r.sorted
	r.mu.RUnlock()
	if s != nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sortedLocked()
}

// sortedLocked is entries with r.mu held for writing.
func (r *Registry) sortedLocked() []*entry {
	if r.sorted == nil {
		s := make([]*entry, 0, len(r.tools))
		for _, e := range r.tools {
			if e.deferred {
				e.ready() // its search text
			}
			s = append(s, e)
		}
		sort.Slice(s, func(i, j int) bool { return s[i].tool.Name < s[j].tool.Name })
		r.sorted = s
	}
	return r.sorted
}

// names returns the names of every registered tool, sorted.
// stale drops what was derived from the set of tools; r.mu is held.
func (r *Registry) stale() { r.sorted, r.index = nil, nil }

func (r *Registry) names() []string {
	es := r.entries()
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.tool.Name
	}
	return out
}

// Filter selects tools in List. The zero Filter selects every tool.
type Filter struct {
	// Text: every word must occur (case-insensitive) in the name, title,
	// description or a parameter name.
	Text string
	// Tags: the tool must have every one.
	Tags []string
	// Effects: the tool must have at least one of these effects. Zero: any.
	Effects Effects
	// Concurrency: the tool's must be one of these. Empty: any.
	Concurrency []Concurrency
	// Safety: the tool's effective risk must be at least this. Zero: any.
	Safety Safety
	// Origin: the tool must allow calls from this origin. Zero: any.
	Origin Origin
}

// List returns the tools f selects, sorted by name: the zero Filter lists
// every tool. When ctx carries a principal (ContextWithPrincipal) and the
// registry has an Authorizer, only the tools it shows that principal
// (Visible, for f.Origin or OriginApp) are listed.
func (r *Registry) List(ctx context.Context, f Filter) []Tool {
	words := strings.Fields(strings.ToLower(f.Text))
	var out []Tool
	az := r.authz.Load()
	who, hasWho := PrincipalFromContext(ctx)
	origin := f.Origin
	if origin == "" {
		origin = OriginApp
	}
	for _, e := range r.entries() {
		if !e.matches(ctx, r, f, words) {
			continue
		}
		if az != nil && hasWho && !visible(*az, who, origin, &e.tool) {
			continue
		}
		out = append(out, e.tool)
	}
	return out
}

func (e *entry) matches(ctx context.Context, r *Registry, f Filter, words []string) bool {
	for _, w := range words {
		if !strings.Contains(e.haystack, w) {
			return false
		}
	}
	m := &e.tool.Meta
	for _, tag := range f.Tags {
		if !containsString(m.Tags, tag) {
			return false
		}
	}
	if f.Effects != 0 && m.Effects&f.Effects == 0 {
		return false
	}
	if len(f.Concurrency) > 0 {
		ok := false
		for _, c := range f.Concurrency {
			ok = ok || c.canonical() == m.Concurrency
		}
		if !ok {
			return false
		}
	}
	if min := f.Safety.canonical(); min != SafetyAuto && m.EffectiveSafety().rank() < min.rank() {
		return false
	}
	if f.Origin != "" && !m.allowsOrigin(f.Origin) {
		return false
	}
	return true
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Availability says whether the tool can run now for origin (OriginApp when
// empty): nil, or an *Error with code not_found, disabled, origin_denied or
// unavailable.
func (r *Registry) Availability(ctx context.Context, name string, origin Origin) error {
	e := r.lookup(name)
	if e == nil {
		return r.notFoundError(name)
	}
	return r.availability(ctx, e, origin)
}

func (r *Registry) availability(ctx context.Context, e *entry, origin Origin) error {
	if origin == "" {
		origin = OriginApp
	}
	if reason := e.disabledReason(); reason != "" {
		return &Error{Code: codes.Disabled, Tool: e.tool.Name, Message: reason}
	}
	if !e.tool.Meta.allowsOrigin(origin) {
		return &Error{Code: codes.OriginDenied, Tool: e.tool.Name, Message: originMessage(e, origin)}
	}
	if err := checkAvailable(ctx, e, Call{Tool: e.tool.Name, Origin: origin}); err != nil {
		return &Error{Code: codes.Unavailable, Tool: e.tool.Name, Message: err.Error(), Err: err}
	}
	return nil
}

// checkAvailable runs the tool's Available, turning a panic into an error.
func checkAvailable(ctx context.Context, e *entry, c Call) (err error) {
	if e.tool.Available == nil {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("its availability check panicked: %v", p)
		}
	}()
	return e.tool.Available(ctx, c)
}

func originMessage(e *entry, o Origin) string {
	allowed := make([]string, len(e.tool.Meta.Origins))
	for i, a := range e.tool.Meta.Origins {
		allowed[i] = string(a)
	}
	return fmt.Sprintf("origin %q may not call %s (allowed: %s)", o, e.tool.Name, strings.Join(allowed, ", "))
}

// SetEnabled enables or disables a tool at runtime. Disabling takes effect
// for calls that start afterwards; config rules still apply when enabled.
func (r *Registry) SetEnabled(name string, enabled bool) error {
	e := r.lookup(name)
	if e == nil {
		return r.notFoundError(name)
	}
	e.disabled.Store(!enabled)
	return nil
}
