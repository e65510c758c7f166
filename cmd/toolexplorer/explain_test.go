package main

import (
	"context"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestExplainCommand: explain lists the steps and the verdict, exits 0 for
// a call that would run and 3 for one that would be refused, and makes no
// call: a note explained is not written.
func TestExplainCommand(t *testing.T) {
	ok := cli(t, "", "explain", "demo.echo", "--args", `{"text":"hi"}`)
	if ok.code != exitOK || !strings.Contains(ok.stdout, "demo.echo: would run") || !strings.Contains(ok.stdout, "validation   would pass") {
		t.Fatalf("explain of a call that would run:\n%s", ok)
	}
	refused := cli(t, "", "explain", "demo.write_note", "--args", `{}`)
	if refused.code != exitRefused || !strings.Contains(refused.stdout, "would be refused (validation_error)") {
		t.Fatalf("explain of invalid arguments:\n%s", refused)
	}
	before := decodeResult(t, cli(t, "", "run", "demo.write_note", "--consent", "--args", `{"text":"a"}`, "--json"))
	if o := cli(t, "", "explain", "demo.write_note", "--consent", "--args", `{"text":"b"}`); o.code != exitOK {
		t.Fatalf("explain with consent:\n%s", o)
	}
	after := decodeResult(t, cli(t, "", "run", "demo.write_note", "--consent", "--args", `{"text":"c"}`, "--json"))
	if got, want := outputField(t, after, "count"), outputField(t, before, "count").(float64)+1; got != want {
		t.Fatalf("count %v after explain, want %v: explain must not write", got, want)
	}
}

// TestExplainConsultsConfigLimitsAndBudgets: the config's limits and
// budgets, put in front of calls by installPolicy, say what they would
// decide when a call is explained, and spend nothing: the call that follows
// runs, and the one after it is refused as explain then says.
func TestExplainConsultsConfigLimitsAndBudgets(t *testing.T) {
	path := writeFile(t, "limits.json", `{"limits": [{"name": "echoers", "tools": ["demo.echo"], "per_minute": 0.001, "burst": 2}],
		"budgets": [{"name": "echoes", "tools": ["demo.echo"], "window": "day", "calls": 1}]}`)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.echo", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "hi", nil }})
	a := &app{reg: r}
	if err := a.applyBudgets(cfg); err != nil {
		t.Fatal(err)
	}
	alice := tooling.WithPrincipal(tooling.Principal{Subject: "alice"})
	steps := func(res *tooling.Result) string {
		var b strings.Builder
		for _, d := range res.Governance {
			b.WriteString(d.Step + ": " + d.Detail + "\n")
		}
		return b.String()
	}
	res, err := r.Explain(context.Background(), "demo.echo", nil, alice)
	if err != nil || !strings.Contains(steps(res), "limit: would pass: echoers of subject alice has a token") ||
		!strings.Contains(steps(res), "budget: would pass: echoes of subject alice: 1 of 1 calls left") {
		t.Fatalf("explain before the call: %v\n%s", err, steps(res))
	}
	if res, _ := r.Execute(context.Background(), "demo.echo", nil, alice); !res.OK() {
		t.Fatalf("the call after explain: %q %q", res.Code, res.Message)
	}
	res, _ = r.Explain(context.Background(), "demo.echo", nil, alice)
	if res.Code != policy.CodeBudgetExceeded || !strings.Contains(steps(res), "middleware: would refuse (budget_exceeded): echoes of subject alice: 1 of 1 calls used") {
		t.Fatalf("explain after the call: %q\n%s", res.Code, steps(res))
	}
	if res, _ := r.Execute(context.Background(), "demo.echo", nil, alice); res.Code != policy.CodeBudgetExceeded {
		t.Fatalf("the second call: %q", res.Code)
	}

	o := cli(t, "", "explain", "demo.echo", "--args", `{"text":"hi"}`, "--config", path)
	if o.code != exitOK || !strings.Contains(o.stdout, "would pass: echoes of subject") {
		t.Fatalf("explain with the config's budgets:\n%s", o)
	}
}
