package mcp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// A server URL's user name and password (user:pass@) are credentials: no
// message about the server shows them, whatever went wrong.
func TestConnectErrorsHideURLCredentials(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	wantsAuth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "who are you", http.StatusUnauthorized)
	}))
	defer wantsAuth.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html></html>"))
	}))
	defer page.Close()
	withCreds := func(u string) string { return strings.Replace(u, "http://", "http://alice:hunter2@", 1) }
	for _, tc := range []struct{ name, url, says string }{
		{"nothing listens", withCreds("http://" + closed + "/mcp"), "nothing listens at http://" + closed + "/mcp"},
		{"credentials wanted", withCreds(wantsAuth.URL + "/mcp"), wantsAuth.URL + "/mcp answers 401"},
		{"a web page", withCreds(page.URL + "/mcp"), page.URL + "/mcp serves a web page"},
		{"not http", "ftp://alice:hunter2@example.com/mcp", `"ftp://example.com/mcp" is not http`},
		{"does not parse", "http://alice:hunter2@example.com:port/mcp", `"http://example.com:port/mcp" does not parse`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mcp.Connect(context.Background(), tooling.NewRegistry(), "web", mcp.Spec{URL: tc.url})
			if err == nil {
				t.Fatal("connected")
			}
			if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, "alice") || !strings.Contains(msg, tc.says) {
				t.Errorf("%s\nwant it to say %q, without the URL's credentials", msg, tc.says)
			}
		})
	}
}

func TestShownURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://alice:hunter2@h:8080/mcp?q=1": "http://h:8080/mcp?q=1",
		"https://tok@h/mcp":                   "https://h/mcp",
		"http://h/mcp@x":                      "http://h/mcp@x",
		"http://h/mcp":                        "http://h/mcp",
		"http://a:b@c@h/mcp":                  "http://h/mcp",
	} {
		if got := mcp.ShownURL(in); got != want {
			t.Errorf("ShownURL(%q) = %q, want %q", in, got, want)
		}
	}
}
