package form

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestChecksAsYouType: the hints under a field as it is typed are the
// registry's messages (Options.Check), not a second validator's: what the
// form accepts is what the call accepts.
func TestChecksAsYouType(t *testing.T) {
	cases := []struct {
		schema, input, want string
	}{
		{`{"type":"string","minLength":3}`, "ab", "must be at least 3 characters long, got 2"},
		{`{"type":"string","maxLength":3}`, "abcd", "must be at most 3 characters long, got 4"},
		{`{"type":"string","pattern":"^[0-9]+$"}`, "12a", "must match the pattern ^[0-9]+$"},
		{`{"type":"string","format":"date"}`, "2024-13-01", "must be a valid date, like 2026-01-31"},
		{`{"type":"string","format":"date-time"}`, "2026-01-31 15:04:05Z", "must be a valid date-time, like 2026-01-31T15:04:05Z"},
		{`{"type":"string","format":"email"}`, "nobody", "must be a valid email"},
		{`{"type":"string","format":"uuid"}`, "1234", "must be a valid uuid"},
		{`{"type":"string","format":"ipv4"}`, "300.1.1.1", "must be a valid ipv4"},
		{`{"type":"integer","maximum":10}`, "11", "must be at most 10, got 11"},
		{`{"type":"integer","minimum":1}`, "0", "must be at least 1, got 0"},
		{`{"type":"number","exclusiveMinimum":0}`, "0", "must be greater than 0, got 0"},
		{`{"type":"number","exclusiveMaximum":1}`, "1", "must be less than 1, got 1"},
		{`{"type":"number","multipleOf":0.1}`, "0.35", "must be a multiple of 0.1"},
		{`{"type":"integer"}`, "1.5", "not an integer"},
		{`{"type":"number"}`, "abc", "not a number"},
	}
	for _, tc := range cases {
		t.Run(tc.input+" "+tc.want, func(t *testing.T) {
			m := newTestForm(t, `{"type":"object","properties":{"f":`+tc.schema+`}}`, 80, 24)
			typeText(m, tc.input)
			block := strings.Join(focusedBlock(m), "\n")
			if !strings.Contains(block, "! "+tc.want) {
				t.Errorf("want the check %q under the field:\n%s", tc.want, block)
			}
		})
	}
	// And nothing while the input is fine.
	m := newTestForm(t, `{"type":"object","properties":{"f":{"type":"number","multipleOf":0.1,"minimum":0}}}`, 80, 24)
	typeText(m, "0.3")
	if block := strings.Join(focusedBlock(m), "\n"); strings.Contains(block, "!") {
		t.Errorf("a check on valid input:\n%s", block)
	}
}

// The form checks a pattern RE2 rejects (zod's e-mail pattern) as the
// registry does, as ECMAScript.
func TestChecksECMAScriptPattern(t *testing.T) {
	const email = `^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$`
	schema := `{"type":"object","properties":{"f":{"type":"string","pattern":"` + email + `"}}}`
	for input, bad := range map[string]bool{"na..me@example.com": true, ".name@example.com": true, "name@example.com": false} {
		m := newTestForm(t, schema, 100, 24)
		typeText(m, input)
		block := strings.Join(focusedBlock(m), "\n")
		if got := strings.Contains(block, "! must match the pattern ^(?!"); got != bad {
			t.Errorf("%s: pattern check shown %v, want %v:\n%s", input, got, bad, block)
		}
	}
}

