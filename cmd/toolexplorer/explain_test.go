package main

import (
	"strings"
	"testing"
)

// TestExplainCommand: explain lists the steps and the verdict, exits 0 for
// a call that would run and 3 for one that would be refused, and makes no
// call: a note explained is not written.
func TestExplainCommand(t *testing.T) {
	ok := cli(t, "", "explain", "demo.echo", "--args", `{"text":"hi"}`)
	if ok.code != exitOK || !strings.Contains(ok.stdout, "demo.echo: would run") || !strings.Contains(ok.stdout, "validation   would pass") {
		t.Fatalf("explain of a call that would run:\n%s", ok)
	}
	refused := cli(t, "", "explain", "demo.write_note", "--args", `{}`)
	if refused.code != exitRefused || !strings.Contains(refused.stdout, "would be refused (validation_error)") {
		t.Fatalf("explain of invalid arguments:\n%s", refused)
	}
	before := decodeResult(t, cli(t, "", "run", "demo.write_note", "--consent", "--args", `{"text":"a"}`, "--json"))
	if o := cli(t, "", "explain", "demo.write_note", "--consent", "--args", `{"text":"b"}`); o.code != exitOK {
		t.Fatalf("explain with consent:\n%s", o)
	}
	after := decodeResult(t, cli(t, "", "run", "demo.write_note", "--consent", "--args", `{"text":"c"}`, "--json"))
	if got, want := outputField(t, after, "count"), outputField(t, before, "count").(float64)+1; got != want {
		t.Fatalf("count %v after explain, want %v: explain must not write", got, want)
	}
}
