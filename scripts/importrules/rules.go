package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// The rules, as tables. Paths in them: "reflect" is that package; "charm.land/..." is a
// package and everything under it; "@tooling/..." is the project's tooling/ and everything
// under it (a directory relative to the module root); "std" is the standard library; "*" is
// any path.

// A rule refuses some imports in some directories. Its entries are tried in order and the
// first whose path matches decides: allow, or refuse with its message.
type rule struct {
	id    string
	in    []string // directories (with their subdirectories) whose files it checks; none: all
	notIn []string // directories it leaves alone
	// testsIn are directories whose test files it leaves alone.
	testsIn []string
	entries []entry
}

type entry struct {
	paths   []string
	allow   bool
	inTests bool   // refuse in _test.go files too (else tests may import it)
	why     string // %s is the import path
}

const (
	ruleReflectCharm = "no-reflect-charm"
	ruleDemoImports  = "demotools-imports"
	ruleNoDefault    = "demotools-no-default"
	ruleConfineOnly  = "confine-only"
	ruleTUINoSandbox = "tui-no-sandbox"
	ruleDemoCmdOnly  = "demotools-cmd-only"
	ruleDirection    = "import-direction"
	ruleCoreNoParts  = "tooling-imports-no-part"
	ruleConfinedOnly = "confined-opt-in"
)

// parts are the packages beside tooling that plug into it through its extension points
// (interceptors, observers, options) and that a host imports only when it wants them.
var parts = []string{"@policy/...", "@ledger/...", "@telemetry/...", "@state/...", "@mcp/...", "@bindings/...", "@history/..."}

var rules = []rule{
	{id: ruleReflectCharm, in: []string{"tooling", "sandbox"}, entries: []entry{
		{paths: []string{"reflect"}, why: "tooling and sandbox are reflection-free: do not import reflect"},
		{paths: []string{"charm.land/...", "github.com/charmbracelet/..."}, inTests: true,
			why: "tooling and sandbox do not depend on the console's charm modules: do not import %s"},
	}},
	{id: ruleDemoImports, in: []string{"demotools"}, entries: []entry{
		{paths: []string{"os/exec"}, inTests: true, why: "tools never start processes themselves (os/exec): declare the process effect in Meta and let the tool run confined"},
		{paths: []string{"syscall"}, inTests: true, why: "tools never make raw system calls (syscall): declare the effect in Meta and let the sandbox confine the tool"},
		{paths: []string{"unsafe"}, inTests: true, why: "tools never import unsafe"},
		{paths: []string{"reflect"}, why: "tools are reflection-free: do not import reflect"},
		{paths: []string{"golang.org/x/sys/..."}, inTests: true, why: "tools never reach the system directly (%s): declare the effect in Meta and let the tool run confined"},
		{paths: []string{"C"}, inTests: true, why: `tools never use cgo (import "C")`},
		{paths: []string{"@sandbox/..."}, inTests: true, why: "tools never reach around the sandbox: do not import %s; declare what the tool needs in Meta"},
		{paths: []string{"@tui/..."}, inTests: true, why: "tools know nothing of the console: do not import %s"},
		{paths: []string{"@tooling/...", "@demotools/...", "std"}, allow: true},
		{paths: []string{"*"}, inTests: true, why: "demotools imports only the standard library and tooling, not %s"},
	}},
	{id: ruleConfineOnly, notIn: []string{"sandbox/confine"}, entries: []entry{
		{paths: []string{"github.com/landlock-lsm/go-landlock/...", "golang.org/x/net/bpf/..."}, inTests: true,
			why: "only sandbox/confine imports %s: confinement lives in one place"},
	}},
	{id: ruleTUINoSandbox, in: []string{"tui"}, entries: []entry{
		{paths: []string{"@sandbox/..."}, inTests: true, why: "tui sees governance through tooling: do not import %s"},
	}},
	{id: ruleCoreNoParts, in: []string{"tooling"}, entries: []entry{
		{paths: parts, inTests: true, why: "tooling imports none of the parts that plug into it (%s): each imports tooling, and a host installs it through tooling's extension points (Use, Audit, options)"},
	}},
	{id: ruleConfinedOnly, in: []string{"tooling"}, notIn: []string{"tooling/confined", "tooling/internal/realhost"}, entries: []entry{
		{paths: []string{"@sandbox/confine/..."}, why: "only tooling/confined links confinement into a host (tooling reaches it through tooling/internal/confinehook), so that a host without confined tools links none of it: do not import %s"},
	}},
	{id: ruleDemoCmdOnly, notIn: []string{"cmd"}, testsIn: []string{"demotools"}, entries: []entry{
		{paths: []string{"@demotools/..."}, inTests: true, why: "only cmd/ imports %s: hosts choose their tools with a blank import in main"},
	}},
}

