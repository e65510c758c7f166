package preview_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/preview"
)

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadPreviewFile(t *testing.T) {
	r := tooling.NewRegistry()
	path := writeTemp(t, `{"tools": [
		{"name": "get-weather", "description": "Weather for a city", "inputSchema": {"type":"object","properties":{"city":{"type":"string"},"units":{"enum":["c","f"],"default":"c"}},"required":["city"]},
		 "annotations": {"readOnlyHint": true, "openWorldHint": true}},
		{"name": "files.delete", "inputSchema": {"type":"object","properties":{"path":{"type":"string"}}}},
		{"name": "files.append", "inputSchema": {"type":"object"}, "annotations": {"destructiveHint": false, "openWorldHint": false}},
		{"name": "broken", "inputSchema": {"type":"object","properties":{"n":{"type":"integer","minimum":"x"}}}},
		{"name": "bad name!", "inputSchema": {"type":"object"}},
		{"name": "mail", "inputSchema": {"type":"object","properties":{"to":{"type":"string","pattern":"^(?!\\.)[a-z]+@example\\.com$"},"cc":{"type":"string","pattern":"(?<=x"}}}}
	]}`)
	n, err := preview.Load(r, path)
	if n != 3 {
		t.Fatalf("loaded %d, want 3 (err %v)", n, err)
	}
	app, _ := r.Lookup("files.append")
	if app.Meta.EffectiveSafety() != tooling.SafetyMedium || app.Meta.Effects != tooling.EffectWrite {
		t.Fatalf("explicit hints not followed: %+v", app.Meta)
	}
	// One line per tool that failed, naming the file, its place and its name.
	want := []string{
		"tools file " + path + `: tool 4 "broken": input schema does not compile: minimum at /properties/n: got string, want number`,
		"tools file " + path + `: tool 5 "bad name!": an MCP tool name is 1 to 128 letters, digits, '_', '-' or '.'`,
		"tools file " + path + `: tool 6 "mail": input schema does not compile: pattern at /properties/cc: not a valid ECMAScript regular expression: ` +
			"error parsing regexp: missing closing ) in `(?<=x`",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Fatalf("error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	var pe *preview.Error
	if !errors.As(err, &pe) || pe.Index != 4 || pe.Tool != "broken" {
		t.Fatalf("errors.As PreviewError: %+v", pe)
	}
	var re *tooling.RegisterError
	if !errors.As(err, &re) {
		t.Fatal("the RegisterError is not wrapped")
	}
	res := mustExec(t, r, "get-weather", `{"city":"Oslo"}`)
	if !strings.Contains(string(res.Output), `"preview":true`) || !strings.Contains(string(res.Output), `"units":"c"`) {
		t.Fatalf("output %s", res.Output)
	}
	if _, err := r.Execute(context.Background(), "get-weather", raw(`{}`)); !errors.Is(err, codes.ValidationError) {
		t.Fatalf("preview tools validate: %v", err)
	}
	del, _ := r.Lookup("files.delete")
	if del.Meta.EffectiveSafety() != tooling.SafetyHigh || !del.Meta.NeedsConsent() || del.Meta.Concurrency != tooling.Exclusive || del.Meta.Effects&tooling.EffectNetwork != tooling.EffectNetwork {
		t.Fatalf("a tool without annotations takes MCP's cautious defaults: %+v", del.Meta)
	}
	if _, err := r.Execute(context.Background(), "files.delete", raw(`{"path":"/x"}`)); !errors.Is(err, codes.ConsentRequired) {
		t.Fatalf("destructive preview without consent: %v", err)
	}
	w, _ := r.Lookup("get-weather")
	if w.Meta.Concurrency != tooling.ReadOnly || w.Meta.Effects&tooling.EffectNetwork != tooling.EffectNetwork || w.Meta.Tags[0] != "preview" {
		t.Fatalf("read-only preview meta %+v", w.Meta)
	}
}

func TestLoadPreviewFileShapes(t *testing.T) {
	tests := []struct {
		name, content string
		n             int
		errPart       string
	}{
		{"bare array", `[{"name":"a","inputSchema":{"type":"object"}}]`, 1, ""},
		{"json-rpc response", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`, 1, ""},
		{"no tools", `{"x":1}`, 0, `no "tools" array`},
		{"not json", `{`, 0, "not an MCP tools/list result"},
		{"duplicate", `[{"name":"a","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}}]`, 1, "already registered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := preview.Load(tooling.NewRegistry(), writeTemp(t, tt.content))
			if n != tt.n || (tt.errPart == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.errPart) {
				t.Fatalf("n %d err %v", n, err)
			}
		})
	}
	// A name the program's own tools or an earlier file already has is
	// said to be so, not taken for a package registered twice.
	r := tooling.NewRegistry()
	if err := r.Add(tooling.Tool{Name: "demo.echo", Input: raw(`{"type":"object"}`), Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }}); err != nil {
		t.Fatal(err)
	}
	first := writeTemp(t, `[{"name":"a.b","inputSchema":{"type":"object"}}]`)
	if n, err := preview.Load(r, first); n != 1 || err != nil {
		t.Fatalf("n %d err %v", n, err)
	}
	n, err := preview.Load(r, writeTemp(t, `[{"name":"demo.echo","inputSchema":{"type":"object"}},{"name":"a.b","inputSchema":{"type":"object"}}]`))
	abs, _ := filepath.Abs(first)
	if n != 0 || err == nil || !strings.Contains(err.Error(), `tool 1 "demo.echo": a tool with this name is already registered (a tool of the program itself): this one is left out`) ||
		!strings.Contains(err.Error(), `tool 2 "a.b": a tool with this name is already registered (from tools:`+abs+`)`) || strings.Contains(err.Error(), "imported twice") {
		t.Errorf("names already registered: n %d err %v", n, err)
	}
	if _, err := preview.Load(tooling.NewRegistry(), filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestExportedNamesStayUnique(t *testing.T) {
	r := tooling.NewRegistry()
	if err := preview.Add(r, preview.Tool{Name: "files.read", InputSchema: raw(`{"type":"object"}`)}); err != nil {
		t.Fatal(err)
	}
	err := preview.Add(r, preview.Tool{Name: "files__read", InputSchema: raw(`{"type":"object"}`)})
	if err == nil || !strings.Contains(err.Error(), `exported name "files__read" is already the exported name of "files.read"`) {
		t.Fatalf("a clashing exported name was accepted: %v", err)
	}
	r2 := tooling.NewRegistry()
	_ = preview.Add(r2, preview.Tool{Name: "a__b", InputSchema: raw(`{"type":"object"}`)})
	if err := preview.Add(r2, preview.Tool{Name: "a.b", InputSchema: raw(`{"type":"object"}`)}); err == nil {
		t.Fatal("a.b accepted after a__b")
	}
	if err := r2.Replace([]string{"a__b"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := r2.Replace([]string{"a__b"}, nil); err == nil {
		t.Fatal("a__b removed twice")
	}
	if err := preview.Add(r2, preview.Tool{Name: "a.b", InputSchema: raw(`{"type":"object"}`)}); err != nil {
		t.Fatalf("a.b refused after a__b was removed: %v", err)
	}
	if _, err := r2.Execute(context.Background(), "a__b", nil, tooling.WithConsent()); err != nil {
		t.Fatalf("the exported spelling finds a.b: %v", err)
	}
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func mustExec(t *testing.T, r *tooling.Registry, name, args string, opts ...tooling.Option) *tooling.Result {
	t.Helper()
	res, err := r.Execute(context.Background(), name, raw(args), opts...)
	if err != nil {
		t.Fatalf("Execute(%s, %s): %v", name, args, err)
	}
	return res
}
