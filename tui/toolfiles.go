package tui

import (
	tea "charm.land/bubbletea/v2"
)

// ToolFiles are the tools files whose tools are in the registry. On the
// tool list, L reloads them and W turns shadow mode on and off.
type ToolFiles interface {
	// Reload reads the files again and replaces their tools; it says what
	// changed, or why the tools in place stay.
	Reload() (string, error)
	// Shadow reports whether every write of a file tool is a shadow call;
	// SetShadow turns that on or off for the calls that start afterwards.
	Shadow() bool
	SetShadow(on bool)
	// Reloaded gets what each reload made elsewhere (a SIGHUP) said, as
	// Reload says it; nil when there are none.
	Reloaded() <-chan ToolFilesReload
}

// ToolFilesReload is the outcome of a reload made outside the console.
type ToolFilesReload struct {
	Text string
	Err  error
}

// toolFilesReloadedMsg says that a reload of the tools files ended.
type toolFilesReloadedMsg struct {
	text string
	err  error
}

// reloadToolFilesCmd reloads the tools files off the Update loop.
func reloadToolFilesCmd(f ToolFiles) tea.Cmd {
	return func() tea.Msg {
		text, err := f.Reload()
		return toolFilesReloadedMsg{text: text, err: err}
	}
}

// toolFilesWatchedMsg is a reload made outside the console.
type toolFilesWatchedMsg struct{ toolFilesReloadedMsg }

// watchToolFilesCmd waits for the next reload made outside the console.
func watchToolFilesCmd(f ToolFiles) tea.Cmd {
	if f == nil || f.Reloaded() == nil {
		return nil
	}
	ch := f.Reloaded()
	return func() tea.Msg {
		r, ok := <-ch
		if !ok {
			return nil
		}
		return toolFilesWatchedMsg{toolFilesReloadedMsg{text: r.Text, err: r.Err}}
	}
}

// toggleShadow turns shadow mode over and says so on the status line.
func toggleShadow(f ToolFiles) tea.Cmd {
	on := !f.Shadow()
	f.SetShadow(on)
	if on {
		return statusCmd("shadow mode on: writes of file tools are built and shown, never sent", false)
	}
	return statusCmd("shadow mode off: writes of file tools are sent (tools or sources marked shadow stay shadow)", false)
}

// toolFilesReloaded rebuilds the list after a reload and says what changed.
func (m *Model) toolFilesReloaded(msg toolFilesReloadedMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus("tools files not reloaded, the tools in place stay: "+msg.err.Error(), false)
		return nil
	}
	m.setStatus(msg.text, true)
	m.list.reload()
	return availabilityCmd(m.c, m.list.names())
}
