package form

import (
	"slices"
	"strconv"
	"strings"
)

// kind is what a schema location renders as.
type kind int

const (
	kindAny      kind = iota // no structure: a JSON value field
	kindFallback             // an unsupported construct: a JSON box
	kindNever                // the schema false: not shown
	kindNullable             // a type or union that also allows null
	kindConst
	kindEnum
	kindUnion
	kindObject
	kindMap
	kindArray
	kindMulti // an array of enum values: a multi-select
	kindString
	kindInteger
	kindNumber
	kindBool
	kindNull
)

// effectiveTypes are the declared types, or the types the keywords imply.
func (n *node) effectiveTypes() []string {
	if len(n.types) > 0 {
		return n.types
	}
	switch {
	case len(n.props) > 0 || len(n.addl) > 0 || len(n.required) > 0 || n.addlFalse:
		return []string{"object"}
	case len(n.items) > 0 || n.minItems >= 0 || n.maxItems >= 0:
		return []string{"array"}
	case n.minLen >= 0 || n.maxLen >= 0 || n.pattern != "" || n.format != "":
		return []string{"string"}
	case n.min.set || n.max.set || n.exMin.set || n.exMax.set || n.multipleOf.set:
		return []string{"number"}
	}
	return nil
}

func (d *doc) classify(n *node) kind {
	switch {
	case n.never:
		return kindNever
	case len(n.unsupported) > 0:
		return kindFallback
	}
	if _, ok := d.nullSplit(n); ok {
		return kindNullable
	}
	switch {
	case n.hasConst:
		return kindConst
	case n.hasEnum:
		return kindEnum
	case (len(n.anyOf) > 0 || len(n.oneOf) > 0) && !requiredSets(n):
		return kindUnion
	}
	types := n.effectiveTypes()
	if len(types) > 1 {
		if len(types) == 2 && slices.Contains(types, "integer") && slices.Contains(types, "number") {
			return kindNumber
		}
		return kindUnion
	}
	if len(types) == 0 {
		return kindAny
	}
	switch types[0] {
	case "object":
		if len(n.props) == 0 && !n.addlFalse {
			return kindMap
		}
		return kindObject
	case "array":
		if len(n.items) > 0 {
			it := d.list(n.items)
			if it.hasEnum && !it.never && len(it.unsupported) == 0 && len(it.anyOf) == 0 && len(it.oneOf) == 0 {
				return kindMulti
			}
		}
		return kindArray
	case "string":
		return kindString
	case "integer":
		return kindInteger
	case "number":
		return kindNumber
	case "boolean":
		return kindBool
	case "null":
		return kindNull
	}
	return kindAny
}

// requiredSets reports whether n's anyOf/oneOf only choose which of its
// properties must be given ({"anyOf": [{"required": ["id"]}, {"required":
// ["name"]}]}): the form shows the properties, and the validator
// (Options.Check) says which are missing.
func requiredSets(n *node) bool {
	for _, alts := range [][]sref{n.anyOf, n.oneOf} {
		for _, a := range alts {
			o, ok := a.raw.(*omap)
			if !ok {
				return false
			}
			if _, ok := o.get("required"); !ok {
				return false
			}
			for _, k := range o.keys {
				switch k {
				case "required", "title", "description", "$comment":
				default:
					return false
				}
			}
		}
	}
	return true
}

// isNullOnly reports whether n allows only null.
func (n *node) isNullOnly() bool {
	if n.hasConst {
		return n.cnst == nil
	}
	return len(n.types) == 1 && n.types[0] == "null" && len(n.anyOf) == 0 && len(n.oneOf) == 0
}

