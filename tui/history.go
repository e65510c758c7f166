package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// historyScreen lists this session's calls, newest first: re-run one,
// edit and re-run it, or copy it as a command line, as Go or as an MCP
// tools/call message.
type historyScreen struct {
	c      *common
	keys   historyKeys
	cursor int // 0 is the newest call
	offset int
	copied string // the text last copied, shown in a panel
	format string // what it was copied as
	w, h   int
}

func newHistoryScreen(c *common) *historyScreen {
	return &historyScreen{c: c, keys: newHistoryKeys()}
}

func (h *historyScreen) Title() string { return "History" }

func (h *historyScreen) Typing() bool { return false }

func (h *historyScreen) KeyMap() help.KeyMap { return h.keys }

func (h *historyScreen) SetSize(w, ht int) {
	h.w, h.h = w, ht
	h.clamp()
}

func (h *historyScreen) Show() tea.Cmd {
	h.cursor = 0
	h.offset = 0
	return nil
}

func (h *historyScreen) Hide() {}

// selected returns the call under the cursor.
func (h *historyScreen) selected() (*callRecord, bool) {
	n := len(h.c.history)
	if h.cursor < 0 || h.cursor >= n {
		return nil, false
	}
	return h.c.history[n-1-h.cursor], true
}

func (h *historyScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			h.cursor -= 3
		case tea.MouseWheelDown:
			h.cursor += 3
		}
		h.clamp()
	case tea.KeyPressMsg:
		k := h.keys
		switch {
		case key.Matches(msg, k.Up):
			h.cursor--
		case key.Matches(msg, k.Down):
			h.cursor++
		case key.Matches(msg, k.Top):
			h.cursor = 0
		case key.Matches(msg, k.Bottom):
			h.cursor = len(h.c.history) - 1
		case key.Matches(msg, k.PageUp):
			h.cursor -= h.rows()
		case key.Matches(msg, k.PageDown):
			h.cursor += h.rows()
		case key.Matches(msg, k.Rerun):
			if rec, ok := h.selected(); ok {
				return openRunCmd(rec.tool, rec.args, true)
			}
		case key.Matches(msg, k.Edit):
			if rec, ok := h.selected(); ok {
				return openRunCmd(rec.tool, rec.args, false)
			}
		case key.Matches(msg, k.CopyCLI):
			return h.copy("command line", commandLine)
		case key.Matches(msg, k.CopyGo):
			return h.copy("Go", goCall)
		case key.Matches(msg, k.CopyMCP):
			return h.copy("MCP tools/call", mcpCall)
		case msg.String() == "esc":
			return backCmd
		}
		h.clamp()
	}
	return nil
}

// copy puts the selected call, formatted, on the clipboard (OSC 52) and in
// the panel, for terminals that ignore OSC 52.
func (h *historyScreen) copy(format string, f func(*callRecord, *tooling.Tool, *common) string) tea.Cmd {
	rec, ok := h.selected()
	if !ok {
		return statusCmd("no call to copy yet", true)
	}
	t, _ := h.c.reg.Lookup(rec.tool)
	h.copied, h.format = f(rec, &t, h.c), format
	h.clamp()
	return tea.Batch(tea.SetClipboard(h.copied), statusCmd("copied call "+strconv.Itoa(rec.seq)+" as "+format, false))
}

// panelLines is the height of the copy panel.
func (h *historyScreen) panelLines() int {
	if h.copied == "" {
		return 0
	}
	return strings.Count(h.panel(), "\n") + 2
}

func (h *historyScreen) panel() string {
	st := h.c.styles
	text := ansi.Wrap(h.copied, max(h.w-4, 20), "")
	lines := strings.Split(text, "\n")
	if len(lines) > 6 {
		lines = append(lines[:6], "…")
	}
	title := st.Label.Render("Copied as " + h.format + " (also sent to the clipboard with OSC 52):")
	return title + "\n" + st.Panel.Width(max(h.w, 20)).Render(strings.Join(lines, "\n"))
}

func (h *historyScreen) rows() int { return max(h.h-1-h.panelLines(), 1) }

func (h *historyScreen) clamp() {
	n := len(h.c.history)
	h.cursor = min(max(h.cursor, 0), max(n-1, 0))
	rows := h.rows()
	if h.cursor < h.offset {
		h.offset = h.cursor
	}
	if h.cursor >= h.offset+rows {
		h.offset = h.cursor - rows + 1
	}
	h.offset = max(min(h.offset, n-rows), 0)
}

