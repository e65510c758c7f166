package bindings

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// Problem is one thing wrong in a tools file.
type Problem struct {
	Pos
	// Path is where in the file, like "tools[2].binding.sql.statement"; ""
	// for the whole file.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
	}
	b.WriteString(": ")
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// LoadError lists every problem of the tools files that did not load.
type LoadError struct{ Problems []Problem }

func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return "bindings: " + strings.Join(lines, "\n")
}

// Options tune how tools files load and run.
type Options struct {
	// Env resolves credentials at call time. Nil: the process environment.
	Env Env
	// Shadow makes every write a shadow call, as if every tool said
	// shadow: true. SetShadow changes it at run time.
	Shadow bool
}

// toolFiles expands paths into the tools files to read: a directory gives
// its *.yaml, *.yml and *.json files (not those of its subdirectories) in
// name order, a file is read whatever its name.
func toolFiles(paths []string) ([]string, []Problem) {
	var files []string
	var problems []Problem
	seen := map[string]bool{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			problems = append(problems, Problem{Pos: Pos{File: p}, Message: pathError(err)})
			continue
		}
		if !st.IsDir() {
			if !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			problems = append(problems, Problem{Pos: Pos{File: p}, Message: pathError(err)})
			continue
		}
		for _, e := range entries { // sorted by name
			switch filepath.Ext(e.Name()) {
			case ".yaml", ".yml", ".json":
			default:
				continue
			}
			if e.IsDir() {
				continue
			}
			f := filepath.Join(p, e.Name())
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	return files, problems
}

func pathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// loaded is one tools file read and compiled.
type loaded struct {
	path    string
	root    *yaml.Node // the document's top node; nil when it did not parse
	file    File
	sources map[string]source
	tools   []*fileTool
	vars    []string // every ${NAME} of its sources and bindings, sorted
}

// loader reads tools files, collecting every problem.
type loader struct {
	problems []Problem
	names    map[string]Pos // tool names seen, across files
}

func (l *loader) add(file string, n *yaml.Node, path, msg string) {
	l.problems = append(l.problems, Problem{Pos: Pos{File: file, Line: lineOf(n)}, Path: path, Message: msg})
}

var yamlLine = regexp.MustCompile(`^yaml: (?:unmarshal errors:\n\s*)?line (\d+): (.*)`)

// parse reads a tools file into its node tree and checks it against File.
func (l *loader) parse(path string) *loaded {
	lf := &loaded{path: path, sources: map[string]source{}}
	data, err := os.ReadFile(path)
	if err != nil {
		l.add(path, nil, "", pathError(err))
		return lf
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		l.yamlError(path, err)
		return lf
	}
	if len(doc.Content) == 0 {
		l.add(path, nil, "", "the file is empty: want a mapping with tools (and sources)")
		return lf
	}
	before := len(l.problems)
	checkNode(&doc, reflectFile, "", func(n *yaml.Node, p, msg string) { l.add(path, n, p, msg) })
	if err := doc.Decode(&lf.file); err != nil {
		if len(l.problems) == before {
			l.yamlError(path, err)
		}
		return lf
	}
	// A file whose only faults are unknown keys still decodes: the checks of
	// its sources and tools run too, so that one pass reports every problem.
	lf.root = doc.Content[0]
	return lf
}

// yamlError reports a parse or decode error of yaml.v3 with its line.
func (l *loader) yamlError(path string, err error) {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	for _, m := range msgs {
		p := Problem{Pos: Pos{File: path}, Message: strings.TrimPrefix(m, "yaml: ")}
		if sm := yamlLine.FindStringSubmatch(m); sm != nil {
			p.Line, _ = strconv.Atoi(sm[1])
			p.Message = sm[2]
		} else if sm := regexp.MustCompile(`^line (\d+): (.*)`).FindStringSubmatch(m); sm != nil {
			p.Line, _ = strconv.Atoi(sm[1])
			p.Message = sm[2]
		}
		l.problems = append(l.problems, p)
	}
}

// compile opens the file's sources and compiles its tools.
func (l *loader) compile(lf *loaded, opts *Options, set *Set) {
	if lf.root == nil {
		return
	}
	path := lf.path
	srcNodes := child(lf.root, "sources")
	names := make([]string, 0, len(lf.file.Sources))
	for name := range lf.file.Sources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		spec := lf.file.Sources[name]
		at := keyNode(srcNodes, name)
		p := join("sources", name)
		ks := spec.kinds()
		if len(ks) != 1 {
			l.add(path, at, p, exactlyOne("source", ks))
			continue
		}
		k, ok := kinds[ks[0]]
		if !ok {
			l.add(path, at, join(p, ks[0]), fmt.Sprintf("this build has no %s binding", ks[0]))
			continue
		}
		src, err := k.open(name, &spec, set.env)
		if err != nil {
			l.fieldError(path, child(child(srcNodes, name), ks[0]), join(p, ks[0]), err)
			continue
		}
		lf.sources[name] = src
	}
	varSet := map[string]bool{}
	toolNodes := child(lf.root, "tools")
	for i := range lf.file.Tools {
		ts := &lf.file.Tools[i]
		tn := item(toolNodes, i)
		ft := l.tool(lf, ts, tn, fmt.Sprintf("tools[%d]", i), opts, set)
		if ft != nil {
			lf.tools = append(lf.tools, ft)
			for _, v := range ft.vars {
				varSet[v] = true
			}
		}
	}
	scalars(srcNodes, func(n *yaml.Node) {
		names, _ := envVars(n.Value)
		for _, v := range names {
			varSet[v] = true
		}
	})
	for v := range varSet {
		lf.vars = append(lf.vars, v)
	}
	sort.Strings(lf.vars)
	// The tools hold what they need; the file's tree would only weigh.
	lf.root, lf.file = nil, File{}
}

