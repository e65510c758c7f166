package sqlite_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/state/sqlite"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/idempotency"
	"github.com/toolexplorer/toolexplorer/tooling/tooltest"
)

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestStore(t *testing.T) {
	tooltest.TestIdempotencyStore(t, func(t *testing.T) idempotency.Store {
		return open(t, filepath.Join(t.TempDir(), "idem.db"))
	})
}

// TestStoreTwoHandlesOneFile: two stores on one file, as two processes
// would open it, see each other's claims and outcomes.
func TestStoreTwoHandlesOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "idem.db")
	tooltest.TestIdempotencyStore(t, func(t *testing.T) idempotency.Store {
		return &split{a: open(t, path), b: open(t, path), key: t.Name()}
	})
}

// split claims through one handle and completes and reads through the
// other; keys are prefixed with the subtest's name, the file being shared.
type split struct {
	a, b *sqlite.Store
	key  string
}

func (s *split) Claim(ctx context.Context, key, digest string, lease time.Duration) (*idempotency.Record, error) {
	return s.a.Claim(ctx, s.key+key, digest, lease)
}

func (s *split) Complete(ctx context.Context, key string, rec *idempotency.Record, ttl time.Duration) error {
	return s.b.Complete(ctx, s.key+key, rec, ttl)
}

func (s *split) Get(ctx context.Context, key string) (*idempotency.Record, error) {
	return s.b.Get(ctx, s.key+key)
}

// TestRestartDoesNotRunTwice: a keyed call, then the host restarts (a new
// registry, the file opened again), then the repeat: it replays, and the
// tool ran once.
func TestRestartDoesNotRunTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "idem.db")
	var runs atomic.Int64
	host := func() (*tooling.Registry, *sqlite.Store) {
		r := tooling.NewRegistry()
		if err := r.Add(tooling.Tool{Name: "demo.pay", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true},
			Input: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"}}}`),
			Run:   func(context.Context, tooling.Call) (any, error) { return map[string]int64{"run": runs.Add(1)}, nil }}); err != nil {
			t.Fatal(err)
		}
		st, err := sqlite.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r.SetIdempotencyStore(st)
		return r, st
	}
	r1, st1 := host()
	first, err := r1.Execute(t.Context(), "demo.pay", json.RawMessage(`{"amount":5}`), tooling.WithIdempotencyKey("order-1"))
	if err != nil || first.Replayed {
		t.Fatalf("first call: %v (replayed %v)", err, first.Replayed)
	}
	if err := st1.Close(); err != nil {
		t.Fatal(err)
	}

	r2, st2 := host()
	defer st2.Close()
	again, err := r2.Execute(t.Context(), "demo.pay", json.RawMessage(`{"amount":5}`), tooling.WithIdempotencyKey("order-1"))
	if err != nil || !again.Replayed || string(again.Output) != string(first.Output) {
		t.Fatalf("repeat after a restart: %v, replayed %v, output %s; want the replay of %s", err, again.Replayed, again.Output, first.Output)
	}
	if _, err := r2.Execute(t.Context(), "demo.pay", json.RawMessage(`{"amount":6}`), tooling.WithIdempotencyKey("order-1")); !errors.Is(err, codes.IdempotencyConflict) {
		t.Fatalf("other arguments after a restart: %v, want idempotency_conflict", err)
	}
	if runs.Load() != 1 {
		t.Fatalf("runs = %d, want 1", runs.Load())
	}
}
