package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/jsonschema"
)

// quickSchemas are schemas with a quick check, each a different mix of keywords, and some
// without one; the tests check quick against the general validator on all of them.
var quickSchemas = []string{
	string(benchSchema),
	`{"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":-3,"exclusiveMaximum":7,"multipleOf":2}}}`,
	`{"type":"object","properties":{"x":{"type":"number","minimum":0,"maximum":10}},"additionalProperties":{"type":"string","maxLength":3}}`,
	`{"type":"object","properties":{"a":{"type":["string","null"],"enum":["x","y",null]}}}`,
	`{"type":"object","properties":{"a":{"enum":["x","y"]},"b":{"type":"boolean"},"c":{"type":"array","minItems":1,"items":{"type":"integer"}}},"minProperties":1,"maxProperties":2}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"format":"email"},"u":{"type":"array","uniqueItems":true}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"l":{"type":"array","items":{"type":"string","pattern":"^a"}}}}`,
	`{"type":"object","properties":{"i":{"type":"integer"},"t":true,"f":false}}`,
	`{"type":"object","properties":{"m":{"type":"number","minimum":0.5}}}`,
	`{"type":"object","properties":{"r":{"$ref":"#/$defs/r"}},"$defs":{"r":{"type":"string"}}}`,
	`{"type":"object","properties":{"c":{"const":"k"}}}`,
	`{"type":"object","properties":{"s":{"$ref":"#/$defs/s","maxLength":3},"n":{"$ref":"#/$defs/n"}},"$defs":{"s":{"type":"string","minLength":2},"n":{"$ref":"#/$defs/i"},"i":{"type":"integer","minimum":0}}}`,
	`{"type":"object","properties":{"t":{"$ref":"#/$defs/t"}},"$defs":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}}}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"s":{"$ref":"#/definitions/s","maxLength":3}},"definitions":{"s":{"type":"string"}}}`,
}

// quickValues are arguments that probe each keyword's edges.
var quickValues = []string{
	`{}`, `{"query":"x"}`, `{"query":""}`, `{"query":"é"}`, string(benchArgs),
	`{"query":"x","limit":1}`, `{"query":"x","limit":0}`, `{"query":"x","limit":100}`, `{"query":"x","limit":101}`,
	`{"query":"x","limit":1.0}`, `{"query":"x","limit":1e1}`, `{"query":"x","limit":-0}`, `{"query":"x","limit":99999999999999999999}`,
	`{"query":"x","limit":"5"}`, `{"query":"x","sort":"date"}`, `{"query":"x","sort":"Date"}`, `{"query":"x","sort":1}`,
	`{"query":"x","filter":{"since":"2026-02-30"}}`, `{"query":"x","filter":{"since":"2026-02-28"}}`, `{"query":"x","filter":{"author":"Ada"}}`,
	`{"query":"x","filter":{"other":1}}`, `{"query":"x","tags":["go","go"]}`, `{"query":"x","tags":["go","rust","docs","api"]}`,
	`{"query":"x","tags":["go","rust","docs","api","go"]}`, `{"query":"x","tags":["c"]}`, `{"query":"x","extra":true}`,
	`{"n":-3}`, `{"n":-4}`, `{"n":-2}`, `{"n":6}`, `{"n":7}`, `{"n":8}`, `{"n":3}`, `{"n":4.0}`, `{"x":0}`, `{"x":10.5}`, `{"x":-1}`, `{"x":1e-3}`,
	`{"x":1,"y":"abc"}`, `{"x":1,"y":"abcd"}`, `{"x":1,"y":1}`, `{"a":null}`, `{"a":"x"}`, `{"a":"z"}`, `{"a":1}`,
	`{"b":true,"c":[1]}`, `{"b":true,"c":[]}`, `{"b":true,"c":[1.5]}`, `{"a":"x","b":true,"c":[1]}`, `{"a":"y"}`,
	`{"s":"a@b.example"}`, `{"s":"not an email"}`, `{"u":[1,1.0]}`, `{"u":["a","b"]}`, `{"u":["a","a"]}`, `{"u":[{"a":1},{"a":1}]}`,
	`{"l":["ab","ac"]}`, `{"l":["b"]}`, `{"l":[1]}`, `{"i":1,"t":{"any":[1]}}`, `{"f":1}`, `{"m":0.5}`, `{"m":0}`, `{"m":1}`,
	`{"r":"s"}`, `{"r":1}`, `{"c":"k"}`, `{"c":"j"}`, `[]`, `"s"`, `null`, `3`,
	`{"s":"ab"}`, `{"s":"a"}`, `{"s":"abcd"}`, `{"s":3}`, `{"n":0}`, `{"n":-1}`, `{"n":1.5}`, `{"n":"1"}`, `{"s":"abc","n":7}`,
	`{"t":{}}`, `{"t":{"kids":[{},{"kids":[]}]}}`, `{"t":{"kids":[1]}}`,
}

