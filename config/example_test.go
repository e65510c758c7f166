package config_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/tooling"
)

func ExampleParse() {
	cfg, err := config.Parse([]byte(`{
  "default_timeout": "10s",
  "blacklist": ["demo.fail"],
  "tools": {"demo.slow": {"timeout": "200ms", "burst": 2}}
}`), "toolexplorer.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.DefaultTimeout, cfg.MaxConcurrent, cfg.Tools["demo.slow"].Timeout)
	fmt.Println(cfg.Blacklist)

	_, err = config.Parse([]byte(`{
  "default_timeout": "3 seconds",
  "tools": {"demo.slow": {"timout": "1s"}}
}`), "toolexplorer.json")
	fmt.Println(err)
	var first *config.Error
	if errors.As(err, &first) {
		fmt.Printf("first: %s at line %d, column %d\n", first.Path, first.Line, first.Column)
	}
	// Output:
	// 10s 256 200ms
	// [demo.fail]
	// config: toolexplorer.json: /default_timeout: "3 seconds" is not a duration (use e.g. "500ms", "30s", "2m")
	// config: toolexplorer.json: /tools/demo.slow/timout: unknown key (did you mean "timeout"?)
	// first: /default_timeout at line 2, column 22
}

// A host reads the config file (Load; Parse here) and hands its Settings to
// the registry. Configure after registering: its warnings name the entries
// that match no tool.
func Example_configure() {
	cfg, err := config.Parse([]byte(`{"default_timeout": "5s", "blacklist": ["demo.ping", "demo.pnig"]}`), "toolexplorer.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{
		Name: "demo.ping",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run:  func(context.Context, tooling.Call) (any, error) { return "pong", nil },
	})
	warnings, err := reg.Configure(cfg.Settings)
	fmt.Println(warnings, err)
	_, err = reg.Execute(context.Background(), "demo.ping", nil)
	fmt.Println(err)
	// Output:
	// [config blacklist: "demo.pnig" matches no tool (did you mean "demo.ping"?)] <nil>
	// tooling: demo.ping: disabled: demo.ping is disabled by the config blacklist ("demo.ping")
}
