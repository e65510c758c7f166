package config_test

import (
	"errors"
	"fmt"

	"github.com/toolexplorer/toolexplorer/config"
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
