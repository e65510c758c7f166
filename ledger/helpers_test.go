package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// registry has demo tools: t.echo (returns its args), t.fail (a tool
// error), t.block (runs until its context ends or release closes).
func registry(release chan struct{}) *tooling.Registry {
	r := tooling.NewRegistry()
	r.Register(
		tooling.Tool{Name: "t.echo", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Version: "1.0.0"},
			Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
			Run:   func(_ context.Context, c tooling.Call) (any, error) { return c.Args, nil }},
		tooling.Tool{Name: "t.fail", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(context.Context, tooling.Call) (any, error) { return nil, errors.New("no") }},
		tooling.Tool{Name: "t.block", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Timeout: 1 << 40},
			Run: func(ctx context.Context, c tooling.Call) (any, error) {
				select {
				case <-ctx.Done():
				case <-release:
				}
				return nil, nil
			}},
	)
	return r
}

func open(t testing.TB, dir string, opts ledger.Options) *ledger.Ledger {
	t.Helper()
	if opts.Path == "" {
		opts.Path = filepath.Join(dir, "ledger.jsonl")
	}
	l, err := ledger.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func verify(t testing.TB, path string) *ledger.Report {
	t.Helper()
	pub, err := ledger.LoadPublicKey(path + ".key.pub")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ledger.Verify(path, pub)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