func (h *historyScreen) View() string {
	st := h.c.styles
	n := len(h.c.history)
	if n == 0 {
		return st.Subtle.Render("no calls yet: choose a tool, press r, then ctrl+s to run it")
	}
	toolW := 4
	for _, rec := range h.c.history {
		toolW = max(toolW, len(rec.tool))
	}
	toolW = min(toolW, max(h.w/4, 12))
	const numW, resultW, timeW = 4, 22, 9
	var b strings.Builder
	b.WriteString(st.Faint.Render(cut("  "+padLeft("#", numW)+"  "+pad("TOOL", toolW)+"  "+pad("RESULT", resultW)+" "+padLeft("TIME", timeW)+"  ARGS", h.w)))
	end := min(h.offset+h.rows(), n)
	for row := h.offset; row < end; row++ {
		rec := h.c.history[n-1-row]
		marker := "  "
		if row == h.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		result, took := "… running", ""
		if res := rec.result; res != nil {
			took = formatDuration(res.Wait + res.Run)
			switch res.Status {
			case tooling.StatusOK:
				result = st.OK.Render("✓ ok")
			case tooling.StatusDenied:
				result = st.Err.Render("⊘ " + string(res.Code))
			default:
				result = st.Err.Render("✗ " + string(res.Code))
			}
		}
		if rec.consent {
			result += st.Faint.Render(" +consent")
		}
		line := marker + padLeft(strconv.Itoa(rec.seq), numW) + "  " + pad(rec.tool, toolW) + "  " + pad(result, resultW) + " " + padLeft(took, timeW) + "  "
		line += st.Subtle.Render(cut(termtext.Line(string(rec.args)), max(h.w-ansi.StringWidth(line), 0)))
		b.WriteByte('\n')
		b.WriteString(line)
	}
	if h.copied != "" {
		for i := end - h.offset; i < h.rows(); i++ {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
		b.WriteString(h.panel())
	}
	return b.String()
}

// The copy formats. Each reproduces the call as the console made it:
// with consent when the person consented; the command line as origin ui,
// the Go call as origin ui when the tool does not accept the default
// origin of a program (app).

// commandLine formats a call as a toolexplorer command line, quoted for a
// POSIX shell. It is the call the console made: as origin ui, with the
// tools file and the config file the console was started with.
func commandLine(rec *callRecord, _ *tooling.Tool, c *common) string {
	var b strings.Builder
	b.WriteString("toolexplorer run ")
	b.WriteString(shellQuoteName(rec.tool))
	b.WriteString(" --args ")
	b.WriteString(shellQuote(string(callArgs(rec))))
	b.WriteString(" --origin ui")
	if rec.consent {
		b.WriteString(" --consent")
	}
	if c.toolsFile != "" {
		b.WriteString(" --tools " + shellQuotePath(c.toolsFile))
	}
	if c.configFile != "" {
		b.WriteString(" --config " + shellQuotePath(c.configFile))
	}
	return b.String()
}

// goCall formats a call as a call of tooling.ExecuteTool.
func goCall(rec *callRecord, t *tooling.Tool, _ *common) string {
	args := string(callArgs(rec))
	lit := "`" + args + "`"
	if strings.Contains(args, "`") {
		lit = strconv.Quote(args)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tooling.ExecuteTool(ctx, %s, json.RawMessage(%s)", strconv.Quote(rec.tool), lit)
	if needsUIOrigin(t) {
		b.WriteString(", tooling.WithOrigin(tooling.OriginUI)")
	}
	if rec.consent {
		b.WriteString(", tooling.WithConsent()")
	}
	b.WriteString(")")
	return b.String()
}

// mcpCall formats a call as an MCP tools/call JSON-RPC request, with the
// call's number as its id.
func mcpCall(rec *callRecord, _ *tooling.Tool, _ *common) string {
	name, _ := jsonenc.Marshal(rec.tool)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":%s}}`, rec.seq, name, callArgs(rec))
}

// callArgs are a call's arguments as compact JSON; none is {}.
func callArgs(rec *callRecord) json.RawMessage {
	if len(bytes.TrimSpace(rec.args)) == 0 || string(bytes.TrimSpace(rec.args)) == "null" {
		return json.RawMessage(`{}`)
	}
	return compactJSON(rec.args)
}

func needsUIOrigin(t *tooling.Tool) bool {
	return t != nil && !t.Meta.AllowsOrigin(tooling.OriginApp) && t.Meta.AllowsOrigin(tooling.OriginUI)
}

// shellQuote quotes s for a POSIX shell: in single quotes, where each
// single quote inside becomes a closing quote, an escaped quote and an
// opening quote.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellQuoteName leaves a tool name bare when the shell reads it as it is.
// shellQuotePath quotes a file name for a POSIX shell when it needs it.
func shellQuotePath(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-/+,:@", c)) {
			return shellQuote(s)
		}
	}
	return s
}

func shellQuoteName(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return shellQuote(s)
		}
	}
	return s
}
