package tui

import (
	"fmt"
	"strings"

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
	args    string // the arguments, pretty-printed
	top     int    // the first line of the arguments shown
	maxTop  int    // the last value of top that still fills the window, as last drawn; -1 before
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
	d := &confirmDialog{c: c, keys: newConfirmKeys(), title: msg.title, body: msg.body, args: prettyJSON(safeJSON(msg.args)),
		maxTop: -1, yes: msg.yes, session: msg.session}
	d.keys.Session.SetEnabled(msg.session != nil)
	return d
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
	case key.Matches(msg, d.keys.Scroll):
		switch msg.String() {
		case "up", "k":
			d.top--
		case "down", "j":
			d.top++
		case "pgup":
			d.top -= confirmPage
		case "pgdown":
			d.top += confirmPage
		}
		d.top = max(d.top, 0)
		if d.maxTop >= 0 { // drawn: the bottom is known
			d.top = min(d.top, d.maxTop)
		}
	}
	return nil
}

// confirmPage is how many lines of arguments pgup and pgdown scroll.
const confirmPage = 5

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

// View renders the dialog centred in a w×h area. The arguments get the
// lines the question and the buttons leave: when they need more, they
// scroll, so that the buttons always show.
func (d *confirmDialog) View(w, h int) string {
	st := d.c.styles
	inner := min(max(w-8, 20), 72)
	body := ansi.Wordwrap(d.body, inner, "")
	button := func(label string, focus int) string {
		if d.focus == focus {
			return st.ButtonActive.Render(label)
		}
		return st.Button.Render(label)
	}
	// The buttons stay on one row, with shorter labels in a narrow box: a
	// row the box wraps would be a line taller than the box was measured,
	// and the bottom border would go.
	var buttons string
	for _, labels := range [][3]string{
		{"Consent and run (y)", "Allow for this session (a)", "Cancel (n)"},
		{"Run (y)", "Session (a)", "Cancel (n)"},
	} {
		row := []string{button(labels[0], focusYes)}
		if d.session != nil {
			row = append(row, button(labels[1], focusSession))
		}
		row = append(row, button(labels[2], focusCancel))
		if buttons = strings.Join(row, "  "); ansi.StringWidth(buttons) <= inner {
			break
		}
		buttons = strings.Join(row, "\n") // narrower still: one under the other
	}

	render := func(heading string, args []string) string {
		content := st.Title.Render(d.title) + "\n\n" + body + "\n\n" + st.Label.Render(heading) + "\n" +
			strings.Join(args, "\n") + "\n\n" + buttons
		return st.Dialog.Width(inner + 4).Render(content)
	}
	// The arguments get what the rest of the box leaves of the height.
	room := max(h-(lipgloss.Height(render("Arguments", []string{""}))-1), 1)
	lines := wrapLines(d.args, inner)
	heading := "Arguments"
	d.keys.Scroll.SetEnabled(len(lines) > room)
	d.maxTop = max(len(lines)-room, 0)
	if len(lines) > room {
		d.top = min(d.top, len(lines)-room)
		heading = ansi.Truncate(fmt.Sprintf("Arguments, lines %d–%d of %d (↑/↓ scroll)", d.top+1, d.top+room, len(lines)), inner, "…")
		lines = lines[d.top : d.top+room]
	}
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, render(heading, lines))
}
