package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// The copy formats. Each reproduces the call as the console made it:
// with consent when the person consented; the command line as origin ui,
// the Go call as origin ui when the tool does not accept the default
// origin of a program (app).

// commandLine formats a call as a toolexplorer command line, quoted for a
// POSIX shell. It is the call as it was made: as origin ui, with the
// tools files, the demo shop, the tools file and the config file it was
// made with (a kept call's own, else the console's), and for a call of
// an MCP server's tool the --server that gave the server (a kept call's
// own, else the console's).
func commandLine(rec *callRecord, t *tooling.Tool, c *common) string {
	toolsFiles, configFile, dirs, demo := c.toolsFiles, c.configFile, c.toolDirs, c.demo
	server := ""
	if t != nil {
		server = serverFlag(c.serverFlags, t.Source)
	}
	if e := rec.kept; e != nil {
		toolsFiles, configFile, dirs, demo, server = e.ToolsFiles, e.Config, e.ToolDirs, e.Demo, e.Server
		if len(toolsFiles) == 0 && e.ToolsFile != "" {
			toolsFiles = []string{e.ToolsFile} // kept before there could be several
		}
		if len(dirs) == 0 && !demo && strings.HasPrefix(e.Source, "file:") {
			// Kept before the tools files were: the tool's own file.
			dirs = []string{strings.TrimPrefix(e.Source, "file:")}
		}
	}
	var b strings.Builder
	b.WriteString("toolexplorer ")
	if demo {
		b.WriteString("--demo ")
	}
	b.WriteString("run ")
	b.WriteString(shellQuoteName(rec.tool))
	b.WriteString(" --args ")
	b.WriteString(shellQuote(string(callArgs(rec))))
	b.WriteString(" --origin " + string(rec.origin()))
	if rec.consent {
		b.WriteString(" --consent")
	}
	if rec.idemKey != "" {
		b.WriteString(" --idempotency-key " + shellQuote(rec.idemKey))
	}
	if rec.env != "" {
		// The arguments keep their {{variable}} references: run fills them
		// from the environment, never from a secret's value written here.
		b.WriteString(" --env " + shellQuotePath(rec.env))
	}
	for _, d := range dirs {
		b.WriteString(" --tools-dir " + shellQuotePath(d))
	}
	if server != "" {
		b.WriteString(" --server " + shellQuotePath(server))
	}
	for _, f := range toolsFiles {
		b.WriteString(" --tools " + shellQuotePath(f))
	}
	if configFile != "" {
		b.WriteString(" --config " + shellQuotePath(configFile))
	}
	return b.String()
}

// serverFlag is the flag among flags (NAME=COMMAND... or NAME=URL) that
// gave the MCP server of a tool from source, "" for none.
func serverFlag(flags []string, source string) string {
	name, ok := strings.CutPrefix(source, "mcp:")
	if !ok {
		return ""
	}
	for _, f := range flags {
		if strings.HasPrefix(f, name+"=") {
			return f
		}
	}
	return ""
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
	switch o := rec.origin(); {
	case o == tooling.OriginUI && needsUIOrigin(t):
		b.WriteString(", tooling.WithOrigin(tooling.OriginUI)")
	case o != tooling.OriginUI && o != tooling.OriginApp:
		fmt.Fprintf(&b, ", tooling.WithOrigin(%q)", o)
	}
	if rec.consent {
		b.WriteString(", tooling.WithConsent()")
	}
	if rec.idemKey != "" {
		fmt.Fprintf(&b, ", tooling.WithIdempotencyKey(%s)", strconv.Quote(rec.idemKey))
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
	return t != nil && len(t.Meta.Origins) > 0 && !slices.Contains(t.Meta.Origins, tooling.OriginApp) && slices.Contains(t.Meta.Origins, tooling.OriginUI)
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
