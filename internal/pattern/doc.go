// Package pattern compiles the regular expressions of JSON Schema ("pattern",
// "patternProperties", format "regex"), which are ECMA-262 expressions, for
// the registry, the config and the console's form alike.
//
// An expression Go's regexp (RE2) accepts runs there, in time linear in the
// input. Only an expression RE2 rejects (lookaheads, lookbehinds,
// backreferences, as in the e-mail pattern that zod emits) runs on a
// backtracking engine (github.com/dlclark/regexp2 in ECMAScript mode), under
// a match timeout: such a match ends after about [Timeout] with
// [ErrTimeout], and the expression then refuses every value without trying
// for [Pause], so that one call with many values, or a burst of calls, cannot
// pile up timeouts. A refused value is never taken as a match.
//
// It is a leaf: it imports the standard library and regexp2, and every
// package of the project may import it.
package pattern
