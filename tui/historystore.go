package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/history/collection"
)

// keepCmd appends a finished call to the history store, in the
// background: the file is locked while it is trimmed, and Update never
// waits for a disk. A failure is a status line.
func (c *common) keepCmd(rec *callRecord) tea.Cmd {
	if c.store == nil || rec.result == nil {
		return nil
	}
	e := history.Entry{Time: rec.started, Tool: rec.tool, Origin: rec.origin(), Consent: rec.consent,
		Via: history.ViaConsole, Config: c.configFile, ToolsFiles: c.toolsFiles, ToolDirs: c.toolDirs, Demo: c.demo, Result: rec.result, IdempotencyKey: rec.idemKey}
	var schema []byte
	if t, ok := c.reg.Lookup(rec.tool); ok {
		schema, e.Source = t.Input, t.Source
		e.Server = serverFlag(c.serverFlags, t.Source)
	}
	e.SetArgs(schema, rec.args)
	if rec.env != "" {
		// The arguments keep their {{variable}} references; a secret's value
		// that the tool echoed is redacted in the result.
		e.Env = rec.env
		e.RedactValues(collection.Resolve(rec.env, c.envs[rec.env], c.getenv).Secrets())
	}
	store := c.store
	return func() tea.Msg {
		if err := store.Append(e); err != nil {
			return statusMsg{text: "the call is not kept in the history: " + err.Error(), isErr: true}
		}
		return nil
	}
}
