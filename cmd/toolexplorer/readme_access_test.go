package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// readmeSection returns the code blocks of the README's section heading,
// by their language.
func readmeSection(t *testing.T, heading string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("the README has no section %q", heading)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	blocks := map[string]string{}
	for {
		_, rest, ok := strings.Cut(sec, "\n```")
		if !ok {
			return blocks
		}
		lang, rest, _ := strings.Cut(rest, "\n")
		body, after, ok := strings.Cut(rest, "\n```\n")
		if !ok {
			t.Fatalf("a block of %q is not closed", heading)
		}
		if _, dup := blocks[lang]; dup {
			t.Fatalf("two %s blocks in %q", lang, heading)
		}
		blocks[lang], sec = body+"\n", after
	}
}

// TestREADMEAccess loads the config and the Cedar policy of the README's
// "Who may call what" with the demo shop, and checks what it says of them:
// role reader sees and may call only the tools that change nothing, an
// order of more than 10 is refused by the Cedar policy, and the orders
// of a tenant count against its budget.
func TestREADMEAccess(t *testing.T) {
	blocks := readmeSection(t, "Who may call what")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	for name, data := range map[string]string{cfg: blocks["json"], filepath.Join(dir, "orders.cedar"): blocks["cedar"]} {
		if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	defer func(c func(*app, string) int) { console = c }(console)
	checked := false
	console = func(a *app, _ string) int {
		checked = true
		reader := tooling.Principal{Subject: "ci", Tenant: "acme", Roles: []string{"reader"}, Auth: "api_key"}
		staff := tooling.Principal{Subject: "sam", Tenant: "acme", Roles: []string{"staff"}, Auth: "oauth"}
		for _, c := range []struct {
			p       tooling.Principal
			tool    string
			visible bool
		}{
			{reader, "shop.list_products", true}, {reader, "demo.echo", true},
			{reader, "shop.place_order", false}, {reader, "demo.write_note", false}, {reader, "proc.run", false},
			{staff, "shop.place_order", true}, {staff, "demo.write_note", true},
		} {
			if got := a.reg.Visible(c.p, tooling.OriginLLM, c.tool); got != c.visible {
				t.Errorf("%s sees %s: %v, want %v", c.p, c.tool, got, c.visible)
			}
		}
		order := func(p tooling.Principal, quantity int) *tooling.Result {
			res, _ := a.reg.Execute(a.ctx, "shop.place_order", json.RawMessage(fmt.Sprintf(`{"product_id": 2, "quantity": %d}`, quantity)),
				tooling.WithPrincipal(p), tooling.WithConsent(), tooling.WithOrigin(tooling.OriginLLM))
			return res
		}
		if res := order(reader, 1); res.Code != codes.Forbidden || !strings.Contains(res.Message, "no allow rule for shop.place_order applies to ci@acme") {
			t.Errorf("the reader orders: %q %q", res.Code, res.Message)
		}
		if res := order(staff, 11); res.Code != codes.Forbidden || !strings.Contains(res.Message, "forbidden by Cedar policy small orders") {
			t.Errorf("11 at once: %q %q", res.Code, res.Message)
		}
		if res := order(staff, 3); !res.OK() {
			t.Errorf("3 at once: %q %q", res.Code, res.Message)
		}
		left, err := consoleOptions(a).Budgets(context.Background(), reader)
		if err != nil || len(left) != 1 || left[0].Name != "tenant orders" || left[0].Who != "acme" ||
			fmt.Sprint(left[0].Counts[0]) != "{calls 1 1000}" {
			t.Errorf("the tenant's budget, as ci sees it: %+v %v", left, err)
		}
		return 7
	}
	if o := cli(t, "", "--demo", "--config", cfg); o.code != 7 || !checked {
		t.Fatalf("exit %d\n%s", o.code, o)
	}
}
