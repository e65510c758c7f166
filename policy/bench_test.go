package policy_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"

	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// BenchmarkPolicyOverhead calls a tool that does a fixed 10 µs of work
// (sha256 rounds, about 10 µs of CPU on an idle machine; tool_alone is
// that work by itself) with a principal, without policy and with three
// rules and one Cedar policy on an argument: the cost of deciding who may
// call what. cpu-ns/op is the process's CPU time per call, steadier than
// the wall time on a loaded machine.
func BenchmarkPolicyOverhead(b *testing.B) {
	tool := tooling.Tool{Name: "shop.refund", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Input: json.RawMessage(`{"type": "object", "required": ["order", "amount"], "properties": {"order": {"type": "string"}, "amount": {"type": "integer"}}}`),
		Run:   func(context.Context, tooling.Call) (any, error) { return work(), nil }}
	args := json.RawMessage(`{"order": "A1", "amount": 42}`)
	who := tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: "acme", Roles: []string{"support"}, Auth: "oauth"})
	b.Run("tool_alone", func(b *testing.B) {
		cpu := cpuNow()
		for b.Loop() {
			work()
		}
		b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
	})
	for _, tc := range []struct {
		name   string
		policy bool
	}{{"none", false}, {"rules3_cedar1", true}} {
		b.Run(tc.name, func(b *testing.B) {
			r := tooling.NewRegistry()
			r.Register(tool)
			if tc.policy {
				rules, err := policy.New([]policy.Rule{
					{Name: "no interns", Deny: true, Tools: []string{"*"}, Roles: []string{"intern"}},
					{Name: "support", Tools: []string{"shop.*"}, Roles: []string{"support"}},
					{Name: "ops", Tools: []string{"*"}, Subjects: []string{"bob"}},
				}, true)
				if err != nil {
					b.Fatal(err)
				}
				c, err := policy.NewCedar([]policy.PolicyFile{{Name: "p.cedar", Text: []byte(
					`permit (principal in Role::"support", action == Action::"shop.refund", resource) when { context.arguments.amount < 100 };`)}},
					[]tooling.Tool{tool})
				if err != nil {
					b.Fatal(err)
				}
				r.SetAuthorizer(policy.All(rules, c))
			}
			ctx := context.Background()
			b.ReportAllocs()
			cpu := cpuNow()
			for b.Loop() {
				if res, _ := r.Execute(ctx, "shop.refund", args, who); !res.OK() {
					b.Fatal(res.Message)
				}
			}
			b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

var sink [32]byte

// work is the tool's fixed work: 64 rounds of SHA-256 over 256 bytes,
// about 10 µs.
func work() string {
	var buf [256]byte
	for range 64 {
		sink = sha256.Sum256(buf[:])
		buf[0] = sink[0]
	}
	return "refunded"
}
