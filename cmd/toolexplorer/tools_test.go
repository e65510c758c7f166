package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// removePreview unregisters preview tools a test loaded into the default
// registry, so that other tests see the demo tools only.
func removePreview(t *testing.T, names ...string) {
	t.Cleanup(func() {
		for _, n := range names {
			_ = tooling.Default().Replace([]string{n}, nil)
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

// Two --tools files both load, given before the command name or after
// it, and their tools say which file they come from; a call keeps every
// --tools file, so that it can be made again (a --tools after the command
// name was not kept).
func TestToolsFilesAllLoadAndAreKept(t *testing.T) {
	removePreview(t, "one.ping", "two.pong")
	path := filepath.Join(t.TempDir(), "h.jsonl")
	t.Setenv(history.FileEnv, path)
	one := writeFile(t, "one.json", `{"tools":[{"name":"one.ping","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}`)
	two := writeFile(t, "two.json", `{"tools":[{"name":"two.pong","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}`)
	o := cli(t, "", "--tools", one, "run", "two.pong", "--tools", two, "--args", `{}`)
	if o.code != exitOK {
		t.Fatalf("a tool of the second --tools file:\n%s", o)
	}
	for name, file := range map[string]string{"one.ping": one, "two.pong": two} {
		tool, ok := tooling.Default().Lookup(name)
		abs, _ := filepath.Abs(file)
		if !ok || tool.Source != "tools:"+abs {
			t.Errorf("%s: loaded %v, source %q; want tools:%s", name, ok, tool.Source, abs)
		}
	}
	entries, err := history.Open(path).Last(1, nil)
	if err != nil || len(entries) != 1 {
		t.Fatalf("kept %v, %v", entries, err)
	}
	absOne, _ := filepath.Abs(one)
	absTwo, _ := filepath.Abs(two)
	if e := entries[0]; strings.Join(e.ToolsFiles, " ") != absOne+" "+absTwo {
		t.Errorf("kept with the tools files %q, want [%s %s]", e.ToolsFiles, absOne, absTwo)
	}
}
