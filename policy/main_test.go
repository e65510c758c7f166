package policy_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
	_ "github.com/toolexplorer/toolexplorer/tooling/confined"
)

// hosted holds the confined tool of the tests; TestMain hands it to
// tooling.Main, so that the re-executed test binary serves its calls.
var hosted = func() *tooling.Registry {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "lab.spin", Description: "spends ms milliseconds of CPU in a confined child",
		Input: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{}},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			end := threadCPU() + time.Duration(callargs.Int(c.Args, "ms"))*time.Millisecond
			for threadCPU() < end {
			}
			return "spun", nil
		}})
	return r
}()

func TestMain(m *testing.M) { tooling.Main(hosted, m.Run) }
