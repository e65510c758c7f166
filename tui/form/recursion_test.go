package form

import (
	"strings"
	"testing"
)

const linkedSchema = `{"$defs":{"node":{"type":"object","title":"Node","properties":{
	"name":{"type":"string"},
	"next":{"$ref":"#/$defs/node"},
	"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},
	"$ref":"#/$defs/node"}`

func TestRecursiveSchemaExpandsLazily(t *testing.T) {
	m := newTestForm(t, linkedSchema, 80, 24)
	if got := mustValue(t, m); got != `{}` {
		t.Fatalf("initial value %s", got)
	}
	// Expand next three times: each level builds one more.
	for level := 1; level <= 3; level++ {
		var next field
		for _, f := range m.rows {
			if f.base().label == "next" && f.base().depth == level-1 {
				next = f
			}
		}
		if next == nil {
			t.Fatalf("level %d: no collapsed next row:\n%s", level, plain(m.View()))
		}
		if o := next.(*objectField); o.built || o.open {
			t.Fatalf("level %d: a recursive object is built before it is expanded", level)
		}
		m.focusField(next)
		press(m, "enter")
		if !next.(*objectField).open {
			t.Fatalf("level %d: enter did not expand next", level)
		}
	}
	press(m, "tab") // the name of level 3
	typeText(m, "deep")
	want := `{"next":{"next":{"next":{"name":"deep"}}}}`
	if got := mustValue(t, m); got != want {
		t.Fatalf("value %s, want %s\n%s", got, want, plain(m.View()))
	}
	// And back: loading a deep value builds as deep as the data goes.
	deeper := `{"name":"a","next":{"next":{"next":{"next":{"name":"e"}}}},"children":[{"name":"c","children":[{"name":"d"}]}]}`
	if err := m.SetValue([]byte(deeper)); err != nil {
		t.Fatal(err)
	}
	if got := mustValue(t, m); got != deeper {
		t.Fatalf("round trip %s, want %s", got, deeper)
	}
	if v := plain(m.View()); !strings.Contains(v, "▸ next") {
		t.Errorf("the innermost next is not collapsed:\n%s", v)
	}
}

func TestRecursiveSchemasBuild(t *testing.T) {
	schemas := map[string]string{
		"ref to the root":   `{"type":"object","properties":{"self":{"$ref":"#"},"n":{"type":"integer"}},"required":["self"]}`,
		"expression union":  `{"$defs":{"expr":{"oneOf":[{"$ref":"#/$defs/bin"},{"type":"number"}]},"bin":{"type":"object","properties":{"op":{"enum":["+","-"]},"l":{"$ref":"#/$defs/expr"},"r":{"$ref":"#/$defs/expr"}},"required":["op","l","r"]}},"type":"object","properties":{"e":{"$ref":"#/$defs/expr"}},"required":["e"]}`,
		"nullable self":     `{"$defs":{"n":{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#/$defs/n"},{"type":"null"}]}},"required":["next"]}},"$ref":"#/$defs/n"}`,
		"ref cycle":         `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"}}}`,
		"allOf self":        `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}],"type":"object","properties":{"v":{"type":"string"}}}},"$ref":"#/$defs/a"}`,
		"map of self":       `{"$defs":{"t":{"type":"object","additionalProperties":{"$ref":"#/$defs/t"}}},"$ref":"#/$defs/t"}`,
		"required self ref": `{"$defs":{"t":{"type":"object","properties":{"me":{"$ref":"#/$defs/t"}},"required":["me"]}},"$ref":"#/$defs/t"}`,
	}
	for name, s := range schemas {
		t.Run(name, func(t *testing.T) {
			m := newTestForm(t, s, 80, 24)
			v := mustValue(t, m)
			_ = m.View()
			m2 := newTestForm(t, s, 80, 24)
			if err := m2.SetValue([]byte(v)); err != nil {
				t.Fatalf("SetValue(%s): %v", v, err)
			}
			if got := mustValue(t, m2); got != v {
				t.Errorf("round trip %s, want %s", got, v)
			}
			if c := Coverage([]byte(s)); len(c) != 0 {
				t.Errorf("Coverage = %q, want none", c)
			}
		})
	}
}