// TestNoValidatorOfItsOwn: without Options.Check the form says nothing of
// the schema's keywords; it only says what keeps it from building a value.
func TestNoValidatorOfItsOwn(t *testing.T) {
	schema := `{"type":"object","properties":{"s":{"type":"string","minLength":3,"format":"date-time"},"n":{"type":"integer","minimum":5},
		"a":{"type":"array","items":{"type":"string"},"minItems":2,"uniqueItems":true}}}`
	m, err := New([]byte(schema), Options{Width: 80, Height: 24, Styles: PlainStyles()})
	if err != nil {
		t.Fatal(err)
	}
	typeText(m, "ab")
	press(m, "tab")
	typeText(m, "1")
	press(m, "tab", "ctrl+n")
	typeText(m, "x")
	press(m, "ctrl+n")
	typeText(m, "x")
	if v := plain(m.View()); strings.Contains(v, "!") {
		t.Errorf("a check without a validator:\n%s", v)
	}
	press(m, "shift+tab", "shift+tab", "shift+tab")
	typeText(m, "x")
	if block := strings.Join(focusedBlock(m), "\n"); !strings.Contains(block, "! not an integer") {
		t.Errorf("want the parse problem of the number:\n%s", block)
	}
}

// TestChecksReachNestedFields: the registry's pointers name fields inside
// objects and array items; a required field not filled in yet is no hint
// while typing, and the hints follow the edits.
func TestChecksReachNestedFields(t *testing.T) {
	schema := `{"type":"object","properties":{
		"name":{"type":"string"},
		"when":{"type":"object","properties":{"at":{"type":"string","format":"date"}}},
		"tags":{"type":"array","items":{"type":"string","maxLength":2}}},"required":["name"]}`
	m := newTestForm(t, schema, 80, 30)
	press(m, "tab", "tab")
	typeText(m, "31.01.2026")
	if block := strings.Join(focusedBlock(m), "\n"); !strings.Contains(block, "at") || !strings.Contains(block, "! must be a valid date") {
		t.Errorf("want the date's problem under /when/at:\n%s", block)
	}
	press(m, "tab", "ctrl+n")
	typeText(m, "abc")
	if block := strings.Join(focusedBlock(m), "\n"); !strings.Contains(block, "[0]") || !strings.Contains(block, "! must be at most 2 characters long, got 3") {
		t.Errorf("want the item's problem under /tags/0:\n%s", block)
	}
	if v := plain(m.View()); strings.Contains(v, "required") {
		t.Errorf("a required field not filled in yet is flagged while typing:\n%s", v)
	}
	press(m, "backspace")
	if v := plain(m.View()); strings.Contains(v, "2 characters") {
		t.Errorf("the hint stays after the item was fixed:\n%s", v)
	}
}

// TestDuplicateItemsOnceAndCleared: after a call refused for a repeated
// item, the problem is shown once on the array and goes when the item is
// changed.
func TestDuplicateItemsOnceAndCleared(t *testing.T) {
	schema := `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}}}`
	m := newTestForm(t, schema, 80, 24)
	press(m, "ctrl+n")
	typeText(m, "a")
	press(m, "ctrl+n")
	typeText(m, "a")
	v, _ := m.Value()
	m.SetErrors(registryCheck(schema)(v))
	view := plain(m.View())
	if n := strings.Count(view, "must not repeat items"); n != 1 {
		t.Fatalf("the duplicate is reported %d times, want once:\n%s", n, view)
	}
	press(m, "down", "down", "backspace")
	typeText(m, "b")
	if view := plain(m.View()); strings.Contains(view, "repeat") {
		t.Errorf("the duplicate's error stays after the item changed:\n%s", view)
	}
}

func TestValueErrorNamesTheField(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"}}}`, 80, 24)
	press(m, "tab")
	typeText(m, "x")
	_, err := m.Value()
	if err == nil || err.Error() != "/count: not an integer" {
		t.Fatalf("Value error = %v, want /count: not an integer", err)
	}
	press(m, "shift+tab")
	_, cmd := m.Update(keyMsg("ctrl+s"))
	if cmd != nil || m.Submitted() {
		t.Fatal("a form that does not parse was submitted")
	}
	block := focusedBlock(m)
	if len(block) == 0 || !strings.Contains(block[0], "count") || !strings.Contains(strings.Join(block, "\n"), "✗ not an integer") {
		t.Errorf("the parse error is not on the focused count field:\n%s", plain(m.View()))
	}
	press(m, "backspace")
	typeText(m, "4")
	if v := mustValue(t, m); v != `{"count":4}` {
		t.Errorf("value %s", v)
	}
	if strings.Contains(plain(m.View()), "✗") {
		t.Errorf("the error stays after the field was fixed:\n%s", plain(m.View()))
	}
}

