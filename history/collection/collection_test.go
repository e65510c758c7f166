package collection

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

const shop = `{
  "environments": {
    "dev": {"base": "http://127.0.0.1:8080", "token": {"from_env": "SHOP_TOKEN", "secret": true}},
    "empty": {}
  },
  "calls": [
    {"name": "echo base", "folder": "/basics/", "tool": "t.echo", "args": {"text": "{{base}}/orders", "n": 3}},
    {"name": "auth", "folder": "basics", "tool": "t.echo", "args": {"text": "Bearer {{ token }}"},
     "expect": {"jq": [".text | startswith(\"Bearer \")"]}}
  ]
}`

func TestParseJSONAndYAML(t *testing.T) {
	f, err := Parse([]byte(shop), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Calls[0].Path(); got != "basics/echo base" {
		t.Errorf("path %q, want the folder trimmed of its slashes", got)
	}
	if v := f.Environments["dev"]["token"]; v.FromEnv != "SHOP_TOKEN" || !v.Secret {
		t.Errorf("token: %+v", v)
	}
	// Written as YAML and read back, the file is the same.
	path := filepath.Join(t.TempDir(), "shop.yaml")
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "folder: basics") || !strings.Contains(string(b), "secret: true") {
		t.Errorf("not block YAML:\n%s", b)
	}
	g, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(compact(t, f), compact(t, g)) {
		t.Errorf("YAML round trip:\n%v\n%v", compact(t, f), compact(t, g))
	}
}

// compact is f as a JSON value, its objects' keys in any order.
func compact(t *testing.T, f *File) any {
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseRefusesMistakes(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"unknown key", `{"calls": [{"name": "a", "tool": "t.echo", "expext": {}}]}`, `unknown field "expext"`},
		{"no name", `{"calls": [{"tool": "t.echo"}]}`, "call 1: a call needs a name"},
		{"no tool", `{"calls": [{"name": "a"}]}`, "call 1 (a): a call needs a tool"},
		{"twice", `{"calls": [{"name": "a", "tool": "t.x"}, {"name": "a", "tool": "t.y"}]}`, `call 2 (a): two calls are named "a"`},
		{"args", `{"calls": [{"name": "a", "tool": "t.x", "args": [1]}]}`, "the arguments must be a JSON object"},
		{"status", `{"calls": [{"name": "a", "tool": "t.x", "expect": {"status": "fine"}}]}`, `expect.status must be ok, denied or error, got "fine"`},
		{"jq", `{"calls": [{"name": "a", "tool": "t.x", "expect": {"jq": [".a |"]}}]}`, `expect.jq ".a |"`},
		{"variable", `{"environments": {"dev": {"a b": "x"}}, "calls": []}`, `environment dev: "a b" is not a variable name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file), false)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "collection: ") {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	f, err := Parse([]byte(shop), false)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SHOP_TOKEN": "s3cr3t-value"}
	vars, err := f.Environment("dev", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	got, err := vars.Expand(f.Calls[1].Args)
	if err != nil || string(got) != `{"text":"Bearer s3cr3t-value"}` {
		t.Fatalf("Expand = %s, %v", got, err)
	}
	if got, _ := vars.Expand(f.Calls[0].Args); string(got) != `{"n":3,"text":"http://127.0.0.1:8080/orders"}` {
		t.Fatalf("Expand = %s", got)
	}
	if s := vars.Secrets(); !reflect.DeepEqual(s, []string{"s3cr3t-value"}) {
		t.Errorf("Secrets = %q", s)
	}
	if r := Refs(f.Calls[1].Args); !reflect.DeepEqual(r, []string{"token"}) {
		t.Errorf("Refs = %q", r)
	}
	plain := json.RawMessage(`{"text": "no {reference}"}`)
	if got, err := vars.Expand(plain); err != nil || string(got) != string(plain) {
		t.Errorf("arguments without a reference changed: %s, %v", got, err)
	}

	for _, tc := range []struct {
		env, want string
		getenv    func(string) string
	}{
		{"dev", "{{token}} of environment dev has no value: $SHOP_TOKEN is not set", func(string) string { return "" }},
		{"empty", "{{token}} is not a variable of environment empty", nil},
		{"", "{{token}} needs an environment, and none is chosen", nil},
	} {
		vars, err := f.Environment(tc.env, tc.getenv)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := vars.Expand(f.Calls[1].Args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("environment %q: error %v, want %q", tc.env, err, tc.want)
		}
	}
	if _, err := f.Environment("prod", nil); err == nil || !strings.Contains(err.Error(), `no environment "prod" (there are dev, empty)`) {
		t.Errorf("unknown environment: %v", err)
	}
}

func checkRegistry(t *testing.T) *tooling.Registry {
	reg := tooling.NewRegistry()
	if err := reg.Add(tooling.Tool{
		Name: "t.echo", Description: "Echoes its text.",
		Input: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}},"required":["text"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := c.Decode(&a); err != nil {
				return nil, err
			}
			return map[string]any{"text": a.Text, "items": []int{1, 2}}, nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestCheck(t *testing.T) {
	reg := checkRegistry(t)
	calls := []Call{
		{Name: "ok", Tool: "t.echo", Args: json.RawMessage(`{"text":"{{base}}"}`),
			Expect: &Expect{JQ: []string{`.text == "http://x"`, `.items | length == 2`}}},
		{Name: "plain ok", Tool: "t.echo", Args: json.RawMessage(`{"text":"a"}`)},
		{Name: "refused as expected", Tool: "t.echo", Args: json.RawMessage(`{}`), Expect: &Expect{Status: "denied", Code: codes.ValidationError}},
		{Name: "refused", Tool: "t.echo", Args: json.RawMessage(`{}`)},
		{Name: "wrong jq", Tool: "t.echo", Args: json.RawMessage(`{"text":"b"}`), Expect: &Expect{JQ: []string{`.text == "c"`, `.items[]`, `empty`}}},
		{Name: "wrong code", Tool: "t.nope", Expect: &Expect{Code: codes.Disabled}},
		{Name: "no value", Tool: "t.echo", Args: json.RawMessage(`{"text":"{{nope}}"}`)},
	}
	vars := Resolve("dev", Environment{"base": {Value: "http://x"}}, nil)
	out := Check(context.Background(), reg, calls, vars)
	if len(out) != len(calls) {
		t.Fatalf("%d outcomes for %d calls", len(out), len(calls))
	}
	want := map[string][]string{
		"refused":    {"expected status ok, got denied (validation_error)"},
		"wrong jq":   {`jq .text == "c": gave false, want true`, `jq .items[]: gave 1, want true`, `jq empty: gave nothing, want true`},
		"wrong code": {"expected code disabled, got denied (not_found)"},
		"no value":   {"collection: {{nope}} is not a variable of environment dev"},
	}
	for _, o := range out {
		w := want[o.Call.Name]
		if len(o.Failures) != len(w) {
			t.Errorf("%s: failures %q, want %q", o.Call.Name, o.Failures, w)
			continue
		}
		for i := range w {
			if !strings.HasPrefix(o.Failures[i], w[i]) {
				t.Errorf("%s: failure %q, want %q", o.Call.Name, o.Failures[i], w[i])
			}
		}
	}
	if out[6].Result != nil {
		t.Error("a call whose variable has no value was made")
	}
}
