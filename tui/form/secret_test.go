package form

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestSecretsAreMasked: a string whose schema says "writeOnly": true or
// "format": "password" shows dots as it is typed or pasted, lines and all,
// opens no editor that would show it, and its value is what was typed.
func TestSecretsAreMasked(t *testing.T) {
	for _, schema := range []string{`{"type":"string","writeOnly":true}`, `{"type":"string","format":"password"}`} {
		t.Run(schema, func(t *testing.T) {
			m := newTestForm(t, `{"type":"object","properties":{"key":`+schema+`}}`, 80, 24)
			typeText(m, "hunter2")
			view := plain(m.View())
			if strings.Contains(view, "hunter2") || !strings.Contains(view, "•••••••") {
				t.Errorf("the secret typed shows:\n%s", view)
			}
			press(m, "ctrl+e", "ctrl+o")
			if view := plain(m.View()); strings.Contains(view, "hunter2") {
				t.Errorf("an editor shows the secret:\n%s", view)
			}
			if got := mustValue(t, m); got != `{"key":"hunter2"}` {
				t.Errorf("value %s", got)
			}
			m.Update(tea.PasteMsg{Content: "line one\nline two"})
			if view := plain(m.View()); strings.Contains(view, "line one") || strings.Contains(view, "line two") {
				t.Errorf("the secret pasted shows:\n%s", view)
			}
			typeText(m, "x") // a key after lines pasted opens no editor either
			if view := plain(m.View()); strings.Contains(view, "line one") || strings.Contains(view, "line two") {
				t.Errorf("the secret pasted shows once typed after:\n%s", view)
			}
		})
	}
	// A string that is no secret shows as typed.
	m := newTestForm(t, `{"type":"object","properties":{"name":{"type":"string"}}}`, 80, 24)
	typeText(m, "hunter2")
	if !strings.Contains(plain(m.View()), "hunter2") {
		t.Errorf("a plain string does not show what was typed:\n%s", plain(m.View()))
	}
}
