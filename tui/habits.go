package tui

import tea "charm.land/bubbletea/v2"

// leftGoesBack reports whether h and left go back on screen s, as esc
// does: on the screens where nothing is edited and left has no other use.
// The detail goes back from its first pane (left moves between panes);
// the result of a call goes back to its arguments on its own.
func leftGoesBack(s screen) bool {
	switch s := s.(type) {
	case *historyScreen, *callScreen, *boardScreen, *runsScreen, *problemsScreen, *serversScreen:
		return true
	case *detailScreen:
		return s.pane == 0
	}
	return false
}

// useBackground picks the palette for the terminal's background: the
// light one on a light background. Without colours nothing changes.
func (c *common) useBackground(msg tea.BackgroundColorMsg) {
	if !c.styles.color || msg.Color == nil {
		return
	}
	if light := !msg.IsDark(); light != c.styles.light {
		*c.styles = *newStylesFor(false, light)
	}
}