func exactlyOne(what string, ks []string) string {
	got := "none"
	if len(ks) > 0 {
		got = strings.Join(ks, " and ")
	}
	return fmt.Sprintf("a %s has exactly one of %s, got %s", what, strings.Join(kindNames, ", "), got)
}

// fieldError reports a kind's error about its part of a file: when the
// message starts with one of the part's keys ("path: ..."), at that key's
// line and path.
func (l *loader) fieldError(file string, n *yaml.Node, path string, err error) {
	msg := err.Error()
	if field, rest, ok := strings.Cut(msg, ": "); ok {
		if k := keyNode(n, field); k != nil {
			l.add(file, k, join(path, field), rest)
			return
		}
	}
	l.add(file, n, path, msg)
}

// tool compiles one tool of a file; nil when it has problems.
func (l *loader) tool(lf *loaded, ts *ToolSpec, tn *yaml.Node, p string, opts *Options, set *Set) *fileTool {
	path := lf.path
	before := len(l.problems)
	if ts.Name == "" {
		l.add(path, tn, join(p, "name"), "a tool needs a name, like \"shop.list_products\"")
	} else if prev, dup := l.names[ts.Name]; dup {
		l.add(path, child(tn, "name"), join(p, "name"), fmt.Sprintf("tool %q is declared twice: also at %s:%d", ts.Name, prev.File, prev.Line))
	} else {
		l.names[ts.Name] = Pos{File: path, Line: lineOf(child(tn, "name"))}
	}
	bn := child(tn, "binding")
	bp := join(p, "binding")
	ks := ts.Binding.kinds()
	if len(ks) != 1 {
		at := bn
		if at == nil {
			at = tn
		}
		l.add(path, at, bp, exactlyOne("binding", ks))
		return nil
	}
	kname := ks[0]
	kn := child(bn, kname)
	kp := join(bp, kname)
	srcName := ts.Binding.sourceName()
	srcSpec, ok := lf.file.Sources[srcName]
	switch {
	case srcName == "":
		l.add(path, kn, join(kp, "source"), "name the source this binding uses, one of the file's sources")
		return nil
	case !ok:
		l.add(path, child(kn, "source"), join(kp, "source"), fmt.Sprintf("no source %q in this file%s", srcName, sourceList(lf.file.Sources)))
		return nil
	}
	if sk := srcSpec.kinds(); len(sk) == 1 && sk[0] != kname {
		l.add(path, child(kn, "source"), join(kp, "source"), fmt.Sprintf("source %q is a %s source, not %s", srcName, sk[0], kname))
		return nil
	}
	src, opened := lf.sources[srcName]
	if !opened {
		return nil // reported with the source
	}
	k := kinds[kname]

	input, in := schemaJSON(ts.Input, "input", path, child(tn, "input"), join(p, "input"), l)
	output, _ := schemaJSON(ts.Output, "output", path, child(tn, "output"), join(p, "output"), l)
	b, err := k.compile(&ts.Binding, src, inputOf(in))
	if err != nil {
		l.fieldError(path, kn, kp, err)
		return nil
	}
	meta := l.meta(ts, tn, p, path, b, k)
	if len(l.problems) > before {
		_ = b.close()
		return nil
	}
	ft := &fileTool{set: set, name: ts.Name, kind: kname, source: srcName, b: b,
		pos:    Pos{File: path, Line: lineOf(tn)},
		shadow: ts.Shadow || srcSpec.Shadow, idempotent: ts.Meta.Idempotent}
	scalars(bn, func(n *yaml.Node) { ft.addVars(n.Value) })
	scalars(child(child(lf.root, "sources"), srcName), func(n *yaml.Node) { ft.addVars(n.Value) })
	ft.binding = bindingJSON(bn)
	if b.writes() && len(output) > 0 {
		output = shadowable(output)
	}
	ft.tool = tooling.Tool{Name: ts.Name, Title: ts.Title, Description: ts.Description, Input: input, Output: output,
		Meta: meta, Source: "file:" + path, Run: ft.run}
	if len(ft.required) > 0 {
		ft.tool.Available = ft.available
	}
	fp := sha256.New()
	_ = json.NewEncoder(fp).Encode(struct {
		Tool   *ToolSpec
		Source SourceSpec
	}{ts, srcSpec})
	ft.fingerprint = hex.EncodeToString(fp.Sum(nil))
	ft.path = p
	return ft
}

