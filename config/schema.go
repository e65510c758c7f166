package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"github.com/toolexplorer/toolexplorer/internal/jsonschema"
	"github.com/toolexplorer/toolexplorer/internal/jsonschema/kind"
	"github.com/toolexplorer/toolexplorer/internal/pattern"
)

//go:embed schema.json
var schemaJSON []byte

// schemaID is the $id of schema.json.
const schemaID = "https://github.com/toolexplorer/toolexplorer/config/schema.json"

// Schema returns the JSON Schema (draft 2020-12) of the config file, a copy
// of the embedded schema.json.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// compiledSchema is schema.json compiled, with its decoded document for
// looking up the known keys of an object.
type compiledSchema struct {
	schema *jsonschema.Schema
	doc    any
}

// noLoader refuses every reference outside schema.json.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("config: schema.json may not refer to %s", url)
}

var loadSchema = sync.OnceValues(func() (*compiledSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("config: schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	c.UseRegexpEngine(func(expr string) (jsonschema.Regexp, error) {
		re, err := pattern.Compile(expr) // the engine of tool schemas, for one behaviour everywhere
		if err != nil {
			return nil, err
		}
		return re, nil
	})
	if err := c.AddResource(schemaID, doc); err != nil {
		return nil, fmt.Errorf("config: schema.json: %w", err)
	}
	s, err := c.Compile(schemaID)
	if err != nil {
		return nil, fmt.Errorf("config: schema.json: %w", err)
	}
	return &compiledSchema{schema: s, doc: doc}, nil
})

// validateSchema validates the document against schema.json and records a
// problem for every failing leaf.
func (p *problems) validateSchema(cs *compiledSchema, root any) {
	err := cs.schema.Validate(root)
	if err == nil {
		return
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		p.add("", "%v", err)
		return
	}
	p.schemaError(cs, root, ve)
}

func (p *problems) schemaError(cs *compiledSchema, root any, ve *jsonschema.ValidationError) {
	at := jsonpointer.Join(ve.InstanceLocation)
	v, _ := lookup(root, ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		known := cs.knownKeys(ve.SchemaURL)
		props := slices.Clone(k.Properties)
		sort.Strings(props)
		for _, key := range props {
			p.addKey(at+"/"+jsonpointer.Escape(key), "%s", unknownKeyMessage(key, known))
		}
	case *kind.PropertyNames:
		at = propertyNamesObject(root, ve, k.Property)
		msg := nameMessage(k.Property)
		if at == "/servers" || at == "/mcpServers" {
			msg = serverNameMessage(k.Property)
		}
		p.addKey(at+"/"+jsonpointer.Escape(k.Property), "%s", msg)
	case *kind.Enum:
		if v == "sse" && len(ve.InstanceLocation) == 3 && (ve.InstanceLocation[0] == "servers" || ve.InstanceLocation[0] == "mcpServers") && ve.InstanceLocation[2] == "type" {
			p.add(at, `is "sse", MCP's older HTTP transport, which toolexplorer does not speak: give the server's streamable HTTP endpoint as url (often ending in /mcp) and "type": "http"`)
			return
		}
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		p.add(at, "must be one of %s, got %s", strings.Join(want, ", "), jsonText(v))
	case *kind.Type:
		p.add(at, "%s", typeMessage(k.Want, v))
	case *kind.Pattern:
		p.add(at, "%s", patternFailure(ve.SchemaURL, k.Got))
	case *kind.Minimum:
		p.add(at, "must be at least %s, got %s", k.Want.RatString(), numberText(v, k.Got.RatString()))
	case *kind.Maximum:
		p.add(at, "must be at most %s, got %s", k.Want.RatString(), numberText(v, k.Got.RatString()))
	case *kind.ExclusiveMinimum:
		p.add(at, "must be greater than %s, got %s", k.Want.RatString(), numberText(v, k.Got.RatString()))
	case *kind.UniqueItems:
		item, _ := lookup(root, append(slices.Clone(ve.InstanceLocation), fmt.Sprint(k.Duplicates[1])))
		p.add(fmt.Sprintf("%s/%d", at, k.Duplicates[1]), "%s is listed twice (also at %s/%d)", jsonText(item), at, k.Duplicates[0])
	default:
		if len(ve.Causes) > 0 {
			for _, c := range ve.Causes {
				p.schemaError(cs, root, c)
			}
			return
		}
		p.add(at, "does not satisfy the schema's %q", strings.Join(k.KeywordPath(), "/"))
	}
}

