package form

import (
	"strings"
	"testing"
)

// TestAddedObjectItemFocusesItsFirstField: after ctrl+n adds an object
// item, the focus is on the item's first field, so that what is typed next
// is text in it and not a key on the item's header (a adding, x removing).
func TestAddedObjectItemFocusesItsFirstField(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"on":{"type":"boolean"}}}}}}`, 80, 24)
	press(m, "ctrl+n")
	if got := m.cur.base().path; got != "/steps/0/name" {
		t.Fatalf("after ctrl+n the focus is on %q, want /steps/0/name", got)
	}
	typeText(m, "ax")
	if v := mustValue(t, m); v != `{"steps":[{"name":"ax"}]}` {
		t.Fatalf("typing after ctrl+n: %s", v)
	}
	press(m, "ctrl+n") // from a field of an item: a new item after it
	if got := m.cur.base().path; got != "/steps/1/name" {
		t.Fatalf("after the second ctrl+n the focus is on %q", got)
	}
}

// TestRemoveCanBeUndone: removing an item (x or ctrl+d) says how to put it
// back, and ctrl+z does, at its place and with what it held; several
// removals undo last first.
func TestRemoveCanBeUndone(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"on":{"type":"boolean"}}}},
		"env":{"type":"object","additionalProperties":{"type":"string"}}}}`, 80, 30)
	if err := m.SetValue([]byte(`{"steps":[{"name":"a","on":true},{"name":"b"},{"name":"c"}],"env":{"K":"v"}}`)); err != nil {
		t.Fatal(err)
	}
	if m.KeyMap().Undo.Enabled() {
		t.Fatal("undo is offered with nothing removed")
	}
	focusLabel(t, m, "[0]")
	press(m, "x")
	if v := mustValue(t, m); v != `{"steps":[{"name":"b"},{"name":"c"}],"env":{"K":"v"}}` {
		t.Fatalf("after x: %s", v)
	}
	if v := plain(m.View()); !strings.Contains(v, "removed /steps/0: ctrl+z puts it back") {
		t.Fatalf("the removal does not say how to undo it:\n%s", v)
	}
	if !m.KeyMap().Undo.Enabled() {
		t.Fatal("undo is not offered after a removal")
	}
	focusLabel(t, m, "[1]")
	press(m, "ctrl+d")
	focusLabel(t, m, "key")
	press(m, "ctrl+d")
	if v := mustValue(t, m); v != `{"steps":[{"name":"b"}]}` {
		t.Fatalf("after three removals: %s", v)
	}
	press(m, "ctrl+z")
	if v := mustValue(t, m); v != `{"steps":[{"name":"b"}],"env":{"K":"v"}}` {
		t.Fatalf("first undo: %s", v)
	}
	press(m, "ctrl+z", "ctrl+z")
	if v := mustValue(t, m); v != `{"steps":[{"name":"a","on":true},{"name":"b"},{"name":"c"}],"env":{"K":"v"}}` {
		t.Fatalf("after undoing every removal: %s", v)
	}
	if got := m.cur.base().path; got != "/steps/0" {
		t.Fatalf("the focus after undo is on %q, want the item put back", got)
	}
	if v := plain(m.View()); !strings.Contains(v, "put back /steps/0") {
		t.Fatalf("undo does not say what it put back:\n%s", v)
	}
	press(m, "ctrl+z") // nothing left to undo
	if v := mustValue(t, m); v != `{"steps":[{"name":"a","on":true},{"name":"b"},{"name":"c"}],"env":{"K":"v"}}` {
		t.Fatalf("undo with nothing removed changed the value: %s", v)
	}
	if m.KeyMap().Undo.Enabled() {
		t.Fatal("undo is still offered with nothing left to undo")
	}
}
