package preview

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// Tool is one entry of an MCP tools/list result.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *Annotations    `json:"annotations,omitempty"`
}

// Annotations are MCP tool annotations as a server sends them: an
// absent hint takes MCP's default (readOnlyHint false, destructiveHint
// true, idempotentHint false, openWorldHint true), the cautious reading.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

func hint(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// Add registers a tool described by data rather than Go code, such
// as a tool of another MCP server, in preview mode: calls go through every
// step of governance, and a call that passes validation returns its
// arguments (defaults filled in) instead of doing anything. Names are kept
// as given (MCP's grammar: letters, digits, '_', '-', '.'). Metadata comes
// from the annotations, read with MCP's defaults for absent hints: read-only
// tools run in parallel; the others are exclusive, with write effects (so
// they ask for consent), at high risk when destructive (the default);
// open-world ones (the default) have network effects. Every preview tool
// has the tag "preview".
func Add(r *tooling.Registry, p Tool) error { return add(r, p, "") }

// add is Add with the tool's source (tooling.Tool.Source).
func add(r *tooling.Registry, p Tool, source string) error {
	var a Annotations
	if p.Annotations != nil {
		a = *p.Annotations
	}
	meta := tooling.Meta{Concurrency: tooling.Exclusive, Effects: tooling.EffectWrite, Tags: []string{"preview"}, Idempotent: hint(a.IdempotentHint, false)}
	readOnly := hint(a.ReadOnlyHint, false)
	if readOnly {
		meta.Concurrency, meta.Effects = tooling.ReadOnly, tooling.EffectRead
	} else if hint(a.DestructiveHint, true) {
		meta.Safety = tooling.SafetyHigh
	} else {
		meta.Additive = true
	}
	if hint(a.OpenWorldHint, true) {
		meta.Effects |= tooling.EffectNetwork
	}
	if p.Title == "" {
		p.Title = a.Title
	}
	t := tooling.Tool{Name: p.Name, Title: p.Title, Description: p.Description, Input: p.InputSchema, Meta: meta, Source: source,
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			return map[string]any{"preview": true, "tool": c.Tool, "arguments": json.RawMessage(c.Raw())}, nil
		}}
	return r.AddNamedAsIs(t)
}

// Load adds, in preview mode (see Add), every tool of a
// JSON file shaped like an MCP tools/list result ({"tools": [...]}) or a
// bare array of tools. A tool that cannot be added (a bad name, a schema
// that does not compile, a duplicate) is reported as a *Error, one
// per tool (joined with errors.Join), and the others still load. A file
// that cannot be read or parsed is an error of another type, and then
// nothing loads. It returns how many loaded. Each tool's source is
// "tools:PATH", PATH made absolute.
func Load(r *tooling.Registry, path string) (int, error) {
	tools, err := Read(path)
	if err != nil {
		return 0, err
	}
	source := path
	if abs, err := filepath.Abs(path); err == nil {
		source = abs
	}
	var errs []error
	n := 0
	for i, p := range tools {
		if t, ok := r.Lookup(p.Name); ok && t.Name == p.Name {
			// Said plainly: the registry's own message is for a Go
			// package registered twice.
			where := "a tool of the program itself"
			if t.Source != "" {
				where = "from " + t.Source
			}
			errs = append(errs, &Error{File: path, Index: i + 1, Tool: p.Name,
				Err: fmt.Errorf("a tool with this name is already registered (%s): this one is left out", where)})
			continue
		}
		if err := add(r, p, "tools:"+source); err != nil {
			errs = append(errs, &Error{File: path, Index: i + 1, Tool: p.Name, Err: err})
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Error is a tool of a tools file that could not be added. Its
// message is one line: `tools file F: tool N "name": problem; problem`.
type Error struct {
	File  string
	Index int    // the tool's place in the file, from 1
	Tool  string // its name as the file gives it
	Err   error  // a *tooling.RegisterError
}

func (e *Error) Error() string {
	msg := e.Err.Error()
	var re *tooling.RegisterError
	if errors.As(e.Err, &re) {
		msg = strings.Join(re.Problems, "; ")
	}
	return fmt.Sprintf("tools file %s: tool %d %q: %s", e.File, e.Index, e.Tool, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Read reads the tools of a JSON file shaped like an MCP
// tools/list result, a whole JSON-RPC response holding one, or a bare array
// of tools, without adding them.
func Read(path string) ([]Tool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tools file: %w", err)
	}
	tools, err := parseList(data)
	if err != nil {
		return nil, fmt.Errorf("tools file %s: %w", path, err)
	}
	return tools, nil
}

func parseList(data []byte) ([]Tool, error) {
	data = bytes.TrimSpace(data)
	var tools []Tool
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &tools); err != nil {
			return nil, fmt.Errorf("not a JSON array of tools: %v", err)
		}
		return tools, nil
	}
	var list struct {
		Tools  *[]Tool         `json:"tools"`
		Result json.RawMessage `json:"result"` // a whole JSON-RPC response
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("not an MCP tools/list result: %v", err)
	}
	if list.Tools == nil && len(list.Result) > 0 {
		return parseList(list.Result)
	}
	if list.Tools == nil {
		return nil, errors.New(`no "tools" array: give an MCP tools/list result ({"tools": [...]}) or an array of tools`)
	}
	return *list.Tools, nil
}
