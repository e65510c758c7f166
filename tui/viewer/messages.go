package viewer

import tea "charm.land/bubbletea/v2"

// StatusMsg is a line for the console's status bar: where a search
// landed, why a copy or the pager failed.
type StatusMsg struct {
	Text string
	Err  bool
}

// CopyMsg asks the console to put Text on the clipboard; What says what
// it is ("the value at /items/0"). The viewer sends text longer than
// MaxOSC52 too: the console offers to write it to a file.
type CopyMsg struct {
	Text, What string
}

// MaxOSC52 is the most text the console sends to the clipboard with OSC
// 52. Terminals cap the sequence and drop a longer one without a word
// (xterm and hterm near 100,000 bytes of base64, some far less).
const MaxOSC52 = 74_000

func statusCmd(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text, Err: isErr} }
}

func copyCmd(text, what string) tea.Cmd {
	return func() tea.Msg { return CopyMsg{Text: text, What: what} }
}
