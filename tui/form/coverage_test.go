package form

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCoverageNativeConstructs(t *testing.T) {
	schemas := map[string]string{
		"linked": linkedSchema, "echo": echoSchema, "deploy": deploySchema, "large": largeSchema(),
		"empty": `{}`, "true": `true`, "nothing": ``,
		"id anchors": `{"$id":"https://x.example/s","type":"object","properties":{"a":{"$ref":"https://x.example/s#/$defs/d"},"b":{"$ref":"#thing"}},
			"$defs":{"d":{"type":"string"},"t":{"$anchor":"thing","type":"integer"}}}`,
		"dependencies as lists": `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependencies":{"a":["b"]},"dependentRequired":{"b":["a"]}}`,
		"validation only keywords": `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"contains":{"const":"x"}}},
			"propertyNames":{"pattern":"^[a-z]+$"},"unevaluatedProperties":false,"minProperties":1}`,
		"if/then/else":          `{"type":"object","properties":{"a":{"type":"string"}},"if":{"required":["a"]},"then":{"required":["b"]},"else":{}}`,
		"sets of required keys": `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`,
	}
	for _, tc := range formCases {
		schemas[tc.name] = tc.schema
	}
	for name, s := range schemas {
		if got := Coverage([]byte(s)); len(got) != 0 {
			t.Errorf("%s: Coverage = %q, want none", name, got)
		}
	}
}

func TestCoverageUnsupported(t *testing.T) {
	cases := []struct {
		name, schema string
		want         []string
	}{
		{"patternProperties", `{"type":"object","properties":{"m":{"type":"object","patternProperties":{"^x":{"type":"string"}}}}}`,
			[]string{"/properties/m/patternProperties"}},
		{"not", `{"type":"object","properties":{"n":{"not":{"type":"null"}}}}`, []string{"/properties/n/not"}},
		{"dependentSchemas", `{"type":"object","properties":{"a":{"type":"string"}},"dependentSchemas":{"a":{"required":["b"]}}}`,
			[]string{"/dependentSchemas"}},
		{"dependencies with a schema", `{"type":"object","dependencies":{"a":{"required":["b"]}}}`, []string{"/dependencies"}},
		{"tuples", `{"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"}]},"u":{"type":"array","items":[{"type":"string"}]}}}`,
			[]string{"/properties/t/prefixItems", "/properties/u/items"}},
		{"a $ref to another document", `{"type":"object","properties":{"r":{"$ref":"other.json#/x"}}}`, []string{"/properties/r/$ref"}},
		{"$dynamicRef", `{"type":"object","properties":{"d":{"$dynamicRef":"#node"}}}`, []string{"/properties/d/$dynamicRef"}},
		{"once per definition", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"b":{"$ref":"#/$defs/x"}},"$defs":{"x":{"not":{}}}}`,
			[]string{"/$defs/x/not"}},
		{"inside allOf", `{"allOf":[{"properties":{"a":{"type":"string"}}},{"not":{}}]}`, []string{"/allOf/1/not"}},
		{"inside a union and an array", `{"type":"object","properties":{"u":{"oneOf":[{"type":"string"},{"type":"object","patternProperties":{}}]},
			"l":{"type":"array","items":{"not":{}}}}}`, []string{"/properties/l/items/not", "/properties/u/oneOf/1/patternProperties"}},
		{"not JSON", `{"type":`, []string{""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Coverage([]byte(tc.schema)); !slices.Equal(got, tc.want) {
				t.Errorf("Coverage = %q, want %q", got, tc.want)
			}
		})
	}
}

// A location Coverage reports is a JSON box in the form: its value is typed
// as JSON and still round-trips.
func TestUnsupportedFallsBackToJSON(t *testing.T) {
	s := `{"type":"object","properties":{"m":{"type":"object","patternProperties":{"^x":{"type":"string"}}},"a":{"type":"string"}}}`
	m := newTestForm(t, s, 80, 24)
	if _, ok := m.rows[0].(*jsonField); !ok {
		t.Fatalf("row 0 is %T, want a JSON box", m.rows[0])
	}
	typeText(m, `{"xa": "b"}`)
	if v := mustValue(t, m); v != `{"m":{"xa":"b"}}` {
		t.Errorf("value %s", v)
	}
	m2 := newTestForm(t, s, 80, 24)
	if err := m2.SetValue([]byte(`{"m":{"xa":"b"},"a":"c"}`)); err != nil {
		t.Fatal(err)
	}
	if v := mustValue(t, m2); v != `{"m":{"xa":"b"},"a":"c"}` {
		t.Errorf("round trip %s", v)
	}
	m.rows[0].(*jsonField).in.SetValue(`{"xa": `)
	if _, err := m.Value(); err == nil || !strings.HasPrefix(err.Error(), "/m: not valid JSON") {
		t.Errorf("bad JSON in the box: %v", err)
	}
}

func ExampleCoverage() {
	fmt.Println(Coverage([]byte(`{"type":"object","properties":{
		"when":{"type":"string","format":"date"},
		"filter":{"type":"object","patternProperties":{"^x-":{"type":"string"}}}}}`)))
	// Output: [/properties/filter/patternProperties]
}
