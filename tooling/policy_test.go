package tooling_test

import (
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestConfigureWarnsOfUnmatchedNames(t *testing.T) {
	r := tooling.NewRegistry()
	for _, name := range []string{"kv.get", "kv.wipe", "net.fetch", "app.only"} {
		r.Register(tooling.Tool{Name: name, Run: run})
	}
	cfg := tooling.Settings{}
	cfg.Whitelist = []string{"kv.*", "kv.gte"}
	cfg.Blacklist = []string{"zz.*"}
	cfg.Tools = map[string]tooling.Override{"net.fech": {Timeout: 1}}
	warns, err := r.Configure(cfg)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(warns, "\n")
	if len(warns) != 3 || !strings.Contains(joined, `whitelist: "kv.gte" matches no tool (did you mean "kv.get"?)`) ||
		!strings.Contains(joined, `blacklist: "zz.*"`) || !strings.Contains(joined, `tools: "net.fech" matches no tool (did you mean "net.fetch"?)`) {
		t.Errorf("warnings:\n%s", joined)
	}
}

// TestConfigureWarnsOfIgnoredBlacklist: a blacklist entry that would
// disable a tool the whitelist enables disables nothing, and Configure says
// so, naming the tools; an entry outside the whitelist is not warned of.
func TestConfigureWarnsOfIgnoredBlacklist(t *testing.T) {
	r := tooling.NewRegistry()
	for _, name := range []string{"kv.get", "kv.wipe", "net.fetch"} {
		r.Register(tooling.Tool{Name: name, Run: run})
	}
	warns, err := r.Configure(tooling.Settings{Whitelist: []string{"kv.*"}, Blacklist: []string{"kv.wipe", "net.*"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `config blacklist: "kv.wipe" disables nothing: a whitelist is set, and it alone decides, so kv.wipe stays enabled (disable a tool with tools.NAME.disabled: true)`
	if len(warns) != 1 || warns[0] != want {
		t.Errorf("warnings: %q\nwant: %q", warns, want)
	}
	if res, _ := r.Execute(t.Context(), "kv.wipe", nil); !res.OK() {
		t.Errorf("kv.wipe: %s %s; the whitelist enables it", res.Code, res.Message)
	}
	warns, err = r.Configure(tooling.Settings{Blacklist: []string{"kv.wipe"}})
	if err != nil || len(warns) != 0 {
		t.Errorf("a blacklist alone: warnings %q, err %v", warns, err)
	}
}