// register checks every tool as a registry's Add does, in one batch (the
// registry compiles a batch's schemas in parallel), and reports each tool
// it refuses at the tool.
func (l *loader) register(tools []*fileTool) {
	if len(tools) == 0 {
		return
	}
	all := make([]tooling.Tool, len(tools))
	byName := make(map[string]*fileTool, len(tools))
	for i, ft := range tools {
		all[i] = ft.tool
		byName[ft.name] = ft
	}
	err := tooling.NewRegistry().Replace(nil, all)
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var re *tooling.RegisterError
		if errors.As(e, &re) {
			if ft := byName[re.Tool]; ft != nil {
				for _, m := range re.Problems {
					l.problems = append(l.problems, Problem{Pos: ft.pos, Path: ft.path, Message: m})
				}
				continue
			}
		}
		l.problems = append(l.problems, Problem{Message: e.Error()})
	}
}

func sourceList(m map[string]SourceSpec) string {
	if len(m) == 0 {
		return " (it has none: declare it under sources)"
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return " (sources: " + strings.Join(names, ", ") + ")"
}

// schemaJSON encodes a schema of a tools file as JSON.
func schemaJSON(m map[string]any, what, file string, n *yaml.Node, path string, l *loader) (json.RawMessage, map[string]any) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		l.add(file, n, path, "the "+what+" schema cannot be written as JSON (are all its keys strings?): "+err.Error())
		return nil, nil
	}
	return b, m
}

// inputOf is what a binding may know of an input schema.
func inputOf(schema map[string]any) Input {
	in := Input{Properties: map[string]string{}}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		t := ""
		if pm, ok := p.(map[string]any); ok {
			t, _ = pm["type"].(string)
		}
		in.Properties[name] = t
	}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	return in
}