func TestSubmit(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}`, 80, 24)
	typeText(m, "x")
	_, cmd := m.Update(keyMsg("enter")) // not the last field: moves on
	if m.Submitted() || cmd == nil && m.focus != 1 {
		t.Fatalf("enter on the first field submitted or did not move (focus %d)", m.focus)
	}
	if m.focus != 1 {
		t.Fatalf("focus %d after enter, want 1", m.focus)
	}
	typeText(m, "y")
	_, cmd = m.Update(keyMsg("enter")) // the last field: submits
	if !m.Submitted() || cmd == nil {
		t.Fatal("enter on the last field did not submit")
	}
	msg, ok := cmd().(SubmitMsg)
	if !ok || string(msg.Args) != `{"a":"x","b":"y"}` {
		t.Fatalf("submit message %#v", msg)
	}
	m.Update(keyMsg("left"))
	if m.Submitted() {
		t.Error("Submitted stays true after the next key")
	}
	_, cmd = m.Update(keyMsg("ctrl+s"))
	if !m.Submitted() || cmd == nil {
		t.Error("ctrl+s did not submit")
	}
}

func TestRawMode(t *testing.T) {
	schema := `{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"}},"additionalProperties":false}`
	m := newTestForm(t, schema, 80, 24)
	typeText(m, "ann")
	press(m, "ctrl+r")
	if !m.Raw() {
		t.Fatal("ctrl+r did not open raw mode")
	}
	if v := plain(m.View()); !strings.Contains(v, `"name": "ann"`) {
		t.Fatalf("raw view:\n%s", v)
	}
	// Typing in raw mode edits the JSON.
	m.area.SetValue(`{"name": "bob", "n": 7}`)
	if v := mustValue(t, m); v != `{"name":"bob","n":7}` {
		t.Errorf("Value in raw mode %s", v)
	}
	press(m, "ctrl+r")
	if m.Raw() {
		t.Fatal("ctrl+r did not go back to the form")
	}
	if v := mustValue(t, m); v != `{"name":"bob","n":7}` {
		t.Errorf("value after raw %s", v)
	}

	// Bad JSON keeps raw mode and says why.
	press(m, "ctrl+r")
	m.area.SetValue(`{"name": `)
	if err := m.ToggleRaw(); err == nil || !m.Raw() {
		t.Fatalf("bad JSON: err %v, raw %v", err, m.Raw())
	}
	if v := plain(m.View()); !strings.Contains(v, "✗ not valid JSON") || strings.Count(v, "\n")+1 > 24 {
		t.Errorf("raw view does not say why, or is taller than 24 lines:\n%s", v)
	}
	// JSON the form has no place for too.
	m.area.SetValue(`{"name": "x", "extra": 1}`)
	if err := m.ToggleRaw(); err == nil || !strings.Contains(err.Error(), "/extra: is not an allowed property") {
		t.Fatalf("unknown property: %v", err)
	}
	m.area.SetValue(`{"n": 1}`)
	if err := m.ToggleRaw(); err != nil || m.Raw() {
		t.Fatalf("good JSON: %v", err)
	}
	if v := mustValue(t, m); v != `{"n":1}` {
		t.Errorf("value %s", v)
	}
	// A form that does not parse does not open raw mode.
	focusLabel(t, m, "n")
	typeText(m, "x")
	if err := m.ToggleRaw(); err == nil || m.Raw() {
		t.Errorf("raw mode opened over a parse error: %v", err)
	}
}

