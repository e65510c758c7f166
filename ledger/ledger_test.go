package ledger_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Every call, refusals included, lands in the ledger with its principal,
// digests and sizes, never its arguments or output.
func TestRecordsEveryCallWithoutContent(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, ledger.Options{Policy: "p1"})
	r := registry(nil)
	l.Attach(r)
	alice := tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: "acme", Auth: "api_key", Client: "cli 1"})
	ctx := context.Background()
	r.Execute(ctx, "t.echo", json.RawMessage(`{"n":424242}`), alice, tooling.WithIdempotencyKey("k-secret"))
	r.Execute(ctx, "t.echo", json.RawMessage(`{"n":"x"}`))
	r.Execute(ctx, "t.fail", nil, alice)
	r.Execute(ctx, "t.nope", nil)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	path := l.Path()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "424242") || strings.Contains(string(raw), "k-secret") {
		t.Fatalf("the ledger holds an argument or a key:\n%s", raw)
	}
	es, err := ledger.Read(path, ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Begin.Tool+" "+e.Status+" "+string(e.End.Code))
	}
	want := []string{"t.echo ok ", "t.echo denied validation_error", "t.fail error tool_error", "t.nope denied not_found"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("calls %q, want %q", got, want)
	}
	b, e := es[0].Begin, es[0].End
	if p := b.Principal; p == nil || p.Subject != "alice" || p.Tenant != "acme" || p.Auth != "api_key" || p.Client != "cli 1" {
		t.Errorf("principal %+v", b.Principal)
	}
	if b.Version != "1.0.0" || b.Policy != "p1" || b.ArgsSize != len(`{"n":424242}`) || len(b.ArgsSHA256) != 64 || len(b.Idempotency) != 64 {
		t.Errorf("begin %+v", b)
	}
	if e.OutputSize == 0 || len(e.OutputSHA256) != 64 {
		t.Errorf("end %+v", e)
	}
	if es, _ := ledger.Read(path, ledger.Filter{Subject: "alice", Code: "tool_error"}); len(es) != 1 || es[0].Begin.Tool != "t.fail" {
		t.Errorf("filter subject+code: %+v", es)
	}
	if rep := verify(t, path); !rep.OK() || rep.Checkpoints == 0 {
		t.Fatalf("verify: %+v %v", rep, rep.Problem)
	}
}

// A torn last line is set aside, and the chain goes on.
func TestTornLineIsSetAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	l := open(t, dir, ledger.Options{})
	r := registry(nil)
	l.Attach(r)
	r.Execute(context.Background(), "t.echo", nil)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"seq":99,"kind":"beg`)
	f.Close()
	if rep := verify(t, path); rep.OK() || !strings.Contains(rep.Problem.Reason, "torn") {
		t.Fatalf("verify of a torn ledger: %v", rep.Problem)
	}
	l = open(t, dir, ledger.Options{})
	r = registry(nil)
	l.Attach(r)
	r.Execute(context.Background(), "t.echo", nil)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := verify(t, path); !rep.OK() {
		t.Fatalf("verify after recovery: %v", rep.Problem)
	}
	torn, err := os.ReadFile(path + ".torn")
	if err != nil || !strings.Contains(string(torn), `"kind":"beg`) {
		t.Fatalf("torn line set aside: %q %v", torn, err)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), `"kind":"recovered"`) {
		t.Fatal("no recovered record")
	}
}

// A ledger rotated many times and written by two writers at once (as two
// processes would: each its own file handle and lock) verifies as one
// chain, and Read finds every call in every file.
func TestRotationAndTwoWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	l1 := open(t, dir, ledger.Options{MaxBytes: 4096, CheckpointEvery: 7})
	l2 := open(t, dir, ledger.Options{MaxBytes: 4096, CheckpointEvery: 7})
	r1, r2 := registry(nil), registry(nil)
	l1.Attach(r1)
	l2.Attach(r2)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 100; i++ {
			r2.Execute(context.Background(), "t.fail", nil)
		}
	}()
	for i := 0; i < 100; i++ {
		r1.Execute(context.Background(), "t.echo", nil)
		if i%10 == 9 {
			if err := l1.Sync(); err != nil { // a batch ends here
				t.Fatal(err)
			}
		}
	}
	<-done
	if err := l1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	rep := verify(t, path)
	if !rep.OK() {
		t.Fatalf("verify: %v", rep.Problem)
	}
	if len(rep.Files) < 5 {
		t.Fatalf("%d files, want the ledger rotated at 4 KiB after each of 10 batches", len(rep.Files))
	}
	for _, tool := range []string{"t.echo", "t.fail"} {
		if es, err := ledger.Read(path, ledger.Filter{Tool: tool}); err != nil || len(es) != 100 {
			t.Fatalf("%s: %d calls, %v; want 100", tool, len(es), err)
		}
	}
}

// A shadow call is marked mode shadow, with the details its tool reported
// (side effects as the tool sees them) and the confinement profile's hash
// taken from the call's governance.
func TestShadowDetailAndProfile(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, ledger.Options{})
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.shadow", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			c.SetDetail("mode", "shadow")
			c.SetDetail("response_bytes", "42")
			c.Decide("confine", "profile 0123456789abcdef")
			return nil, nil
		}})
	l.Attach(r)
	r.Execute(context.Background(), "t.shadow", nil)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	es, err := ledger.Read(l.Path(), ledger.Filter{})
	if err != nil || len(es) != 1 {
		t.Fatalf("%+v %v", es, err)
	}
	e := es[0].End
	if e.Mode != "shadow" || e.Detail["response_bytes"] != "42" || e.Profile != "0123456789abcdef" {
		t.Fatalf("end record %+v", e)
	}
}

// Close stops the writer: no goroutine of the ledger is left.
func TestCloseLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	l := open(t, t.TempDir(), ledger.Options{})
	r := registry(nil)
	l.Attach(r)
	r.Execute(context.Background(), "t.echo", nil)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
	}
}

// A change of a tool's state is a record of its own, with who changed it
// and why, not a call.
func TestStateChangeIsRecorded(t *testing.T) {
	l := open(t, t.TempDir(), ledger.Options{})
	r := registry(nil)
	l.Attach(r)
	ctx := tooling.ContextWithPrincipal(context.Background(), tooling.Principal{Subject: "ops"})
	if err := r.SetState(ctx, "t.echo", tooling.StatePaused, "maintenance", ""); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if es, _ := ledger.Read(l.Path(), ledger.Filter{}); len(es) != 0 {
		t.Fatalf("a state change read as a call: %+v", es)
	}
	raw, _ := os.ReadFile(l.Path())
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var rec ledger.Record
		json.Unmarshal([]byte(line), &rec)
		if rec.Kind == ledger.KindState {
			found = rec.Tool == "t.echo" && rec.State == tooling.StatePaused && rec.Detail["reason"] == "maintenance" &&
				rec.Principal != nil && rec.Principal.Subject == "ops"
		}
	}
	if !found {
		t.Fatalf("no state record for the pause:\n%s", raw)
	}
	if rep := verify(t, l.Path()); !rep.OK() {
		t.Fatal(rep.Problem)
	}
}
