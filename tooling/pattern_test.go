package tooling_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// zodEmail is the pattern zod emits for .email() in JSON Schema; its
// lookaheads are not RE2.
const zodEmail = `^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$`

func TestECMAScriptPatternsCompileAndValidate(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.mail", Run: run, Input: raw(`{"type":"object","properties":{
		"email":{"type":"string","pattern":"` + zodEmail + `"},
		"cc":{"type":"array","items":{"type":"string","pattern":"` + zodEmail + `"}},
		"re":{"type":"string","format":"regex"}},"required":["email"]}`)})
	for _, args := range []string{`{"email":"name@example.com"}`, `{"email":"first.last+tag@mail.example.org","cc":["o'neil@example.co"]}`,
		`{"email":"a@example.com","re":"^(?!x)y"}`} {
		if res := mustExec(t, r, "t.mail", args); res.Code != codes.OK {
			t.Errorf("%s: %s %s %v", args, res.Code, res.Message, res.Fields)
		}
	}
	for _, tt := range []struct{ args, path string }{
		{`{"email":".name@example.com"}`, "/email"},
		{`{"email":"na..me@example.com"}`, "/email"},
		{`{"email":"name@example.com","cc":["ok@example.com","bad@example"]}`, "/cc/1"},
	} {
		res, _ := r.Execute(context.Background(), "t.mail", raw(tt.args))
		found := false
		for _, f := range res.Fields {
			found = found || f.Path == tt.path && f.Keyword == "pattern" && strings.HasPrefix(f.Message, "must match the pattern ^(?!")
		}
		if res.Code != codes.ValidationError || !found {
			t.Errorf("%s: %s %v, want a pattern error at %s", tt.args, res.Code, res.Fields, tt.path)
		}
	}
}

// A pattern that backtracks catastrophically cannot hang a call: the value
// is refused once its match runs past the timeout, and the other values of
// the same call are refused without trying.
func TestCatastrophicPatternEnds(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.evil", Run: run, Input: raw(`{"type":"object","properties":{
		"s":{"type":"array","items":{"type":"string","pattern":"^(?!b)(a+)+$"}}}}`)})
	hostile := `"` + strings.Repeat("a", 40) + `!"`
	args := `{"s":[` + strings.Repeat(hostile+",", 49) + hostile + `]}`
	done := make(chan *tooling.Result, 1)
	go func() {
		res, _ := r.Execute(context.Background(), "t.evil", raw(args))
		done <- res
	}()
	var res *tooling.Result
	select {
	case res = <-done:
	case <-time.After(2 * time.Minute): // a hang guard, not a timing check
		t.Fatal("the call did not end")
	}
	if res.Code != codes.ValidationError || len(res.Fields) != 50 {
		t.Fatalf("%s %s, %d fields; want validation_error on 50 fields", res.Code, res.Message, len(res.Fields))
	}
	for _, f := range res.Fields {
		if f.Keyword != "pattern" || !strings.Contains(f.Message, "could not be checked against the pattern ^(?!b)(a+)+$ in time") {
			t.Fatalf("field %s: %q", f.Path, f.Message)
		}
	}
}
