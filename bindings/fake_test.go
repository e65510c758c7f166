package bindings

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeSource is a source of the fake kind the loader's tests use in place
// of every real kind: what its bindings do is set by the test, by source name.
type fakeSource struct {
	name   string
	closed *atomic.Int32
}

func (s *fakeSource) close() error {
	if s.closed != nil {
		s.closed.Add(1)
	}
	return nil
}

// fakeBehaviour is what the bindings of one fake source do.
type fakeBehaviour struct {
	writes bool
	// do answers an attempt; nil: echo the arguments.
	do func(ctx context.Context, req *Request) (Outcome, error)
}

type fakeBinding struct {
	kindName string
	src      *fakeSource
	beh      *fakeBehaviour
}

func (b *fakeBinding) kind() string   { return b.kindName }
func (b *fakeBinding) source() string { return b.src.name }
func (b *fakeBinding) writes() bool   { return b.beh.writes }
func (b *fakeBinding) close() error   { return nil }
func (b *fakeBinding) do(ctx context.Context, req *Request) (Outcome, error) {
	if b.beh.do != nil {
		return b.beh.do(ctx, req)
	}
	if req.Shadow {
		return Outcome{Output: map[string]any{"would_send": req.Args}, Status: "shadow"}, nil
	}
	return Outcome{Output: map[string]any{"args": req.Args}, Status: "200 OK", ResponseBytes: 42}, nil
}

// fakes holds the fake kinds' state for one test.
type fakes struct {
	mu         sync.Mutex
	behaviour  map[string]*fakeBehaviour // by source name
	closed     atomic.Int32              // sources closed
	compileErr error
}

func (f *fakes) set(source string, b *fakeBehaviour) {
	f.mu.Lock()
	f.behaviour[source] = b
	f.mu.Unlock()
}

// useFakes replaces every kind with a fake one for the test.
func useFakes(t *testing.T) *fakes {
	t.Helper()
	f := &fakes{behaviour: map[string]*fakeBehaviour{}}
	saved := kinds
	kinds = map[string]kind{}
	for _, name := range kindNames {
		kinds[name] = kind{
			writes: "a fake write",
			open: func(src string, _ *SourceSpec, _ Env) (source, error) {
				return &fakeSource{name: src, closed: &f.closed}, nil
			},
			compile: func(b *BindingSpec, src source, in Input) (binding, error) {
				if f.compileErr != nil {
					return nil, f.compileErr
				}
				fs := src.(*fakeSource)
				f.mu.Lock()
				beh := f.behaviour[fs.name]
				f.mu.Unlock()
				if beh == nil {
					beh = &fakeBehaviour{}
				}
				return &fakeBinding{kindName: name, src: fs, beh: beh}, nil
			},
		}
	}
	testKeys = map[string]bool{"token": true, "region": true}
	t.Cleanup(func() { kinds, testKeys = saved, nil })
	return f
}

// writeFiles writes name → content under a new directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
