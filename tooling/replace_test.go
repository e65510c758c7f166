package tooling_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func constTool(name, out string) tooling.Tool {
	return tooling.Tool{Name: name, Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return out, nil }}
}

func TestReplaceSwapsTools(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(constTool("f.a", "a1"), constTool("f.b", "b1"), constTool("go.keep", "k"))
	if err := r.Replace([]string{"f.a", "f.b"}, []tooling.Tool{constTool("f.a", "a2"), constTool("f.c", "c2")}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(toolNames(r), ","); got != "f.a,f.c,go.keep" {
		t.Fatalf("names after Replace: %s", got)
	}
	if res := mustExec(t, r, "f.a", `{}`); string(res.Output) != `"a2"` {
		t.Fatalf("f.a gives %s, want the new tool's a2", res.Output)
	}
	if _, err := r.Execute(context.Background(), "f.b", nil); !errors.Is(err, codes.NotFound) {
		t.Fatalf("removed f.b: %v", err)
	}
}

func TestReplaceChangesNothingOnError(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(constTool("f.a", "a1"), constTool("go.keep", "k"))
	cases := map[string]struct {
		remove []string
		add    []tooling.Tool
		want   string
	}{
		"bad name":           {[]string{"f.a"}, []tooling.Tool{constTool("f.a", "a2"), constTool("Bad Name", "x")}, "Bad Name"},
		"duplicate of kept":  {[]string{"f.a"}, []tooling.Tool{constTool("f.a", "a2"), constTool("go.keep", "x")}, "already registered"},
		"duplicate in batch": {[]string{"f.a"}, []tooling.Tool{constTool("f.a", "a2"), constTool("f.a", "a3")}, "already registered"},
		"unknown removal":    {[]string{"f.a", "f.zz"}, []tooling.Tool{constTool("f.a", "a2")}, "f.zz"},
		"bad schema":         {[]string{"f.a"}, []tooling.Tool{{Name: "f.a", Input: raw(`{"type":"array"}`), Run: run}}, "f.a"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := r.Replace(c.remove, c.add)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Replace: %v, want an error naming %q", err, c.want)
			}
			var re *tooling.RegisterError
			if !errors.As(err, &re) {
				t.Fatalf("error %T is no *RegisterError", err)
			}
			if got := strings.Join(toolNames(r), ","); got != "f.a,go.keep" {
				t.Fatalf("names after a refused Replace: %s", got)
			}
			if res := mustExec(t, r, "f.a", `{}`); string(res.Output) != `"a1"` {
				t.Fatalf("f.a gives %s after a refused Replace, want a1", res.Output)
			}
		})
	}
}

// TestReplaceIsAtomic calls two tools replaced together while Replace swaps
// them back and forth: every call finds its tool, and no caller ever sees
// one tool of the old set next to one of the new.
func TestReplaceIsAtomic(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(constTool("f.a", "1"), constTool("f.b", "1"))
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				res, err := r.Execute(context.Background(), "f.a", nil)
				if err != nil {
					errs <- err
					return
				}
				_ = res
				names := toolNames(r)
				if len(names) != 2 {
					errs <- errors.New("registry seen with " + strings.Join(names, ",") + " in the middle of a Replace")
					return
				}
			}
		}()
	}
	for i := range 300 {
		v := "1"
		if i%2 == 0 {
			v = "2"
		}
		if err := r.Replace([]string{"f.a", "f.b"}, []tooling.Tool{constTool("f.a", v), constTool("f.b", v)}); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
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
