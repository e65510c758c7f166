package lint_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/lint"
)

func TestTool(t *testing.T) {
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
	for _, p := range lint.Tool(tool) {
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

func TestExportProblems(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.fine", Title: "Fine", Description: "fine", Run: run})
	r.Register(tooling.Tool{Name: "demo.union", Title: "Union", Description: "union", Run: run,
		Input: raw(`{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"additionalProperties":false}`)})
	r.Register(tooling.Tool{Name: "demo.silent", Title: "Silent", Run: run})
	got := map[string][]string{}
	for _, p := range lint.Registry(r) {
		got[p.Tool] = append(got[p.Tool], p.String())
	}
	if len(got["demo.fine"]) != 0 {
		t.Errorf("fine tool has problems: %v", got["demo.fine"])
	}
	if len(got["demo.union"]) != 1 || got["demo.union"][0] != `demo.union: openai: input schema has "anyOf" at its root, which OpenAI refuses: move it into a property` {
		t.Errorf("union: %v", got["demo.union"])
	}
	// One problem naming the three formats, not one per format.
	if len(got["demo.silent"]) != 1 || got["demo.silent"][0] != "demo.silent: mcp, openai, anthropic: no description: models choose tools by their description" {
		t.Errorf("silent: %v", got["demo.silent"])
	}
}

// A tool whose output schema is not an object is one problem, of check
// output, concerning MCP.
func TestOutputSchemaNotAnObject(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.scalar_out", Title: "S", Description: "d", Run: run, Output: raw(`{"type":"string"}`)})
	r.Register(tooling.Tool{Name: "demo.object_out", Title: "O", Description: "d", Run: run, Output: raw(`{"type":"object"}`)})
	probs := lint.Registry(r)
	if len(probs) != 1 || probs[0].Tool != "demo.scalar_out" || probs[0].Check != "output" || len(probs[0].Formats) != 1 || probs[0].Formats[0] != "mcp" {
		t.Fatalf("problems %+v", probs)
	}
}

func run(context.Context, tooling.Call) (any, error) { return "ok", nil }

func raw(s string) json.RawMessage { return json.RawMessage(s) }
