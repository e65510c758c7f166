// Package policy decides who may see and call which tool: rules that allow
// or deny tool patterns by subject, tenant, role, scope and origin. A
// *Rules is a tooling.Authorizer; a host installs it with
// Registry.SetAuthorizer, and a call it refuses ends with code forbidden,
// naming the rule.
//
// It imports tooling (and the project's internal packages) only.
package policy
