package form

import (
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// formCase is one construct: the form builds, starts with init (defaults
// filled, optional empties omitted), turns the keys input presses into want,
// round-trips want, and shows a validator message for errPath on the row
// labelled errLabel.
type formCase struct {
	name     string
	schema   string
	init     string
	input    func(t *testing.T, m *Model)
	want     string
	errPath  string
	errLabel string
}

var formCases = []formCase{
	{
		name: "string with length, pattern and description",
		schema: `{"type":"object","properties":{"name":{"type":"string","title":"Name","description":"Who to greet",
			"minLength":3,"maxLength":8,"pattern":"^[a-z ]+$"}},"required":["name"]}`,
		init:  `{}`,
		input: func(t *testing.T, m *Model) { typeText(m, "ann lee") },
		want:  `{"name":"ann lee"}`, errPath: "/name", errLabel: "name",
	},
	{
		name: "string formats",
		schema: `{"type":"object","properties":{"day":{"type":"string","format":"date"},
			"mail":{"type":"string","format":"email"},"site":{"type":"string","format":"uri"}}}`,
		init: `{}`,
		input: func(t *testing.T, m *Model) {
			typeText(m, "2024-01-31")
			press(m, "tab")
			typeText(m, "a@b.co")
		},
		want: `{"day":"2024-01-31","mail":"a@b.co"}`, errPath: "/site", errLabel: "site",
	},
	{
		name:   "integer with bounds and default",
		schema: `{"type":"object","properties":{"count":{"type":"integer","minimum":1,"maximum":10,"default":3}}}`,
		init:   `{"count":3}`,
		input: func(t *testing.T, m *Model) {
			press(m, "backspace")
			typeText(m, "7")
		},
		want: `{"count":7}`, errPath: "/count", errLabel: "count",
	},
	{
		name:   "number with exclusive bounds keeps the digits typed",
		schema: `{"type":"object","properties":{"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}}}`,
		init:   `{}`,
		input:  func(t *testing.T, m *Model) { typeText(m, "0.50") },
		want:   `{"ratio":0.50}`, errPath: "/ratio", errLabel: "ratio",
	},
	{
		name:   "booleans, required and optional",
		schema: `{"type":"object","properties":{"flag":{"type":"boolean"},"dry":{"type":"boolean"}},"required":["flag"]}`,
		init:   `{"flag":false}`,
		input: func(t *testing.T, m *Model) {
			press(m, "space", "tab", "space", "space")
		},
		want: `{"flag":true,"dry":false}`, errPath: "/dry", errLabel: "dry",
	},
	{
		name:   "enum of strings and of numbers",
		schema: `{"type":"object","properties":{"color":{"enum":["red","green","blue"]},"size":{"type":"integer","enum":[1,2,3]}}}`,
		init:   `{}`,
		input: func(t *testing.T, m *Model) {
			press(m, "enter", "down", "down", "enter") // (none) → red → green
			press(m, "tab", "right", "right")
		},
		want: `{"color":"green","size":2}`, errPath: "/size", errLabel: "size",
	},
	{
		name:   "const",
		schema: `{"type":"object","properties":{"version":{"const":"v1"},"x":{"type":"string"}}}`,
		init:   `{"version":"v1"}`,
		input: func(t *testing.T, m *Model) {
			press(m, "tab")
			typeText(m, "y")
		},
		want: `{"version":"v1","x":"y"}`, errPath: "/version", errLabel: "version",
	},
	{
		name: "nullable types",
		schema: `{"type":"object","properties":{"note":{"type":["string","null"]},
			"when":{"anyOf":[{"type":"string","format":"date-time"},{"type":"null"}],"default":null},
			"gone":{"type":["integer","null"]}}}`,
		init: `{"when":null}`,
		input: func(t *testing.T, m *Model) {
			press(m, "ctrl+t") // note: null
			typeText(m, "hi")  // typing gives it a value again
			press(m, "tab", "tab", "ctrl+t")
		},
		want: `{"note":"hi","when":null,"gone":null}`, errPath: "/when", errLabel: "when",
	},
	{
		name:   "required anyOf with null starts null",
		schema: `{"type":"object","properties":{"limit":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"required":["limit"]}`,
		init:   `{"limit":null}`,
		input:  func(t *testing.T, m *Model) { typeText(m, "5") },
		want:   `{"limit":5}`, errPath: "/limit", errLabel: "limit",
	},
	{
		name:   "array of strings: add, reorder, remove",
		schema: `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`,
		init:   `{}`,
		input: func(t *testing.T, m *Model) {
			press(m, "ctrl+n")
			typeText(m, "a")
			press(m, "ctrl+n")
			typeText(m, "b")
			press(m, "ctrl+n")
			typeText(m, "c")
			press(m, "alt+up") // [a c b]
			focusLabel(t, m, "[0]")
			press(m, "ctrl+d") // [c b]
		},
		want: `{"tags":["c","b"]}`, errPath: "/tags/1", errLabel: "[1]",
	},
	{
		name:   "array of enums is a multi-select",
		schema: `{"type":"object","properties":{"modes":{"type":"array","items":{"enum":["read","write","exec"]},"uniqueItems":true}}}`,
		init:   `{}`,
		input: func(t *testing.T, m *Model) {
			press(m, "enter", "space", "down", "down", "space", "enter")
		},
		want: `{"modes":["read","exec"]}`, errPath: "/modes", errLabel: "modes",
	},
	{
		name: "array of objects",
		schema: `{"type":"object","properties":{"people":{"type":"array","items":{"type":"object",
			"properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]}}}}`,
		init: `{}`,
		input: func(t *testing.T, m *Model) {
			press(m, "ctrl+n") // the focus goes to the new item's first field
			typeText(m, "Ann")
			press(m, "tab")
			typeText(m, "30")
		},
		want: `{"people":[{"name":"Ann","age":30}]}`, errPath: "/people/0/age", errLabel: "age",
	},
	{
		name: "objects nested four levels",
		schema: `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object",
			"properties":{"c":{"type":"object","properties":{"d":{"type":"string"}}}}}}}}}`,
		init: `{}`,
		input: func(t *testing.T, m *Model) {
			press(m, "tab", "tab", "tab")
			typeText(m, "deep")
		},
		want: `{"a":{"b":{"c":{"d":"deep"}}}}`, errPath: "/a/b/c/d", errLabel: "d",
	},
	{
		name: "additionalProperties maps",
		schema: `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}},
			"ports":{"type":"object","additionalProperties":{"type":"object","properties":{"port":{"type":"integer"}}}}}}`,
		init: `{}`,
		input: func(t *testing.T, m *Model) {
			press(m, "ctrl+n")
			typeText(m, "env")
			press(m, "tab")
			typeText(m, "prod")
			press(m, "ctrl+n")
			typeText(m, "tier")
			press(m, "tab")
			typeText(m, "gold")
			focusLabel(t, m, "ports")
			press(m, "ctrl+n")
			typeText(m, "web")
			press(m, "tab", "tab")
			typeText(m, "80")
		},
		want: `{"labels":{"env":"prod","tier":"gold"},"ports":{"web":{"port":80}}}`, errPath: "/labels/tier", errLabel: "value",
	},
	{
		name: "oneOf at the root",
		schema: `{"oneOf":[{"title":"By id","type":"object","properties":{"id":{"type":"integer"}},"required":["id"]},
			{"title":"By name","type":"object","properties":{"name":{"type":"string"}},"required":["name"]}]}`,
		init: `{}`,
		input: func(t *testing.T, m *Model) {
			press(m, "right", "tab")
			typeText(m, "bob")
		},
		want: `{"name":"bob"}`, errPath: "/name", errLabel: "name",
	},
	{
		name: "oneOf with a discriminator through $defs",
		schema: `{"type":"object","properties":{"shape":{"oneOf":[{"$ref":"#/$defs/circle"},{"$ref":"#/$defs/square"}]}},
			"required":["shape"],"$defs":{
			"circle":{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},
			"square":{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}}}`,
		init: `{"shape":{"kind":"circle"}}`,
		input: func(t *testing.T, m *Model) {
			press(m, "right", "tab", "tab")
			typeText(m, "2")
		},
		want: `{"shape":{"kind":"square","side":2}}`, errPath: "/shape/side", errLabel: "side",
	},
	{
		name:   "anyOf of scalar types",
		schema: `{"type":"object","properties":{"id":{"type":["integer","string"]},"v":{"anyOf":[{"type":"boolean"},{"type":"string"}]}},"required":["id"]}`,
		init:   `{}`,
		input: func(t *testing.T, m *Model) {
			press(m, "tab")
			typeText(m, "12")
		},
		want: `{"id":12}`, errPath: "/id", errLabel: "id",
	},
	{
		name: "allOf merged",
		schema: `{"allOf":[{"$ref":"#/$defs/base"},{"properties":{"extra":{"type":"boolean"}}}],
			"$defs":{"base":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`,
		init: `{}`,
		input: func(t *testing.T, m *Model) {
			typeText(m, "x")
			press(m, "tab", "space")
		},
		want: `{"name":"x","extra":true}`, errPath: "/extra", errLabel: "extra",
	},
	{
		name: "draft 07 definitions",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"pt":{"type":"object",
			"properties":{"x":{"type":"number"},"y":{"type":"number"}}}},
			"properties":{"from":{"$ref":"#/definitions/pt"},"to":{"$ref":"#/definitions/pt"}}}`,
		init: `{}`,
		input: func(t *testing.T, m *Model) {
			press(m, "tab")
			typeText(m, "1")
		},
		want: `{"from":{"x":1}}`, errPath: "/to/y", errLabel: "y",
	},
	{
		name: "defaults filled in",
		schema: `{"type":"object","properties":{"host":{"type":"string","default":"localhost"},
			"port":{"type":"integer","default":8080},"tls":{"type":"boolean","default":true},
			"mode":{"enum":["fast","safe"],"default":"fast"},"tags":{"type":"array","items":{"type":"string"},"default":["a"]},
			"opts":{"type":"object","properties":{"retries":{"type":"integer","default":2}}}}}`,
		init: `{"host":"localhost","port":8080,"tls":true,"mode":"fast","tags":["a"]}`,
		input: func(t *testing.T, m *Model) {
			focusLabel(t, m, "retries")
			press(m, "backspace")
			typeText(m, "5")
		},
		want:    `{"host":"localhost","port":8080,"tls":true,"mode":"fast","tags":["a"],"opts":{"retries":5}}`,
		errPath: "/opts/retries", errLabel: "retries",
	},
	{
		name: "optional fields left empty are omitted",
		schema: `{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"b":{"type":"boolean"},
			"e":{"enum":["x"]},"a":{"type":"array","items":{"type":"string"}},"o":{"type":"object","properties":{"q":{"type":"string"},"r":{"type":"boolean"}},"required":["r"]},
			"m":{"type":"object","additionalProperties":{"type":"integer"}},"u":{"oneOf":[{"type":"string"},{"type":"integer"}]},"any":{}}}`,
		init: `{}`,
		input: func(t *testing.T, m *Model) {
			typeText(m, "abc")
			press(m, "backspace", "backspace", "backspace")
		},
		want: `{}`, errPath: "/o/q", errLabel: "q",
	},
}

func TestFormConstructs(t *testing.T) {
	for _, tc := range formCases {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestForm(t, tc.schema, 80, 24)
			if got := mustValue(t, m); got != tc.init {
				t.Errorf("initial value = %s, want %s", got, tc.init)
			}
			tc.input(t, m)
			got := mustValue(t, m)
			if got != tc.want {
				t.Fatalf("after typing: %s\nwant %s\nview:\n%s", got, tc.want, plain(m.View()))
			}

			// form → JSON → form → JSON, in a new form and in the same one.
			m2 := newTestForm(t, tc.schema, 80, 24)
			if err := m2.SetValue([]byte(got)); err != nil {
				t.Fatalf("SetValue(%s): %v", got, err)
			}
			if again := mustValue(t, m2); again != got {
				t.Errorf("round trip through a new form: %s, want %s", again, got)
			}
			if err := m.SetValue([]byte(got)); err != nil {
				t.Fatalf("SetValue on the same form: %v", err)
			}
			if again := mustValue(t, m); again != got {
				t.Errorf("round trip through the same form: %s, want %s", again, got)
			}

			// The validator's message shows on the field it concerns.
			m2.SetErrors([]tooling.FieldError{{Path: tc.errPath, Message: "boom from the validator"}})
			block := focusedBlock(m2)
			if len(block) == 0 {
				t.Fatalf("no focused row after SetErrors:\n%s", plain(m2.View()))
			}
			if !strings.Contains(block[0], tc.errLabel) {
				t.Errorf("focused row %q, want the row of %q", block[0], tc.errLabel)
			}
			if !strings.Contains(strings.Join(block, "\n"), "✗ boom from the validator") {
				t.Errorf("the message is not under the field:\n%s", strings.Join(block, "\n"))
			}
			if len(m2.top) != 0 {
				t.Errorf("message shown at the top too: %q", m2.top)
			}
		})
	}
}

func TestTitledConstsAreAnEnum(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"level":{"oneOf":[{"const":1,"title":"Low"},{"const":2,"title":"High"}]}}}`, 80, 24)
	if _, ok := m.rows[0].(*enumField); !ok {
		t.Fatalf("row is %T, want an enum", m.rows[0])
	}
	press(m, "enter", "down", "down", "enter")
	if v := mustValue(t, m); v != `{"level":2}` {
		t.Errorf("value %s", v)
	}
	if v := plain(m.View()); !strings.Contains(v, "High (2)") {
		t.Errorf("the title is not shown:\n%s", v)
	}
}
