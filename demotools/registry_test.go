package demotools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/export"
	"github.com/toolexplorer/toolexplorer/tooling/lint"
)

// demoPrefixes are the name prefixes of the demo tools: the in-process
// ones (demo.) and the confined ones (fs., net., proc.).
var demoPrefixes = []string{"demo.", "fs.", "net.", "proc."}

// isDemo reports whether name is the name of a demo tool (test tools
// registered by these tests are not).
func isDemo(name string) bool {
	for _, p := range demoPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// demoTools lists the demo tools of the default registry.
func demoTools(t *testing.T) []tooling.Tool {
	t.Helper()
	var out []tooling.Tool
	for _, tool := range tooling.Default().List(context.Background(), tooling.Filter{}) {
		if isDemo(tool.Name) {
			out = append(out, tool)
		}
	}
	return out
}

func TestToolsRegistered(t *testing.T) {
	var got []string
	for _, tool := range demoTools(t) {
		got = append(got, tool.Name)
	}
	want := []string{"demo.counter", "demo.echo", "demo.fail", "demo.host_status", "demo.kv_get", "demo.kv_put", "demo.limited",
		"demo.llm_only", "demo.slow", "demo.unavailable", "demo.write_note", "fs.list_dir", "fs.read_file", "fs.write_file",
		"net.http_get", "proc.run"}
	if !slices.Equal(got, want) {
		t.Fatalf("demo tools %v, want %v", got, want)
	}
}

// TestToolsDescribed checks what people and models read: titles,
// descriptions, a valid Meta, and complete schemas.
func TestToolsDescribed(t *testing.T) {
	for _, tool := range demoTools(t) {
		t.Run(tool.Name, func(t *testing.T) {
			if strings.TrimSpace(tool.Title) == "" {
				t.Error("no title")
			}
			if len(strings.Fields(tool.Description)) < 8 {
				t.Errorf("description %q is too thin", tool.Description)
			}
			if !slices.Contains(tool.Meta.Tags, "demo") {
				t.Errorf("tags %v lack \"demo\"", tool.Meta.Tags)
			}
			if tool.Meta.Version == "" {
				t.Error("no version")
			}
			// A fresh registry applies every check Register makes: name,
			// Run, Meta contradictions, schemas that compile. It refuses a
			// confined tool only after all of them, since TestMain hosts
			// Default: that refusal says the tool passed them.
			err := tooling.NewRegistry().Add(tool)
			if tool.Meta.Confine != nil && err != nil && strings.HasSuffix(err.Error(), "which is another one: register it there") {
				err = nil
			}
			if err != nil {
				t.Errorf("Add: %v", err)
			}
			for which, raw := range map[string]json.RawMessage{"input": tool.Input, "output": tool.Output} {
				if len(raw) == 0 {
					continue
				}
				var doc map[string]any
				if err := json.Unmarshal(raw, &doc); err != nil {
					t.Fatalf("%s schema: %v", which, err)
				}
				if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
					t.Errorf("%s schema: $schema %v, want draft 2020-12", which, doc["$schema"])
				}
				checkSchema(t, which, "#", doc)
			}
		})
	}
}

