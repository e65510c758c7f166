package form

import (
	"strings"
	"testing"
)

// The text editor's keys, each from a text with the cursor at its end.
func TestTextEditKeys(t *testing.T) {
	for _, tc := range []struct {
		text string
		keys []string
		want string
	}{
		{"ab\ncd", []string{"backspace", "backspace", "backspace"}, "ab"},
		{"ab\ncd", []string{"home", "backspace"}, "abcd"},
		{"ab\ncd", []string{"up", "delete", "x"}, "abxcd"},
		{"ab\ncd", []string{"ctrl+home", "delete"}, "b\ncd"},
		{"one two", []string{"ctrl+w"}, "one "},
		{"one two", []string{"alt+left", "alt+left", "ctrl+k"}, ""},
		{"one two", []string{"left", "left", "ctrl+u"}, "wo"},
		{"ab", []string{"left", "enter"}, "a\nb"},
		{"ab\ncd\nef", []string{"up", "up", "end", "ctrl+k"}, "abcd\nef"},
	} {
		e := newTextEdit(&PlainStyles().Area, false, "")
		e.SetValue(tc.text)
		for _, k := range tc.keys {
			e.Update(keyMsg(k))
		}
		if got := e.Value(); got != tc.want {
			t.Errorf("%q then %v: %q, want %q", tc.text, tc.keys, got, tc.want)
		}
	}
}

// A long line wraps at the width; up and down move a wrapped row at a
// time, and the rows shown follow the cursor.
func TestTextEditWraps(t *testing.T) {
	e := newTextEdit(&PlainStyles().Area, false, "│ ")
	e.SetWidth(13) // 2 for the prompt, 1 for the cursor: 10 letters a row
	e.SetHeight(2)
	e.Focus()
	e.SetValue(strings.Repeat("a", 10) + strings.Repeat("b", 10) + strings.Repeat("c", 5))
	rows := strings.Split(plain(e.View()), "\n")
	if len(rows) != 2 || strings.TrimSpace(rows[0]) != "│ bbbbbbbbbb" || strings.TrimSpace(rows[1]) != "│ ccccc" {
		t.Fatalf("rows %q", rows)
	}
	e.Update(keyMsg("up"))
	e.Update(keyMsg("up"))
	e.Update(keyMsg("x"))
	if got := e.Value(); got != "aaaaax"+strings.Repeat("a", 5)+strings.Repeat("b", 10)+"ccccc" {
		t.Fatalf("after up, up, x: %q", got)
	}
	if rows := strings.Split(plain(e.View()), "\n"); strings.TrimSpace(rows[0]) != "│ aaaaaxaaaa" {
		t.Fatalf("the rows do not follow the cursor up: %q", rows)
	}
}
