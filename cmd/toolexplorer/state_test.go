package main

import (
	"strings"
	"testing"
)

// TestToolStatesFromConfig: the config pauses one tool and deprecates
// another; run refuses the paused one (exit 3, code paused), runs the
// deprecated one saying so, describe shows both states and lint warns that
// the whitelist still names the deprecated tool.
func TestToolStatesFromConfig(t *testing.T) {
	cfg := writeFile(t, "config.json", `{
  "whitelist": ["demo.echo", "demo.fail", "demo.kv_get", "demo.kv_put"],
  "tools": {
    "demo.fail": {"state": "paused", "reason": "under repair"},
    "demo.kv_get": {"state": "deprecated", "reason": "reads the old store", "replacement": "demo.echo"}
  }
}`)
	paused := cli(t, "", "run", "demo.fail", "--config", cfg)
	if paused.code != exitRefused || !strings.Contains(paused.stdout, "(paused)") || !strings.Contains(paused.stdout, "under repair") {
		t.Fatalf("run of a paused tool:\n%s", paused)
	}
	dep := cli(t, "", "run", "demo.kv_get", "--config", cfg, "--args", `{"key":"k"}`)
	if !strings.Contains(dep.stdout, "state: deprecated: use demo.echo instead (reads the old store)") {
		t.Fatalf("run of a deprecated tool does not say so:\n%s", dep)
	}
	desc := cli(t, "", "describe", "demo.kv_get", "--config", cfg)
	if !strings.Contains(desc.stdout, "deprecated: use demo.echo instead") {
		t.Fatalf("describe of a deprecated tool:\n%s", desc)
	}
	lint := cli(t, "", "lint", "--config", cfg)
	if !strings.Contains(lint.stdout, "config whitelist names demo.kv_get, which is deprecated: use demo.echo instead") {
		t.Fatalf("lint does not warn of the deprecated tool in the whitelist:\n%s", lint)
	}
}
