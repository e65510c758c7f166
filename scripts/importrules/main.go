package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	listRules := flag.Bool("rules", false, "print the rule ids, one a line, and exit")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: importrules [-rules]  (run in the module root)")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *listRules {
		for _, id := range ruleIDs() {
			fmt.Println(id)
		}
		return
	}
	mod, pkgs, err := listPackages()
	if err != nil {
		fmt.Fprintln(os.Stderr, "importrules:", err)
		os.Exit(2)
	}
	var vs []violation
	for _, p := range pkgs {
		vs = append(vs, checkPackage(mod, p)...)
	}
	slices.SortFunc(vs, compareViolations)
	vs = slices.Compact(vs)
	for _, v := range vs {
		fmt.Println(v)
	}
	if len(vs) > 0 {
		os.Exit(1)
	}
}

// listedPackage is what importrules reads of `go list -json`.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	DepOnly    bool
	ForTest    string
	Module     *struct {
		Path string
		Main bool
	}
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles, IgnoredGoFiles, InvalidGoFiles []string
}

// pkg is one package of the module: its directory relative to the module root ("." for the
// root) and its .go files, all of them.
type pkg struct {
	dir   string
	abs   string
	files []string
}

// module is the module's path and which import paths are the standard library's.
type module struct {
	path string
	std  map[string]bool
}

// listPackages runs go list in the current directory, offline and against a copy of go.mod.
func listPackages() (*module, []pkg, error) {
	tmp, err := os.MkdirTemp("", "importrules")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) && f == "go.sum" {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "gate."+strings.TrimPrefix(f, "go.")), b, 0o600); err != nil {
			return nil, nil, err
		}
	}
	cmd := exec.Command("go", "list", "-e", "-deps", "-json", "-modfile="+filepath.Join(tmp, "gate.mod"), "./...")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list: %v: %s", err, firstLine(stderr.String()))
	}
	m := &module{std: map[string]bool{}}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var lp listedPackage
		if err := dec.Decode(&lp); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("go list output: %v", err)
		}
		if lp.Standard {
			m.std[lp.ImportPath] = true
		}
		if lp.Module == nil || !lp.Module.Main || lp.DepOnly || lp.ForTest != "" {
			continue
		}
		m.path = lp.Module.Path
		p := pkg{dir: ".", abs: lp.Dir}
		if rel, ok := strings.CutPrefix(lp.ImportPath, lp.Module.Path+"/"); ok {
			p.dir = rel
		}
		for _, list := range [][]string{lp.GoFiles, lp.CgoFiles, lp.TestGoFiles, lp.XTestGoFiles, lp.IgnoredGoFiles, lp.InvalidGoFiles} {
			for _, f := range list {
				if strings.HasSuffix(f, ".go") && !slices.Contains(p.files, f) {
					p.files = append(p.files, f)
				}
			}
		}
		slices.Sort(p.files)
		pkgs = append(pkgs, p)
	}
	if m.path == "" {
		return nil, nil, errors.New("go list found no package of the main module")
	}
	return m, pkgs, nil
}

func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "warning:") {
			return line
		}
	}
	return ""
}

// checkPackage reads the imports of every file of p and checks them.
func checkPackage(m *module, p pkg) []violation {
	var vs []violation
	fset := token.NewFileSet()
	for _, name := range p.files {
		file := name
		if p.dir != "." {
			file = p.dir + "/" + name
		}
		f := goFile{path: file, dir: p.dir, kind: kindGo}
		if strings.HasSuffix(name, "_test.go") {
			f.kind = kindTest
		}
		mode := parser.ImportsOnly
		if f.kind == kindGo && under(p.dir, "demotools") {
			mode = parser.SkipObjectResolution // the calls are checked too
		}
		// A file that does not parse to the end still gives what it has: its imports when the
		// import section parses.
		ast, _ := parser.ParseFile(fset, filepath.Join(p.abs, name), nil, mode)
		if ast == nil || ast.Name == nil {
			continue
		}
		if f.kind == kindTest && strings.HasSuffix(ast.Name.Name, "_test") {
			f.kind = kindXTest
		}
		for _, spec := range ast.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				continue
			}
			im := importSpec{file: f, line: fset.Position(spec.Path.Pos()).Line, path: path}
			if spec.Name != nil {
				im.name = spec.Name.Name
			}
			vs = append(vs, m.checkImport(im)...)
		}
		if mode != parser.ImportsOnly {
			vs = append(vs, m.checkDefaultRegistry(fset, f, ast)...)
		}
	}
	return vs
}

// checkDefaultRegistry finds, in a tool's file, uses of the default registry's package-level
// functions (through whatever name tooling is imported as) and a dot import of tooling.
func (m *module) checkDefaultRegistry(fset *token.FileSet, f goFile, file *ast.File) []violation {
	names := map[string]bool{}
	var vs []violation
	for _, spec := range file.Imports {
		if path, _ := strconv.Unquote(spec.Path.Value); path != m.path+"/tooling" {
			continue
		}
		switch {
		case spec.Name == nil:
			names["tooling"] = true
		case spec.Name.Name == ".":
			vs = append(vs, violation{f.path, fset.Position(spec.Path.Pos()).Line, ruleNoDefault,
				"do not dot-import tooling in a tool: it hides calls to the default registry"})
		case spec.Name.Name != "_":
			names[spec.Name.Name] = true
		}
	}
	if len(names) == 0 {
		return vs
	}
	uses := map[int][]string{} // by line
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && names[x.Name] && slices.Contains(defaultRegistry, sel.Sel.Name) {
			line := fset.Position(sel.Pos()).Line
			uses[line] = append(uses[line], x.Name+"."+sel.Sel.Name)
		}
		return true
	})
	for line, calls := range uses {
		vs = append(vs, violation{f.path, line, ruleNoDefault,
			"tools never use the default registry (" + strings.Join(calls, ", ") + "): what a tool needs arrives through its Call"})
	}
	return vs
}
