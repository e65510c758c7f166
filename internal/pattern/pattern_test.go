package pattern

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// zodEmail is the pattern zod emits for .email() in JSON Schema.
const zodEmail = `^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`

func TestZodEmail(t *testing.T) {
	re, err := Compile(zodEmail)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if !re.Backtracking() {
		t.Fatal("RE2 accepted a lookahead")
	}
	for _, s := range []string{"name@example.com", "first.last+tag@mail.example.org", "o'neil@example.co", "a_b-c@x-y.example.io"} {
		if ok, err := re.Match(s); !ok || err != nil {
			t.Errorf("%q: match %v, %v; want a match", s, ok, err)
		}
	}
	for _, s := range []string{"", "name", ".name@example.com", "na..me@example.com", "name.@example.com",
		"name@example", "name@example.c", "name@-example.com", "name@example..com", "na me@example.com", "name@exa_mple.com"} {
		if ok, err := re.Match(s); ok || err != nil {
			t.Errorf("%q: match %v, %v; want no match", s, ok, err)
		}
	}
}

func TestRE2First(t *testing.T) {
	for _, expr := range []string{`^[a-z]+$`, `^(a+)+$`, `\d{3}-\d{4}`} {
		re, err := Compile(expr)
		if err != nil || re.Backtracking() {
			t.Errorf("%s: err %v, backtracking %v; want RE2", expr, err, re != nil && re.Backtracking())
		}
	}
	re, _ := Compile(`b`)
	if !re.MatchString("abc") { // JSON Schema patterns are not anchored
		t.Error("b does not match inside abc")
	}
	for _, expr := range []string{`(?<=a)b`, `(a)\1`, `x(?=y)`} {
		re, err := Compile(expr)
		if err != nil || !re.Backtracking() {
			t.Errorf("%s: err %v; want the backtracking engine", expr, err)
		}
	}
	re, _ = Compile(`(a)\1`)
	if !re.MatchString("xaa") || re.MatchString("ab") {
		t.Error(`(a)\1 matches wrongly`)
	}
}

func TestInvalid(t *testing.T) {
	for _, expr := range []string{`(abc`, `[z-a]`, `a{2,1}`} {
		if _, err := Compile(expr); err == nil || !strings.Contains(err.Error(), "not a valid ECMAScript regular expression") {
			t.Errorf("%s: err %v", expr, err)
		}
	}
}

// hostile backtracks catastrophically on hostileInput (the lookahead sends it
// to the backtracking engine).
const hostile = `^(?!b)(a+)+$`

var hostileInput = strings.Repeat("a", 40) + "!"

// A catastrophic pattern ends with ErrTimeout, then refuses every value
// without trying until the pause is over.
func TestTimeoutAndPause(t *testing.T) {
	re, err := Compile(hostile)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	re.now = func() time.Time { return now }
	done := make(chan error, 1)
	go func() {
		_, err := re.Match(hostileInput)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err %v, want ErrTimeout", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard, not a timing check
		t.Fatal("the match did not end")
	}
	if !re.Paused() {
		t.Fatal("not paused after a timeout")
	}
	if ok, err := re.Match("aaa"); ok || !errors.Is(err, ErrTimeout) {
		t.Fatalf("paused: match %v, %v; want a refusal", ok, err)
	}
	if re.MatchString("aaa") {
		t.Fatal("MatchString takes a refused value as a match")
	}
	now = now.Add(Pause)
	if re.Paused() {
		t.Fatal("still paused after Pause")
	}
	if ok, err := re.Match("aaa"); !ok || err != nil {
		t.Fatalf("after the pause: match %v, %v", ok, err)
	}
}