// checkQuick fails when quick accepts a value the general validator refuses.
func checkQuick(t *testing.T, schemaText, valueText string, s *Schema) {
	t.Helper()
	if s.quick == nil {
		return
	}
	v, err := Decode([]byte(valueText))
	if err != nil {
		return
	}
	if s.quick.valid(v) {
		if err := mustGraph(t, s).Validate(v); err != nil {
			t.Errorf("quick accepts %s under %s, the validator does not: %v", valueText, schemaText, err)
		}
	}
}

func compileTestSchema(t testing.TB, text string) *Schema {
	t.Helper()
	s, err := Compile("test.quick", "input", json.RawMessage(text), true)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return s
}

func TestQuickNeverAcceptsWhatTheValidatorRefuses(t *testing.T) {
	accepted := 0
	for _, st := range quickSchemas {
		s := compileTestSchema(t, st)
		for _, vt := range quickValues {
			checkQuick(t, st, vt, s)
			if v, err := Decode([]byte(vt)); err == nil && s.quick != nil && s.quick.valid(v) {
				accepted++
			}
		}
	}
	if accepted < 30 {
		t.Errorf("quick accepted only %d of the values: the fast path is hardly taken", accepted)
	}
}

func TestQuickCoverage(t *testing.T) {
	// Which schemas get a quick check at all.
	want := map[int]bool{0: true, 1: true, 2: true, 3: false, 4: true, 5: true, 6: true, 7: true, 8: false, 9: true, 10: false, 11: true, 12: false, 13: false}
	for i, st := range quickSchemas {
		if got := compileTestSchema(t, st).quick != nil; got != want[i] {
			t.Errorf("schema %d has a quick check: %v, want %v (%s)", i, got, want[i], st)
		}
	}
	// The arguments of the benchmark take the fast path.
	s := compileTestSchema(t, string(benchSchema))
	v, _ := Decode(benchArgs)
	if !s.quick.valid(v) {
		t.Error("the benchmark's arguments do not take the fast path")
	}
}

// FuzzQuick: for any JSON value, quick accepts only what the validator accepts.
func FuzzQuick(f *testing.F) {
	for _, v := range quickValues {
		f.Add([]byte(v))
	}
	var schemas []*Schema
	for _, st := range quickSchemas {
		schemas = append(schemas, compileTestSchema(f, st))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i, s := range schemas {
			checkQuick(t, quickSchemas[i], string(b), s)
		}
	})
}

// TestQuickSharedDefsCompiledOnce: a definition reached by many paths is compiled once, so that
// a chain of definitions each referring twice to the next compiles in linear time.
func TestQuickSharedDefsCompiledOnce(t *testing.T) {
	const levels = 40
	var defs []string
	defs = append(defs, `"d0":{"type":"string","maxLength":3}`)
	for i := 1; i <= levels; i++ {
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}}`, i, i-1, i-1))
	}
	text := fmt.Sprintf(`{"type":"object","properties":{"top":{"$ref":"#/$defs/d%d"}},"$defs":{%s}}`, levels, strings.Join(defs, ","))
	s := compileTestSchema(t, text) // compiles the quick check too: exponential, this would not return
	if s.quick == nil {
		t.Fatal("no quick check for a chain of shared definitions")
	}
	c := &quickCompiler{open: map[*jsonschema.Schema]bool{}, done: map[*jsonschema.Schema]*quick{}}
	c.compile(mustGraph(t, s))
	if n := len(c.done); n > 4*levels+10 {
		t.Errorf("%d schemas compiled for %d levels of definitions", n, levels)
	}
	v, _ := Decode([]byte(`{"top":{"a":{"a":{}},"b":{}}}`))
	if !s.quick.valid(v) || mustGraph(t, s).Validate(v) != nil {
		t.Errorf("quick %v, validator %v on a valid value", s.quick.valid(v), mustGraph(t, s).Validate(v))
	}
}

// mustGraph is s's compiled schema, compiled again for the test if need be.
func mustGraph(t *testing.T, s *Schema) *jsonschema.Schema {
	t.Helper()
	g, err := s.graph()
	if err != nil {
		t.Fatal(err)
	}
	return g
}
