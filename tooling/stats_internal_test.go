package tooling

import (
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	if h.quantile(0.5) != 0 {
		t.Fatal("empty histogram has a quantile")
	}
	for i := 0; i < 90; i++ {
		h.record(100 * time.Microsecond) // bucket [64µs,128µs)
	}
	for i := 0; i < 10; i++ {
		h.record(50 * time.Millisecond) // bucket [32.768ms,65.536ms)
	}
	if got := h.quantile(0.5); got != 128*time.Microsecond {
		t.Errorf("p50 = %v, want 128µs", got)
	}
	if got := h.quantile(0.95); got != 65536*time.Microsecond {
		t.Errorf("p95 = %v, want 65.536ms", got)
	}
	h.record(time.Duration(1) << 62) // beyond the last bucket
	if got := h.quantile(1); got != time.Duration(uint64(1)<<31)*time.Microsecond {
		t.Errorf("max = %v", got)
	}
}

// A code that Codes does not list (one added later, or set by a caller's
// own code) is counted under "other", never out of the counters' range.
func TestStatsCountUnknownCode(t *testing.T) {
	e := &entry{tool: Tool{Name: "t.x"}}
	e.counters.finish(&Result{Code: "brand_new_code"})
	e.counters.finish(&Result{Code: codes.OutputInvalid})
	e.counters.finish(&Result{Code: codes.OK})
	s := e.stats()
	if s.OK != 1 || s.Errors[codeOther] != 1 || s.Errors[codes.OutputInvalid] != 1 || len(s.Errors) != 2 {
		t.Fatalf("stats = %+v, want ok 1, other 1, output_invalid 1", s)
	}
}
