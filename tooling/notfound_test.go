package tooling_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestNotFoundRefusalIsBounded: a caller that sends a name of 10 KB or
// 100 KB gets a refusal of a few hundred bytes, with the start of the name
// quoted, not the whole name echoed back (twice, in Tool and Message).
func TestNotFoundRefusalIsBounded(t *testing.T) {
	r := manyTools(100)
	ctx := context.Background()
	for _, n := range []int{129, 10 << 10, 100 << 10} {
		name := strings.Repeat("é", n/2) + strings.Repeat("x", n%2) // a cut must keep whole runes
		res, err := r.Execute(ctx, name, nil)
		if !errors.Is(err, codes.NotFound) || res.Code != codes.NotFound {
			t.Fatalf("%d bytes: %v", n, err)
		}
		full, _ := json.Marshal(res)
		if len(full) > 1024 || len(err.Error()) > 512 || len(res.Tool) > 128 {
			t.Errorf("%d bytes: the refusal is %d bytes of JSON, its error %d, its tool %d", n, len(full), len(err.Error()), len(res.Tool))
		}
		if !strings.HasPrefix(res.Message, `no tool named "éééé`) || !strings.Contains(res.Message, `..."`) ||
			!strings.Contains(res.Message, "no tool name is over 128") || strings.Contains(res.Message, "did you mean") || res.Hint != "" {
			t.Errorf("%d bytes: message %.200q hint %q", n, res.Message, res.Hint)
		}
		if !strings.HasPrefix(res.Tool, "éé") || !strings.HasSuffix(res.Tool, "...") || !json.Valid(full) {
			t.Errorf("%d bytes: tool %q", n, res.Tool)
		}
		for _, err := range []error{r.Availability(ctx, name, ""), r.SetEnabled(name, false)} {
			var te *tooling.Error
			if !errors.As(err, &te) || te.Code != codes.NotFound || len(te.Error()) > 512 {
				t.Errorf("%d bytes: %.300v", n, err)
			}
		}
		if _, err := r.Policy(name); err == nil || len(err.Error()) > 512 {
			t.Errorf("%d bytes: Policy: %.300v", n, err)
		}
		if _, err := r.ValidateArgs(name, nil); err == nil || len(err.Error()) > 512 {
			t.Errorf("%d bytes: ValidateArgs: %.300v", n, err)
		}
	}
	// A name as long as a tool's may be is shown whole.
	name := "nope." + strings.Repeat("x", 123)
	if res, _ := r.Execute(ctx, name, nil); res.Tool != name || !strings.Contains(res.Message, name) {
		t.Errorf("128 bytes: tool %q message %q", res.Tool, res.Message)
	}
}

// TestNotFoundSuggestsAmongManyTools: with 10,000 tools sharing a group and
// a shape of name, a miss still names the tool meant, and the hint of a
// forgotten import comes only for a group no tool has.
func TestNotFoundSuggestsAmongManyTools(t *testing.T) {
	r := manyTools(10000)
	ctx := context.Background()
	for _, tc := range []struct{ name, want, hint string }{
		{"bench.tol_500", `did you mean "bench.tool_500"`, ""},
		{"bench.tool_9999x", `did you mean "bench.tool_9999"`, ""},
		{"bench__tool_42x", `did you mean "bench.tool_42"`, ""},
		{"bnech.tool_7", `did you mean "bench.tool_7"`, ""},
		{"tool_4321", `did you mean "bench.tool_4321"`, ""},
		{"bench.something_else", `no tool named "bench.something_else"`, ""},
		{"nope.thing", `no tool named "nope.thing"`, `no tool of group "nope" is registered`},
	} {
		res, _ := r.Execute(ctx, tc.name, nil)
		if res.Code != codes.NotFound || !strings.Contains(res.Message, tc.want) || !strings.Contains(res.Hint, tc.hint) || (tc.hint == "") != (res.Hint == "") {
			t.Errorf("%s: message %q hint %q", tc.name, res.Message, res.Hint)
		}
		if strings.Contains(tc.want, "no tool named") && strings.Contains(res.Message, "did you mean") {
			t.Errorf("%s: message %q", tc.name, res.Message)
		}
	}
	// A tool added after a miss is found, and suggested.
	r.Register(tooling.Tool{Name: "nope.thing", Run: run})
	if _, err := r.Execute(ctx, "nope.thing", nil); err != nil {
		t.Fatal(err)
	}
	if res, _ := r.Execute(ctx, "nope.thnig", nil); !strings.Contains(res.Message, `did you mean "nope.thing"`) {
		t.Errorf("after Register: %q", res.Message)
	}
}

// TestNotFoundCostsWhatACallCosts counts the allocations of misses against
// those of a good call: a typo among 10,000 tools, a name far from all of
// them, a name without its group, and a name of 10 KB against 1,000 tools cost a
// bounded handful, where every tool used to cost a few.
func TestNotFoundCostsWhatACallCosts(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		tools int
		name  string
	}{
		{10000, "bench.tol_500"},
		{10000, "unknown.thing"},
		{10000, "tool_500"},
		{1000, strings.Repeat("x", 10<<10)},
	} {
		r := manyTools(tc.tools)
		good := testing.AllocsPerRun(5, func() { r.Execute(ctx, "bench.tool_500", nil) })
		miss := testing.AllocsPerRun(5, func() { r.Execute(ctx, tc.name, nil) })
		if miss > good+15 {
			t.Errorf("%d tools, a %d-byte name: %v allocations a miss, %v a good call", tc.tools, len(tc.name), miss, good)
		}
	}
}

// TestLongestNamesAreFound: the cut that refuses long names at once spares
// every name a registry can hold, the 128 bytes of an MCP name included.
func TestLongestNamesAreFound(t *testing.T) {
	r := tooling.NewRegistry()
	long := strings.Repeat("a", 128)
	if err := r.AddNamedAsIs(tooling.Tool{Name: long, Run: run}); err != nil {
		t.Fatal(err)
	}
	exported := "g__" + strings.Repeat("b", 61) // "g." + 61 bytes: 64 once exported
	r.Register(tooling.Tool{Name: "g." + strings.Repeat("b", 61), Run: run})
	for _, name := range []string{long, exported} {
		if _, err := r.Execute(context.Background(), name, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if res, _ := r.Execute(context.Background(), long+"a", nil); res.Code != codes.NotFound || strings.Contains(res.Message, "did you mean") {
		t.Errorf("129 bytes: %s %s", res.Code, res.Message)
	}
}
