package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// argPairs is the repeatable --arg key=value flag.
type argPairs []string

func (p *argPairs) String() string { return strings.Join(*p, " ") }

// Get makes argPairs a flag.Getter, as the standard flags are.
func (p *argPairs) Get() any { return []string(*p) }

func (p *argPairs) Set(s string) error {
	k, _, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	*p = append(*p, s)
	return nil
}

// applyArgPairs sets each key=value of pairs in the object base (nil or
// empty: {}), the value typed by the type of the property in the input
// schema: "3" is 3 for an integer or number, "true" is true for a
// boolean, JSON for an object or array, the text itself for a string. A
// property the schema does not type takes the value as JSON when it is a
// number, boolean, null, object or array, else as a string. Later pairs
// win over earlier ones and over base.
func applyArgPairs(base json.RawMessage, schema json.RawMessage, pairs []string) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(base)) > 0 {
		if err := json.Unmarshal(base, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("--arg adds to a JSON object, and the arguments given are not one")
		}
	}
	types := propertyTypes(schema)
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		val, err := typedArg(types[k], v)
		if err != nil {
			return nil, fmt.Errorf("--arg %s: %v", k, err)
		}
		obj[k] = val
	}
	return json.Marshal(obj)
}

// propertyTypes maps each property of an object schema to its JSON type:
// the first of a list that is not "null", "" when the schema does not say.
func propertyTypes(schema json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	out := make(map[string]string, len(s.Properties))
	for name, p := range s.Properties {
		var one string
		var many []string
		switch {
		case json.Unmarshal(p.Type, &one) == nil:
		case json.Unmarshal(p.Type, &many) == nil:
			for _, t := range many {
				if t != "null" {
					one = t
					break
				}
			}
		}
		out[name] = one
	}
	return out
}

// typedArg is the text v as a JSON value of type typ ("" for untyped).
func typedArg(typ, v string) (json.RawMessage, error) {
	switch typ {
	case "string":
		return json.Marshal(v)
	case "integer":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return nil, fmt.Errorf("%q is not an integer", v)
		}
		return json.RawMessage(v), nil
	case "number":
		if _, err := strconv.ParseFloat(v, 64); err != nil || !json.Valid([]byte(v)) {
			return nil, fmt.Errorf("%q is not a number", v)
		}
		return json.RawMessage(v), nil
	case "boolean":
		if v != "true" && v != "false" {
			return nil, fmt.Errorf("%q is not a boolean: use true or false", v)
		}
		return json.RawMessage(v), nil
	case "null":
		if v != "null" {
			return nil, fmt.Errorf("%q is not null", v)
		}
		return json.RawMessage(v), nil
	case "object", "array":
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			return nil, fmt.Errorf("%q is not JSON: %v", v, err)
		}
		_, isObj := x.(map[string]any)
		_, isArr := x.([]any)
		if typ == "object" && !isObj || typ == "array" && !isArr {
			return nil, fmt.Errorf("%q is not a JSON %s", v, typ)
		}
		return json.RawMessage(v), nil
	}
	// Untyped: JSON when it is a JSON value other than a string.
	t := strings.TrimSpace(v)
	if t != "" && t[0] != '"' && json.Valid([]byte(t)) {
		return json.RawMessage(t), nil
	}
	return json.Marshal(v)
}
