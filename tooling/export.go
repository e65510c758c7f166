package tooling

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// Format names an export format.
type Format string

const (
	FormatMCP       Format = "mcp"       // an MCP tools/list result
	FormatOpenAI    Format = "openai"    // OpenAI function tools
	FormatAnthropic Format = "anthropic" // Anthropic tools
)

// Formats lists the export formats.
func Formats() []Format { return []Format{FormatMCP, FormatOpenAI, FormatAnthropic} }

// ParseFormat parses "mcp", "openai" or "anthropic".
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if strings.EqualFold(string(f), s) {
			return f, nil
		}
	}
	return "", fmt.Errorf("tooling: unknown format %q (want mcp, openai or anthropic)", s)
}

// MCPAnnotations are the MCP tool annotations derived from Meta.
type MCPAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`    // no write or process effects
	DestructiveHint bool   `json:"destructiveHint"` // write or process effects at high safety
	IdempotentHint  bool   `json:"idempotentHint"`  // Meta.Idempotent
	OpenWorldHint   bool   `json:"openWorldHint"`   // network effects
}

// MCPTool is one tool of an MCP tools/list result.
type MCPTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  MCPAnnotations  `json:"annotations"`
}

// MCPToolList is the result of an MCP tools/list request.
type MCPToolList struct {
	Tools []MCPTool `json:"tools"`
}

// OpenAIFunction is the function of an OpenAI function tool.
type OpenAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// OpenAITool is one OpenAI function tool.
type OpenAITool struct {
	Type     string         `json:"type"` // "function"
	Function OpenAIFunction `json:"function"`
}

// AnthropicTool is one Anthropic tool.
type AnthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// ExportOptions select the tools to export. Tools that config disables
// (enabled, whitelist, blacklist, overrides) or at runtime are left out.
type ExportOptions struct {
	// Origin: only tools this origin may call. Zero: OriginLLM, since
	// exports are for language models.
	Origin Origin
	// Filter narrows further (its Origin is ignored).
	Filter Filter
}

func (r *Registry) exported(ctx context.Context, o ExportOptions) []*entry {
	if o.Origin == "" {
		o.Origin = OriginLLM
	}
	f := o.Filter
	f.Origin = o.Origin
	words := strings.Fields(strings.ToLower(f.Text))
	var out []*entry
	for _, e := range r.entries() {
		if e.disabledReason() == "" && e.matches(ctx, r, f, words) {
			out = append(out, e)
		}
	}
	return out
}

// MCPAnnotationsOf derives MCP annotations from a tool's Meta.
func MCPAnnotationsOf(t Tool) MCPAnnotations {
	m := &t.Meta
	changes := m.Effects.Any(EffectWrite | EffectProcess)
	return MCPAnnotations{
		Title:           t.Title,
		ReadOnlyHint:    !changes,
		DestructiveHint: changes && m.EffectiveSafety() == SafetyHigh,
		IdempotentHint:  m.Idempotent,
		OpenWorldHint:   m.Effects.Any(EffectNetwork),
	}
}

// ExportMCP returns the selected tools as an MCP tools/list result. MCP
// allows dots in names, so names are kept.
func (r *Registry) ExportMCP(ctx context.Context, o ExportOptions) MCPToolList {
	list := MCPToolList{Tools: []MCPTool{}}
	for _, e := range r.exported(ctx, o) {
		list.Tools = append(list.Tools, MCPTool{
			Name: e.tool.Name, Title: e.tool.Title, Description: e.tool.Description,
			InputSchema: inputSchema(e), OutputSchema: e.tool.Output, Annotations: MCPAnnotationsOf(e.tool),
		})
	}
	return list
}

// ExportOpenAI returns the selected tools as OpenAI function tools, named
// with ExportName.
func (r *Registry) ExportOpenAI(ctx context.Context, o ExportOptions) []OpenAITool {
	out := []OpenAITool{}
	for _, e := range r.exported(ctx, o) {
		out = append(out, OpenAITool{Type: "function", Function: OpenAIFunction{
			Name: ExportName(e.tool.Name), Description: e.tool.Description, Parameters: modelSchema(e),
		}})
	}
	return out
}

// ExportAnthropic returns the selected tools as Anthropic tools, named with
// ExportName.
func (r *Registry) ExportAnthropic(ctx context.Context, o ExportOptions) []AnthropicTool {
	out := []AnthropicTool{}
	for _, e := range r.exported(ctx, o) {
		out = append(out, AnthropicTool{Name: ExportName(e.tool.Name), Description: e.tool.Description, InputSchema: modelSchema(e)})
	}
	return out
}

// Export encodes the selected tools in format f as indented JSON.
func (r *Registry) Export(ctx context.Context, f Format, o ExportOptions) ([]byte, error) {
	var v any
	switch f {
	case FormatMCP:
		v = r.ExportMCP(ctx, o)
	case FormatOpenAI:
		v = r.ExportOpenAI(ctx, o)
	case FormatAnthropic:
		v = r.ExportAnthropic(ctx, o)
	default:
		return nil, fmt.Errorf("tooling: unknown format %q (want mcp, openai or anthropic)", f)
	}
	return jsonenc.MarshalIndent(v, "", "  ")
}

func inputSchema(e *entry) json.RawMessage {
	if len(e.tool.Input) == 0 {
		return emptyObjectSchema
	}
	return e.tool.Input
}

// modelSchema is the input schema without "$schema" and "$id", which model
// APIs do not need and some refuse.
func modelSchema(e *entry) json.RawMessage {
	obj, ok := e.in.doc.(map[string]any)
	if !ok {
		return inputSchema(e)
	}
	_, hasSchema := obj["$schema"]
	_, hasID := obj["$id"]
	if !hasSchema && !hasID {
		return inputSchema(e)
	}
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "$schema" && k != "$id" {
			c[k] = v
		}
	}
	b, err := jsonenc.Marshal(c)
	if err != nil {
		return inputSchema(e)
	}
	return b
}

// ExportProblem is one reason a tool would be refused by a format.
type ExportProblem struct {
	Tool    string `json:"tool"`
	Format  Format `json:"format"`
	Message string `json:"message"`
}

// ExportProblems checks every registered tool against the rules of each
// format: names, a root "type": "object", and no combinators at the root
// (OpenAI refuses anyOf, oneOf, allOf, enum and not there).
func (r *Registry) ExportProblems() []ExportProblem {
	var out []ExportProblem
	for _, e := range r.entries() {
		out = append(out, exportProblems(e)...)
	}
	return out
}

func exportProblems(e *entry) []ExportProblem {
	var out []ExportProblem
	add := func(f Format, format string, a ...any) {
		out = append(out, ExportProblem{Tool: e.tool.Name, Format: f, Message: fmt.Sprintf(format, a...)})
	}
	name := ExportName(e.tool.Name)
	if !wireName(e.tool.Name, 128, true) {
		add(FormatMCP, "name %q is not 1-128 letters, digits, '_', '-' or '.'", e.tool.Name)
	}
	for _, f := range []Format{FormatOpenAI, FormatAnthropic} {
		if !wireName(name, 64, false) {
			add(f, "exported name %q is not 1-64 letters, digits, '_' or '-'", name)
		}
	}
	obj, _ := e.in.doc.(map[string]any)
	for _, kw := range []string{"anyOf", "oneOf", "allOf", "enum", "not"} {
		if _, ok := obj[kw]; ok {
			add(FormatOpenAI, "input schema has %q at its root, which OpenAI refuses: move it into a property", kw)
		}
	}
	if e.out != nil {
		if o, ok := e.out.doc.(map[string]any); !ok || !typeIsObject(o["type"]) {
			add(FormatMCP, "output schema must have \"type\": \"object\" at its root (MCP structured content is an object)")
		}
	}
	if strings.TrimSpace(e.tool.Description) == "" {
		for _, f := range Formats() {
			add(f, "no description: models choose tools by their description")
		}
	}
	return out
}
