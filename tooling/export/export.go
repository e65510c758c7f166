package export

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/tooling"
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
	return "", fmt.Errorf("export: unknown format %q (want mcp, openai or anthropic)", s)
}

// MCPAnnotations are the MCP tool annotations derived from Meta.
type MCPAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`    // no write or process effects
	DestructiveHint bool   `json:"destructiveHint"` // write or process effects, unless Meta.Additive (and no process)
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

// Options select the tools to export. Tools that config disables
// (enabled, whitelist, blacklist, overrides) or at runtime are left out,
// and so are paused tools; a deprecated tool's description begins with
// "Deprecated: use REPLACEMENT instead." (tooling.StateDeprecated).
type Options struct {
	// Origin: only tools this origin may call. Zero: tooling.OriginLLM,
	// since exports are for language models.
	Origin tooling.Origin
	// Filter narrows further (its Origin is ignored).
	Filter tooling.Filter
}

// selected lists the enabled tools of r that o selects, sorted by name.
func selected(ctx context.Context, r *tooling.Registry, o Options) []tooling.Tool {
	if o.Origin == "" {
		o.Origin = tooling.OriginLLM
	}
	f := o.Filter
	f.Origin = o.Origin
	var out []tooling.Tool
	for _, t := range r.List(ctx, f) {
		p, err := r.Policy(t.Name)
		if err != nil || !p.Enabled || p.State == tooling.StatePaused {
			continue
		}
		if p.State == tooling.StateDeprecated {
			t.Description = Deprecation(p) + " " + t.Description
		}
		out = append(out, t)
	}
	return out
}

// Annotations derives MCP annotations from a tool's Meta.
func Annotations(t tooling.Tool) MCPAnnotations {
	m := &t.Meta
	changes := m.Effects&(tooling.EffectWrite|tooling.EffectProcess) != 0
	return MCPAnnotations{
		Title:           t.Title,
		ReadOnlyHint:    !changes,
		DestructiveHint: changes && (!m.Additive || m.Effects&tooling.EffectProcess != 0),
		IdempotentHint:  m.Idempotent,
		OpenWorldHint:   m.Effects&tooling.EffectNetwork != 0,
	}
}

// MCPToolOf is t as one tool of an MCP tools/list result. MCP allows dots
// in names, so the name is kept.
func MCPToolOf(t tooling.Tool) MCPTool {
	return MCPTool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: InputSchema(t), OutputSchema: t.Output, Annotations: Annotations(t)}
}

// OpenAIToolOf is t as an OpenAI function tool, named with toolname.Export.
func OpenAIToolOf(t tooling.Tool) OpenAITool {
	return OpenAITool{Type: "function", Function: OpenAIFunction{
		Name: toolname.Export(t.Name), Description: t.Description, Parameters: modelSchema(t)}}
}

// MCP returns the tools of r that o selects as an MCP tools/list result.
func MCP(ctx context.Context, r *tooling.Registry, o Options) MCPToolList {
	list := MCPToolList{Tools: []MCPTool{}}
	for _, t := range selected(ctx, r, o) {
		list.Tools = append(list.Tools, MCPToolOf(t))
	}
	return list
}

// OpenAI returns the tools of r that o selects as OpenAI function tools,
// named with toolname.Export.
func OpenAI(ctx context.Context, r *tooling.Registry, o Options) []OpenAITool {
	out := []OpenAITool{}
	for _, t := range selected(ctx, r, o) {
		out = append(out, OpenAIToolOf(t))
	}
	return out
}

// Anthropic returns the tools of r that o selects as Anthropic tools,
// named with toolname.Export.
func Anthropic(ctx context.Context, r *tooling.Registry, o Options) []AnthropicTool {
	out := []AnthropicTool{}
	for _, t := range selected(ctx, r, o) {
		out = append(out, AnthropicTool{Name: toolname.Export(t.Name), Description: t.Description, InputSchema: modelSchema(t)})
	}
	return out
}

// Encode encodes the tools of r that o selects in format f as indented
// JSON.
func Encode(ctx context.Context, r *tooling.Registry, f Format, o Options) ([]byte, error) {
	var v any
	switch f {
	case FormatMCP:
		v = MCP(ctx, r, o)
	case FormatOpenAI:
		v = OpenAI(ctx, r, o)
	case FormatAnthropic:
		v = Anthropic(ctx, r, o)
	default:
		return nil, fmt.Errorf("export: unknown format %q (want mcp, openai or anthropic)", f)
	}
	return jsonenc.MarshalIndent(v, "", "  ")
}

// emptyObjectSchema is the input schema of a tool without one.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// InputSchema is t's input schema as exported: an object schema without
// properties when the tool has none.
func InputSchema(t tooling.Tool) json.RawMessage {
	if len(t.Input) == 0 {
		return emptyObjectSchema
	}
	return t.Input
}

// decodeObject decodes a schema document, numbers kept as written; nil
// when it is not an object.
func decodeObject(b []byte) map[string]any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var obj map[string]any
	if d.Decode(&obj) != nil {
		return nil
	}
	return obj
}

// modelSchema is the input schema without "$schema" and "$id", which model
// APIs do not need and some refuse.
func modelSchema(t tooling.Tool) json.RawMessage {
	obj := decodeObject(t.Input)
	if obj == nil {
		return InputSchema(t)
	}
	_, hasSchema := obj["$schema"]
	_, hasID := obj["$id"]
	if !hasSchema && !hasID {
		return InputSchema(t)
	}
	delete(obj, "$schema")
	delete(obj, "$id")
	b, err := jsonenc.Marshal(obj)
	if err != nil {
		return InputSchema(t)
	}
	return b
}

// Deprecation is the sentence a deprecated tool's exported description
// begins with: "Deprecated: use REPLACEMENT instead." and the reason.
func Deprecation(p tooling.Policy) string {
	s := "Deprecated"
	if p.Replacement != "" {
		s += ": use " + p.Replacement + " instead"
	}
	s += "."
	if p.StateReason != "" {
		s += " " + p.StateReason
		if !strings.HasSuffix(p.StateReason, ".") {
			s += "."
		}
	}
	return s
}