func TestLossless(t *testing.T) {
	schema := `{"type":"object","properties":{
		"text":{"type":"string"},"empty":{"type":"string"},"num":{"type":"number"},"big":{"type":"integer"},
		"list":{"type":"array","items":{"type":"integer"}},"obj":{"type":"object","properties":{"a":{"type":"string"}}},
		"map":{"type":"object","additionalProperties":{"type":"boolean"}},"any":{},"free":{"type":"object"},
		"nul":{"type":["number","null"]},"pick":{"enum":[1,"1",null,{"k":[1]}]},"multi":{"type":"array","items":{"enum":["a","b"]}}}}`
	values := []string{
		`{"text":"line one\nline two\ttab","empty":"","num":1.50,"big":123456789012345678901234567890}`,
		`{"list":[],"obj":{},"map":{}}`,
		`{"list":[3,1,2],"obj":{"a":"b"},"map":{"z":true,"a":false},"any":{"x":[1,"2",null]},"free":{"q":"r","n":1}}`,
		`{"any":"42","nul":null,"pick":"1","multi":["b","a","b"]}`,
		`{"any":42,"pick":{"k":[1]},"extra":{"kept":true}}`,
		`{"text":"  spaces  ","num":-0.0e+5,"pick":null}`,
	}
	for _, v := range values {
		m := newTestForm(t, schema, 80, 24)
		if err := m.SetValue([]byte(v)); err != nil {
			t.Fatalf("SetValue(%s): %v", v, err)
		}
		if got := mustValue(t, m); got != v {
			t.Errorf("form → JSON\n got %s\nwant %s", got, v)
		}
		press(m, "ctrl+r", "ctrl+r")
		if got := mustValue(t, m); got != v {
			t.Errorf("through raw mode\n got %s\nwant %s", got, v)
		}
	}
}

func TestSetValueErrors(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"integer"},"e":{"enum":["a"]},"o":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}}}`
	cases := map[string]string{
		`{"n":`:            "not valid JSON",
		`[1]`:              "(arguments): expected an object, got array",
		`{"n":"1"}`:        "/n: expected an integer, got string",
		`{"n":1.5}`:        "/n: expected an integer, got number",
		`{"e":"b"}`:        `/e: "b" is not one of the choices`,
		`{"o":{"y":1}}`:    "/o/y: is not an allowed property",
		`{"o":{"x":true}}`: "/o/x: expected a string, got boolean",
	}
	for in, want := range cases {
		m := newTestForm(t, schema, 80, 24)
		typeText(m, "5")
		err := m.SetValue([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SetValue(%s) = %v, want %q", in, err, want)
		}
		if v := mustValue(t, m); v != `{"n":5}` {
			t.Errorf("a failed SetValue changed the form: %s", v)
		}
	}
}

func TestErrorsWithNoFieldShowAtTheTop(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"a":{"type":"string"},"j":{"not":{"type":"null"}}}}`, 80, 24)
	m.SetErrors([]tooling.FieldError{
		{Path: "", Message: "needs a or b"},
		{Path: "/zzz", Message: "is not an allowed property"},
		{Path: "/j/deep/0", Message: "must be a string"},
	})
	v := plain(m.View())
	for _, want := range []string{"✗ (arguments): needs a or b", "✗ /zzz: is not an allowed property"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q at the top:\n%s", want, v)
		}
	}
	// An error inside a JSON box goes on the box, with the rest of the path.
	block := strings.Join(focusedBlock(m), "\n")
	if !strings.Contains(block, "✗ /deep/0: must be a string") {
		t.Errorf("error inside the JSON box:\n%s", block)
	}
	m.SetErrors(nil)
	if v := plain(m.View()); strings.Contains(v, "✗") {
		t.Errorf("SetErrors(nil) left messages:\n%s", v)
	}
}

