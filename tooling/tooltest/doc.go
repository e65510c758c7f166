// Package tooltest runs a tool's Run in a unit test, with the Call the
// registry would give it: arguments checked against the tool's schema with
// defaults filled in, an origin, a tenant, consent and a workspace.
//
//	func TestShout(t *testing.T) {
//		out, err := tooltest.Run(t, shout, `{"text":"hi"}`, tooltest.WithOrigin(tooling.OriginLLM))
//		if err != nil || out != "HI" {
//			t.Fatalf("%v %v", out, err)
//		}
//	}
//
// Run calls the tool directly, in the test's goroutine: no governance
// (origins, availability, consent, rate, slots, deadline), no output check
// (it returns what Run returns, not JSON checked against the output
// schema), no confinement (Call.RunProgram refuses, as it does outside a
// confined child), and a panic in the tool fails the test as any panic
// does. Use a tooling.Registry to test a tool's governance and output.
//
// Imports: the standard library, tooling and internal packages.
package tooltest
