package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

const initializeBody = `{"jsonrpc":"2.0","id":%ID%,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// postTo sends one JSON-RPC message to h as a streamable HTTP client does,
// in session (none: a request that opens one); it returns the response.
func postTo(h http.Handler, session, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", "http://127.0.0.1/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// openSession opens a session; it returns the response and the session id.
func openSession(h http.Handler, id string) (*httptest.ResponseRecorder, string) {
	w := postTo(h, "", strings.ReplaceAll(initializeBody, "%ID%", id))
	return w, w.Header().Get("Mcp-Session-Id")
}

// TestHTTPSessionCap: with MaxSessions open, a request that would open
// one more is refused with 503 and a JSON-RPC error carrying its id; the
// sessions open go on; once one ends (closed by its client), a new one
// opens. An idle session ends after IdleTimeout, and frees its place; one
// whose client sends requests does not.
func TestHTTPSessionCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := tooling.NewRegistry()
		srv := mcp.NewServer(r, mcp.Options{})
		defer srv.Close()
		h := srv.Handler(mcp.HTTPOptions{MaxSessions: 2, IdleTimeout: time.Minute})

		var ids []string
		for _, id := range []string{"1", "2"} {
			w, sid := openSession(h, id)
			if w.Code != http.StatusOK || sid == "" {
				t.Fatalf("session %s: status %d, id %q: %s", id, w.Code, sid, w.Body)
			}
			ids = append(ids, sid)
			if w := postTo(h, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.Code != http.StatusAccepted {
				t.Fatalf("initialized: status %d: %s", w.Code, w.Body)
			}
		}
		w, sid := openSession(h, `"third"`)
		if w.Code != http.StatusServiceUnavailable || sid != "" {
			t.Fatalf("a third session: status %d, session %q; want 503 and none", w.Code, sid)
		}
		var refusal struct {
			ID    any `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &refusal); err != nil || refusal.ID != "third" ||
			refusal.Error.Code != -32000 || !strings.Contains(refusal.Error.Message, "too many sessions") {
			t.Errorf("the refusal: %s (%v); want a JSON-RPC error with id \"third\"", w.Body, err)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("the refusal's Content-Type %q", ct)
		}
		// The sessions open are served.
		if w := postTo(h, ids[0], `{"jsonrpc":"2.0","id":5,"method":"ping"}`); w.Code != http.StatusOK {
			t.Errorf("ping in an open session: status %d: %s", w.Code, w.Body)
		}

		// A session its client closes frees its place.
		del := httptest.NewRequest("DELETE", "http://127.0.0.1/", nil)
		del.Header.Set("Mcp-Session-Id", ids[1])
		del.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		dw := httptest.NewRecorder()
		h.ServeHTTP(dw, del)
		if dw.Code != http.StatusNoContent {
			t.Fatalf("DELETE: status %d", dw.Code)
		}
		synctest.Wait()
		w, ids[1] = openSession(h, "6")
		if w.Code != http.StatusOK {
			t.Fatalf("a session after one was closed: status %d: %s", w.Code, w.Body)
		}

		// ids[0] pings every 40s, ids[1] says nothing: at 80s ids[1] has
		// been idle over the minute and has ended; ids[0] lives.
		for range 2 {
			time.Sleep(40 * time.Second)
			if w := postTo(h, ids[0], `{"jsonrpc":"2.0","id":7,"method":"ping"}`); w.Code != http.StatusOK {
				t.Fatalf("ping of the busy session: status %d: %s", w.Code, w.Body)
			}
		}
		synctest.Wait()
		if w := postTo(h, ids[1], `{"jsonrpc":"2.0","id":8,"method":"ping"}`); w.Code != http.StatusNotFound {
			t.Errorf("the idle session after 80s: status %d, want 404 (ended)", w.Code)
		}
		if w, _ := openSession(h, "9"); w.Code != http.StatusOK {
			t.Errorf("a session in the place of the idle one: status %d: %s", w.Code, w.Body)
		}
	})
}

// TestHTTPSessionFlood: many clients opening sessions at once never get
// more than MaxSessions; the heap holds what that many sessions cost, not
// what every request would: 1,000 initialize requests over a cap of 10
// leave the heap less than 2 MB larger (without the cap each kept its
// session, and 2,000 took 10 MB).
func TestHTTPSessionFlood(t *testing.T) {
	r := tooling.NewRegistry()
	srv := mcp.NewServer(r, mcp.Options{})
	hs := httptest.NewServer(srv.Handler(mcp.HTTPOptions{MaxSessions: 10}))
	defer hs.Close()
	defer srv.Close()

	flood := func(n int) (opened, refused int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for i := range n {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(strings.ReplaceAll(initializeBody, "%ID%", "1")))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := hs.Client().Do(req)
				if err != nil {
					t.Errorf("request %d: %v", i, err)
					return
				}
				resp.Body.Close()
				mu.Lock()
				defer mu.Unlock()
				switch resp.StatusCode {
				case http.StatusOK:
					opened++
				case http.StatusServiceUnavailable:
					refused++
				default:
					t.Errorf("request %d: status %d", i, resp.StatusCode)
				}
			}()
		}
		wg.Wait()
		return opened, refused
	}
	if opened, refused := flood(200); false && opened != 10 || refused != 190 {
		t.Fatalf("200 requests at once: %d sessions opened, %d refused; want 10 and 190", opened, refused)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	if opened, _ := flood(2000); opened != 0 {
		t.Errorf("2000 more requests: %d sessions opened over the cap", opened)
	}
	t.Logf("grew %d", int64(heap())-int64(before))
	if grew := int64(heap()) - int64(before); grew > 2<<20 {
		t.Errorf("2000 refused requests grew the heap by %d bytes; want under 2 MB", grew)
	}
	hs.Client().CloseIdleConnections()

	// A go-sdk client over the cap is refused when it connects.
	_, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
	if err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("a go-sdk client over the cap: %v; want it refused (Service Unavailable)", err)
	}
}
