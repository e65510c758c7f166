package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// confirmDialog asks for consent before a call. The safe answer, cancel,
// has the focus first.
type confirmDialog struct {
	c     *common
	keys  confirmKeys
	title string
	body  string
	yes   tea.Msg
	onYes bool // the focus is on the consent button
	done  bool
}

func newConfirmDialog(c *common, msg confirmMsg) *confirmDialog {
	return &confirmDialog{c: c, keys: newConfirmKeys(), title: msg.title, body: msg.body, yes: msg.yes}
}

// Update handles a key; when the dialog is done it returns the consent
// message (nil when declined).
func (d *confirmDialog) Update(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, d.keys.Yes):
		return d.answer(true)
	case key.Matches(msg, d.keys.No):
		return d.answer(false)
	case key.Matches(msg, d.keys.Switch):
		d.onYes = !d.onYes
	case key.Matches(msg, d.keys.Choose):
		return d.answer(d.onYes)
	}
	return nil
}

func (d *confirmDialog) answer(yes bool) tea.Cmd {
	d.done = true
	if yes {
		return msgCmd(d.yes)
	}
	return statusCmd("canceled: nothing was run", false)
}

// View renders the dialog centred in a w×h area.
func (d *confirmDialog) View(w, h int) string {
	st := d.c.styles
	inner := min(max(w-8, 20), 72)
	body := ansi.Wrap(d.body, inner, "")
	yes, no := st.Button.Render("Consent and run (y)"), st.ButtonActive.Render("Cancel (n)")
	if d.onYes {
		yes, no = st.ButtonActive.Render("Consent and run (y)"), st.Button.Render("Cancel (n)")
	}
	content := st.Title.Render(d.title) + "\n\n" + body + "\n\n" + yes + "  " + no
	box := st.Dialog.Width(inner + 4).Render(content)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}
