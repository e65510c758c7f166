package export_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/export"
)

func exportRegistry() *tooling.Registry {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "kv.get", Title: "Get", Description: "Reads a key", Run: run,
		Input: raw(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead, Idempotent: true}})
	r.Register(tooling.Tool{Name: "kv.wipe", Description: "Deletes everything", Run: run,
		Meta: tooling.Meta{Effects: tooling.EffectWrite, Safety: tooling.SafetyHigh}})
	r.Register(tooling.Tool{Name: "net.fetch", Description: "Fetches a URL", Run: run, Meta: tooling.Meta{Effects: tooling.EffectNetwork}})
	r.Register(tooling.Tool{Name: "app.only", Description: "For the host", Run: run, Meta: tooling.Meta{Origins: []tooling.Origin{tooling.OriginApp}}})
	return r
}

func TestExportMCP(t *testing.T) {
	r := exportRegistry()
	list := export.MCP(context.Background(), r, export.Options{})
	got := map[string]export.MCPTool{}
	for _, tl := range list.Tools {
		got[tl.Name] = tl
	}
	if _, ok := got["app.only"]; ok || len(got) != 3 {
		t.Fatalf("exported %v; app.only must be left out for origin llm", got)
	}
	tests := []struct {
		name string
		want export.MCPAnnotations
	}{
		{"kv.get", export.MCPAnnotations{Title: "Get", ReadOnlyHint: true, IdempotentHint: true}},
		{"kv.wipe", export.MCPAnnotations{DestructiveHint: true}},
		{"net.fetch", export.MCPAnnotations{ReadOnlyHint: true, OpenWorldHint: true}},
	}
	for _, tt := range tests {
		if got[tt.name].Annotations != tt.want {
			t.Errorf("%s: annotations %+v, want %+v", tt.name, got[tt.name].Annotations, tt.want)
		}
	}
	if !strings.Contains(string(got["kv.wipe"].InputSchema), `"type":"object"`) {
		t.Errorf("a tool without input gets %s", got["kv.wipe"].InputSchema)
	}
	app := export.MCP(context.Background(), r, export.Options{Origin: tooling.OriginApp})
	if len(app.Tools) != 4 {
		t.Errorf("origin app sees %d tools, want 4", len(app.Tools))
	}
}

var modelName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestExportOpenAIAndAnthropicNamesAreReversible(t *testing.T) {
	r := exportRegistry()
	ctx := context.Background()
	for _, f := range export.OpenAI(ctx, r, export.Options{}) {
		if f.Type != "function" || !modelName.MatchString(f.Function.Name) {
			t.Errorf("bad OpenAI tool %+v", f)
		}
		if strings.Contains(string(f.Function.Parameters), "$schema") {
			t.Errorf("%s parameters keep $schema: %s", f.Function.Name, f.Function.Parameters)
		}
		var schema map[string]any
		if err := json.Unmarshal(f.Function.Parameters, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s parameters %s", f.Function.Name, f.Function.Parameters)
		}
		// A model calls back with the exported name; Execute accepts it.
		res, _ := r.Execute(ctx, f.Function.Name, raw(`{"key":"a"}`), tooling.WithOrigin(tooling.OriginLLM), tooling.WithConsent())
		if res.Code == codes.NotFound {
			t.Errorf("exported name %q is not accepted back", f.Function.Name)
		}
	}
	for _, a := range export.Anthropic(ctx, r, export.Options{}) {
		if !modelName.MatchString(a.Name) || len(a.InputSchema) == 0 {
			t.Errorf("bad Anthropic tool %+v", a)
		}
	}
}

func TestExportLeavesOutDisabledTools(t *testing.T) {
	r := exportRegistry()
	cfg := tooling.Settings{}
	cfg.Blacklist = []string{"kv.*"}
	r.Configure(cfg)
	var got []string
	for _, a := range export.Anthropic(context.Background(), r, export.Options{}) {
		got = append(got, a.Name)
	}
	if !slices.Equal(got, []string{"net__fetch"}) {
		t.Errorf("exported %v", got)
	}
	b, err := export.Encode(context.Background(), r, export.FormatOpenAI, export.Options{})
	if err != nil || !strings.Contains(string(b), `"net__fetch"`) || strings.Contains(string(b), "kv__") {
		t.Errorf("Export: %v %s", err, b)
	}
	if _, err := export.Encode(context.Background(), r, "yaml", export.Options{}); err == nil {
		t.Error("unknown format accepted")
	}
}

func run(context.Context, tooling.Call) (any, error) { return "ok", nil }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// TestDestructiveHint: a tool that writes is destructive, as MCP assumes,
// whatever its risk, unless its Meta says its writes only add; one that
// starts processes is destructive even then.
func TestDestructiveHint(t *testing.T) {
	for _, c := range []struct {
		name string
		meta tooling.Meta
		want bool
	}{
		{"overwrites at medium risk", tooling.Meta{Effects: tooling.EffectWrite | tooling.EffectFilesystem}, true},
		{"overwrites at high risk", tooling.Meta{Effects: tooling.EffectWrite, Safety: tooling.SafetyHigh}, true},
		{"only adds", tooling.Meta{Effects: tooling.EffectWrite | tooling.EffectNetwork, Additive: true}, false},
		{"only adds, at high risk", tooling.Meta{Effects: tooling.EffectWrite, Safety: tooling.SafetyHigh, Additive: true}, false},
		{"starts processes", tooling.Meta{Effects: tooling.EffectProcess, Additive: true}, true},
		{"reads", tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead}, false},
	} {
		a := export.Annotations(tooling.Tool{Name: "x.y", Meta: c.meta})
		if a.DestructiveHint != c.want {
			t.Errorf("%s: destructiveHint %v, want %v", c.name, a.DestructiveHint, c.want)
		}
	}
}