func TestErrorOpensCollapsedObjects(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"o":{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"string"}}}}}}}`, 80, 24)
	press(m, "enter") // collapse o
	if len(m.rows) != 1 {
		t.Fatalf("collapsing o left %d rows", len(m.rows))
	}
	m.SetErrors([]tooling.FieldError{{Path: "/o/p/q", Message: "is required but missing"}})
	block := focusedBlock(m)
	if len(block) < 2 || !strings.Contains(block[0], "q") || !strings.Contains(block[len(block)-1], "✗ is required but missing") {
		t.Errorf("error on a collapsed field:\n%s", plain(m.View()))
	}
}

func TestCollapse(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string","default":"x"},"b":{"type":"string"}},"required":["a"]}},"required":["o"]}`, 80, 24)
	if len(m.rows) != 3 {
		t.Fatalf("rows %d, want 3", len(m.rows))
	}
	before := mustValue(t, m)
	press(m, "enter")
	if len(m.rows) != 1 || !strings.Contains(plain(m.View()), "▸ o") {
		t.Fatalf("enter did not collapse:\n%s", plain(m.View()))
	}
	if after := mustValue(t, m); after != before {
		t.Errorf("collapsing changed the value: %s → %s", before, after)
	}
	press(m, "right")
	if len(m.rows) != 3 {
		t.Errorf("right did not expand")
	}
	press(m, "left")
	if len(m.rows) != 1 {
		t.Errorf("left did not collapse")
	}
}

func TestLargeFormScrolls(t *testing.T) {
	var props []string
	for i := range 40 {
		props = append(props, fmt.Sprintf(`"field%02d":{"type":"string","description":"the field number %d"}`, i, i))
	}
	m := newTestForm(t, `{"type":"object","properties":{`+strings.Join(props, ",")+`}}`, 80, 24)
	v := plain(m.View())
	if n := strings.Count(v, "\n") + 1; n > 24 {
		t.Fatalf("view has %d lines at height 24", n)
	}
	if !strings.Contains(v, "field00") || strings.Contains(v, "field39") || !strings.Contains(v, "↓ more below") {
		t.Fatalf("first screen:\n%s", v)
	}
	for range 30 {
		press(m, "down")
	}
	v = plain(m.View())
	if !strings.Contains(v, "› field30") || strings.Contains(v, "field00") || !strings.Contains(v, "↑ more above") {
		t.Fatalf("after 30 downs:\n%s", v)
	}
	press(m, "pgdown", "pgdown", "pgdown")
	v = plain(m.View())
	if !strings.Contains(v, "› field39") || strings.Count(v, "\n")+1 > 24 {
		t.Fatalf("at the end:\n%s", v)
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if m.focus != 38 {
		t.Errorf("wheel up: focus %d, want 38", m.focus)
	}
	m.SetSize(120, 40)
	if n := strings.Count(m.View(), "\n") + 1; n > 40 {
		t.Errorf("view has %d lines at height 40", n)
	}
}

func TestKeyMapFollowsTheFocus(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"b":{"type":"boolean"},"n":{"type":["string","null"]}}}`, 80, 24)
	k := m.KeyMap()
	if !k.Add.Enabled() || k.Remove.Enabled() || k.Toggle.Enabled() {
		t.Errorf("on an array: add %v remove %v toggle %v", k.Add.Enabled(), k.Remove.Enabled(), k.Toggle.Enabled())
	}
	press(m, "a") // a is add on a row that takes no text
	k = m.KeyMap()
	if !k.Remove.Enabled() || !k.MoveUp.Enabled() {
		t.Errorf("on an item: remove %v move %v", k.Remove.Enabled(), k.MoveUp.Enabled())
	}
	typeText(m, "ax") // text, not commands, in a text field
	if v := mustValue(t, m); v != `{"tags":["ax"]}` {
		t.Errorf("value %s", v)
	}
	press(m, "tab")
	if k := m.KeyMap(); !k.Toggle.Enabled() || k.Add.Enabled() {
		t.Errorf("on a boolean: toggle %v add %v", k.Toggle.Enabled(), k.Add.Enabled())
	}
	press(m, "tab")
	if k := m.KeyMap(); !k.Null.Enabled() {
		t.Error("on a nullable field: null disabled")
	}
	if len(k.ShortHelp()) == 0 || len(k.FullHelp()) != 4 {
		t.Error("help is empty")
	}
	press(m, "ctrl+r")
	// In raw mode esc and ctrl+r both go back to the form: one line of help
	// (Close, "esc/ctrl+r") says so.
	if k := m.KeyMap(); k.Next.Enabled() || !k.Close.Enabled() || k.Close.Help().Key != "esc/ctrl+r" || !k.Submit.Enabled() {
		t.Error("raw mode key map")
	}
}

func TestPasteAndEnumPickerKeys(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"s":{"type":"string"},"e":{"enum":["a","b","c"]},"u":{"anyOf":[{"type":"string","title":"Text"},{"type":"integer","title":"Number"}]}}}`, 80, 24)
	m.Update(tea.PasteMsg{Content: "pasted"})
	press(m, "tab", "enter")
	if !strings.Contains(plain(m.View()), "(•) (none)") {
		t.Fatalf("the picker is not open:\n%s", plain(m.View()))
	}
	press(m, "up", "esc") // up wraps to c; esc keeps the choice
	press(m, "left")      // (none) → c
	press(m, "tab", "enter", "down", "down", "enter", "tab")
	typeText(m, "12")
	want := `{"s":"pasted","e":"c","u":12}`
	if v := mustValue(t, m); v != want {
		t.Errorf("value %s, want %s\n%s", v, want, plain(m.View()))
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
}

