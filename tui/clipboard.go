package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// maxOSC52 is the most text the console sends to the clipboard with OSC
// 52. Terminals cap the sequence and drop a longer one without a word
// (xterm and hterm near 100,000 bytes of base64, some far less), so a
// longer copy is offered as a file instead.
const maxOSC52 = viewer.MaxOSC52

// clipboardCmd copies text, what it is, to the clipboard with OSC 52 and
// says so; text too long for OSC 52 is not sent (no terminal would take
// it): the status says so and a prompt offers to write it to a file.
func clipboardCmd(c *common, text, what string) tea.Cmd {
	if len(text) <= maxOSC52 {
		return tea.Batch(tea.SetClipboard(text), statusCmd(fmt.Sprintf("copied %s (%s)", what, plural(strings.Count(text, "\n")+1, "line")), false))
	}
	def := filepath.Join(os.TempDir(), "toolexplorer-copy-"+c.now().Format("20060102-150405")+".txt")
	title := fmt.Sprintf("%s is %s, more than terminals take on the clipboard (OSC 52, about %d KB). Write it to", what, sizeText(len(text)), maxOSC52/1000)
	return tea.Batch(statusCmd("not copied: "+what+" is too large for the clipboard", true),
		promptCmd(title, def, func(path string) tea.Cmd {
			path = strings.TrimSpace(path)
			if path == "" {
				return statusCmd("not written: no file named", true)
			}
			return func() tea.Msg {
				if err := writeNew(path, text); err != nil {
					return statusMsg{text: err.Error(), isErr: true}
				}
				return statusMsg{text: "wrote " + what + " to " + path}
			}
		}))
}

// writeNew writes text to a file that does not exist yet, readable by its
// owner only: the copy may hold what the output held.
func writeNew(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// sizeText is n bytes as "1.2 MB", "80 KB".
func sizeText(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%d KB", n/1000)
	}
	return plural(n, "byte")
}
