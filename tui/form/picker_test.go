package form

import (
	"strings"
	"testing"
)

const countriesSchema = `{"type":"object","properties":{"country":{"enum":["Austria","Belgium","Croatia","Denmark","Estonia","Finland","France","Germany","Greece","Ireland","Italy","Spain"]},"size":{"enum":["s","m","l"]}},"required":["country"]}`

// TestPickerTopAndBottom: g and G go to the first and the last choice of
// any picker.
func TestPickerTopAndBottom(t *testing.T) {
	m := newTestForm(t, countriesSchema, 80, 30)
	press(m, "tab", "enter", "G", "enter") // size: its last choice
	press(m, "shift+tab", "enter", "G", "enter")
	if v := mustValue(t, m); v != `{"country":"Spain","size":"l"}` {
		t.Fatalf("G: %s", v)
	}
	press(m, "enter", "g", "enter")
	if v := mustValue(t, m); v != `{"country":"Austria","size":"l"}` {
		t.Fatalf("g: %s", v)
	}
}

// TestPickerFilter: / in a long picker filters its choices by what is
// typed; the arrows move among the matches, enter picks one, esc shows
// all again.
func TestPickerFilter(t *testing.T) {
	m := newTestForm(t, countriesSchema, 80, 30)
	press(m, "enter")
	if v := plain(m.View()); !strings.Contains(v, "12 choices · / filters · g/G first/last") {
		t.Fatalf("a long picker does not say it filters:\n%s", v)
	}
	press(m, "/")
	typeText(m, "an")
	v := plain(m.View())
	for _, want := range []string{"/ an", "Finland", "France", "Germany", "Ireland"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the filter lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "Austria") || strings.Contains(v, "Spain") {
		t.Fatalf("the filter shows choices without \"an\":\n%s", v)
	}
	press(m, "down", "down") // Finland, France, Germany
	press(m, "enter")
	if v := mustValue(t, m); v != `{"country":"Germany"}` {
		t.Fatalf("after the filter: %s", v)
	}
	press(m, "enter", "/")
	typeText(m, "zz")
	if v := plain(m.View()); !strings.Contains(v, "no choice matches") {
		t.Fatalf("no match:\n%s", v)
	}
	press(m, "esc") // drops the filter, the picker stays open
	if v := plain(m.View()); !strings.Contains(v, "12 choices · / filters") || strings.Contains(v, "no choice matches") || !m.Capturing() {
		t.Fatalf("esc in the filter:\n%s", v)
	}
	press(m, "/")
	typeText(m, "zz")
	press(m, "enter", "enter") // nothing to choose: the choice stays
	if v := mustValue(t, m); v != `{"country":"Germany"}` {
		t.Fatalf("enter on no match: %s", v)
	}
	// A short picker has no filter: / is not a filter there.
	press(m, "tab", "enter", "/")
	if v := plain(m.View()); strings.Contains(v, "/ ") {
		t.Fatalf("a short picker filters:\n%s", v)
	}
}
