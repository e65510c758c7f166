package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// fillScreen is a form of string parameters made from a schema (a resource
// template's variables, a prompt's arguments): ctrl+s sends the values
// filled in to what the screen was set with, esc goes back.
type fillScreen struct {
	c      *common
	keys   fillKeys
	title  string
	head   []string
	submit func(values map[string]string) tea.Cmd
	editor argsEditor
	err    string
	w, h   int
}

func newFillScreen(c *common) *fillScreen { return &fillScreen{c: c, keys: newFillKeys(&c.global)} }

// set shows a form of schema under head; verb says what ctrl+s does.
func (s *fillScreen) set(title string, head []string, schema json.RawMessage, verb string, submit func(map[string]string) tea.Cmd) {
	s.title, s.head, s.submit, s.err = title, head, submit, ""
	s.keys.Send.SetHelp(s.keys.Send.Help().Key, verb)
	ed, err := s.c.newEditor("", schema, s.w, s.editorHeight())
	if err != nil {
		s.err = err.Error()
	}
	s.editor = ed
}

func (s *fillScreen) editorHeight() int { return max(s.h-len(s.head)-3, 3) }

func (s *fillScreen) Title() string { return s.title }

func (s *fillScreen) Typing() bool { return s.editor != nil && s.editor.InputFocused() }

func (s *fillScreen) KeyMap() help.KeyMap { return s.keys }

func (s *fillScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	if s.editor != nil {
		s.editor.SetSize(w, s.editorHeight())
	}
}

func (s *fillScreen) Show() tea.Cmd {
	if s.editor == nil {
		return nil
	}
	s.editor.SetSize(s.w, s.editorHeight())
	return s.editor.Init()
}

func (s *fillScreen) Hide() {}

func (s *fillScreen) Update(msg tea.Msg) tea.Cmd {
	if s.editor == nil {
		if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, s.c.global.Back) {
			return backCmd
		}
		return nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && !s.editor.Capturing() {
		switch {
		case key.Matches(k, s.keys.Send):
			return s.send()
		case key.Matches(k, s.c.global.Back):
			return backCmd
		}
	}
	cmd := s.editor.Update(msg)
	if s.editor.Submitted() {
		return tea.Batch(cmd, s.send())
	}
	return cmd
}

// send hands the values to submit, each as text.
func (s *fillScreen) send() tea.Cmd {
	v, err := s.editor.Value()
	var values map[string]any
	if err == nil {
		err = json.Unmarshal(v, &values)
	}
	if err != nil {
		s.err = "not sent: " + err.Error()
		return nil
	}
	s.err = ""
	out := make(map[string]string, len(values))
	for k, v := range values {
		if str, ok := v.(string); ok {
			out[k] = str
		} else {
			out[k] = fmt.Sprint(v)
		}
	}
	return s.submit(out)
}

func (s *fillScreen) View() string {
	st := s.c.styles
	var b strings.Builder
	b.WriteString(st.Title.Render(s.title) + "\n")
	for _, l := range s.head {
		b.WriteString(cut(l, s.w) + "\n")
	}
	if s.err != "" {
		b.WriteString(st.Err.Render(cut(s.err, s.w)) + "\n")
	}
	b.WriteString("\n")
	if s.editor != nil {
		b.WriteString(s.editor.View())
	}
	return b.String()
}

// fillKeys are the keys of the form of parameters; the form's own keys
// move between its fields.
type fillKeys struct {
	Send key.Binding
	g    *globalKeys
}

func newFillKeys(g *globalKeys) fillKeys {
	return fillKeys{g: g, Send: bind([]string{"ctrl+s"}, "ctrl+s", "send")}
}

func (k fillKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.g.short(backKey, "back"), k.g.short(helpAlwaysKey, "help")}
}

func (k fillKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Send, k.g.Back}} }

var (
	_ help.KeyMap = fillKeys{}
	_ screen      = (*fillScreen)(nil)
)
