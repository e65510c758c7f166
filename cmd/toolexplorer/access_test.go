package main

import (
	"strings"
	"testing"
)

// The config's access rules decide what each caller sees and may call:
// support sees the read-only tools only, and is refused the others with
// code forbidden naming the rule; a deny rule wins.
func TestAccessRules(t *testing.T) {
	cfg := writeFile(t, "access.json", `{"access": {"default": "deny", "rules": [
		{"name": "support reads", "tools": ["demo.*"], "roles": ["support"], "subjects": ["alice"], "read_only": true},
		{"name": "ops", "tools": ["*"], "subjects": ["bob"]},
		{"name": "no failing", "effect": "deny", "tools": ["demo.fail"], "subjects": ["bob"]}
	]}}`)
	// --as has no roles: alice is not support here, so no rule lets her in.
	o := cli(t, "", "run", "--config", cfg, "--as", "alice", "demo.echo", "--args", `{"text":"hi"}`, "--json")
	if o.code != exitRefused || !strings.Contains(o.stdout, `"code": "forbidden"`) || !strings.Contains(o.stdout, "no allow rule for demo.echo applies to alice") {
		t.Errorf("alice: %s", o)
	}
	o = cli(t, "", "run", "--config", cfg, "--as", "bob", "demo.echo", "--args", `{"text":"hi"}`, "--json")
	if o.code != exitOK {
		t.Errorf("bob: %s", o)
	}
	o = cli(t, "", "run", "--config", cfg, "--as", "bob", "demo.fail", "--args", `{"mode":"error"}`, "--json")
	if !strings.Contains(o.stdout, "denied by no failing") {
		t.Errorf("bob, denied tool: %s", o)
	}
	list := cli(t, "", "list", "--config", cfg, "--as", "bob")
	if !strings.Contains(list.stdout, "demo.echo") || strings.Contains(list.stdout, "demo.fail ") {
		t.Errorf("bob's list:\n%s", list.stdout)
	}
	list = cli(t, "", "list", "--config", cfg, "--as", "carol")
	if strings.Contains(list.stdout, "demo.echo") {
		t.Errorf("carol sees tools no rule opens to her:\n%s", list.stdout)
	}
	bad := writeFile(t, "bad.json", `{"access": {"rules": [{"tools": ["demo"]}]}}`)
	if o := cli(t, "", "list", "--config", bad); o.code != exitUsage || !strings.Contains(o.stderr, `"demo" is not a tool pattern`) {
		t.Errorf("bad rule: %s", o)
	}
}