// shadowable widens a write tool's output schema so that a shadow result
// (an object with "shadow": true) passes it too.
func shadowable(out json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(out, &m) != nil || m["$defs"] != nil || m["definitions"] != nil {
		return out
	}
	wide := map[string]any{"type": "object", "anyOf": []any{m, map[string]any{
		"type": "object", "required": []any{"shadow"}, "properties": map[string]any{"shadow": map[string]any{"const": true}}}}}
	if b, err := json.Marshal(wide); err == nil {
		return b
	}
	return out
}

// bindingJSON is the binding as the file wrote it, as JSON: credentials
// stay ${NAME}.
func bindingJSON(n *yaml.Node) json.RawMessage {
	var v any
	if n == nil || n.Decode(&v) != nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// concurrencyNames are the names a tools file may give a concurrency.
var concurrencyNames = map[string]tooling.Concurrency{
	"exclusive": tooling.Exclusive, "read_only": tooling.ReadOnly, "readonly": tooling.ReadOnly,
	"main_thread": tooling.MainThread, "mainthread": tooling.MainThread, "main": tooling.MainThread,
}

// meta converts a tool's meta, checking its effects against the binding.
func (l *loader) meta(ts *ToolSpec, tn *yaml.Node, p, file string, b binding, k kind) tooling.Meta {
	ms := &ts.Meta
	mn := child(tn, "meta")
	mp := join(p, "meta")
	var m tooling.Meta
	for i, e := range ms.Effects {
		var one tooling.Effects
		if err := one.UnmarshalText([]byte(e)); err != nil {
			l.add(file, item(child(mn, "effects"), i), fmt.Sprintf("%s.effects[%d]", mp, i), trimPkg(err))
		}
		m.Effects |= one
	}
	if ms.Safety != "" {
		m.Safety = tooling.Safety(strings.ToLower(ms.Safety))
		if !slices.Contains([]tooling.Safety{tooling.SafetyAuto, tooling.SafetyLow, tooling.SafetyMedium, tooling.SafetyHigh}, m.Safety) {
			l.add(file, child(mn, "safety"), join(mp, "safety"), fmt.Sprintf("unknown safety %q (want auto, low, medium or high)", ms.Safety))
		}
	}
	if ms.Concurrency != "" {
		m.Concurrency = concurrencyNames[strings.ToLower(strings.ReplaceAll(ms.Concurrency, "-", "_"))]
		if m.Concurrency == "" {
			l.add(file, child(mn, "concurrency"), join(mp, "concurrency"), fmt.Sprintf("unknown concurrency %q (want exclusive, read_only or main_thread)", ms.Concurrency))
		}
	}
	m.Resources = ms.Resources
	m.Rate = tooling.Rate{PerMinute: ms.Rate.PerMinute, Burst: ms.Rate.Burst, Key: ms.Rate.Key}
	m.Timeout = ms.Timeout
	for _, o := range ms.Origins {
		m.Origins = append(m.Origins, tooling.Origin(o))
	}
	m.Consent, m.Idempotent, m.Additive, m.Tags, m.Version = ms.Consent, ms.Idempotent, ms.Additive, ms.Tags, ms.Version
	switch {
	case b.writes() && m.Effects&tooling.EffectWrite != tooling.EffectWrite:
		at := child(mn, "effects")
		if at == nil {
			at = tn
		}
		declared := "none"
		if len(ms.Effects) > 0 {
			declared = strings.Join(ms.Effects, ", ")
		}
		l.add(file, at, join(mp, "effects"), fmt.Sprintf("the binding writes (%s) but the effects declared are %s: declare write", k.writes, declared))
	case ms.Effects == nil:
		m.Effects = tooling.EffectRead
	}
	return m
}

func trimPkg(err error) string { return strings.TrimPrefix(err.Error(), "tooling: ") }
