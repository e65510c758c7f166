package form_test

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tui/form"
)

func Example() {
	schema := []byte(`{"type":"object","properties":{
		"city":{"type":"string","description":"Where."},
		"days":{"type":"integer","minimum":1,"default":3},
		"units":{"enum":["metric","imperial"]}},"required":["city"]}`)
	m, err := form.New(schema, form.Options{Width: 60, Height: 12, Styles: form.PlainStyles()})
	if err != nil {
		panic(err)
	}
	for _, r := range "Oslo" {
		m, _ = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	v, _ := m.Value()
	fmt.Println(string(v)) // units is optional and empty: omitted

	// A validator's message goes on the field it names.
	m.SetErrors([]tooling.FieldError{{Path: "/days", Message: "must be <= 2"}})

	// Submitting emits a SubmitMsg with the same arguments.
	_, cmd := m.Update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
	fmt.Println(m.Submitted(), string(cmd().(form.SubmitMsg).Args))
	// Output:
	// {"city":"Oslo","days":3}
	// true {"city":"Oslo","days":3}
}

func ExampleModel_SetValue() {
	m, _ := form.New([]byte(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},
		"note":{"type":["string","null"]}}}`), form.Options{Styles: form.PlainStyles()})
	if err := m.SetValue([]byte(`{"tags":["b","a"],"note":null}`)); err != nil {
		panic(err)
	}
	v, _ := m.Value()
	fmt.Println(string(v))
	// Output: {"tags":["b","a"],"note":null}
}