// A layer is a top-level directory of the project and the project directories it may import
// besides its own and internal/ (which every package may import). import-direction checks
// every import of the project that no rule above refused; a directory with no layer is not
// checked, and nothing outside cmd/NAME imports cmd/NAME.
type layer struct {
	imports []string // "*": any
	why     string   // %s is the import path
}

var layers = map[string]layer{
	"internal": {nil, "internal packages are leaves every package may import: they import no other project package, not %s"},
	"sandbox":  {nil, "sandbox knows nothing of the rest of the project: it imports only its own subpackages, not %s"},
	"config":   {[]string{"tooling"}, "config is plain data around tooling.Settings: it imports only tooling from this project, not %s"},
	"tooling":  {[]string{"sandbox"}, "tooling imports only sandbox from this project (config imports tooling: a host passes tooling.Settings), not %s"},
	// The console reads the call history and the ledger (the records it shows); the command
	// line opens them.
	"tui":     {[]string{"tooling", "config", "history", "ledger"}, "tui imports only tooling, config, history and ledger from this project, not %s"},
	"scripts": {nil, "the gate's programs import no project package, not %s"},
	"cmd":     {[]string{"*"}, ""},
	// What plugs into the core imports tooling, never the reverse (tooling's line above), and
	// sees no other part but config; only cmd wires them together.
	// mcp starts an untrusted stdio server in a confined child: the one part of the sandbox it sees.
	"mcp":       {[]string{"tooling", "sandbox/confine"}, "mcp imports only tooling and sandbox/confine from this project (it takes a Spec, which config.Server converts to), not %s"},
	"bindings":  {[]string{"tooling", "config"}, "bindings imports only tooling and config from this project, not %s"},
	"ledger":    {[]string{"tooling", "config"}, "ledger imports only tooling and config from this project, not %s"},
	"telemetry": {[]string{"tooling", "config"}, "telemetry imports only tooling and config from this project, not %s"},
	// policy/storetest, the check of a store of counts, imports the standard library only: the
	// Redis store of counts is tested with it without seeing policy.
	"state":  {[]string{"tooling", "config", "policy/storetest"}, "state imports only tooling and config from this project, not %s"},
	"policy": {[]string{"tooling"}, "policy imports only tooling from this project (cmd converts the config's rules), not %s"},
	// The call history is shared by the console and the command line.
	"history": {[]string{"tooling", "config"}, "history imports only tooling and config from this project, not %s"},
}

// defaultRegistry are the package-level entry points of the default registry that tools must
// not use (Register, in init, is the one they need): demotools-no-default.
var defaultRegistry = []string{"Default", "Execute", "ExecuteTool", "Lookup", "List", "Audit", "Configure"}

// ruleIDs lists every rule, for the gate's self-test, which plants a violation of each.
func ruleIDs() []string {
	var ids []string
	for _, r := range rules {
		ids = append(ids, r.id)
	}
	ids = append(ids, ruleNoDefault, ruleDirection)
	return slices.Compact(ids)
}

type fileKind int

