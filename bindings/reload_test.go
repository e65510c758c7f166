package bindings

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

const reloadA = `sources: {api: {http: {}}}
tools:
  - name: t.keep
    meta: {effects: [read], concurrency: read_only}
    binding: {http: {source: api}}
  - name: t.change
    meta: {effects: [read], concurrency: read_only}
    binding: {http: {source: api}}
  - name: t.gone
    meta: {effects: [read], concurrency: read_only}
    binding: {http: {source: api}}
`

const reloadB = `sources: {api: {http: {}}}
tools:
  - name: t.keep
    meta: {effects: [read], concurrency: read_only}
    binding: {http: {source: api}}
  - name: t.change
    description: now described
    meta: {effects: [read], concurrency: read_only}
    binding: {http: {source: api}}
  - name: t.new
    meta: {effects: [read], concurrency: read_only}
    binding: {http: {source: api}}
`

func TestReloadReportsChangesAndKeepsToolsOnError(t *testing.T) {
	f := useFakes(t)
	dir := writeFiles(t, map[string]string{"f.yaml": reloadA})
	s, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "go.tool", Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }})
	if err := r.Replace(nil, s.Tools()); err != nil {
		t.Fatal(err)
	}
	s.SetShadow(true)

	// A broken file: the error says where, the old tools stay.
	write(t, dir, "f.yaml", strings.Replace(reloadB, "description:", "descripton:", 1))
	if _, _, err := s.Reload(r); err == nil || !strings.Contains(err.Error(), `f.yaml:7: tools[1].descripton: unknown key`) {
		t.Fatalf("Reload of a broken file: %v", err)
	}
	if got := strings.Join(toolNames(r), ","); got != "go.tool,t.change,t.gone,t.keep" {
		t.Fatalf("tools after a failed reload: %s", got)
	}
	if _, err := r.Execute(context.Background(), "t.gone", nil); err != nil {
		t.Fatalf("old tool after a failed reload: %v", err)
	}
	// The refused reload checked the file's sources and tools too (to report
	// every problem) and closed the source it opened for that.
	refused := f.closed.Load()
	if refused != 1 {
		t.Fatalf("%d sources closed after a refused reload, want its own one", refused)
	}

	write(t, dir, "f.yaml", reloadB)
	next, ch, err := s.Reload(r)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if strings.Join(ch.Added, ",") != "t.new" || strings.Join(ch.Removed, ",") != "t.gone" || strings.Join(ch.Changed, ",") != "t.change" {
		t.Fatalf("change %+v", ch)
	}
	if got := strings.Join(toolNames(r), ","); got != "go.tool,t.change,t.keep,t.new" {
		t.Fatalf("tools after reload: %s", got)
	}
	if !next.Shadow() {
		t.Fatal("the shadow switch did not survive the reload")
	}
	if err := s.Close(); err != nil { // waits for the close Reload started
		t.Fatal(err)
	}
	if f.closed.Load() != refused+1 {
		t.Fatalf("%d sources closed, want the old set's one more than %d", f.closed.Load(), refused)
	}
	if _, _, err := next.Reload(r); err != nil {
		t.Fatalf("a reload with nothing changed: %v", err)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReloadUnderCalls reloads while calls run: every call finds its tool,
// and the old set's source is closed only once its last call has ended.
func TestReloadUnderCalls(t *testing.T) {
	f := useFakes(t)
	var running atomic.Int32
	hold := make(chan struct{})
	entered := make(chan struct{}, 1)
	f.set("api", &fakeBehaviour{do: func(_ context.Context, req *Request) (Outcome, error) {
		running.Add(1)
		defer running.Add(-1)
		if req.Tool == "t.change" && req.Args["hold"] == true {
			entered <- struct{}{}
			<-hold
		}
		return Outcome{Output: map[string]any{"ok": true}}, nil
	}})
	dir := writeFiles(t, map[string]string{"f.yaml": strings.Replace(reloadA, "  - name: t.change\n", "  - name: t.change\n    input: {type: object, properties: {hold: {type: boolean}}}\n", 1)})
	s, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := tooling.NewRegistry()
	if err := r.Replace(nil, s.Tools()); err != nil {
		t.Fatal(err)
	}
	// One call holds the first set open across every reload.
	heldDone := make(chan error, 1)
	go func() {
		_, err := r.Execute(context.Background(), "t.change", []byte(`{"hold":true}`))
		heldDone <- err
	}()
	<-entered

	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				for _, name := range []string{"t.keep", "t.change"} {
					if _, err := r.Execute(context.Background(), name, nil); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	cur := s
	sets := []*Set{s}
	for i := range 40 {
		content := reloadA
		if i%2 == 0 {
			content = reloadB
		}
		write(t, dir, "f.yaml", content)
		next, _, err := cur.Reload(r)
		if err != nil {
			t.Fatal(err)
		}
		cur = next
		sets = append(sets, next)
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a call during reloads: %v", err)
	}
	s.mu.Lock()
	closing, calls := s.closing, s.calls
	s.mu.Unlock()
	if !closing || calls != 1 {
		t.Fatalf("first set: closing %v with %d calls, want closing and waiting for the held call", closing, calls)
	}
	close(hold)
	if err := <-heldDone; err != nil {
		t.Fatalf("the call held across reloads: %v", err)
	}
	for _, x := range sets {
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.closed.Load(); got != 41 {
		t.Fatalf("%d sources closed, want 41 (one per set)", got)
	}
}

// A file tool whose name a Go tool already has is placed in its file, when
// registered and when reloaded; a failed reload keeps the tools in place.
func TestRegisterPlacesRefusals(t *testing.T) {
	useFakes(t)
	dir := writeFiles(t, map[string]string{"f.yaml": reloadA})
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.gone", Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }})
	s, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Register(r)
	var le *LoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "f.yaml:9: tools[2]: a tool with this name is already registered") {
		t.Fatalf("Register: %v", err)
	}
	if got := strings.Join(toolNames(r), ","); got != "t.gone" {
		t.Fatalf("a refused Register added tools: %s", got)
	}
	r2 := tooling.NewRegistry()
	if err := s.Register(r2); err != nil {
		t.Fatal(err)
	}
	r2.Register(tooling.Tool{Name: "t.new", Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }})
	write(t, dir, "f.yaml", reloadB)
	if _, _, err := s.Reload(r2); !errors.As(err, &le) || !strings.Contains(err.Error(), "f.yaml:10: tools[2]: a tool with this name is already registered") {
		t.Fatalf("Reload: %v", err)
	}
	if got := strings.Join(toolNames(r2), ","); got != "t.change,t.gone,t.keep,t.new" {
		t.Fatalf("tools after a refused reload: %s", got)
	}
}

// toolNames lists the names of r's tools, sorted.
func toolNames(r *tooling.Registry) []string {
	var names []string
	for _, t := range r.List(context.Background(), tooling.Filter{}) {
		names = append(names, t.Name)
	}
	return names
}