// Odd schemas build, draw, take keys and give JSON without a panic.
func TestOddSchemas(t *testing.T) {
	schemas := []string{
		`true`, `false`, `{}`, `[]`, `"string"`, `123`, `null`, ``,
		`{"type":"array","items":{"type":"integer"}}`, `{"type":"string"}`, `{"type":"null"}`,
		`{"enum":[]}`, `{"type":"object","properties":{"e":{"enum":[]}},"required":["e"]}`,
		`{"anyOf":[{"type":"null"}]}`, `{"oneOf":[]}`, `{"type":"object","properties":{"x":false,"y":true}}`,
		`{"type":["object","array","string","number","boolean","null"]}`,
		`{"$ref":"#/nowhere"}`, `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`,
		`{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"type":"integer"}]}}}`,
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":{"type":"integer"}}}}`,
		`{"type":"object","properties":{"l":{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"object","properties":{"k":{"type":"string"}}}]}}}}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"(unclosed"}}}`,
		`{"type":"object","properties":{"n":{"type":"number","minimum":"x","maxLength":-1}}}`,
	}
	keys := []string{"enter", "space", "a", "ctrl+n", "x", "ctrl+t", "right", "tab", "1", "ctrl+n", "alt+up",
		"down", "enter", "down", "space", "esc", "left", "ctrl+d", "shift+tab", "pgdown", "pgup", "backspace"}
	for _, s := range schemas {
		for _, size := range [][2]int{{80, 24}, {20, 5}, {0, 0}} {
			m := newTestForm(t, s, size[0], size[1])
			_ = m.View()
			for _, k := range keys {
				press(m, k)
				_ = m.View()
				_ = m.KeyMap()
			}
			v, err := m.Value()
			if err == nil && string(v) != "null" {
				if err := m.SetValue(v); err != nil {
					t.Errorf("%s: SetValue(%s): %v", s, v, err)
				}
			}
			press(m, "ctrl+r")
			_ = m.View()
			press(m, "ctrl+r")
			_ = Coverage([]byte(s))
		}
	}
}

