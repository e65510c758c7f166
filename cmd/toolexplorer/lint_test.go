package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLintDemoTools(t *testing.T) {
	o := cli(t, "", "lint")
	if o.code != exitOK || o.stderr != "" {
		t.Fatalf("want exit 0 and nothing on stderr\n%s", o)
	}
	if !strings.HasPrefix(o.stdout, "lint: no problems (") {
		t.Errorf("want only the summary:\n%s", o.stdout)
	}

	o = cli(t, "", "lint", "--json")
	var report lintReport
	if err := json.Unmarshal([]byte(o.stdout), &report); err != nil {
		t.Fatalf("lint --json: %v\n%s", err, o)
	}
	if o.code != exitOK || report.Count != 0 || report.Problems == nil || report.Tools < 7 {
		t.Errorf("exit %d, report %+v: want exit 0, no problems, [] and every demo tool", o.code, report)
	}
}

func TestLintFormCoverage(t *testing.T) {
	removePreview(t, "lintform.cond")
	file := writeFile(t, "tools.json", `[{"name":"lintform.cond","title":"Cond","description":"d","inputSchema":{"type":"object",
		"properties":{"a":{"type":"string","description":"x","not":{"const":""}}},"additionalProperties":false}}]`)
	o := cli(t, "", "lint", "--tools", file)
	if o.code != exitFailed || !strings.Contains(o.stdout, "lintform.cond: form /properties/a/not: the console's form cannot render this natively") {
		t.Fatalf("lint does not report form coverage:\n%s", o)
	}
}
