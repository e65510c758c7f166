package policy

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cedar-policy/cedar-go"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// The Cedar schema a registry's tools make (CedarSchema). Principals are
// users, members of their roles and tenant; the resource is the tool; the
// action is the tool's name, in the action group of the tool's first name
// segment ("shop" for "shop.refund").
const cedarSchemaHead = `entity Role;
entity Tenant;
entity User in [Role, Tenant] {
  subject: String,
  tenant: String,
  roles: Set<String>,
  scopes: Set<String>,
  auth: String,
  client: String
};
entity Tool {
  name: String,
  group: String,
  effects: Set<String>,
  risk: String,
  read_only: Bool
};
`

// argType is how one JSON Schema type maps to Cedar: what CedarSchema
// writes and how an argument's value becomes a Cedar value. Exactly one of
// its kinds is set.
type argType struct {
	kind   string              // "String", "Long", "decimal", "Bool", "Set", "Record"
	elem   *argType            // of a Set
	fields map[string]argField // of a Record
	order  []string            // fields' names, sorted
}

type argField struct {
	t        *argType
	required bool
}

// cedarIdent is a property name that a policy can reach as
// context.arguments.name; other names are left out of the schema.
var cedarIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// argTypeOf maps a JSON Schema to a Cedar type, or nil when it has no
// sensible Cedar counterpart: string (with or without enum or format) is
// String, integer Long, number decimal, boolean Bool, an array of a mapped
// type a Set of it, an object with properties a record of those that map.
// Not mapped: a type list or nullable type, $ref, oneOf, anyOf, allOf,
// null, an array without items, an object without properties, and
// properties whose names are not identifiers.
func argTypeOf(s map[string]any, depth int) *argType {
	if depth > 8 {
		return nil
	}
	for _, k := range []string{"$ref", "oneOf", "anyOf", "allOf"} {
		if _, ok := s[k]; ok {
			return nil
		}
	}
	typ, _ := s["type"].(string)
	if typ == "" {
		if allStrings(s["enum"]) {
			typ = "string"
		} else if _, ok := s["const"].(string); ok {
			typ = "string"
		}
	}
	switch typ {
	case "string":
		return &argType{kind: "String"}
	case "integer":
		return &argType{kind: "Long"}
	case "number":
		return &argType{kind: "decimal"}
	case "boolean":
		return &argType{kind: "Bool"}
	case "array":
		items, _ := s["items"].(map[string]any)
		if items == nil {
			return nil
		}
		if e := argTypeOf(items, depth+1); e != nil {
			return &argType{kind: "Set", elem: e}
		}
	case "object":
		props, _ := s["properties"].(map[string]any)
		if props == nil && depth > 0 {
			return nil
		}
		t := &argType{kind: "Record", fields: map[string]argField{}}
		req := map[string]bool{}
		if list, ok := s["required"].([]any); ok {
			for _, v := range list {
				if n, ok := v.(string); ok {
					req[n] = true
				}
			}
		}
		for name, v := range props {
			ps, _ := v.(map[string]any)
			if ps == nil || !cedarIdent.MatchString(name) {
				continue
			}
			if ft := argTypeOf(ps, depth+1); ft != nil {
				t.fields[name] = argField{t: ft, required: req[name]}
				t.order = append(t.order, name)
			}
		}
		slices.Sort(t.order)
		return t
	}
	return nil
}

