package main

import (
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// removePreview unregisters preview tools a test loaded into the default
// registry, so that other tests see the demo tools only.
func removePreview(t *testing.T, names ...string) {
	t.Cleanup(func() {
		for _, n := range names {
			tooling.Default.Remove(n)
		}
	})
}

func TestToolsFile(t *testing.T) {
	removePreview(t, "ext.get-weather")
	file := writeFile(t, "tools.json", `{"tools":[
		{"name":"ext.get-weather","description":"Weather for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"annotations":{"readOnlyHint":true}},
		{"name":"ext.broken","inputSchema":{"type":"string"}}]}`)
	o := cli(t, "", "--tools", file, "run", "ext.get-weather", "--args", `{"city":"Oslo"}`, "--json")
	if o.code != exitOK || !strings.Contains(o.stdout, `"preview": true`) || !strings.Contains(o.stderr, "toolexplorer: warning: tools file "+file+`: tool 2 "ext.broken": input schema must have "type": "object" at its root`) {
		t.Fatalf("run a preview tool:\n%s", o)
	}
	// Loaded once per process: later commands in this process see it already.
	o = cli(t, "", "run", "ext.get-weather", "--args", `{}`)
	if o.code != exitRefused || !strings.Contains(o.stdout, "/city") {
		t.Fatalf("validation of a preview tool:\n%s", o)
	}
	o = cli(t, "", "list", "--tools", writeFile(t, "missing-dir-file.json", "{"))
	if o.code != exitUsage || !strings.Contains(o.stderr, "not an MCP tools/list result") {
		t.Fatalf("a malformed tools file:\n%s", o)
	}
}
