package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/internal/wirename"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/export"
)

// Problem is one finding.
type Problem struct {
	// Tool is the tool at fault, "" for a finding about no one tool.
	Tool string `json:"tool,omitempty"`
	// Check is the kind of finding: "export", "meta", "input" or "output"
	// here; the lint command adds "config", "tools_file" and "form".
	Check string `json:"check"`
	// Formats are the export formats concerned, for check "export" (and
	// "output", which concerns MCP).
	Formats []string `json:"formats,omitempty"`
	// Path is a JSON pointer into the tool's input or output schema.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// String is the problem in one line: "demo.echo: input schema
// /properties/text: no description: ...".
func (p Problem) String() string {
	var b strings.Builder
	if p.Tool != "" {
		b.WriteString(p.Tool)
		b.WriteString(": ")
	}
	switch p.Check {
	case "export":
		b.WriteString(strings.Join(p.Formats, ", "))
		b.WriteString(": ")
	case "form":
		b.WriteString("form ")
		b.WriteString(p.Path)
		b.WriteString(": ")
	case "tools_file":
		b.WriteString(p.Path)
		b.WriteString(": ")
	case "input", "output":
		b.WriteString(p.Check)
		b.WriteString(" schema")
		if p.Path != "" {
			b.WriteString(" ")
			b.WriteString(p.Path)
		}
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Registry returns the problems of every tool of r, by tool name.
func Registry(r *tooling.Registry) []Problem {
	var out []Problem
	for _, t := range r.List(context.Background(), tooling.Filter{}) {
		out = append(out, Tool(t)...)
	}
	return out
}

// maxModelDescription is the longest function description OpenAI accepts.
const maxModelDescription = 1024

// Tool returns the problems of one tool, in order: export, meta, input,
// output. An export problem that concerns several formats is one problem
// naming them all.
func Tool(t tooling.Tool) []Problem {
	out := exportProblems(t)
	meta := func(format string, args ...any) {
		out = append(out, Problem{Tool: t.Name, Check: "meta", Message: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(t.Title) == "" {
		meta("no title: the console and MCP clients show tools by their title")
	}
	if n := utf8.RuneCountInString(t.Description); n > maxModelDescription {
		meta("the description is %d characters long, over the %d OpenAI accepts", n, maxModelDescription)
	}
	seen := map[string]bool{}
	for _, tag := range t.Meta.Tags {
		switch {
		case strings.TrimSpace(tag) == "":
			meta("Meta.Tags has an empty tag")
		case seen[tag]:
			meta("Meta.Tags has %q twice", tag)
		}
		seen[tag] = true
	}

	if len(t.Input) > 0 {
		if doc, ok := decodeSchema(t.Input); ok {
			c := &schemaLint{root: doc}
			c.root1(doc)
			c.walk(doc, "")
			for _, f := range c.found {
				out = append(out, Problem{Tool: t.Name, Check: "input", Path: f.path, Message: f.msg})
			}
		}
	}
	if len(t.Output) > 0 {
		if doc, ok := decodeSchema(t.Output); !ok || !isObjectSchema(doc) {
			out = append(out, Problem{Tool: t.Name, Check: "output", Formats: []string{string(export.FormatMCP)},
				Message: "the root is not \"type\": \"object\": MCP requires an outputSchema to describe an object (wrap the value in a property)"})
		}
	}
	return out
}

// exportProblems checks t against the rules of each export format: names,
// no combinator at the root of the input schema (OpenAI refuses anyOf,
// oneOf, allOf, enum and not there), and a description.
func exportProblems(t tooling.Tool) []Problem {
	var out []Problem
	add := func(f export.Format, format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		for i := range out {
			if out[i].Message == msg {
				out[i].Formats = append(out[i].Formats, string(f))
				return
			}
		}
		out = append(out, Problem{Tool: t.Name, Check: "export", Formats: []string{string(f)}, Message: msg})
	}
	if !wirename.Valid(t.Name, 128, true) {
		add(export.FormatMCP, "name %q is not 1-128 letters, digits, '_', '-' or '.'", t.Name)
	}
	name := toolname.Export(t.Name)
	for _, f := range []export.Format{export.FormatOpenAI, export.FormatAnthropic} {
		if !wirename.Valid(name, 64, false) {
			add(f, "exported name %q is not 1-64 letters, digits, '_' or '-'", name)
		}
	}
	if doc, ok := decodeSchema(t.Input); ok {
		obj, _ := doc.(map[string]any)
		for _, kw := range []string{"anyOf", "oneOf", "allOf", "enum", "not"} {
			if _, ok := obj[kw]; ok {
				add(export.FormatOpenAI, "input schema has %q at its root, which OpenAI refuses: move it into a property", kw)
			}
		}
	}
	if strings.TrimSpace(t.Description) == "" {
		for _, f := range export.Formats() {
			add(f, "no description: models choose tools by their description")
		}
	}
	return out
}

// isObjectSchema reports whether a schema document says "type": "object"
// (alone, or as the one type of a list) at its root.
func isObjectSchema(doc any) bool {
	obj, ok := doc.(map[string]any)
	return ok && typeIs(obj["type"], "object")
}

// decodeSchema decodes a schema with numbers kept exact.
func decodeSchema(raw json.RawMessage) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}