// TestRawRoundTripKeepsNestedDefaults: form → raw JSON → form with no edit
// leaves the defaults inside an optional object that the value omits.
func TestRawRoundTripKeepsNestedDefaults(t *testing.T) {
	schema := `{"type":"object","properties":{"name":{"type":"string"},
		"options":{"type":"object","properties":{"mode":{"enum":["fast","safe"],"default":"safe"},"retries":{"type":"integer","default":3}}}}}`
	m := newTestForm(t, schema, 80, 24)
	before := plain(m.View())
	v0 := mustValue(t, m)
	press(m, "ctrl+r")
	if !m.Raw() {
		t.Fatal("ctrl+r does not open raw JSON")
	}
	press(m, "ctrl+r")
	if m.Raw() {
		t.Fatal("ctrl+r does not go back to the form")
	}
	if after := plain(m.View()); after != before {
		t.Errorf("the form changed through raw JSON:\n%s\nwant:\n%s", after, before)
	}
	if !strings.Contains(plain(m.View()), "safe") || strings.Contains(plain(m.View()), "(choose one)") {
		t.Errorf("the enum lost its default:\n%s", plain(m.View()))
	}
	if v := mustValue(t, m); v != v0 {
		t.Errorf("value %s, want %s", v, v0)
	}
}

// TestUnionLabelsOfUntitledObjects: the choices between untitled objects
// are named by a const discriminator or by their keys, never all "object".
func TestUnionLabelsOfUntitledObjects(t *testing.T) {
	cases := []struct {
		name, alts string
		want       []string
	}{
		{"required keys", `{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]},
			{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string"}},"required":["path","mode"]}`,
			[]string{"object with url", "object with path, mode"}},
		{"one-value enum discriminator", `{"type":"object","properties":{"kind":{"enum":["file"]},"path":{"type":"string"}}},
			{"type":"object","properties":{"kind":{"type":"string","enum":["web"]},"url":{"type":"string"}}}`,
			[]string{"kind=file", "kind=web"}},
		{"const in a definition", `{"type":"object","properties":{"op":{"$ref":"#/$defs/add"}}},
			{"type":"object","properties":{"op":{"const":"del"}}}`,
			[]string{"op=add", "op=del"}},
		{"keys only", `{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}`,
			[]string{"object of a", "object of b"}},
		{"the same twice", `{"type":"object"},{"type":"object"}`, []string{"object #1", "object #2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			schema := `{"type":"object","$defs":{"add":{"const":"add"}},"properties":{"target":{"oneOf":[` + tc.alts + `]}},"required":["target"]}`
			m := newTestForm(t, schema, 100, 30)
			var labels []string
			for range tc.want {
				block := strings.Join(focusedBlock(m), "\n")
				_, rest, _ := strings.Cut(block, "◂ ")
				label, _, _ := strings.Cut(rest, " ▸")
				labels = append(labels, label)
				press(m, "right")
			}
			if strings.Join(labels, "|") != strings.Join(tc.want, "|") {
				t.Errorf("labels %q, want %q", labels, tc.want)
			}
		})
	}
}

// TestConditionalRendersItsProperties: a root if/then/else does not turn
// the form into one JSON box: the properties render (those then adds
// too), and the condition is the validator's.
func TestConditionalRendersItsProperties(t *testing.T) {
	schema := `{"type":"object","properties":{"kind":{"enum":["file","web"]},"path":{"type":"string"}},
		"if":{"properties":{"kind":{"const":"web"}},"required":["kind"]},
		"then":{"properties":{"url":{"type":"string"}},"required":["url"]},"else":{"required":["path"]}}`
	m := newTestForm(t, schema, 80, 24)
	view := plain(m.View())
	if strings.Contains(view, "JSON") {
		t.Fatalf("the form is a JSON box:\n%s", view)
	}
	for _, row := range []string{"kind", "path", "url"} {
		if !strings.Contains(view, row) {
			t.Errorf("no row for %s:\n%s", row, view)
		}
	}
	if len(Coverage([]byte(schema))) != 0 {
		t.Errorf("Coverage = %q, want none", Coverage([]byte(schema)))
	}
	press(m, "right") // kind: file
	v := mustValue(t, m)
	m.SetErrors(registryCheck(schema)(json.RawMessage(v)))
	if block := strings.Join(focusedBlock(m), "\n"); !strings.Contains(block, "path") || !strings.Contains(block, "✗ is required but missing") {
		t.Errorf("the else branch's required path is not on its field (value %s):\n%s", v, plain(m.View()))
	}
}

