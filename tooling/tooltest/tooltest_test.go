package tooltest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/tooltest"
)

type key struct{}

// readNote is a tool as its author writes it, confined in production.
var readNote = tooling.Tool{
	Name:  "notes.read",
	Input: []byte(`{"type":"object","properties":{"name":{"type":"string","minLength":1},"upper":{"type":"boolean","default":false}},"required":["name"]}`),
	Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead | tooling.EffectFilesystem,
		Confine: &tooling.Confinement{Read: []string{"$WORKSPACE"}}},
	Run: func(ctx context.Context, c tooling.Call) (any, error) {
		b, err := os.ReadFile(filepath.Join(c.Workspace, callargs.String(c.Args, "name")))
		if err != nil {
			return nil, err
		}
		v, _ := ctx.Value(key{}).(string)
		return map[string]any{"text": string(b), "upper": c.Args["upper"], "origin": c.Origin, "tenant": c.Principal.Tenant,
			"consent": c.Consent, "id": c.ID, "ctx": v}, nil
	},
}

func TestRun(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(t.Context(), key{}, "v")
	out, err := tooltest.Run(t, readNote, `{"name":"a.txt"}`, tooltest.WithWorkspace(ws), tooltest.WithOrigin(tooling.OriginLLM),
		tooltest.WithPrincipal(tooling.Principal{Tenant: "acme"}), tooltest.WithConsent(), tooltest.WithCallID("c-9"), tooltest.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	got := out.(map[string]any)
	want := map[string]any{"text": "hello", "upper": false, "origin": tooling.OriginLLM, "tenant": "acme", "consent": true, "id": "c-9", "ctx": "v"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	// Defaults: origin app, no consent, id test-call.
	out, err = tooltest.Run(t, readNote, `{"name":"a.txt"}`, tooltest.WithWorkspace(ws))
	if got := out.(map[string]any); err != nil || got["origin"] != tooling.OriginApp || got["consent"] != false || got["id"] != "test-call" {
		t.Fatalf("defaults: %v %v", got, err)
	}
	// The tool's own error comes back as it is.
	if _, err := tooltest.Run(t, readNote, `{"name":"missing.txt"}`, tooltest.WithWorkspace(ws)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestRunRefusesInvalidArguments(t *testing.T) {
	ran := false
	tool := readNote
	tool.Run = func(context.Context, tooling.Call) (any, error) { ran = true; return nil, nil }
	_, err := tooltest.Run(t, tool, `{"name":"","extra":1,"upper":"no"}`)
	var te *tooling.Error
	if !errors.As(err, &te) || te.Code != codes.ValidationError || len(te.Result.Fields) != 2 || ran {
		t.Fatalf("err %v ran %v", err, ran)
	}
	if te.Result.Fields[0].Path != "/name" || te.Result.Fields[1].Path != "/upper" {
		t.Fatalf("fields %v", te.Result.Fields)
	}
}
