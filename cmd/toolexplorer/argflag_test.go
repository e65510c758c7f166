package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestTypedArgs(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"n":{"type":"integer"},"x":{"type":"number"},"b":{"type":"boolean"},"s":{"type":"string"},
		"o":{"type":"object"},"a":{"type":"array"},"ns":{"type":["null","string"]}}}`)
	for _, tc := range []struct {
		base  string
		pairs []string
		want  string // "" when it fails
		err   string
	}{
		{"", []string{"n=3", "x=2.5", "b=true", "s=3", "o={\"k\":1}", "a=[1,2]", "ns=7"},
			`{"a":[1,2],"b":true,"n":3,"ns":"7","o":{"k":1},"s":"3","x":2.5}`, ""},
		{`{"s":"old","keep":1}`, []string{"s=new", "s=newer"}, `{"keep":1,"s":"newer"}`, ""},
		{"", []string{"s=a=b"}, `{"s":"a=b"}`, ""},
		{"", []string{"u=3", "v=hello", "w=true", "z={\"k\":[1]}", "y="}, `{"u":3,"v":"hello","w":true,"y":"","z":{"k":[1]}}`, ""},
		{"", []string{"n=3.5"}, "", `--arg n: "3.5" is not an integer`},
		{"", []string{"x=NaN"}, "", `--arg x: "NaN" is not a number`},
		{"", []string{"b=yes"}, "", `--arg b: "yes" is not a boolean`},
		{"", []string{"o=[1]"}, "", `--arg o: "[1]" is not a JSON object`},
		{"", []string{"a={"}, "", `--arg a: "{" is not JSON`},
		{`[1]`, []string{"s=x"}, "", "not one"},
	} {
		got, err := applyArgPairs(json.RawMessage(tc.base), schema, tc.pairs)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: error %v, want %q", tc.pairs, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%v: %v", tc.pairs, err)
		case tc.err == "" && string(got) != tc.want:
			t.Errorf("%v: %s, want %s", tc.pairs, got, tc.want)
		}
	}
	var p argPairs
	for _, bad := range []string{"novalue", "=v"} {
		if err := p.Set(bad); err == nil {
			t.Errorf("--arg %s accepted", bad)
		}
	}
}

// TestRunWithArgFlags: --arg sets arguments typed by the tool's schema, on
// top of --args, for run and bench.
func TestRunWithArgFlags(t *testing.T) {
	o := cli(t, "", "run", "demo.echo", "--args", `{"text":"no"}`, "--arg", "text=hi", "--arg", "repeat=3", "--json")
	if o.code != exitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if got := outputField(t, decodeResult(t, o), "text"); got != "hi hi hi" {
		t.Fatalf("text %q", got)
	}
	// "3" for a string property stays a string.
	o = cli(t, "", "run", "demo__echo", "--arg", "text=3", "--json")
	if got := outputField(t, decodeResult(t, o), "text"); got != "3" {
		t.Fatalf("text %v", got)
	}
	o = cli(t, "", "run", "demo.echo", "--arg", "repeat=two")
	if o.code != exitUsage || !strings.Contains(o.stderr, `--arg repeat: "two" is not an integer`) {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	// repeat=2 as the string "2" would be a validation_error.
	if rep := benchJSON(t, "demo.echo", "--arg", "text=b", "--arg", "repeat=2", "-n", "3", "-c", "1"); rep.Codes["ok"] != 3 {
		t.Fatalf("bench: codes %v, want 3 ok", rep.Codes)
	}
}

// TestConsoleOrigin: --origin before no command is the origin the console
// calls as; before a command it is a usage error, and a typo is one too.
func TestConsoleOrigin(t *testing.T) {
	defer func(c func(*app, string) int) { console = c }(console)
	var got tooling.Origin
	console = func(a *app, _ string) int {
		got = consoleOptions(a).Origin
		return 7
	}
	if o := cli(t, "", "--origin", "llm"); o.code != 7 || got != tooling.OriginLLM {
		t.Fatalf("exit %d, origin %q\n%s", o.code, got, o)
	}
	got = "unset"
	if o := cli(t, ""); o.code != 7 || got != "" {
		t.Fatalf("exit %d, origin %q: want none (the console's default)", o.code, got)
	}
	if o := cli(t, "", "--origin", "lml"); o.code != exitUsage || !strings.Contains(o.stderr, `unknown origin "lml" (did you mean "llm"?)`) {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	if o := cli(t, "", "--origin", "llm", "list"); o.code != exitUsage || !strings.Contains(o.stderr, "give it after the command name (list --origin llm)") {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
}
