package form

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// numberField is an integer or a number, parsed as typed; its bounds are
// the placeholder, and the registry's validator checks them
// (Options.Check). The number keeps the digits typed: 1.50 stays 1.50.
type numberField struct {
	fieldBase
	integer bool
	in      textinput.Model
}

var jsonNumberRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`) })

func newNumber(fb fieldBase, integer bool) *numberField {
	f := &numberField{fieldBase: fb, integer: integer}
	ph := "number"
	if integer {
		ph = "integer"
	}
	if r := rangeText(fb.n); r != "" {
		ph += ", " + r
	}
	f.in = fb.env.newInput(ph)
	return f
}

// rangeText says the bounds of n: "1 ≤ x ≤ 10", "x > 0".
func rangeText(n *node) string {
	lo, hi := "", ""
	switch {
	case n.exMin.set:
		lo = n.exMin.text + " < "
	case n.min.set:
		lo = n.min.text + " ≤ "
	}
	switch {
	case n.exMax.set:
		hi = " < " + n.exMax.text
	case n.max.set:
		hi = " ≤ " + n.max.text
	}
	if lo == "" && hi == "" {
		return ""
	}
	return lo + "x" + hi
}

// parseNumber reads s as a JSON number (an integer when integer is set):
// the typed digits when they are valid JSON, else a normalized form.
func parseNumber(s string, integer bool) (json.Number, bool) {
	var num json.Number
	if jsonNumberRE().MatchString(s) {
		num = json.Number(s)
	} else {
		f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return "", false
		}
		num = json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	if integer && !isInteger(num) {
		return "", false
	}
	return num, true
}

func (f *numberField) value() (any, bool, error) {
	s := strings.TrimSpace(f.in.Value())
	if s == "" {
		if f.item {
			return nil, false, errAt(f.path, "is empty: type a number or remove the item")
		}
		return nil, false, nil
	}
	n, ok := parseNumber(s, f.integer)
	if !ok {
		if f.integer {
			return nil, false, errAt(f.path, "not an integer")
		}
		return nil, false, errAt(f.path, "not a number")
	}
	return n, true, nil
}

func (f *numberField) set(v any) error {
	f.given = true
	n, ok := v.(json.Number)
	if !ok || (f.integer && !isInteger(n)) {
		if f.integer {
			return typeErr(f.path, "an integer", v)
		}
		return typeErr(f.path, "a number", v)
	}
	f.in.SetValue(n.String())
	f.in.CursorEnd()
	return nil
}

func (f *numberField) clear() { f.in.SetValue(""); f.given = false }

func (f *numberField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	handled, changed, cmd := inputKey(&f.in, k)
	if changed {
		f.touch()
	}
	return handled, cmd
}

func (f *numberField) update(msg tea.Msg) tea.Cmd {
	before := f.in.Value()
	var cmd tea.Cmd
	f.in, cmd = f.in.Update(msg)
	if f.in.Value() != before {
		f.touch()
	}
	return cmd
}

func (f *numberField) widget(*rctx) string { return f.in.View() }
func (f *numberField) focus() tea.Cmd      { return f.in.Focus() }
func (f *numberField) blur()               { f.in.Blur() }
func (f *numberField) takesText() bool     { return true }
func (f *numberField) setWidth(w int)      { f.in.SetWidth(max(w-1, 1)) }

func (f *numberField) check() string {
	s := strings.TrimSpace(f.in.Value())
	if s == "" || s == "-" {
		return ""
	}
	if _, _, err := f.value(); err != nil {
		return err.(*valueError).msg
	}
	return ""
}
