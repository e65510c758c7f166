package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
)

// readOnlyConfig opens every tool to role ops (and subject olga), and
// only the read-only ones to role reader (and subject rita); it closes
// the rest.
const readOnlyConfig = `{"access": {"default": "deny", "rules": [
  {"name": "readers read", "tools": ["*"], "roles": ["reader"], "read_only": true},
  {"name": "rita reads", "tools": ["*"], "subjects": ["rita"], "read_only": true},
  {"name": "ops", "tools": ["*"], "roles": ["ops"]},
  {"name": "olga", "tools": ["*"], "subjects": ["olga"]}
]},
"serve": {"api_keys": {
  "reader": {"sha256": "%READER%", "roles": ["reader"]},
  "ops": {"sha256": "%OPS%", "roles": ["ops"]}
}}}`

// writeTools are the demo tools that change something: those a role that
// reads may not see.
var writeTools = []string{"demo.counter", "demo.kv_put", "demo.write_note", "fs.write_file", "proc.run"}

// TestReadOnlyRoleSeesReadOnlyTools: a rule with read_only opens to role
// reader the tools that change nothing, and only those: tools/list over
// HTTP with the reader's API key, list and the schemas export hold no
// tool with write or process effects, where ops sees them all.
func TestReadOnlyRoleSeesReadOnlyTools(t *testing.T) {
	cfg := writeFile(t, "c.json", strings.NewReplacer("%READER%", mcp.APIKeyDigest("key-reader"), "%OPS%", mcp.APIKeyDigest("key-ops")).Replace(readOnlyConfig))

	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfg, "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("serve --http: exit %d: %s", code, stderr.String())
		}
	})
	url := waitFor(t, func() (string, bool) {
		_, after, ok := strings.Cut(stderr.String(), "serving MCP at ")
		return strings.TrimSpace(after), ok
	})
	served := func(key string) []string {
		t.Helper()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
			&sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(key)}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	listed := func(args ...string) []string {
		t.Helper()
		o := cli(t, "", append([]string{"list", "--config", cfg, "--json"}, args...)...)
		var infos []struct{ Name string }
		if err := json.Unmarshal([]byte(o.stdout), &infos); o.code != exitOK || err != nil {
			t.Fatalf("list %v: %v: %s", args, err, o)
		}
		var names []string
		for _, info := range infos {
			names = append(names, info.Name)
		}
		return names
	}
	exported := func(args ...string) []string {
		t.Helper()
		o := cli(t, "", append([]string{"schemas", "--config", cfg, "--format", "mcp"}, args...)...)
		var list struct{ Tools []struct{ Name string } }
		if err := json.Unmarshal([]byte(o.stdout), &list); o.code != exitOK || err != nil {
			t.Fatalf("schemas %v: %v: %s", args, err, o)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	for _, c := range []struct {
		what        string
		reader, ops []string
	}{
		{"tools/list", served("key-reader"), served("key-ops")},
		{"list", listed("--as", "rita"), listed("--as", "olga")},
		{"schemas", exported("--as", "rita"), exported("--as", "olga")},
	} {
		if !slices.Contains(c.reader, "demo.echo") || !slices.Contains(c.reader, "fs.read_file") {
			t.Errorf("%s: the reader does not see the tools that read: %v", c.what, c.reader)
		}
		for _, w := range writeTools {
			if slices.Contains(c.reader, w) {
				t.Errorf("%s: the reader sees %s: %v", c.what, w, c.reader)
			}
			if !slices.Contains(c.ops, w) {
				t.Errorf("%s: ops does not see %s: %v", c.what, w, c.ops)
			}
		}
	}
	if o := cli(t, "", "run", "--config", cfg, "--as", "rita", "demo.write_note", "--args", `{"text":"n"}`, "--consent", "--json"); o.code != exitRefused ||
		!strings.Contains(o.stdout, `"code": "forbidden"`) {
		t.Errorf("rita writes: %s", o)
	}
	// describe shows what list shows: a tool hidden from the caller is not
	// found, as it is not listed; the one who sees it gets its description.
	if o := cli(t, "", "describe", "--config", cfg, "--as", "rita", "demo.write_note"); o.code != exitRefused ||
		!strings.Contains(o.stderr, "describe demo.write_note: not_found") {
		t.Errorf("rita describes a tool hidden from her: %s", o)
	}
	if o := cli(t, "", "describe", "--config", cfg, "--as", "olga", "demo.write_note"); o.code != exitOK || !strings.Contains(o.stdout, "demo.write_note:") {
		t.Errorf("olga describes demo.write_note: %s", o)
	}
	http.DefaultClient.CloseIdleConnections()
}
