//go:build unix

package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestHangupReloadsToolFiles(t *testing.T) {
	var got atomic.Value
	url := echoServer(t, &got).URL
	dir := writeToolsDir(t, url)
	t.Setenv("FILES_TEST_TOKEN", "x-token-value")
	a := &app{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard, getenv: os.Getenv, reg: tooling.NewRegistry(), flagToolDirs: []string{dir}}
	if code := a.loadToolFiles(a.cfg, false); code != exitOK {
		t.Fatalf("load: %d", code)
	}
	defer a.closeToolFiles()
	reports := make(chan string, 4)
	stop := a.reloadOnHangup(func(text string, err error) {
		if err != nil {
			text = "not reloaded: " + err.Error()
		}
		reports <- text
	})
	defer stop()

	content := strings.ReplaceAll(strings.ReplaceAll(secretToolsFile, "%URL%", url), "filetest.fail", "filetest.broken")
	if err := os.WriteFile(filepath.Join(dir, "api.yaml"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if msg := <-reports; msg != "tools files reloaded: added filetest.broken; removed filetest.fail" {
		t.Fatalf("report %q", msg)
	}
	if _, ok := a.reg.Lookup("filetest.broken"); !ok {
		t.Fatal("the reloaded tool is not registered")
	}
	if err := os.WriteFile(filepath.Join(dir, "api.yaml"), []byte("tools: [{name: x.y, binding: {}}]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if msg := <-reports; !strings.Contains(msg, "not reloaded") || !strings.Contains(msg, "api.yaml:1: tools[0].binding") {
		t.Fatalf("report %q", msg)
	}
	if _, ok := a.reg.Lookup("filetest.broken"); !ok {
		t.Fatal("a failed reload removed the tools in place")
	}
}
