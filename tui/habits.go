package tui

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
