package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeRefusesWhileTheLedgerCannotWrite: a gateway (serve --server)
// whose ledger is on a disk that fills up, with ledger.on_failure
// "refuse", refuses tools/call, prompts/get and resources/read with
// unavailable naming the ledger, rather than serving calls it cannot
// record; once there is room again it serves them.
func TestServeRefusesWhileTheLedgerCannotWrite(t *testing.T) {
	spec := everythingSpec(t)
	disk := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(disk, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=1m"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cannot mount a small tmpfs for the disk-full test: %v", err)
		}
		t.Skipf("not applicable here: cannot mount a small tmpfs (%v)", err)
	}
	defer syscall.Unmount(disk, syscall.MNT_DETACH)
	path := filepath.Join(disk, "ledger.jsonl")
	t.Setenv(ledgerEnv, path)
	cfg := writeFile(t, "c.json", `{"ledger": {"on_failure": "refuse", "sync_interval": "5ms", "key": "`+filepath.Join(t.TempDir(), "key")+`"}}`)
	cs := serveStdio(t, nil, "--config", cfg, "--server", "everything="+spec)
	ctx := context.Background()
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var prompt string
	for _, p := range prompts.Prompts {
		if len(p.Arguments) == 0 {
			prompt = p.Name
			break
		}
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) == 0 || prompt == "" {
		t.Fatalf("resources/list: %v; a prompt without arguments: %q", err, prompt)
	}
	uri := resources.Resources[0].URI
	if res, r := callTool(t, cs, "everything.get_sum", `{"a":2,"b":40}`); res.IsError {
		t.Fatalf("a call with room on the disk: %s %s", r.Code, r.Message)
	}

	// Fill the disk.
	filler, err := os.Create(filepath.Join(disk, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for block := make([]byte, 1024); ; {
		if _, err := filler.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	filler.Close()
	// The ledger finds out when it next writes: calls are refused from then on.
	refused := func() bool {
		res, r := callTool(t, cs, "everything.get_sum", `{"a":2,"b":40}`)
		if !res.IsError {
			return false
		}
		if string(r.Code) != "unavailable" || !strings.Contains(r.Message, "ledger "+path) {
			t.Fatalf("refused as %s %q; want unavailable naming the ledger", r.Code, r.Message)
		}
		return true
	}
	for deadline := time.Now().Add(time.Minute); !refused(); {
		if time.Now().After(deadline) {
			t.Fatal("calls still served a minute after the ledger's disk filled up")
		}
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: prompt}); err == nil || !strings.Contains(err.Error(), "ledger") {
		t.Errorf("prompts/get %s while the ledger cannot write: %v; want refused, naming the ledger", prompt, err)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "ledger") {
		t.Errorf("resources/read %s while the ledger cannot write: %v; want refused, naming the ledger", uri, err)
	}

	// Room again: served again.
	if err := os.Remove(filler.Name()); err != nil {
		t.Fatal(err)
	}
	// Each refused call is recorded too, queued while the ledger cannot
	// write: the next retry writes them all, so the disk has room for them.
	for deadline := time.Now().Add(time.Minute); refused(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("calls still refused a minute after the disk had room again")
		}
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: prompt}); err != nil {
		t.Errorf("prompts/get %s with room again: %v", prompt, err)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err != nil {
		t.Errorf("resources/read %s with room again: %v", uri, err)
	}
}