// TestRequiredSetsRenderTheObject: an anyOf that only says which
// properties to give is no choice of variants: the properties render,
// none marked required, and the validator's message says the choice.
func TestRequiredSetsRenderTheObject(t *testing.T) {
	schema := `{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"}},"anyOf":[{"required":["id"]},{"required":["name"]}]}`
	m := newTestForm(t, schema, 80, 24)
	view := plain(m.View())
	if strings.Contains(view, "◂") || strings.Contains(view, "*") {
		t.Fatalf("want the two properties, neither required:\n%s", view)
	}
	m.SetErrors(registryCheck(schema)(json.RawMessage(`{}`)))
	if view := plain(m.View()); !strings.Contains(view, `(arguments): needs "id", or "name"`) || strings.Contains(view, "required") {
		t.Errorf("want the choice said once at the top:\n%s", view)
	}
}

// TestPlainPlaceholderIsNotAValue: without colour a placeholder still
// differs from the same text typed.
func TestPlainPlaceholderIsNotAValue(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"a":{"type":"string"}}}`, 60, 10)
	empty := plain(m.View())
	typeText(m, "text")
	typed := plain(m.View())
	if empty == typed {
		t.Fatalf("the placeholder reads as the value typed:\n%s", typed)
	}
	if !strings.Contains(empty, "‹text›") || strings.Contains(typed, "‹") {
		t.Errorf("want the placeholder quoted and the value not:\n%s\n%s", empty, typed)
	}
}

// TestPlaceholderFitsThePattern: a string's placeholder is its first
// example; else a format's sample, unless a pattern could refuse it.
func TestPlaceholderFitsThePattern(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"string","format":"uri","pattern":"^http://","examples":["http://127.0.0.1:8080/"]}`, "‹e.g. http://127.0.0.1:8080/›"},
		{`{"type":"string","format":"uri","pattern":"^http://"}`, "‹uri›"},
		{`{"type":"string","format":"uri"}`, "‹uri: https://example.com/path›"},
		{`{"type":"string"}`, "‹text›"},
	} {
		m := newTestForm(t, `{"type":"object","properties":{"u":`+tc.schema+`}}`, 100, 10)
		if view := plain(m.View()); !strings.Contains(view, "u        "+tc.want) {
			t.Errorf("%s: want the placeholder %s:\n%s", tc.schema, tc.want, view)
		}
	}
}

// TestRawLineNumbersAlign: the JSON text starts in the same column on
// every line, line 10 and on too.
func TestRawLineNumbersAlign(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`, 60, 30)
	if err := m.SetValue([]byte(`{"a":[1,2,3,4,5,6,7,8,9,10,11,12]}`)); err != nil {
		t.Fatal(err)
	}
	press(m, "ctrl+r")
	var pretty bytes.Buffer
	_ = json.Indent(&pretty, []byte(`{"a":[1,2,3,4,5,6,7,8,9,10,11,12]}`), "", "  ")
	view := strings.Split(plain(m.View()), "\n")[1:] // under the heading
	starts := map[int]bool{}
	for i, want := range strings.Split(pretty.String(), "\n") {
		got := view[i]
		if !strings.HasSuffix(got, want) || !strings.HasPrefix(strings.TrimSpace(got), strconv.Itoa(i+1)+" ") {
			t.Fatalf("line %d is %q, want its number and %q", i+1, got, want)
		}
		starts[len(got)-len(want)] = true
	}
	if len(starts) != 1 {
		t.Errorf("the JSON starts in %d different columns:\n%s", len(starts), strings.Join(view, "\n"))
	}
}