const (
	kindGo    fileKind = iota // a non-test file
	kindTest                  // a _test.go file of the package itself
	kindXTest                 // a _test.go file of package NAME_test
)

type goFile struct {
	path string // relative to the module root
	dir  string // the package's directory, relative to the module root ("." for the root)
	kind fileKind
}

type importSpec struct {
	file goFile
	line int
	path string
	name string // the import's name, if it has one
}

type violation struct {
	file string
	line int
	rule string
	msg  string
}

func (v violation) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", v.file, v.line, v.rule, v.msg)
}

func compareViolations(a, b violation) int {
	return cmp.Or(strings.Compare(a.file, b.file), cmp.Compare(a.line, b.line), strings.Compare(a.rule, b.rule), strings.Compare(a.msg, b.msg))
}

// under reports whether directory d is top or inside it.
func under(d, top string) bool { return d == top || strings.HasPrefix(d, top+"/") }

func underAny(d string, tops []string) bool {
	return slices.ContainsFunc(tops, func(t string) bool { return under(d, t) })
}

// project returns the directory of path in the module, or false for a path outside it.
func (m *module) project(path string) (string, bool) {
	if path == m.path {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, m.path+"/")
	return rel, ok
}

func (m *module) isStd(path string) bool {
	if m.std[path] {
		return true
	}
	first, _, _ := strings.Cut(path, "/")
	return path != "C" && !strings.Contains(first, ".")
}

// matches reports whether an import path matches a pattern of the tables.
func (m *module) matches(path, pattern string) bool {
	switch {
	case pattern == "*":
		return true
	case pattern == "std":
		return m.isStd(path)
	case strings.HasPrefix(pattern, "@"):
		rel, ok := m.project(path)
		return ok && under(rel, strings.TrimSuffix(pattern[1:], "/..."))
	case strings.HasSuffix(pattern, "/..."):
		return under(path, strings.TrimSuffix(pattern, "/..."))
	}
	return path == pattern
}

// checkImport applies the rules to one import.
func (m *module) checkImport(im importSpec) []violation {
	var vs []violation
	test := im.file.kind != kindGo
	for _, r := range rules {
		if len(r.in) > 0 && !underAny(im.file.dir, r.in) || underAny(im.file.dir, r.notIn) || test && underAny(im.file.dir, r.testsIn) {
			continue
		}
		for _, e := range r.entries {
			if !slices.ContainsFunc(e.paths, func(p string) bool { return m.matches(im.path, p) }) {
				continue
			}
			if !e.allow && (e.inTests || !test) {
				vs = append(vs, violation{im.file.path, im.line, r.id, strings.ReplaceAll(e.why, "%s", im.path)})
			}
			break
		}
	}
	if len(vs) > 0 {
		return vs
	}
	if msg := m.direction(im); msg != "" {
		vs = append(vs, violation{im.file.path, im.line, ruleDirection, msg})
	}
	return vs
}

// direction checks an import of the project against the layers.
func (m *module) direction(im importSpec) string {
	rel, ok := m.project(im.path)
	if !ok {
		return ""
	}
	d := im.file.dir
	if under(rel, "cmd") {
		if own := cmdTree(d); own == "" || !under(rel, own) {
			return "nothing imports " + im.path + ": move what is shared into a library package"
		}
	}
	top, _, _ := strings.Cut(d, "/")
	l, ok := layers[top]
	if !ok || under(rel, top) || top != "internal" && under(rel, "internal") {
		return ""
	}
	if slices.Contains(l.imports, "*") || underAny(rel, l.imports) {
		return ""
	}
	return strings.ReplaceAll(l.why, "%s", im.path)
}

// cmdTree is cmd/NAME for a directory inside cmd/NAME, cmd for cmd itself, else "".
func cmdTree(d string) string {
	if !under(d, "cmd") {
		return ""
	}
	parts := strings.SplitN(d, "/", 3)
	if len(parts) == 1 {
		return "cmd"
	}
	return parts[0] + "/" + parts[1]
}
