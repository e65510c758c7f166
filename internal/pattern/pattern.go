package pattern

import (
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2"
)

// Timeout is how long one match of a backtracking expression may run
// (regexp2 checks it on a clock that ticks every 100 ms, so a match may run
// up to about 200 ms longer). Legitimate patterns match in microseconds.
const Timeout = 100 * time.Millisecond

// Pause is how long a backtracking expression refuses every value after a
// match of it timed out.
const Pause = 10 * time.Second

// ErrTimeout says that a value could not be checked against an expression in
// time: its match ran past Timeout, or the expression was paused after
// another match did.
var ErrTimeout = errors.New("pattern: the match took too long")

// Regexp is a compiled expression. It is safe for concurrent use, and it
// satisfies jsonschema's Regexp interface.
type Regexp struct {
	src         string
	re2         *regexp.Regexp   // when RE2 accepts src
	ecma        *regexp2.Regexp  // else
	pausedUntil atomic.Int64     // unix nanoseconds; 0 when never paused
	now         func() time.Time // time.Now, or a test's clock
}

// Compile compiles expr with RE2 when RE2 accepts it, else as an ECMAScript
// expression with the backtracking engine. When both refuse it, the error
// is the ECMAScript parser's: JSON Schema patterns are ECMAScript.
func Compile(expr string) (*Regexp, error) {
	r := &Regexp{src: expr, now: time.Now}
	re, err := regexp.Compile(expr)
	if err == nil {
		r.re2 = re
		return r, nil
	}
	ecma, err2 := regexp2.Compile(expr, regexp2.ECMAScript)
	if err2 != nil {
		return nil, fmt.Errorf("not a valid ECMAScript regular expression: %v", err2)
	}
	ecma.MatchTimeout = Timeout
	r.ecma = ecma
	return r, nil
}

// String returns the expression as compiled.
func (r *Regexp) String() string { return r.src }

// Backtracking reports whether the expression runs on the backtracking
// engine (RE2 rejected it), and so may time out.
func (r *Regexp) Backtracking() bool { return r.ecma != nil }

// Match reports whether s contains a match. The error is ErrTimeout (wrapped)
// when s could not be checked in time; the match is then false.
func (r *Regexp) Match(s string) (bool, error) {
	if r.re2 != nil {
		return r.re2.MatchString(s), nil
	}
	if r.Paused() {
		return false, fmt.Errorf("%w: paused after a match ran past %v", ErrTimeout, Timeout)
	}
	ok, err := r.ecma.MatchString(s)
	if err != nil {
		r.pausedUntil.Store(r.now().Add(Pause).UnixNano())
		return false, fmt.Errorf("%w: ran past %v", ErrTimeout, Timeout)
	}
	return ok, nil
}

// MatchString reports whether s contains a match; a value that could not be
// checked in time does not match.
func (r *Regexp) MatchString(s string) bool {
	ok, err := r.Match(s)
	return ok && err == nil
}

// Paused reports whether the expression refuses values without trying,
// because a match of it timed out less than Pause ago.
func (r *Regexp) Paused() bool {
	until := r.pausedUntil.Load()
	return until != 0 && r.now().UnixNano() < until
}
