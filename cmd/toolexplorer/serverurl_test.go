package main

import (
	"net"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/config"
)

// A server URL's user:pass@ never shows: not in the start-up warning of a
// server that cannot be reached, not where the console lists the servers
// or copies a call as a command line.
func TestServerURLCredentialsNotShown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	url := "http://alice:hunter2@" + addr + "/mcp"
	o := cli(t, "", "--server", "web="+url, "list")
	if !strings.Contains(o.stderr, "warning") || !strings.Contains(o.stderr, "http://"+addr+"/mcp") {
		t.Fatalf("no warning naming the server's URL: %s", o)
	}
	if strings.Contains(o.stdout+o.stderr, "hunter2") || strings.Contains(o.stdout+o.stderr, "alice") {
		t.Errorf("the URL's credentials are shown:\n%s", o)
	}
	if got := (&server{cfg: config.Server{URL: url}}).target(); got != "http://"+addr+"/mcp" {
		t.Errorf("target() = %q", got)
	}
}