// checkSchema walks a schema: every object with properties forbids others,
// and every property and array item has a title and a description.
func checkSchema(t *testing.T, which, at string, s map[string]any) {
	t.Helper()
	if props, ok := s["properties"].(map[string]any); ok {
		if s["additionalProperties"] != false {
			t.Errorf("%s schema %s: additionalProperties is not false", which, at)
		}
		for name, p := range props {
			ps, _ := p.(map[string]any)
			checkDescribed(t, which, at+"/properties/"+name, ps)
			checkSchema(t, which, at+"/properties/"+name, ps)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		checkDescribed(t, which, at+"/items", items)
		checkSchema(t, which, at+"/items", items)
	}
}

func checkDescribed(t *testing.T, which, at string, s map[string]any) {
	t.Helper()
	for _, kw := range []string{"title", "description"} {
		if v, _ := s[kw].(string); strings.TrimSpace(v) == "" {
			t.Errorf("%s schema %s: no %s", which, at, kw)
		}
	}
}

// TestToolsMeta pins what each tool declares, so that a change to a
// declaration is a deliberate one.
func TestToolsMeta(t *testing.T) {
	tests := []struct {
		name        string
		concurrency tooling.Concurrency
		effects     tooling.Effects
		consent     bool
		timeout     time.Duration
		origins     []tooling.Origin
		idempotent  bool
		available   bool // has an Available func
		output      bool // has an output schema
		confined    bool // has Meta.Confine
	}{
		{name: "demo.counter", concurrency: tooling.MainThread, effects: tooling.EffectWrite, consent: true, output: true},
		{name: "demo.echo", concurrency: tooling.ReadOnly, idempotent: true, output: true},
		{name: "demo.kv_get", concurrency: tooling.Exclusive, effects: tooling.EffectRead, idempotent: true, output: true},
		{name: "demo.kv_put", concurrency: tooling.Exclusive, effects: tooling.EffectWrite, consent: true, idempotent: true, output: true},
		{name: "demo.limited", concurrency: tooling.ReadOnly, idempotent: true, output: true},
		{name: "demo.fail", concurrency: tooling.ReadOnly, output: true},
		{name: "demo.host_status", concurrency: tooling.ReadOnly, effects: tooling.EffectRead, output: true},
		{name: "demo.llm_only", concurrency: tooling.ReadOnly, origins: []tooling.Origin{tooling.OriginLLM}, idempotent: true, output: true},
		{name: "demo.slow", concurrency: tooling.ReadOnly, timeout: 500 * time.Millisecond, idempotent: true, output: true},
		{name: "demo.unavailable", concurrency: tooling.ReadOnly, available: true, output: true},
		{name: "demo.write_note", concurrency: tooling.Exclusive, effects: tooling.EffectWrite, consent: true, output: true},
		{name: "fs.list_dir", concurrency: tooling.ReadOnly, effects: tooling.EffectRead | tooling.EffectFilesystem, idempotent: true, output: true, confined: true},
		{name: "fs.read_file", concurrency: tooling.ReadOnly, effects: tooling.EffectRead | tooling.EffectFilesystem, idempotent: true, output: true, confined: true},
		{name: "fs.write_file", concurrency: tooling.Exclusive, effects: tooling.EffectWrite | tooling.EffectFilesystem, consent: true, idempotent: true, output: true, confined: true},
		{name: "net.http_get", concurrency: tooling.ReadOnly, effects: tooling.EffectRead | tooling.EffectNetwork, timeout: 12 * time.Second, output: true, confined: true},
		{name: "proc.run", concurrency: tooling.Exclusive, effects: tooling.EffectProcess, consent: true, timeout: 10 * time.Second, output: true, confined: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, ok := tooling.Default().Lookup(tt.name)
			if !ok {
				t.Fatal("not registered")
			}
			m := tool.Meta
			if m.Concurrency != tt.concurrency || m.Effects != tt.effects || m.NeedsConsent() != tt.consent ||
				m.Timeout != tt.timeout || !slices.Equal(m.Origins, tt.origins) || m.Idempotent != tt.idempotent {
				t.Errorf("meta %+v (needs consent %v), want %+v", m, m.NeedsConsent(), tt)
			}
			if (tool.Available != nil) != tt.available || (len(tool.Output) > 0) != tt.output {
				t.Errorf("available func %v, output schema %v; want %v, %v", tool.Available != nil, len(tool.Output) > 0, tt.available, tt.output)
			}
			if (m.Confine != nil) != tt.confined {
				t.Errorf("confined %v, want %v", m.Confine != nil, tt.confined)
			}
			ann := export.Annotations(tool)
			if ann.ReadOnlyHint != (m.Effects&(tooling.EffectWrite|tooling.EffectProcess) == 0) {
				t.Errorf("MCP readOnlyHint %v for effects %s", ann.ReadOnlyHint, m.Effects)
			}
		})
	}
	if tool, _ := tooling.Default().Lookup("demo.write_note"); !slices.Equal(tool.Meta.Resources, []string{"notes"}) {
		t.Errorf("demo.write_note resources %v, want [notes]", tool.Meta.Resources)
	}
	if tool, _ := tooling.Default().Lookup("fs.write_file"); !slices.Equal(tool.Meta.Resources, []string{"workspace"}) {
		t.Errorf("fs.write_file resources %v, want [workspace]", tool.Meta.Resources)
	}
	if tool, _ := tooling.Default().Lookup("demo.slow"); !strings.Contains(tool.Description, "500 ms") {
		t.Errorf("demo.slow's description does not give its timeout: %q", tool.Description)
	}
}

func TestExportProblems(t *testing.T) {
	for _, p := range lint.Registry(tooling.Default()) {
		if p.Check == "export" && isDemo(p.Tool) {
			t.Errorf("%s", p)
		}
	}
	// Exports for models list what a model may call: demo.llm_only, and
	// not demo.unavailable, which can never run.
	list := export.MCP(context.Background(), tooling.Default(), export.Options{})
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "demo.llm_only") || !slices.Contains(names, "demo.echo") {
		t.Errorf("MCP export %v lacks demo.llm_only or demo.echo", names)
	}
}

// TestTags checks that the tags select what they say.
func TestTags(t *testing.T) {
	tests := []struct {
		tags []string
		want []string
	}{
		{tags: []string{"demo"}, want: []string{"demo.counter", "demo.echo", "demo.fail", "demo.host_status", "demo.kv_get", "demo.kv_put",
			"demo.limited", "demo.llm_only", "demo.slow", "demo.unavailable", "demo.write_note", "fs.list_dir", "fs.read_file", "fs.write_file",
			"net.http_get", "proc.run"}},
		{tags: []string{"confined"}, want: []string{"fs.list_dir", "fs.read_file", "fs.write_file", "net.http_get", "proc.run"}},
		{tags: []string{"fs"}, want: []string{"fs.list_dir", "fs.read_file", "fs.write_file"}},
		{tags: []string{"timing"}, want: []string{"demo.slow"}},
		{tags: []string{"failure"}, want: []string{"demo.fail"}},
		{tags: []string{"governance"}, want: []string{"demo.counter", "demo.kv_get", "demo.kv_put", "demo.limited", "demo.llm_only", "demo.unavailable", "demo.write_note"}},
		{tags: []string{"kv"}, want: []string{"demo.kv_get", "demo.kv_put"}},
		{tags: []string{"demo", "consent"}, want: []string{"demo.write_note", "fs.write_file"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.tags, "+"), func(t *testing.T) {
			var got []string
			for _, tool := range tooling.Default().List(context.Background(), tooling.Filter{Tags: tt.tags}) {
				if isDemo(tool.Name) {
					got = append(got, tool.Name)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
