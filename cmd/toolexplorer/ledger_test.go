package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestLedgerRecordsEveryEntryPoint: the calls of run, serve over stdio,
// serve --http (an API key's caller) and the gateway (serve --server) land
// in the ledger, each with its principal; ledger lists and filters them,
// and verify says the ledger is intact, then names an edited record.
func TestLedgerRecordsEveryEntryPoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	t.Setenv(ledgerEnv, path)
	if o := cli(t, "", "--as", "bob", "run", "demo.echo", "--args", `{"text":"hi"}`); o.code != exitOK {
		t.Fatalf("run: %v", o)
	}
	t.Run("stdio", func(t *testing.T) {
		cs := serveStdio(t, nil, "--as", "carol")
		callTool(t, cs, "demo.echo", `{"text":"x"}`)
	})
	t.Run("http", func(t *testing.T) {
		url := serveAuthenticated(t, newIssuer(t))
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
			&sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer("key-ci")}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		callTool(t, cs, "demo.fail", `{"mode":"error"}`)
		http.DefaultClient.CloseIdleConnections()
	})
	gateway := false
	var extras []string // the prompt got and the resources read through the gateway
	t.Run("gateway", func(t *testing.T) {
		cs := serveStdio(t, nil, "--as", "dave", "--server", "everything="+everythingSpec(t))
		callTool(t, cs, "everything.get_sum", `{"a":2,"b":40}`)
		gateway = true
		ctx := context.Background()
		prompts, err := cs.ListPrompts(ctx, nil)
		if err != nil || len(prompts.Prompts) == 0 {
			t.Fatalf("prompts/list: %v", err)
		}
		for _, p := range prompts.Prompts {
			if len(p.Arguments) == 0 {
				if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: p.Name}); err != nil {
					t.Fatalf("prompts/get %s: %v", p.Name, err)
				}
				extras = append(extras, "prompts/get "+p.Name+" dave@ asserted test 1 ok")
				break
			}
		}
		resources, err := cs.ListResources(ctx, nil)
		if err != nil || len(resources.Resources) == 0 {
			t.Fatalf("resources/list: %v", err)
		}
		uri := resources.Resources[0].URI
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err != nil {
			t.Fatalf("resources/read %s: %v", uri, err)
		}
		extras = append(extras, "resources/read "+uri+" dave@ asserted test 1 ok")
		// Refused: the gateway serves no such resource.
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "nothing://here"}); err == nil {
			t.Fatal("resources/read of a resource not served succeeded")
		}
		extras = append(extras, "resources/read nothing://here dave@ asserted test 1 denied")
	})
	entries, err := ledger.Read(path, ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		p := e.Begin.Principal
		if p == nil {
			t.Fatalf("a call without its principal: %+v", e.Begin)
		}
		got = append(got, e.Begin.Tool+" "+p.Subject+"@"+p.Tenant+" "+p.Auth+" "+p.Client+" "+e.Status)
	}
	want := []string{"demo.echo bob@ asserted  ok", "demo.echo carol@ asserted test 1 ok", "demo.fail ci@acme api_key agent 1 error"}
	if gateway {
		want = append(want, "everything.get_sum dave@ asserted test 1 ok")
		want = append(want, extras...)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the ledger holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if o := cli(t, "", "ledger", "--subject", "ci"); o.code != exitOK || !strings.Contains(o.stdout, "demo.fail") || strings.Contains(o.stdout, "demo.echo") {
		t.Errorf("ledger --subject ci: %v", o)
	}
	if o := cli(t, "", "ledger", "verify"); o.code != exitOK || !strings.HasPrefix(o.stdout, "ok: ") {
		t.Fatalf("ledger verify: %v", o)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Replace(raw, []byte(`"subject":"ci"`), []byte(`"subject":"cj"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if o := cli(t, "", "ledger", "verify"); o.code != exitFailed || !strings.Contains(o.stderr, "edited") {
		t.Fatalf("ledger verify of an edited ledger: %v", o)
	}
}

// TestLedgerOff: $TOOLEXPLORER_LEDGER=off keeps none, and ledger says so.
func TestLedgerOff(t *testing.T) {
	t.Setenv(ledgerEnv, "off")
	if o := cli(t, "", "run", "demo.echo", "--args", `{"text":"hi"}`); o.code != exitOK {
		t.Fatalf("run: %v", o)
	}
	if o := cli(t, "", "ledger"); o.code != exitUsage || !strings.Contains(o.stderr, "no ledger is kept") {
		t.Fatalf("ledger with none kept: %v", o)
	}
}

// A ledger at the default place that cannot be had (no home) is a warning
// and the call goes on; one the config or $TOOLEXPLORER_LEDGER names that
// cannot be opened refuses to run the call unrecorded.
func TestLedgerCannotOpen(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	o := cli(t, "", "run", "demo.echo", "--args", `{"text":"hi"}`)
	if o.code != exitOK || !strings.Contains(o.stderr, "warning: calls are not recorded in the ledger: no state directory") {
		t.Fatalf("run without a state directory: %v", o)
	}
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	t.Setenv(ledgerEnv, filepath.Join(blocker, "ledger.jsonl"))
	o = cli(t, "", "run", "demo.echo", "--args", `{"text":"hi"}`)
	if o.code != exitFailed || strings.Contains(o.stdout, "hi") || !strings.Contains(o.stderr, "ledger") {
		t.Fatalf("run with a ledger that cannot be opened: %v", o)
	}
}

// The policy digest follows the content of a Cedar file, not only its name.
func TestPolicyDigestReadsCedarFiles(t *testing.T) {
	f := filepath.Join(t.TempDir(), "p.cedar")
	a := &app{}
	a.cfg.Access.Cedar = []string{f}
	os.WriteFile(f, []byte(`permit(principal, action, resource);`), 0o600)
	one := policyDigest(a)
	os.WriteFile(f, []byte(`forbid(principal, action, resource);`), 0o600)
	if two := policyDigest(a); one == two || len(one) != 64 {
		t.Fatalf("digest %s before and %s after the Cedar file changed", one, two)
	}
}

// TestConsoleLedgerReadsTheLastCalls: the console's ledger reads a call
// made a moment before, while the ledger is open and its writer may still
// hold the call's records.
func TestConsoleLedgerReadsTheLastCalls(t *testing.T) {
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "t.echo", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "ok", nil }})
	l, err := ledger.Open(ledger.Options{Path: filepath.Join(t.TempDir(), "ledger.jsonl"), SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Attach(reg)
	for i := range 3 {
		if _, err := reg.Execute(context.Background(), "t.echo", nil, tooling.WithCallID("c"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := consoleLedger{l}.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || entries[2].Begin.Call != "c2" || entries[2].End == nil {
		t.Fatalf("read %d calls, want c0, c1 and c2 with their ends: %+v", len(entries), entries)
	}
}
