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
