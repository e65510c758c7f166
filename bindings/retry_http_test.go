package bindings

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestRetryRealHTTP: a real server answers 503 (with Retry-After: 0) and
// then 200; the read tool from a tools file retries and succeeds, the
// write does not retry, and the write with an idempotency key does, and
// sends the key.
func TestRetryRealHTTP(t *testing.T) {
	var calls atomic.Int32
	var keys atomic.Value
	keys.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := r.Header.Get("Idempotency-Key"); k != "" {
			keys.Store(k)
		}
		w.Header().Set("Content-Type", "application/json")
		if calls.Add(1)%2 == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":"busy"}`))
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	file := `sources:
  api: {http: {base_url: "` + srv.URL + `", allow_private: true}}
tools:
  - name: t.get
    meta: {effects: [read, network], concurrency: read_only}
    binding: {http: {source: api, path: /x}}
  - name: t.post
    meta: {effects: [write, network]}
    binding: {http: {source: api, method: POST, path: /x}}
`
	_, r := loadInto(t, map[string]string{"f.yaml": file}, Options{})
	exec := func(name string, opts ...tooling.Option) (*tooling.Result, error) {
		calls.Store(0)
		return r.Execute(context.Background(), name, nil, append(opts, tooling.WithConsent())...)
	}
	res, err := exec("t.get")
	if err != nil || calls.Load() != 2 || len(decision(res, "retry")) != 1 {
		t.Fatalf("read: %v, %d requests, governance %+v", err, calls.Load(), res.Governance)
	}
	res, err = exec("t.post")
	if err == nil || calls.Load() != 1 || !strings.Contains(strings.Join(decision(res, "retry"), ""), "idempotency key") {
		t.Fatalf("write: %v, %d requests, governance %+v", err, calls.Load(), res.Governance)
	}
	res, err = exec("t.post", tooling.WithIdempotencyKey("order-7"))
	if err != nil || calls.Load() != 2 || keys.Load() != "order-7" {
		t.Fatalf("write with a key: %v, %d requests, key %v, governance %+v", err, calls.Load(), keys.Load(), res.Governance)
	}
}
