package main

import (
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestTimeoutOverride: a config override of 500 ms makes demo.slow,
// sleeping 3000 ms and ignoring cancel, fail with timeout between 500 and
// 700 ms; a 200 ms override wins over the tool's own 500 ms.
func TestTimeoutOverride(t *testing.T) {
	for _, override := range []time.Duration{500 * time.Millisecond, 200 * time.Millisecond} {
		cfg := writeFile(t, "cfg.json", `{"tools":{"demo.slow":{"timeout":"`+override.String()+`"}}}`)
		start := time.Now()
		o := cli(t, "", "--config", cfg, "run", "demo.slow", "--args", `{"ms":3000,"ignore_cancel":true}`, "--json")
		took := time.Since(start)
		res := decodeResult(t, o)
		if o.code != exitFailed || res.Code != tooling.CodeTimeout || res.Timeout != override {
			t.Fatalf("override %v: code %q timeout %v\n%s", override, res.Code, res.Timeout, o)
		}
		if took < override || took > override+200*time.Millisecond {
			t.Fatalf("override %v: returned after %v", override, took)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for tooling.Default.Stats().Abandoned != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}