// nullSplit returns the non-null part of a schema that also allows null:
// {"type": ["string", "null"]} or anyOf/oneOf with a {"type": "null"} branch.
func (d *doc) nullSplit(n *node) (*node, bool) {
	if slices.Contains(n.types, "null") && len(n.types) > 1 {
		in := n.clone()
		in.types = slices.DeleteFunc(in.types, func(t string) bool { return t == "null" })
		if in.hasEnum {
			in.enum = slices.DeleteFunc(in.enum, func(v any) bool { return v == nil })
		}
		in.def, in.hasDef = nil, false
		in.title, in.desc = "", ""
		return in, true
	}
	for _, kw := range []*[]sref{&n.anyOf, &n.oneOf} {
		alts := *kw
		if len(alts) < 2 {
			continue
		}
		var rest []sref
		for _, a := range alts {
			if !d.resolve(a).isNullOnly() {
				rest = append(rest, a)
			}
		}
		if len(rest) == len(alts) || len(rest) == 0 {
			continue
		}
		in := n.clone()
		in.def, in.hasDef = nil, false
		in.title, in.desc = "", ""
		if kw == &n.anyOf {
			in.anyOf = rest
		} else {
			in.oneOf = rest
		}
		if len(rest) == 1 {
			in.anyOf, in.oneOf = nil, nil
			v := d.resolve(rest[0]).clone()
			v.merge(in)
			v.loc = rest[0].loc
			return v, true
		}
		return in, true
	}
	return nil, false
}

// variant is one choice of a union: its merged schema and a label.
type variant struct {
	n     *node
	label string
}

// variants lists the choices of a union node: the anyOf/oneOf branches, each
// merged with the keywords beside them, or one choice per type of a
// multi-type schema.
func (d *doc) variants(n *node) []variant {
	alts := n.oneOf
	if len(alts) == 0 {
		alts = n.anyOf
	}
	var out []variant
	if len(alts) > 0 {
		base := n.clone()
		base.anyOf, base.oneOf = nil, nil
		base.title, base.desc = "", ""
		base.def, base.hasDef = nil, false
		for i, a := range alts {
			own := d.resolve(a)
			v := own.clone()
			v.merge(base)
			v.loc = a.loc
			out = append(out, variant{n: v, label: d.variantLabel(own, v, i)})
		}
		distinctLabels(out)
		return out
	}
	for _, t := range n.effectiveTypes() {
		if t == "number" && slices.Contains(n.types, "integer") {
			continue
		}
		v := n.clone()
		v.types = []string{t}
		v.title, v.desc = "", ""
		v.def, v.hasDef = nil, false
		out = append(out, variant{n: v, label: t})
	}
	return out
}

// variantLabel names a union branch: its title, the value of a const
// property (a discriminator), the name of the definition it refers to, its
// const, the keys an object branch requires (or else has), or its type.
// own is the branch as written, v the branch merged with what the union
// around it says.
func (d *doc) variantLabel(own, v *node, i int) string {
	if v.title != "" {
		return v.title
	}
	for _, p := range v.props {
		pn := d.prop(p)
		switch {
		case pn.hasConst:
			return p.name + "=" + scalarText(pn.cnst)
		case len(pn.enum) == 1:
			return p.name + "=" + scalarText(pn.enum[0])
		}
	}
	if len(v.refs) > 0 {
		r := v.refs[0]
		return r[strings.LastIndex(r, "/")+1:]
	}
	if v.hasConst {
		return scalarText(v.cnst)
	}
	object := slices.Equal(v.effectiveTypes(), []string{"object"})
	if keys := own.required; len(keys) > 0 && object {
		return "object with " + keyList(keys)
	}
	if len(own.props) > 0 && object {
		names := make([]string, len(own.props))
		for j, p := range own.props {
			names[j] = p.name
		}
		return "object of " + keyList(names)
	}
	if t := v.effectiveTypes(); len(t) > 0 {
		return strings.Join(t, "|")
	}
	return "#" + strconv.Itoa(i+1)
}

// keyList names up to three keys: "a, b, c" or "a, b, c, …".
func keyList(keys []string) string {
	if len(keys) > 3 {
		return strings.Join(keys[:3], ", ") + ", …"
	}
	return strings.Join(keys, ", ")
}

// distinctLabels numbers the labels that several variants share:
// "object #1", "object #2".
func distinctLabels(vars []variant) {
	seen := map[string]int{}
	for _, v := range vars {
		seen[v.label]++
	}
	for i := range vars {
		if seen[vars[i].label] > 1 {
			vars[i].label += " #" + strconv.Itoa(i+1)
		}
	}
}

// recursive reports whether n refers to a schema already open among anc.
func (n *node) recursive(anc []string) bool {
	for _, r := range n.refs {
		if slices.Contains(anc, r) {
			return true
		}
	}
	return false
}
