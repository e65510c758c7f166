package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling/export"
)

var modelName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkParameters checks what OpenAI and Anthropic require of a tool's
// parameters: an object, with no combinator or enum at the root.
func checkParameters(t *testing.T, name string, raw json.RawMessage) {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Errorf("%s: parameters are not an object: %v", name, err)
		return
	}
	if p["type"] != "object" {
		t.Errorf("%s: parameters have type %v, want object", name, p["type"])
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf", "enum", "not"} {
		if _, ok := p[kw]; ok {
			t.Errorf("%s: parameters have %q at the root", name, kw)
		}
	}
}

func TestSchemas(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []string // tools that must be present
		notWant []string // tools that must be absent
		check   func(t *testing.T, out []byte) []string
	}{
		{
			name: "openai", args: []string{"--format", "openai"},
			want: []string{"demo__echo", "demo__llm_only"},
			check: func(t *testing.T, out []byte) []string {
				var tools []export.OpenAITool
				if err := json.Unmarshal(out, &tools); err != nil {
					t.Fatalf("not OpenAI tools: %v", err)
				}
				var names []string
				for _, tool := range tools {
					if tool.Type != "function" {
						t.Errorf("%s: type %q, want function", tool.Function.Name, tool.Type)
					}
					if !modelName.MatchString(tool.Function.Name) {
						t.Errorf("name %q does not match %s", tool.Function.Name, modelName)
					}
					checkParameters(t, tool.Function.Name, tool.Function.Parameters)
					names = append(names, tool.Function.Name)
				}
				return names
			},
		},
		{
			name: "anthropic", args: []string{"--format", "anthropic"},
			want: []string{"demo__echo", "demo__llm_only"},
			check: func(t *testing.T, out []byte) []string {
				var tools []export.AnthropicTool
				if err := json.Unmarshal(out, &tools); err != nil {
					t.Fatalf("not Anthropic tools: %v", err)
				}
				var names []string
				for _, tool := range tools {
					if !modelName.MatchString(tool.Name) {
						t.Errorf("name %q does not match %s", tool.Name, modelName)
					}
					checkParameters(t, tool.Name, tool.InputSchema)
					names = append(names, tool.Name)
				}
				return names
			},
		},
		{
			name: "mcp for the app", args: []string{"--format", "mcp", "--origin", "app"},
			want: []string{"demo.echo", "demo.write_note", "fs.write_file", "demo.kv_put"}, notWant: []string{"demo.llm_only"},
			check: func(t *testing.T, out []byte) []string {
				var list export.MCPToolList
				if err := json.Unmarshal(out, &list); err != nil {
					t.Fatalf("not an MCP tools/list result: %v", err)
				}
				var names []string
				for _, tool := range list.Tools {
					names = append(names, tool.Name)
					if tool.Name == "demo.write_note" && tool.Annotations.ReadOnlyHint {
						t.Errorf("demo.write_note is marked read-only")
					}
					// Tools that overwrite data are destructive (MCP's
					// default), whatever their risk.
					if w := slices.Contains([]string{"fs.write_file", "demo.kv_put", "demo.write_note", "proc.run"}, tool.Name); w && !tool.Annotations.DestructiveHint {
						t.Errorf("%s overwrites data but is marked destructiveHint false", tool.Name)
					}
				}
				return names
			},
		},
		{
			name: "filter", args: []string{"--format", "MCP", "--filter", "echo"},
			want: []string{"demo.echo"}, notWant: []string{"demo.slow"},
			check: func(t *testing.T, out []byte) []string {
				var list export.MCPToolList
				if err := json.Unmarshal(out, &list); err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tool := range list.Tools {
					names = append(names, tool.Name)
				}
				return names
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := cli(t, "", append([]string{"schemas"}, tt.args...)...)
			if o.code != exitOK || o.stderr != "" {
				t.Fatalf("want exit 0 and nothing on stderr\n%s", o)
			}
			names := tt.check(t, []byte(o.stdout))
			for _, n := range tt.want {
				if !slices.Contains(names, n) {
					t.Errorf("%s is missing from %v", n, names)
				}
			}
			for _, n := range tt.notWant {
				if slices.Contains(names, n) {
					t.Errorf("%s is exported: %v", n, names)
				}
			}
		})
	}
}
