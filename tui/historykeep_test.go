package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// A console call of a tool that echoes its secret argument is shown as it
// came back, and kept in the history file with the secret redacted in the
// output as in the arguments.
func TestKeptCallHasNoEchoedSecret(t *testing.T) {
	reg := newTestRegistry(t)
	if err := reg.Add(tooling.Tool{
		Name: "demo.login", Description: "Echoes its arguments.",
		Input: json.RawMessage(`{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string"},"otp":{"type":"string","writeOnly":true}}}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			return map[string]any{"echo": "user " + c.String("user") + " password " + c.String("password"), "otp": c.String("otp")}, nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	h := newHarnessWith(t, reg, Options{History: history.Open(path)}, 100, 30)
	openRun(t, h, "demo.login", `{"user":"bob","password":"hunter2","otp":"981273"}`)
	h.press("ctrl+s")
	if res := h.runDone(1); !strings.Contains(string(res.Output), "hunter2") {
		t.Fatalf("the result on screen lost the output: %s", res.Output)
	}
	var raw []byte
	for deadline := time.Now().Add(30 * time.Second); len(raw) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call was not kept")
		}
		raw, _ = os.ReadFile(path)
	}
	for _, leak := range []string{"hunter2", "981273"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("%s reached the history file:\n%s", leak, raw)
		}
	}
	if !strings.Contains(string(raw), "user bob password [redacted]") {
		t.Errorf("the output is not kept, redacted:\n%s", raw)
	}
}
