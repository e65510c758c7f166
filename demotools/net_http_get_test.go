package demotools_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// loopbackServer starts an HTTP server on 127.0.0.1 and returns its URL
// and port.
func loopbackServer(t *testing.T, body string) (string, uint16) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			fmt.Fprint(w, strings.Repeat("b", 70<<10))
		case "/moved":
			http.Redirect(w, r, "http://example.com/", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("X-Secret", "not reported")
			fmt.Fprint(w, body)
		}
	}))
	t.Cleanup(srv.Close)
	_, p, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		t.Fatal(err)
	}
	return srv.URL, uint16(n)
}

func TestNetHTTPGet(t *testing.T) {
	allowedURL, allowed := loopbackServer(t, "hello from the loopback")
	deniedURL, _ := loopbackServer(t, "unreachable")
	confinedWorkspace(t, allowed)
	type result struct {
		Status    int               `json:"status"`
		Headers   map[string]string `json:"headers"`
		Body      string            `json:"body"`
		Truncated bool              `json:"truncated"`
	}
	get := func(t *testing.T, url string, code codes.Code) (*tooling.Result, result) {
		t.Helper()
		res, _ := execute(t, "net.http_get", `{"url":"`+url+`"}`, code)
		var got result
		if code == codes.OK {
			decodeOutput(t, res, &got)
		}
		return res, got
	}
	t.Run("allowed port", func(t *testing.T) {
		_, got := get(t, allowedURL+"/", codes.OK)
		if got.Status != 200 || got.Body != "hello from the loopback" || got.Truncated ||
			got.Headers["Content-Type"] != "text/plain" || got.Headers["X-Secret"] != "" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("localhost", func(t *testing.T) {
		_, got := get(t, strings.Replace(allowedURL, "127.0.0.1", "localhost", 1), codes.OK)
		if got.Status != 200 || got.Body != "hello from the loopback" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		_, got := get(t, allowedURL+"/big", codes.OK)
		if got.Status != 200 || len(got.Body) != 64<<10 || !got.Truncated {
			t.Errorf("status %d, %d bytes, truncated %v", got.Status, len(got.Body), got.Truncated)
		}
	})
	t.Run("redirect not followed", func(t *testing.T) {
		_, got := get(t, allowedURL+"/moved", codes.OK)
		if got.Status != http.StatusFound || got.Headers["Location"] != "http://example.com/" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("port not allowed", func(t *testing.T) {
		get(t, deniedURL+"/", codes.SandboxDenied)
	})
	t.Run("host name", func(t *testing.T) {
		res, _ := get(t, "http://example.com/", codes.ToolError)
		if !strings.Contains(res.Message, "not an IP address") {
			t.Errorf("message %q", res.Message)
		}
	})
	for _, url := range []string{"https://127.0.0.1/", "ftp://127.0.0.1/", "not a url"} {
		t.Run("refused "+url, func(t *testing.T) {
			get(t, url, codes.ValidationError)
		})
	}
}

// TestNetHTTPGetExample: the URL the schema gives as an example (the
// console's placeholder) is one the tool accepts.
func TestNetHTTPGetExample(t *testing.T) {
	var schema struct {
		Properties struct {
			URL struct {
				Examples []string `json:"examples"`
			} `json:"url"`
		} `json:"properties"`
	}
	tool, ok := tooling.Default().Lookup("net.http_get")
	if !ok {
		t.Fatal("net.http_get is not registered")
	}
	if err := json.Unmarshal(tool.Input, &schema); err != nil || len(schema.Properties.URL.Examples) == 0 {
		t.Fatalf("no example URL in the schema (%v)", err)
	}
	for _, ex := range schema.Properties.URL.Examples {
		args, _ := json.Marshal(map[string]string{"url": ex})
		if fields, err := tooling.Default().ValidateArgs("net.http_get", args); err != nil || fields != nil {
			t.Errorf("example %s refused: %v %v", ex, fields, err)
		}
	}
}
