package form

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// newTestForm builds a form drawn without colour at w×h. When the schema
// is one a tool may declare, the form checks through the validator of a
// registry holding that tool, as the console's forms do.
func newTestForm(t testing.TB, schema string, w, h int) *Model {
	t.Helper()
	m, err := New([]byte(schema), Options{Width: w, Height: h, Styles: PlainStyles(), Check: registryCheck(schema)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

// registryCheck is the validator of a registry's tool whose input is
// schema, or nil when no tool may declare schema.
func registryCheck(schema string) func(json.RawMessage) []tooling.FieldError {
	reg := tooling.NewRegistry()
	const name = "form.check"
	err := reg.Add(tooling.Tool{Name: name, Description: "Checks arguments.", Input: json.RawMessage(schema),
		Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }})
	if err != nil {
		return nil
	}
	return func(args json.RawMessage) []tooling.FieldError {
		fe, err := reg.ValidateArgs(name, args)
		if err != nil {
			return []tooling.FieldError{{Message: err.Error()}}
		}
		return fe
	}
}

// keyMsg is the key press a terminal sends for a key name as bubbles
// spells it ("tab", "shift+tab", "ctrl+n", "alt+up", "space", "a").
func keyMsg(name string) tea.KeyPressMsg {
	var k tea.Key
	rest := name
	for {
		mod, tail, ok := strings.Cut(rest, "+")
		if !ok || tail == "" {
			break
		}
		switch mod {
		case "ctrl":
			k.Mod |= tea.ModCtrl
		case "alt":
			k.Mod |= tea.ModAlt
		case "shift":
			k.Mod |= tea.ModShift
		default:
			panic("unknown modifier " + mod)
		}
		rest = tail
	}
	named := map[string]rune{
		"tab": tea.KeyTab, "enter": tea.KeyEnter, "esc": tea.KeyEscape, "space": tea.KeySpace,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"home": tea.KeyHome, "end": tea.KeyEnd,
	}
	if c, ok := named[rest]; ok {
		k.Code = c
		if c == tea.KeySpace && k.Mod == 0 {
			k.Text = " "
		}
		return tea.KeyPressMsg(k)
	}
	r, size := utf8.DecodeRuneInString(rest)
	if size != len(rest) {
		panic("unknown key " + name)
	}
	k.Code = r
	if k.Mod == 0 {
		k.Text = rest
	}
	return tea.KeyPressMsg(k)
}

// press sends key presses through Update, as a person types them.
func press(m *Model, keys ...string) {
	for _, k := range keys {
		m.Update(keyMsg(k))
	}
}

// typeText types s one character at a time.
func typeText(m *Model, s string) {
	for _, r := range s {
		k := tea.Key{Code: r, Text: string(r)}
		if r == ' ' {
			k.Code = tea.KeySpace
		}
		m.Update(tea.KeyPressMsg(k))
	}
}

// plain is the view without escape codes and trailing spaces.
func plain(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// focusLabel moves the focus to the first row labelled label.
func focusLabel(t testing.TB, m *Model, label string) {
	t.Helper()
	for _, f := range m.rows {
		if f.base().label == label {
			m.focusField(f)
			return
		}
	}
	var have []string
	for _, f := range m.rows {
		have = append(have, f.base().label)
	}
	t.Fatalf("no row %q among %q", label, have)
}

func mustValue(t testing.TB, m *Model) string {
	t.Helper()
	v, err := m.Value()
	if err != nil {
		t.Fatalf("Value: %v", err)
	}
	return string(v)
}

// focusedBlock is the focused row's lines in the view: its row and the lines
// under it.
func focusedBlock(m *Model) []string {
	lines := strings.Split(plain(m.View()), "\n")
	gutter := strings.Repeat(" ", 2+m.labelW+1)
	for i, l := range lines {
		if !strings.HasPrefix(l, "› ") {
			continue
		}
		out := []string{l}
		for _, next := range lines[i+1:] {
			if !strings.HasPrefix(next, gutter) {
				break
			}
			out = append(out, next)
		}
		return out
	}
	return nil
}
