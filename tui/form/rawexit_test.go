package form

import (
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestRawModeEscapeAlwaysLeaves: esc (and ctrl+r) leave raw JSON for the
// form when the form can hold the text; when it cannot (not JSON, or a
// property the schema forbids) they ask, y drops the edits and goes back
// to the form as it was, n or esc keep editing.
func TestRawModeEscapeAlwaysLeaves(t *testing.T) {
	schema := `{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"}},"additionalProperties":false}`
	m := newTestForm(t, schema, 80, 24)
	typeText(m, "ann")
	press(m, "ctrl+r")
	m.area.SetValue(`{"name": `)
	press(m, "esc")
	v := plain(m.View())
	if !m.Raw() || !strings.Contains(v, "✗ not valid JSON") || !strings.Contains(v, "Discard the edits and go back to the form? y discards · n keeps editing") {
		t.Fatalf("esc on text that is not JSON does not ask:\n%s", v)
	}
	if k := m.KeyMap(); !k.Discard.Enabled() || k.Submit.Enabled() || k.Close.Help().Key != "n/esc" {
		t.Fatalf("the keys while asking: discard %v submit %v close %q", k.Discard.Enabled(), k.Submit.Enabled(), k.Close.Help().Key)
	}
	press(m, "n")
	if !m.Raw() || strings.Contains(plain(m.View()), "Discard the edits") || m.area.Value() != `{"name": ` {
		t.Fatalf("n does not keep editing:\n%s", plain(m.View()))
	}
	press(m, "ctrl+r") // ctrl+r asks too
	if !strings.Contains(plain(m.View()), "Discard the edits") {
		t.Fatalf("ctrl+r does not ask:\n%s", plain(m.View()))
	}
	press(m, "esc")
	if !m.Raw() || strings.Contains(plain(m.View()), "Discard the edits") {
		t.Fatal("esc on the question does not keep editing")
	}
	press(m, "esc", "y")
	if m.Raw() {
		t.Fatal("y does not leave raw mode")
	}
	if v := mustValue(t, m); v != `{"name":"ann"}` {
		t.Fatalf("after discarding, the form holds %s, want what it held before", v)
	}
	if !m.InputFocused() || m.Capturing() {
		t.Fatal("after discarding, the form does not have the focus back")
	}

	// JSON the form has no place for.
	press(m, "ctrl+r")
	m.area.SetValue(`{"name": "x", "extra": 1}`)
	press(m, "esc")
	if v := plain(m.View()); !strings.Contains(v, "/extra: is not an allowed property") || !strings.Contains(v, "Discard the edits") {
		t.Fatalf("esc on JSON the form cannot hold:\n%s", v)
	}
	press(m, "y")
	if v := mustValue(t, m); m.Raw() || v != `{"name":"ann"}` {
		t.Fatalf("raw %v, value %s", m.Raw(), v)
	}

	// JSON it can hold: esc applies it.
	press(m, "ctrl+r")
	m.area.SetValue(`{"name": "bob", "n": 2}`)
	press(m, "esc")
	if v := mustValue(t, m); m.Raw() || v != `{"name":"bob","n":2}` {
		t.Fatalf("esc on good JSON: raw %v, value %s", m.Raw(), v)
	}
}

// TestRawModeListsErrors: the validator's messages given in raw mode are
// listed above the JSON, where no field is shown to carry them.
func TestRawModeListsErrors(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"name":{"type":"string","minLength":2},"n":{"type":"integer"}}}`, 80, 24)
	press(m, "ctrl+r")
	errs := []tooling.FieldError{{Path: "/name", Message: "too short"}, {Path: "/n", Message: "must be an integer"}}
	m.SetErrors(errs)
	v := plain(m.View())
	for _, want := range []string{"✗ /name: too short", "✗ /n: must be an integer"} {
		if !strings.Contains(v, want) {
			t.Fatalf("raw mode does not list %q:\n%s", want, v)
		}
	}
	if n := strings.Count(v, "\n") + 1; n > 24 {
		t.Fatalf("the raw view is %d lines high, more than 24", n)
	}
	m.SetErrors(nil)
	if strings.Contains(plain(m.View()), "too short") {
		t.Fatal("SetErrors(nil) does not clear the list")
	}
}

// TestRawJSONErrorSaysWhere: raw JSON that does not parse is refused
// naming the line and column of the mistake, not only what it is.
func TestRawJSONErrorSaysWhere(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}}}`, 80, 24)
	press(m, "ctrl+r")
	m.area.SetValue("{\n  \"name\": \"é\",,\n  \"tags\": []\n}")
	_, err := m.Value()
	if err == nil || !strings.Contains(err.Error(), "line 2, column 15: invalid character ','") {
		t.Fatalf("raw JSON with a second comma on line 2, column 15: %v", err)
	}
	press(m, "ctrl+s")
	if v := plain(m.View()); !strings.Contains(v, "line 2, column 15") {
		t.Errorf("the form does not say where:\n%s", v)
	}
}
