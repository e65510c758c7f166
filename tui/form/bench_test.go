package form

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// schema30 has 30 properties of every kind the form renders, with
// descriptions, defaults, a $ref, a union and nesting.
func schema30() []byte {
	kinds := []string{
		`{"type":"string","description":"Free text.","minLength":1}`,
		`{"type":"integer","minimum":0,"maximum":100,"default":10}`,
		`{"type":"number","exclusiveMinimum":0}`,
		`{"type":"boolean","default":false}`,
		`{"enum":["a","b","c"],"description":"A choice."}`,
		`{"type":"array","items":{"type":"string"}}`,
		`{"type":"array","items":{"enum":["x","y","z"]}}`,
		`{"type":["string","null"],"default":null}`,
		`{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"},"inner":{"type":"object","properties":{"z":{"type":"integer"}}}}}`,
		`{"type":"object","additionalProperties":{"type":"string"}}`,
		`{"oneOf":[{"$ref":"#/$defs/circle"},{"type":"object","properties":{"kind":{"const":"sq"},"side":{"type":"number"}}}]}`,
		`{"$ref":"#/$defs/circle"}`,
		`{"type":"string","format":"date-time"}`,
		`{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"integer"}}}}`,
		`{"anyOf":[{"type":"integer"},{"type":"null"}]}`,
	}
	var props, req []string
	for i := range 30 {
		props = append(props, fmt.Sprintf(`"prop_%02d":%s`, i, kinds[i%len(kinds)]))
		if i%4 == 0 {
			req = append(req, fmt.Sprintf(`"prop_%02d"`, i))
		}
	}
	return []byte(`{"type":"object","$defs":{"circle":{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind"]}},
		"properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`)
}

// BenchmarkNew30Props is the time to build the form of a 30-property schema
// (issue target: well under 5 ms).
func BenchmarkNew30Props(b *testing.B) {
	s := schema30()
	opts := Options{Width: 120, Height: 40, Styles: PlainStyles()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(s, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNew30PropsView adds the first frame.
func BenchmarkNew30PropsView(b *testing.B) {
	s := schema30()
	opts := Options{Width: 120, Height: 40, Styles: DefaultStyles()}
	b.ReportAllocs()
	for b.Loop() {
		m, err := New(s, opts)
		if err != nil {
			b.Fatal(err)
		}
		_ = m.View()
	}
}

// BenchmarkKeystroke is one character typed into a field of that form.
func BenchmarkKeystroke(b *testing.B) {
	m, err := New(schema30(), Options{Width: 120, Height: 40, Styles: DefaultStyles()})
	if err != nil {
		b.Fatal(err)
	}
	k := keyMsg("a")
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		m.Update(k)
		_ = m.View()
	}
	reportCPU(b, start)
}

func TestSchema30Builds(t *testing.T) {
	m := newTestForm(t, string(schema30()), 120, 40)
	if len(m.rows) < 30 {
		t.Fatalf("%d rows", len(m.rows))
	}
	if c := Coverage(schema30()); len(c) != 0 {
		t.Errorf("Coverage %q", c)
	}
	v := mustValue(t, m)
	m2 := newTestForm(t, string(schema30()), 120, 40)
	if err := m2.SetValue([]byte(v)); err != nil {
		t.Fatal(err)
	}
	if got := mustValue(t, m2); got != v {
		t.Errorf("round trip %s, want %s", got, v)
	}
}

// BenchmarkKeystrokeChecked is BenchmarkKeystroke with the registry's
// validator as Options.Check: each key checks the whole value through it.
func BenchmarkKeystrokeChecked(b *testing.B) {
	s := schema30()
	check := registryCheck(string(s))
	if check == nil {
		b.Fatal("the registry refuses the schema")
	}
	m, err := New(s, Options{Width: 120, Height: 40, Styles: DefaultStyles(), Check: check})
	if err != nil {
		b.Fatal(err)
	}
	k := keyMsg("a")
	b.ReportAllocs()
	for b.Loop() {
		m.Update(k)
		_ = m.View()
	}
}

// BenchmarkEditorKeystroke is one character typed into the text editor
// of a string field holding 100 KB of text (2,000 lines of 50 bytes),
// with the registry's validator checking each key.
func BenchmarkEditorKeystroke(b *testing.B) {
	m, err := New(json.RawMessage(notesSchema), Options{Width: 120, Height: 40, Styles: DefaultStyles(), Check: registryCheck(notesSchema)})
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("x", 49) + "\n"
	if err := m.SetValue([]byte(`{"key":"k","body":` + strconv.Quote(strings.Repeat(line, 2000)) + `}`)); err != nil {
		b.Fatal(err)
	}
	focusLabel(b, m, "body")
	press(m, "enter")
	if !m.Capturing() {
		b.Fatal("enter opened no editor")
	}
	k := keyMsg("a")
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		m.Update(k)
		_ = m.View()
	}
	reportCPU(b, start)
}

// BenchmarkRawKeystroke is one character typed into the raw JSON of
// arguments 100 KB long (a string of 2,000 lines, indented).
func BenchmarkRawKeystroke(b *testing.B) {
	m, err := New(json.RawMessage(notesSchema), Options{Width: 120, Height: 40, Styles: DefaultStyles(), Check: registryCheck(notesSchema)})
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("x", 49) + "\n"
	if err := m.SetValue([]byte(`{"key":"k","body":` + strconv.Quote(strings.Repeat(line, 2000)) + `}`)); err != nil {
		b.Fatal(err)
	}
	if err := m.ToggleRaw(); err != nil {
		b.Fatal(err)
	}
	k := keyMsg("a")
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		m.Update(k)
		_ = m.View()
	}
	reportCPU(b, start)
}
