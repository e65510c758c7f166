package tooling_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func listRegistry() *tooling.Registry {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "fs.read_file", Description: "Reads a file", Run: run,
		Input: raw(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead | tooling.EffectFilesystem, Tags: []string{"fs"}}})
	r.Register(tooling.Tool{Name: "fs.write_file", Description: "Writes a file", Run: run,
		Input: raw(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`),
		Meta:  tooling.Meta{Effects: tooling.EffectWrite | tooling.EffectFilesystem, Tags: []string{"fs", "danger"}}})
	r.Register(tooling.Tool{Name: "ui.redraw", Title: "Redraw the screen", Run: run, Meta: tooling.Meta{Concurrency: tooling.MainThread}})
	r.Register(tooling.Tool{Name: "ai.summarize", Description: "Summaries for models", Run: run, Meta: tooling.Meta{Origins: []tooling.Origin{tooling.OriginLLM}}})
	r.Register(tooling.Tool{Name: "net.fetch", Run: run, Meta: tooling.Meta{Effects: tooling.EffectNetwork},
		Available: func(context.Context, tooling.Call) error { return errors.New("offline") }})
	return r
}

func names(ts []tooling.Tool) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestListFilters(t *testing.T) {
	r := listRegistry()
	tests := []struct {
		name string
		f    tooling.Filter
		want []string
	}{
		{"all sorted", tooling.Filter{}, []string{"ai.summarize", "fs.read_file", "fs.write_file", "net.fetch", "ui.redraw"}},
		{"text in name", tooling.Filter{Text: "FILE"}, []string{"fs.read_file", "fs.write_file"}},
		{"text in title", tooling.Filter{Text: "screen"}, []string{"ui.redraw"}},
		{"text in description", tooling.Filter{Text: "models"}, []string{"ai.summarize"}},
		{"text in parameter", tooling.Filter{Text: "content"}, []string{"fs.write_file"}},
		{"all words", tooling.Filter{Text: "file writes"}, []string{"fs.write_file"}},
		{"tags", tooling.Filter{Tags: []string{"fs", "danger"}}, []string{"fs.write_file"}},
		{"effects", tooling.Filter{Effects: tooling.EffectWrite | tooling.EffectNetwork}, []string{"fs.write_file", "net.fetch"}},
		{"concurrency", tooling.Filter{Concurrency: []tooling.Concurrency{tooling.ReadOnly, tooling.MainThread}}, []string{"fs.read_file", "ui.redraw"}},
		{"safety", tooling.Filter{Safety: tooling.SafetyMedium}, []string{"fs.read_file", "fs.write_file", "net.fetch"}},
		{"origin", tooling.Filter{Origin: tooling.OriginLLM, Text: "ai"}, []string{"ai.summarize"}},
		{"origin excludes", tooling.Filter{Origin: tooling.OriginUI, Text: "summar"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := names(r.List(context.Background(), tt.f)); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	_ = r.SetEnabled("ui.redraw", false)
	if err := r.Availability(context.Background(), "ui.redraw", ""); !errors.Is(err, codes.Disabled) {
		t.Errorf("availability after disabling ui.redraw: %v", err)
	}
}

func TestAvailability(t *testing.T) {
	r := listRegistry()
	if err := r.Availability(context.Background(), "fs.read_file", ""); err != nil {
		t.Fatal(err)
	}
	if err := r.Availability(context.Background(), "net.fetch", ""); !errors.Is(err, codes.Unavailable) {
		t.Fatalf("got %v", err)
	}
	if err := r.Availability(context.Background(), "ai.summarize", tooling.OriginUI); !errors.Is(err, codes.OriginDenied) {
		t.Fatalf("got %v", err)
	}
	if err := r.Availability(context.Background(), "nope.nope", ""); !errors.Is(err, codes.NotFound) {
		t.Fatalf("got %v", err)
	}
}
