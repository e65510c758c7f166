package main

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

const testMod = "example.com/m"

func check(dir string, kind fileKind, path string) []string {
	m := &module{path: testMod, std: map[string]bool{}}
	im := importSpec{file: goFile{path: dir + "/f.go", dir: dir, kind: kind}, line: 1, path: path}
	var ids []string
	for _, v := range m.checkImport(im) {
		ids = append(ids, v.rule)
	}
	return ids
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		kind fileKind
		path string
		want string // the rules that fire, space-separated
	}{
		{"tooling", kindGo, "reflect", "no-reflect-charm"},
		{"tooling", kindTest, "reflect", ""},
		{"sandbox/confine", kindGo, "charm.land/bubbletea/v2", "no-reflect-charm"},
		{"sandbox", kindXTest, "github.com/charmbracelet/x", "no-reflect-charm"},
		{"tui", kindGo, "reflect", ""},
		{"tui", kindGo, "charm.land/lipgloss/v2", ""},
		{"demotools", kindGo, "os/exec", "demotools-imports"},
		{"demotools", kindXTest, "os/exec", "demotools-imports"},
		{"demotools", kindGo, "reflect", "demotools-imports"},
		{"demotools", kindTest, "reflect", ""},
		{"demotools", kindGo, "golang.org/x/sys/unix", "demotools-imports"},
		{"demotools", kindGo, "C", "demotools-imports"},
		{"demotools", kindGo, "github.com/example/x", "demotools-imports"},
		{"demotools", kindGo, testMod + "/sandbox", "demotools-imports"},
		{"demotools", kindGo, testMod + "/config", "demotools-imports"},
		{"demotools", kindGo, testMod + "/tooling", ""},
		{"demotools", kindGo, "encoding/json", ""},
		{"demotools", kindXTest, testMod + "/demotools", ""},
		{"tooling", kindGo, "golang.org/x/net/bpf", "confine-only"},
		{"sandbox", kindGo, "github.com/landlock-lsm/go-landlock/landlock", "confine-only"},
		{"sandbox/confine", kindGo, "github.com/landlock-lsm/go-landlock/landlock", ""},
		{"sandbox/confine/internal/attack", kindGo, "golang.org/x/net/bpf", ""},
		{"tui", kindGo, testMod + "/sandbox/confine", "tui-no-sandbox"},
		{"tooling", kindXTest, testMod + "/demotools", "demotools-cmd-only"},
		{"tui", kindGo, testMod + "/demotools", "demotools-cmd-only"},
		{"cmd/toolexplorer", kindGo, testMod + "/demotools", ""},
		// import-direction
		{"sandbox", kindGo, testMod + "/tooling", "import-direction"},
		{"sandbox/confine", kindGo, testMod + "/sandbox", ""},
		{"config", kindGo, testMod + "/tooling", ""},
		{"config", kindGo, testMod + "/sandbox", "import-direction"},
		{"tooling", kindGo, testMod + "/sandbox/confine", "confined-opt-in"},
		{"tooling", kindXTest, testMod + "/sandbox/confine", ""},
		{"tooling/confined", kindGo, testMod + "/sandbox/confine", ""},
		{"tooling/internal/realhost", kindGo, testMod + "/sandbox/confine", ""},
		{"tooling", kindGo, testMod + "/config", "import-direction"},
		{"tooling", kindXTest, testMod + "/config", "import-direction"},
		{"tooling", kindGo, testMod + "/tui", "import-direction"},
		{"tooling/tooltest", kindGo, testMod + "/tooling", ""},
		{"tui/form", kindGo, testMod + "/tooling", ""},
		{"tui", kindGo, testMod + "/cmd/toolexplorer", "import-direction"},
		{"cmd/a", kindGo, testMod + "/cmd/b", "import-direction"},
		{"cmd/a", kindGo, testMod + "/cmd/a/sub", ""},
		{"cmd/a", kindGo, testMod + "/tui", ""},
		{"internal/textdist", kindGo, testMod + "/config", "import-direction"},
		{"internal/textdist", kindGo, testMod + "/internal/pattern", ""},
		{"config", kindGo, testMod + "/internal/textdist", ""},
		{"scripts/importrules", kindGo, testMod + "/tooling", "import-direction"},
		// packages still to come plug into tooling, never the reverse
		{"mcp", kindGo, testMod + "/tooling", ""},
		{"mcp", kindGo, testMod + "/sandbox/confine", ""},
		{"mcp", kindGo, testMod + "/sandbox", "import-direction"},
		{"ledger", kindGo, testMod + "/config", ""},
		{"state/redis", kindGo, testMod + "/tooling", ""},
		{"state", kindXTest, testMod + "/policy/storetest", ""},
		{"state", kindGo, testMod + "/policy", "import-direction"},
		{"telemetry", kindGo, testMod + "/tui", "import-direction"},
		{"bindings", kindGo, testMod + "/sandbox", "import-direction"},
		{"mcp", kindGo, testMod + "/bindings", "import-direction"},
		{"tooling", kindGo, testMod + "/mcp", "tooling-imports-no-part"},
		{"tooling", kindGo, testMod + "/state", "tooling-imports-no-part"},
		{"tooling/export", kindGo, testMod + "/ledger", "tooling-imports-no-part"},
		{"tooling", kindXTest, testMod + "/telemetry/otel", "tooling-imports-no-part"},
		{"tooling", kindTest, testMod + "/policy", "tooling-imports-no-part"},
		{"policy", kindGo, testMod + "/tooling", ""},
		{"policy", kindGo, testMod + "/config", "import-direction"},
		{"policy", kindGo, testMod + "/mcp", "import-direction"},
		{"tui", kindGo, testMod + "/ledger", ""},
		{"tui", kindGo, testMod + "/policy", "import-direction"},
		{"tui", kindGo, testMod + "/history", ""},
		{"history", kindGo, testMod + "/tooling", ""},
		{"history", kindGo, testMod + "/tui", "import-direction"},
		{"tooling", kindGo, testMod + "/history", "tooling-imports-no-part"},
		{"cmd/toolexplorer", kindGo, testMod + "/telemetry", ""},
		// a directory with no layer is not checked for direction
		{"examples/host", kindGo, testMod + "/tui", ""},
	} {
		got := strings.Join(check(tc.dir, tc.kind, tc.path), " ")
		if got != tc.want {
			t.Errorf("%s (kind %d) importing %s: rules %q, want %q", tc.dir, tc.kind, tc.path, got, tc.want)
		}
	}
}

