package lint

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
)

type finding struct{ path, msg string }

// schemaLint walks an input schema and collects what a model or a person
// filling the arguments would trip over.
type schemaLint struct {
	root  any
	found []finding
}

func (c *schemaLint) add(path, format string, args ...any) {
	c.found = append(c.found, finding{path, fmt.Sprintf(format, args...)})
}

// root1 checks what only matters at the root.
func (c *schemaLint) root1(doc any) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return
	}
	props, _ := obj["properties"].(map[string]any)
	if len(props) == 0 {
		return
	}
	if obj["additionalProperties"] != false && obj["unevaluatedProperties"] != false {
		c.add("", "additionalProperties is not false: unknown or misspelled arguments pass validation silently")
	}
}

var (
	// subschemaKeys hold one schema.
	subschemaKeys = []string{"items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
		"contains", "propertyNames", "not", "if", "then", "else"}
	// listKeys hold an array of schemas.
	listKeys = []string{"prefixItems", "items", "anyOf", "oneOf", "allOf"}
	// mapKeys hold schemas by name.
	mapKeys = []string{"$defs", "definitions", "patternProperties", "dependentSchemas"}
)

func (c *schemaLint) walk(node any, ptr string) {
	obj, ok := node.(map[string]any)
	if !ok {
		return
	}
	props, _ := obj["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := obj["required"].([]any); ok {
		for _, r := range req {
			name, _ := r.(string)
			required[name] = true
			if props != nil {
				if _, ok := props[name]; !ok {
					c.add(ptr+"/required", "%q is required but is not among the properties", name)
				}
			}
		}
	}
	for _, name := range sortedKeys(props) {
		p := props[name]
		at := ptr + "/properties/" + jsonpointer.Escape(name)
		if !c.described(p) {
			c.add(at, "no description: models fill arguments from their descriptions")
		}
		if po, ok := p.(map[string]any); ok {
			if def, has := po["default"]; has {
				if required[name] {
					c.add(at+"/default", "the property is required, so its default never applies")
				}
				c.checkDefault(po, def, at+"/default")
			}
		}
		c.walk(p, at)
	}
	for _, k := range subschemaKeys {
		if sub, ok := obj[k].(map[string]any); ok {
			c.walk(sub, ptr+"/"+k)
		}
	}
	for _, k := range listKeys {
		if list, ok := obj[k].([]any); ok {
			for i, sub := range list {
				c.walk(sub, fmt.Sprintf("%s/%s/%d", ptr, k, i))
			}
		}
	}
	for _, k := range mapKeys {
		if m, ok := obj[k].(map[string]any); ok {
			for _, name := range sortedKeys(m) {
				c.walk(m[name], ptr+"/"+k+"/"+jsonpointer.Escape(name))
			}
		}
	}
}

// described reports whether a property schema has a description, itself or
// through a local $ref.
func (c *schemaLint) described(p any) bool {
	for range 8 {
		obj, ok := p.(map[string]any)
		if !ok {
			return false
		}
		if d, _ := obj["description"].(string); strings.TrimSpace(d) != "" {
			return true
		}
		ref, _ := obj["$ref"].(string)
		if !strings.HasPrefix(ref, "#") {
			return false
		}
		p = resolvePointer(c.root, strings.TrimPrefix(ref, "#"))
	}
	return false
}

// checkDefault reports a default that its own schema's type or enum refuses.
func (c *schemaLint) checkDefault(schema map[string]any, def any, at string) {
	if types := typeList(schema["type"]); len(types) > 0 {
		got := jsonType(def)
		ok := false
		for _, t := range types {
			ok = ok || t == got || t == "number" && got == "integer"
		}
		if !ok {
			c.add(at, "the default %s is %s, but the type is %s", compactJSON(def), got, strings.Join(types, " or "))
		}
	}
	if enum, ok := schema["enum"].([]any); ok {
		want := compactJSON(def)
		for _, e := range enum {
			if compactJSON(e) == want {
				return
			}
		}
		c.add(at, "the default %s is not one of the enum values", want)
	}
}

func typeList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, t := range v {
			if s, ok := t.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func typeIs(v any, want string) bool {
	t := typeList(v)
	return len(t) == 1 && t[0] == want
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	}
	return "unknown"
}

func compactJSON(v any) string {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// resolvePointer follows a JSON pointer from root; nil when it leads nowhere.
func resolvePointer(root any, ptr string) any {
	if ptr == "" {
		return root
	}
	node := root
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = jsonpointer.Unescape(tok)
		obj, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = obj[tok]
	}
	return node
}
