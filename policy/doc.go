// Package policy decides who may see and call which tool, how often and
// how much: rules that allow or deny tool patterns by subject, tenant,
// role, scope and origin (Rules); Cedar policies on the principal, the
// tool and the call's arguments, validated against a schema made of the
// registry (Cedar, CedarSchema); rate limits per subject or tenant
// (Limits) and budgets of calls and bytes over a window (Budgets).
//
// Rules and Cedar are tooling.Authorizers (All combines them); a host
// installs one with Registry.SetAuthorizer, and a call it refuses ends with
// code forbidden, naming the rule or policy. Limits and Budgets are
// middleware (Registry.Use). They keep their counts in a Store: a
// MemoryStore by default, or one that several processes share.
//
// It imports tooling (and the project's internal packages) only.
package policy