func TestDefaultRegistry(t *testing.T) {
	src := `package demotools

import (
	"context"
	reg "` + testMod + `/tooling"
)

// tooling.Default() in a comment is no call.
var doc = "reg.Lookup"

func f(ctx context.Context) {
	reg.ExecuteTool(ctx, "a.b", nil); reg.Execute(ctx, "a.b", nil)
	_ = reg.Register
	_, _ = reg.Default.Execute(ctx, "a", nil); _ = reg.List
}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	m := &module{path: testMod}
	vs := m.checkDefaultRegistry(fset, goFile{path: "demotools/x.go", dir: "demotools"}, file)
	slices.SortFunc(vs, compareViolations)
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	want := []string{
		"demotools/x.go:12: demotools-no-default: tools never use the default registry (reg.ExecuteTool, reg.Execute): what a tool needs arrives through its Call",
		"demotools/x.go:14: demotools-no-default: tools never use the default registry (reg.Default, reg.List): what a tool needs arrives through its Call",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	dot, _ := parser.ParseFile(fset, "y.go", "package demotools\n\nimport . \""+testMod+"/tooling\"\n", parser.SkipObjectResolution)
	if vs := m.checkDefaultRegistry(fset, goFile{path: "demotools/y.go", dir: "demotools"}, dot); len(vs) != 1 || vs[0].line != 3 {
		t.Errorf("dot import: %v", vs)
	}
}

func TestRuleIDs(t *testing.T) {
	want := []string{"no-reflect-charm", "demotools-imports", "confine-only", "tui-no-sandbox", "tooling-imports-no-part", "confined-opt-in", "demotools-cmd-only", "demotools-no-default", "import-direction"}
	if got := ruleIDs(); !slices.Equal(got, want) {
		t.Errorf("ruleIDs() = %v, want %v", got, want)
	}
}
