package tui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// quitDialog asks before q leaves the console from any screen but the
// tool list: what is typed in the forms and the session's history end
// with it. Staying has the focus first.
type quitDialog struct {
	c      *common
	keys   quitKeys
	body   string
	onQuit bool // the focus is on the quit button
	done   bool
	quit   bool
}

// newQuitDialog says what quitting loses; running names the tools whose
// calls are in flight.
func newQuitDialog(c *common, running []string) *quitDialog {
	lost := []string{"the arguments typed in the forms"}
	if n := len(c.history); n > 0 && c.store == nil {
		lost = append(lost, "the history of "+plural(n, "call"))
	}
	body := "Quitting loses " + strings.Join(lost, " and ") + "."
	switch len(running) {
	case 0:
	case 1:
		body += " The call of " + running[0] + " in flight is canceled."
	default:
		body += " The " + strconv.Itoa(len(running)) + " calls in flight (" + strings.Join(running, ", ") + ") are canceled."
	}
	return &quitDialog{c: c, keys: newQuitKeys(), body: body}
}

// Update handles a key; done and quit say how the dialog ended.
func (d *quitDialog) Update(msg tea.KeyPressMsg) {
	switch {
	case key.Matches(msg, d.keys.Quit):
		d.done, d.quit = true, true
	case key.Matches(msg, d.keys.Stay):
		d.done = true
	case key.Matches(msg, d.keys.Switch):
		d.onQuit = !d.onQuit
	case key.Matches(msg, d.keys.Choose):
		d.done, d.quit = true, d.onQuit
	}
}

// View renders the dialog centred in a w×h area.
func (d *quitDialog) View(w, h int) string {
	st := d.c.styles
	inner := min(max(w-8, 20), 60)
	quit, stay := st.Button.Render("Quit (y)"), st.ButtonActive.Render("Stay (n)")
	if d.onQuit {
		quit, stay = st.ButtonActive.Render("Quit (y)"), st.Button.Render("Stay (n)")
	}
	content := st.Title.Render("Quit toolexplorer?") + "\n\n" + ansi.Wordwrap(d.body, inner, "") + "\n\n" + quit + "  " + stay
	box := st.Dialog.Width(inner + 4).Render(content)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}

// quitKeys are the keys of the quit dialog.
type quitKeys struct {
	Quit   key.Binding
	Stay   key.Binding
	Switch key.Binding
	Choose key.Binding
}

func newQuitKeys() quitKeys {
	return quitKeys{
		Quit:   bind([]string{"y", "Y", "q"}, "y/q", "quit"),
		Stay:   bind([]string{"n", "N", "esc"}, "n/esc", "stay"),
		Switch: bind([]string{"tab", "shift+tab", "left", "right", "h", "l"}, "tab/←/→", "switch"),
		Choose: bind([]string{"enter", "space"}, "enter", "choose"),
	}
}

func (k quitKeys) ShortHelp() []key.Binding { return []key.Binding{k.Quit, k.Stay, k.Switch, k.Choose} }

func (k quitKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