// propertyNamesObject returns the pointer of the object holding the key
// that failed propertyNames. jsonschema v6.0.3 may report a stale
// InstanceLocation for propertyNames (it keeps a slice it later reuses), so
// the location is read off the schema path instead ("…/properties/tools/
// propertyNames" is the object at /tools) when that path leads to an object
// with the key.
func propertyNamesObject(root any, ve *jsonschema.ValidationError, key string) string {
	_, frag, _ := strings.Cut(ve.SchemaURL, "#")
	tokens := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	var inst []string
	for i := 0; i+1 < len(tokens); i += 2 {
		if tokens[i] != "properties" {
			inst = nil
			break
		}
		inst = append(inst, jsonpointer.Unescape(tokens[i+1]))
	}
	if obj, ok := lookup(root, inst); ok && inst != nil {
		if m, ok := obj.(map[string]any); ok {
			if _, ok := m[key]; ok {
				return jsonpointer.Join(inst)
			}
		}
	}
	return jsonpointer.Join(ve.InstanceLocation)
}

// knownKeys returns the properties of the object schema at schemaURL, which
// locates an additionalProperties keyword or its schema in schema.json.
func (cs *compiledSchema) knownKeys(schemaURL string) []string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	frag = strings.TrimSuffix(frag, "/additionalProperties")
	var tokens []string
	for t := range strings.SplitSeq(strings.TrimPrefix(frag, "/"), "/") {
		if t != "" {
			tokens = append(tokens, jsonpointer.Unescape(t))
		}
	}
	s, _ := lookup(cs.doc, tokens)
	obj, _ := s.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		if k != "$schema" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// typeMessage says which JSON type was wanted instead of the one of got.
func typeMessage(want []string, got any) string {
	w := make([]string, len(want))
	for i, t := range want {
		w[i] = article(t) + " " + t
	}
	g := jsonKind(got)
	if n, ok := got.(json.Number); ok && slices.Contains(want, "integer") {
		g = n.String()
	}
	return fmt.Sprintf("must be %s, got %s", strings.Join(w, " or "), g)
}

func article(t string) string {
	switch t {
	case "array", "integer", "object":
		return "an"
	}
	return "a"
}

// patternFailure explains a string that failed the pattern of the schema at
// schemaURL.
func patternFailure(schemaURL, got string) string {
	switch {
	case strings.HasSuffix(schemaURL, "/$defs/duration"):
		if d, err := time.ParseDuration(got); err == nil && d <= 0 {
			return fmt.Sprintf("must be a positive duration, got %q", got)
		}
		return durationMessage(got)
	case strings.HasSuffix(schemaURL, "/$defs/name"):
		return nameMessage(got)
	case strings.HasSuffix(schemaURL, "/$defs/pattern"):
		return patternMessage(got)
	case strings.HasSuffix(schemaURL, "/$defs/serverName"):
		return serverNameMessage(got)
	case strings.HasSuffix(schemaURL, "/$defs/server/properties/url"):
		return fmt.Sprintf("must be an http:// or https:// URL, got %q", got)
	case strings.HasSuffix(schemaURL, "/$defs/path"), strings.HasSuffix(schemaURL, "/$defs/absolutePath"):
		if strings.ContainsRune(got, 0) {
			return nulMessage(got)
		}
		return absoluteMessage(got)
	}
	return fmt.Sprintf("%q does not match the pattern of %s", got, schemaURL)
}

// numberText spells a number as the file did.
func numberText(v any, fallback string) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	return fallback
}

// jsonText spells a decoded value as JSON.
func jsonText(v any) string {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
