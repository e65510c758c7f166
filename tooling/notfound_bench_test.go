package tooling_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// manyTools is a registry of n tools named "bench.tool_0" to
// "bench.tool_<n-1>", without parameters.
func manyTools(n int) *tooling.Registry {
	r := tooling.NewRegistry()
	tools := make([]tooling.Tool, n)
	for i := range tools {
		tools[i] = tooling.Tool{Name: fmt.Sprintf("bench.tool_%d", i), Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }}
	}
	r.Register(tools...)
	return r
}

// BenchmarkNotFound compares a call of an unknown name with a good call of
// the same registry, in one run: a typo that gets a suggestion, a name far
// from every tool, a name given without its group, and names of 10 KB and
// 100 KB, which no tool can have.
func BenchmarkNotFound(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1000, 10000} {
		r := manyTools(n)
		cases := []struct{ label, name string }{
			{"hit", "bench.tool_500"},
			{"typo", "bench.tol_500"},
			{"far", "unknown.thing"},
			{"nogroup", "tool_500"},
			{"10KB", strings.Repeat("x", 10<<10)},
			{"100KB", strings.Repeat("x", 100<<10)},
		}
		for _, c := range cases {
			b.Run(fmt.Sprintf("%s/%d", c.label, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, err := r.Execute(ctx, c.name, nil)
					if (err == nil) != (c.label == "hit") {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
