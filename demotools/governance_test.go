package demotools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestCounterRunsOnTheMainThread(t *testing.T) {
	var last int64
	for i := 0; i < 5; i++ {
		res, err := tooling.ExecuteTool(context.Background(), "demo.counter", nil, tooling.WithConsent())
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Value        int64 `json:"value"`
			OnMainThread bool  `json:"on_main_thread"`
		}
		if err := json.Unmarshal(res.Output, &out); err != nil || !out.OnMainThread || out.Value <= last {
			t.Fatalf("output %s (%v)", res.Output, err)
		}
		last = out.Value
	}
	if g := tooling.Default().Stats(); !g.MainThread.OnMainThread || g.MainThread.ThreadID != os.Getpid() {
		t.Fatalf("main thread %+v (pid %d)", g.MainThread, os.Getpid())
	}
}

func TestKVNeverOverlaps(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				name, args := "demo.kv_get", fmt.Sprintf(`{"key":"k%d"}`, i)
				if i%2 == 0 {
					name, args = "demo.kv_put", fmt.Sprintf(`{"key":"k%d","value":"v%d"}`, i, g)
				}
				res, err := tooling.ExecuteTool(context.Background(), name, json.RawMessage(args), tooling.WithConsent())
				if err != nil {
					errs <- err
					return
				}
				var out struct {
					Inside int `json:"inside"`
				}
				if err := json.Unmarshal(res.Output, &out); err != nil || out.Inside != 1 {
					errs <- fmt.Errorf("%s: %d callers inside the store at once", name, out.Inside)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	res, _ := tooling.ExecuteTool(context.Background(), "demo.kv_get", json.RawMessage(`{"key":"k0"}`))
	if !res.OK() || string(res.Output) == "" {
		t.Fatalf("get after puts: %s", res.Message)
	}
}

func TestLimitedRate(t *testing.T) {
	r := tooling.Default()
	ok, limited := 0, 0
	var retry time.Duration
	for i := 0; i < 4; i++ {
		res, err := r.Execute(context.Background(), "demo.limited", nil)
		switch {
		case err == nil:
			ok++
		case errors.Is(err, codes.RateLimited):
			limited++
			retry = res.RetryAfter
		default:
			t.Fatal(err)
		}
	}
	if ok != 2 || limited != 2 || retry < 20*time.Second || retry > 31*time.Second {
		t.Fatalf("ok %d, limited %d, retry after %v; want 2, 2 and about 30s", ok, limited, retry)
	}
}
