package policy_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// BenchmarkPolicyOverhead calls a tool that works for 10 µs with a
// principal, without policy and with three rules and one Cedar policy on
// an argument: the cost of deciding who may call what.
func BenchmarkPolicyOverhead(b *testing.B) {
	tool := tooling.Tool{Name: "shop.refund", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Input: json.RawMessage(`{"type": "object", "required": ["order", "amount"], "properties": {"order": {"type": "string"}, "amount": {"type": "integer"}}}`),
		Run: func(context.Context, tooling.Call) (any, error) {
			for start := time.Now(); time.Since(start) < 10*time.Microsecond; {
			}
			return "refunded", nil
		}}
	args := json.RawMessage(`{"order": "A1", "amount": 42}`)
	who := tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: "acme", Roles: []string{"support"}, Auth: "oauth"})
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
			for b.Loop() {
				if res, _ := r.Execute(ctx, "shop.refund", args, who); !res.OK() {
					b.Fatal(res.Message)
				}
			}
		})
	}
}
