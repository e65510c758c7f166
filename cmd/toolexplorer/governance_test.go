package main

import (
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestTimeoutOverride: a config override of 500 ms makes demo.slow,
// sleeping 3000 ms and ignoring cancel, fail with timeout at 500 ms, while
// the tool still sleeps; a 200 ms override wins over the tool's own 500 ms. demo.slow
// declares 500 ms itself, so the governance decision must say the deadline
// came from the override, not from the tool.
func TestTimeoutOverride(t *testing.T) {
	for _, override := range []time.Duration{500 * time.Millisecond, 200 * time.Millisecond} {
		cfg := writeFile(t, "cfg.json", `{"tools":{"demo.slow":{"timeout":"`+override.String()+`"}}}`)
		start := time.Now()
		o := cli(t, "", "--config", cfg, "run", "demo.slow", "--args", `{"ms":3000,"ignore_cancel":true}`, "--json")
		took := time.Since(start)
		res := decodeResult(t, o)
		if o.code != exitFailed || res.Code != codes.Timeout || res.Timeout != override {
			t.Fatalf("override %v: code %q timeout %v\n%s", override, res.Code, res.Timeout, o)
		}
		// At the deadline, not before; and while the tool still slept (abandoned), not after it.
		if took < override || !res.Abandoned {
			t.Fatalf("override %v: returned after %v, abandoned %t", override, took, res.Abandoned)
		}
		var timeout []string
		for _, d := range res.Governance {
			if d.Step == "timeout" {
				timeout = append(timeout, d.Detail)
			}
		}
		if len(timeout) != 1 || !strings.Contains(timeout[0], "config override") {
			t.Errorf("override %v: timeout decisions %q, want one from the config override\n%s", override, timeout, o)
		}
	}
	deadline := time.Now().Add(2 * time.Minute) // a hang guard: the abandoned sleeps end after 3 s
	for tooling.Default().Stats().Abandoned != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}
