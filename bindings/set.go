package bindings

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var reflectFile = reflect.TypeFor[File]()

// Set is the tools of some tools files, with the sources they use. Its
// tools run until Close; Reload replaces them in a registry with the files'
// tools as they are now.
type Set struct {
	paths []string
	opts  Options
	env   Env
	// shadow is the global shadow switch, shared with the sets that Reload
	// makes from this one.
	shadow *atomic.Bool
	files  []*loaded
	tools  []*fileTool
	// next is the set that replaced this one in a registry (Reload).
	next atomic.Pointer[Set]

	mu      sync.Mutex
	calls   int           // running calls of the set's tools
	closing bool          // Close has been called: no call starts
	drained chan struct{} // closed when closing and calls reach 0
	closed  chan struct{} // closed once the sources are closed
	err     error         // what closing the sources said
}

// Load reads the tools files at paths (directories give their *.yaml,
// *.yml and *.json files, in name order) and compiles their tools. Every
// tool is checked as a registry's Add checks it. The error, a *LoadError,
// lists every problem of every file with its file, line and path; then
// nothing is loaded.
func Load(paths []string, opts Options) (*Set, error) {
	s := &Set{paths: append([]string(nil), paths...), opts: opts, env: opts.Env, shadow: new(atomic.Bool)}
	s.shadow.Store(opts.Shadow)
	if s.env == nil {
		s.env = os.LookupEnv
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Set) load() error {
	files, problems := toolFiles(s.paths)
	l := &loader{problems: problems, names: map[string]Pos{}}
	for _, f := range files {
		lf := l.parse(f)
		l.compile(lf, &s.opts, s)
		s.files = append(s.files, lf)
		s.tools = append(s.tools, lf.tools...)
	}
	l.register(s.tools)
	if len(l.problems) > 0 {
		s.closeSources()
		return &LoadError{Problems: l.problems}
	}
	return nil
}

// Tools returns the set's tools, in file order then declaration order.
func (s *Set) Tools() []tooling.Tool {
	out := make([]tooling.Tool, len(s.tools))
	for i, ft := range s.tools {
		out[i] = ft.tool
	}
	return out
}

// SetShadow turns global shadow mode on or off for calls that start from
// now on, for this set and the sets Reload makes from it: every write is
// then a shadow call, as if each tool said shadow: true.
func (s *Set) SetShadow(on bool) { s.shadow.Store(on) }

// Shadow reports whether global shadow mode is on.
func (s *Set) Shadow() bool { return s.shadow.Load() }

// Info is what a set says of one of its tools' bindings, for people: the
// binding as the file wrote it (credentials as ${NAME}).
type Info struct {
	Kind   string `json:"kind"`   // http, sql or queue
	Source string `json:"source"` // the source's name in its file
	File   string `json:"file"`
	Line   int    `json:"line"`
	// Writes: a call changes state (and is a shadow call in shadow mode).
	Writes bool `json:"writes"`
	// Shadow: the tool or its source says shadow: true.
	Shadow bool `json:"shadow,omitempty"`
	// Env lists the variables the binding and its source refer to.
	Env     []string        `json:"env,omitempty"`
	Binding json.RawMessage `json:"binding"`
}

// Info describes the binding of the named tool; false when the set has no
// such tool.
func (s *Set) Info(name string) (Info, bool) {
	for _, ft := range s.tools {
		if ft.name == name {
			return Info{Kind: ft.kind, Source: ft.source, File: ft.pos.File, Line: ft.pos.Line, Writes: ft.b.writes(),
				Shadow: ft.shadow, Env: append([]string(nil), ft.vars...), Binding: ft.binding}, true
		}
	}
	return Info{}, false
}

// Register adds the set's tools to r in one step (all or none). A tool r
// refuses, such as one whose name a Go tool has, is a *LoadError naming
// where the file declares it.
func (s *Set) Register(r *tooling.Registry) error {
	return s.place(r.Replace(nil, s.Tools()))
}

// place turns the registry's refusals of s's tools into a *LoadError with
// each tool's file, line and path; other errors pass unchanged.
func (s *Set) place(err error) error {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	le := &LoadError{}
	for _, e := range errs {
		var re *tooling.RegisterError
		if !errors.As(e, &re) {
			return err
		}
		var ft *fileTool
		for _, t := range s.tools {
			if t.name == re.Tool {
				ft = t
			}
		}
		if ft == nil {
			return err
		}
		for _, m := range re.Problems {
			le.Problems = append(le.Problems, Problem{Pos: ft.pos, Path: ft.path, Message: m})
		}
	}
	return le
}

// Change says what a reload changed, by tool name, each list sorted.
type Change struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Changed []string `json:"changed,omitempty"`
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool { return len(c.Added)+len(c.Removed)+len(c.Changed) == 0 }

// Reload reads s's files again and replaces s's tools in r with theirs in
// one step (tooling.Registry.Replace): a call sees the old tools or the new,
// never neither. It returns the new set and what changed; s is closed once
// its running calls end. When a file does not load, or r refuses a tool,
// s's tools stay in place, s stays open, and the error says why.
func (s *Set) Reload(r *tooling.Registry) (*Set, Change, error) {
	next := &Set{paths: s.paths, opts: s.opts, env: s.env, shadow: s.shadow}
	if err := next.load(); err != nil {
		return nil, Change{}, err
	}
	remove := make([]string, len(s.tools))
	for i, ft := range s.tools {
		remove[i] = ft.name
	}
	if err := r.Replace(remove, next.Tools()); err != nil {
		next.closeSources()
		return nil, Change{}, next.place(err)
	}
	s.next.Store(next)
	go s.Close() //nolint:errcheck // closing the old set waits for its calls; its error has no one to go to
	return next, diff(s, next), nil
}

func diff(old, next *Set) Change {
	was := map[string]string{}
	for _, ft := range old.tools {
		was[ft.name] = ft.fingerprint
	}
	var c Change
	for _, ft := range next.tools {
		fp, ok := was[ft.name]
		switch {
		case !ok:
			c.Added = append(c.Added, ft.name)
		case fp != ft.fingerprint:
			c.Changed = append(c.Changed, ft.name)
		}
		delete(was, ft.name)
	}
	for name := range was {
		c.Removed = append(c.Removed, name)
	}
	sort.Strings(c.Added)
	sort.Strings(c.Removed)
	sort.Strings(c.Changed)
	return c
}

// Close stops the set: calls that start from now on fail, and once the
// running ones end, the bindings and sources are closed. It waits for
// that and returns what closing said. Remove the set's tools from their
// registry first.
func (s *Set) Close() error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		s.drained = make(chan struct{})
		s.closed = make(chan struct{})
		if s.calls == 0 {
			close(s.drained)
		}
		s.mu.Unlock()
		<-s.drained
		s.closeSources()
		close(s.closed)
	} else {
		s.mu.Unlock()
		<-s.closed
	}
	return s.err
}

// closeSources closes every binding and source.
func (s *Set) closeSources() {
	var errs []error
	for _, lf := range s.files {
		for _, ft := range lf.tools {
			errs = append(errs, ft.b.close())
		}
		for _, src := range lf.sources {
			errs = append(errs, src.close())
		}
	}
	s.err = errors.Join(errs...)
}

// enter counts a call in; false when the set is closing.
func (s *Set) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.calls++
	return true
}

func (s *Set) leave() {
	s.mu.Lock()
	s.calls--
	if s.calls == 0 && s.closing {
		close(s.drained)
	}
	s.mu.Unlock()
}
