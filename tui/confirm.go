package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// confirmDialog asks for consent before a call: once, or for this session
// when the tool's consent is the registry's to give (session is set). The
// safe answer, cancel, has the focus first.
type confirmDialog struct {
	c       *common
	keys    confirmKeys
	title   string
	body    string
	yes     tea.Msg
	session tea.Msg // sent for "allow for this session"; nil when not offered
	focus   int     // focusCancel, focusYes or focusSession
	done    bool
}

// The buttons of the dialog, in the order tab moves the focus.
const (
	focusCancel = iota
	focusYes
	focusSession
)

func newConfirmDialog(c *common, msg confirmMsg) *confirmDialog {
	return &confirmDialog{c: c, keys: newConfirmKeys(), title: msg.title, body: msg.body, yes: msg.yes, session: msg.session}
}

// Update handles a key; when the dialog is done it returns the consent
// message (nil when declined).
func (d *confirmDialog) Update(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, d.keys.Yes):
		return d.answer(focusYes)
	case key.Matches(msg, d.keys.Session) && d.session != nil:
		return d.answer(focusSession)
	case key.Matches(msg, d.keys.No):
		return d.answer(focusCancel)
	case key.Matches(msg, d.keys.Switch):
		n := 2
		if d.session != nil {
			n = 3
		}
		step := 1
		switch msg.String() {
		case "shift+tab", "left", "h":
			step = n - 1
		}
		d.focus = (d.focus + step) % n
	case key.Matches(msg, d.keys.Choose):
		return d.answer(d.focus)
	}
	return nil
}

func (d *confirmDialog) answer(focus int) tea.Cmd {
	d.done = true
	switch focus {
	case focusYes:
		return msgCmd(d.yes)
	case focusSession:
		return msgCmd(d.session)
	}
	return statusCmd("canceled: nothing was run", false)
}

// View renders the dialog centred in a w×h area.
func (d *confirmDialog) View(w, h int) string {
	st := d.c.styles
	inner := min(max(w-8, 20), 72)
	body := ansi.Wrap(d.body, inner, "")
	button := func(label string, focus int) string {
		if d.focus == focus {
			return st.ButtonActive.Render(label)
		}
		return st.Button.Render(label)
	}
	buttons := button("Consent and run (y)", focusYes) + "  "
	if d.session != nil {
		buttons += button("Allow for this session (a)", focusSession) + "  "
	}
	buttons += button("Cancel (n)", focusCancel)
	content := st.Title.Render(d.title) + "\n\n" + body + "\n\n" + buttons
	box := st.Dialog.Width(inner + 4).Render(content)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}