func allStrings(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, x := range list {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

// write writes t in Cedar schema syntax.
func (t *argType) write(b *strings.Builder, indent string) {
	switch t.kind {
	case "Set":
		b.WriteString("Set<")
		t.elem.write(b, indent)
		b.WriteString(">")
	case "Record":
		if len(t.order) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, name := range t.order {
			f := t.fields[name]
			b.WriteString(indent + "  " + name)
			if !f.required {
				b.WriteString("?")
			}
			b.WriteString(": ")
			f.t.write(b, indent+"  ")
			if i < len(t.order)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(indent + "}")
	default:
		b.WriteString(t.kind)
	}
}

// value converts v, an argument the input schema validated, to a Cedar
// value of type t.
func (t *argType) value(v any) (cedar.Value, error) {
	switch t.kind {
	case "String":
		if s, ok := v.(string); ok {
			return cedar.String(s), nil
		}
	case "Bool":
		if x, ok := v.(bool); ok {
			return cedar.Boolean(x), nil
		}
	case "Long":
		switch n := v.(type) {
		case json.Number:
			i, err := n.Int64()
			if err != nil {
				return nil, fmt.Errorf("%s is not a 64-bit integer", n)
			}
			return cedar.Long(i), nil
		case float64:
			if n == float64(int64(n)) {
				return cedar.Long(int64(n)), nil
			}
		case int64:
			return cedar.Long(n), nil
		case int:
			return cedar.Long(n), nil
		}
	case "decimal":
		var f float64
		switch n := v.(type) {
		case json.Number:
			var err error
			if f, err = n.Float64(); err != nil {
				return nil, err
			}
		case float64:
			f = n
		case int64:
			f = float64(n)
		case int:
			f = float64(n)
		default:
			return nil, fmt.Errorf("%v is not a number", v)
		}
		d, err := cedar.NewDecimalFromFloat(f)
		if err != nil {
			return nil, fmt.Errorf("%v does not fit a Cedar decimal", v)
		}
		return d, nil
	case "Set":
		list, ok := v.([]any)
		if !ok {
			break
		}
		out := make([]cedar.Value, len(list))
		for i, x := range list {
			e, err := t.elem.value(x)
			if err != nil {
				return nil, fmt.Errorf("/%d: %w", i, err)
			}
			out[i] = e
		}
		return cedar.NewSet(out...), nil
	case "Record":
		obj, ok := v.(map[string]any)
		if !ok {
			break
		}
		m := make(cedar.RecordMap, len(t.order))
		for _, name := range t.order {
			x, ok := obj[name]
			if !ok {
				continue
			}
			e, err := t.fields[name].t.value(x)
			if err != nil {
				return nil, fmt.Errorf("/%s%w", name, prefixErr(err))
			}
			m[cedar.String(name)] = e
		}
		return cedar.NewRecord(m), nil
	}
	return nil, fmt.Errorf("%v is not a %s", v, t.kind)
}

// prefixErr joins the path of a nested conversion error.
func prefixErr(err error) error {
	if s := err.Error(); strings.HasPrefix(s, "/") {
		return err
	}
	return fmt.Errorf(": %w", err)
}

// toolArgs is the argument type of a tool's input schema: a record, empty
// when the schema has no properties that map.
func toolArgs(t *tooling.Tool) *argType {
	var s map[string]any
	if len(t.Input) > 0 {
		_ = json.Unmarshal(t.Input, &s)
	}
	if at := argTypeOf(s, 0); at != nil && at.kind == "Record" {
		return at
	}
	return &argType{kind: "Record", fields: map[string]argField{}}
}

// CedarSchema is the Cedar schema (in Cedar's schema syntax) that policies
// are validated against for tools: entity types User (in Role and
// Tenant; attributes subject, tenant, roles, scopes, auth, client), Role,
// Tenant and Tool (name, group, effects, risk, read_only), and an action
// per tool, in the action group of its first name segment, whose context
// is the call's origin, the tool's effects and risk, the time of the call
// (now, hour, weekday), the attributes of the principal's tenant (tenant,
// as WithTenants gives them; none when NewCedar would refuse them) and
// its arguments as far as their JSON Schema maps to Cedar types (see
// NewCedar). Of opts, only WithTenants counts.
func CedarSchema(tools []tooling.Tool, opts ...Option) string {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	tenant := &argType{kind: "Record", fields: map[string]argField{}}
	if ta, err := newTenantAttrs(o.tenants); err == nil {
		tenant = ta.typ
	}
	return cedarSchema(tools, tenant)
}

func cedarSchema(tools []tooling.Tool, tenant *argType) string {
	var b strings.Builder
	b.WriteString(cedarSchemaHead)
	groups := map[string]bool{}
	sorted := slices.Clone(tools)
	slices.SortFunc(sorted, func(a, b tooling.Tool) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range sorted {
		g := toolGroup(t.Name)
		if !groups[g] {
			groups[g] = true
			fmt.Fprintf(&b, "action %q;\n", g)
		}
	}
	for i := range sorted {
		t := &sorted[i]
		fmt.Fprintf(&b, "action %q in [%q] appliesTo {\n  principal: [User],\n  resource: [Tool],\n  context: {\n    origin: String,\n    effects: Set<String>,\n    risk: String,\n    now: datetime,\n    hour: Long,\n    weekday: String,\n    tenant: ", t.Name, toolGroup(t.Name))
		tenant.write(&b, "    ")
		b.WriteString(",\n    arguments: ")
		toolArgs(t).write(&b, "    ")
		b.WriteString("\n  }\n};\n")
	}
	return b.String()
}

func toolGroup(name string) string {
	g, _, _ := strings.Cut(name, ".")
	return g
}
