package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestLintDemoTools(t *testing.T) {
	o := cli(t, "", "lint")
	if o.code != exitOK || o.stderr != "" {
		t.Fatalf("want exit 0 and nothing on stderr\n%s", o)
	}
	if !strings.HasPrefix(o.stdout, "lint: no problems (") {
		t.Errorf("want only the summary:\n%s", o.stdout)
	}

	o = cli(t, "", "lint", "--json")
	var report lintReport
	if err := json.Unmarshal([]byte(o.stdout), &report); err != nil {
		t.Fatalf("lint --json: %v\n%s", err, o)
	}
	if o.code != exitOK || report.Count != 0 || report.Problems == nil || report.Tools < 7 {
		t.Errorf("exit %d, report %+v: want exit 0, no problems, [] and every demo tool", o.code, report)
	}
}

func TestLintTool(t *testing.T) {
	tool := tooling.Tool{
		Name: "test.sloppy",
		Input: json.RawMessage(`{
			"type": "object",
			"properties": {
				"mode": {"type": "string", "enum": ["a", "b"], "default": "c", "description": "The mode."},
				"count": {"type": "integer", "default": "3"},
				"when": {"$ref": "#/$defs/when"},
				"where": {"$ref": "#/$defs/where"},
				"items": {"type": "array", "description": "Things.", "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
				"name": {"type": "string", "description": "A name.", "default": "x"}
			},
			"required": ["name", "nmae"],
			"$defs": {
				"when": {"type": "string", "description": "A time."},
				"where": {"type": "string"}
			}
		}`),
		Output:      json.RawMessage(`{"type": "array"}`),
		Meta:        tooling.Meta{Tags: []string{"x", "x", ""}},
		Description: strings.Repeat("long ", 300),
	}
	want := []string{
		"meta: no title",
		"meta: the description is 1500 characters long",
		`meta: Meta.Tags has "x" twice`,
		"meta: Meta.Tags has an empty tag",
		"input: additionalProperties is not false",
		`input /required: "nmae" is required but is not among the properties`,
		"input /properties/count: no description",
		`input /properties/count/default: the default "3" is string, but the type is integer`,
		"input /properties/items/items/properties/id: no description",
		`input /properties/mode/default: the default "c" is not one of the enum values`,
		"input /properties/name/default: the property is required, so its default never applies",
		"input /properties/where: no description",
		"output: the root is not \"type\": \"object\"",
	}
	var got []string
	for _, p := range lintTool(tool) {
		s := p.Check
		if p.Path != "" {
			s += " " + p.Path
		}
		got = append(got, s+": "+p.Message)
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no problem starts with %q", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}

func TestLintFormCoverage(t *testing.T) {
	removePreview(t, "lintform.cond")
	file := writeFile(t, "tools.json", `[{"name":"lintform.cond","title":"Cond","description":"d","inputSchema":{"type":"object",
		"properties":{"a":{"type":"string","description":"x","not":{"const":""}}},"additionalProperties":false}}]`)
	o := cli(t, "", "lint", "--tools", file)
	if o.code != exitFailed || !strings.Contains(o.stdout, "lintform.cond: form /properties/a/not: the console's form cannot render this natively") {
		t.Fatalf("lint does not report form coverage:\n%s", o)
	}
}
