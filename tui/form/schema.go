package form

import (
	"cmp"
	"encoding/json"
	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// sref is a schema value and its location in the document, as a JSON pointer.
type sref struct {
	raw any
	loc string
}

// doc is a decoded schema document and what $ref resolution needs.
type doc struct {
	root  any
	base  string          // the root's $id without fragment
	ids   map[string]sref // "$id" and "$anchor" targets, built on first need
	cache map[string]*node
}

func newDoc(root any) *doc {
	d := &doc{root: root}
	if o, ok := root.(*omap); ok {
		if id, ok := o.str("$id"); ok {
			d.base, _, _ = strings.Cut(id, "#")
		}
	}
	return d
}

// lookup finds the target of a $ref: local pointers ("#", "#/$defs/x",
// "#/definitions/x"), anchors ("#name"), and "$id"s declared in the document.
// Anything else (another document) is not found.
func (d *doc) lookup(ref string) (sref, bool) {
	uri, frag, _ := strings.Cut(ref, "#")
	res := sref{raw: d.root, loc: ""}
	if uri != "" && uri != d.base {
		d.indexIDs()
		r, ok := d.ids[uri]
		if !ok {
			return sref{}, false
		}
		res = r
	}
	if frag == "" {
		return res, true
	}
	if !strings.HasPrefix(frag, "/") {
		d.indexIDs()
		r, ok := d.ids["#"+frag]
		return r, ok
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	cur := res.raw
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = jsonpointer.Unescape(tok)
		switch c := cur.(type) {
		case *omap:
			v, ok := c.get(tok)
			if !ok {
				return sref{}, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return sref{}, false
			}
			cur = c[i]
		default:
			return sref{}, false
		}
	}
	return sref{raw: cur, loc: res.loc + frag}, true
}

// indexIDs records every "$id" and "$anchor" in the document once.
func (d *doc) indexIDs() {
	if d.ids != nil {
		return
	}
	d.ids = map[string]sref{}
	var walk func(v any, loc string)
	walk = func(v any, loc string) {
		switch c := v.(type) {
		case *omap:
			if id, ok := c.str("$id"); ok && loc != "" {
				d.ids[id] = sref{raw: c, loc: loc}
			}
			if a, ok := c.str("$anchor"); ok {
				d.ids["#"+a] = sref{raw: c, loc: loc}
			}
			for _, k := range c.keys {
				if k == "enum" || k == "const" || k == "default" || k == "examples" {
					continue
				}
				walk(c.vals[k], loc+"/"+jsonpointer.Escape(k))
			}
		case []any:
			for i, e := range c {
				walk(e, loc+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(d.root, "")
}

// bound is a numeric keyword: its value and its text as the schema wrote it.
type bound struct {
	set  bool
	v    float64
	text string
}

func (b *bound) parse(v any) {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil && !math.IsInf(f, 0) {
			*b = bound{set: true, v: f, text: n.String()}
		}
	}
}

type propDef struct {
	name string
	srcs []sref
}

// node is one schema location with its $ref followed and its allOf merged:
// the keywords the form needs, typed.
type node struct {
	loc         string
	refs        []string // targets of the $refs followed to get here
	never       bool     // the schema false: no value allowed
	types       []string
	title, desc string
	def         any
	hasDef      bool
	enum        []any
	hasEnum     bool
	cnst        any
	hasConst    bool
	format      string
	pattern     string
	example     string // the first of "examples" that is a string
	minLen      int    // -1 when unset
	maxLen      int
	mediaType   string // contentMediaType
	min, max    bound
	exMin       bound
	exMax       bound
	multipleOf  bound
	props       []*propDef
	required    []string
	addl        []sref // additionalProperties schemas
	addlFalse   bool
	addlTrue    bool // additionalProperties: true or {}
	items       []sref
	minItems    int // -1 when unset
	maxItems    int
	unique      bool
	anyOf       []sref
	oneOf       []sref
	unsupported []string
	readOnly    bool
	writeOnly   bool // a secret: masked as it is typed
	deprecated  bool
}

// unsupportedKeywords are the constructs the form does not render; a schema
// location that uses one falls back to a JSON box. ("if" renders: it only
// says when which values are valid, which the validator checks.)
var unsupportedKeywords = []string{
	"not", "patternProperties", "dependentSchemas", "prefixItems",
	"$dynamicRef", "$recursiveRef",
}

func newNode(loc string) *node {
	return &node{loc: loc, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
}

func (d *doc) resolve(s sref) *node {
	if d.cache == nil {
		d.cache = map[string]*node{}
	}
	if n, ok := d.cache[s.loc]; ok {
		return n
	}
	n := d.resolveIn(s, nil)
	d.cache[s.loc] = n
	return n
}

// resolveIn builds the node of s; chain holds the locations being resolved,
// so that a cycle made only of $ref and allOf stops instead of looping.
func (d *doc) resolveIn(s sref, chain []string) *node {
	n := newNode(s.loc)
	o, ok := s.raw.(*omap)
	if !ok {
		if b, isBool := s.raw.(bool); isBool && !b {
			n.never = true
		}
		return n
	}
	chain = append(chain[:len(chain):len(chain)], s.loc)
	n.own(o, s.loc)
	if ref, ok := o.str("$ref"); ok {
		t, found := d.lookup(ref)
		switch {
		case !found:
			n.unsupported = append(n.unsupported, s.loc+"/$ref")
		case slices.Contains(chain, t.loc):
			n.refs = append(n.refs, t.loc)
		default:
			tn := d.resolveIn(t, chain)
			n.refs = append(n.refs, t.loc)
			n.refs = append(n.refs, tn.refs...)
			n.merge(tn)
		}
	}
	if all, ok := o.get("allOf"); ok {
		if arr, ok := all.([]any); ok {
			for i, sub := range arr {
				sn := d.resolveIn(sref{raw: sub, loc: s.loc + "/allOf/" + strconv.Itoa(i)}, chain)
				n.refs = append(n.refs, sn.refs...)
				n.merge(sn)
			}
		}
	}
	return n
}

// own reads the keywords of one schema object.
func (n *node) own(o *omap, loc string) {
	for _, kw := range unsupportedKeywords {
		if _, ok := o.get(kw); ok {
			n.unsupported = append(n.unsupported, loc+"/"+jsonpointer.Escape(kw))
		}
	}
	if deps, ok := o.get("dependencies"); ok {
		if dm, ok := deps.(*omap); ok {
			for _, k := range dm.keys {
				if _, isList := dm.vals[k].([]any); !isList {
					n.unsupported = append(n.unsupported, loc+"/dependencies")
					break
				}
			}
		}
	}
	switch t := o.vals["type"].(type) {
	case string:
		n.types = []string{t}
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && !slices.Contains(n.types, s) {
				n.types = append(n.types, s)
			}
		}
	}
	n.title, _ = o.str("title")
	n.desc, _ = o.str("description")
	n.format, _ = o.str("format")
	n.pattern, _ = o.str("pattern")
	if ex, ok := o.vals["examples"].([]any); ok && len(ex) > 0 {
		n.example, _ = ex[0].(string)
	}
	if v, ok := o.get("default"); ok {
		n.def, n.hasDef = v, true
	}
	if v, ok := o.get("const"); ok {
		n.cnst, n.hasConst = v, true
	}
	if v, ok := o.vals["enum"].([]any); ok {
		n.enum, n.hasEnum = v, true
	}
	n.minLen = intKeyword(o, "minLength")
	n.maxLen = intKeyword(o, "maxLength")
	n.mediaType, _ = o.vals["contentMediaType"].(string)
	n.minItems = intKeyword(o, "minItems")
	n.maxItems = intKeyword(o, "maxItems")
	n.unique, _ = o.vals["uniqueItems"].(bool)
	n.readOnly, _ = o.vals["readOnly"].(bool)
	n.writeOnly, _ = o.vals["writeOnly"].(bool)
	n.deprecated, _ = o.vals["deprecated"].(bool)
	n.min.parse(o.vals["minimum"])
	n.max.parse(o.vals["maximum"])
	n.multipleOf.parse(o.vals["multipleOf"])
	switch v := o.vals["exclusiveMinimum"].(type) {
	case bool: // draft 4 style: the minimum itself is excluded
		if v && n.min.set {
			n.exMin, n.min = n.min, bound{}
		}
	default:
		n.exMin.parse(v)
	}
	switch v := o.vals["exclusiveMaximum"].(type) {
	case bool:
		if v && n.max.set {
			n.exMax, n.max = n.max, bound{}
		}
	default:
		n.exMax.parse(v)
	}
	if p, ok := o.vals["properties"].(*omap); ok {
		for _, k := range p.keys {
			n.props = append(n.props, &propDef{name: k, srcs: []sref{{raw: p.vals[k], loc: loc + "/properties/" + jsonpointer.Escape(k)}}})
		}
	}
	if _, ok := o.get("if"); ok {
		n.condProps(o, loc)
	}
	if r, ok := o.vals["required"].([]any); ok {
		for _, e := range r {
			if s, ok := e.(string); ok && !slices.Contains(n.required, s) {
				n.required = append(n.required, s)
			}
		}
	}
	if a, ok := o.get("additionalProperties"); ok {
		switch v := a.(type) {
		case bool:
			n.addlFalse, n.addlTrue = !v, v
		case *omap:
			if len(v.keys) == 0 {
				n.addlTrue = true
			} else {
				n.addl = append(n.addl, sref{raw: v, loc: loc + "/additionalProperties"})
			}
		}
	}
	switch it := o.vals["items"].(type) {
	case *omap, bool:
		n.items = append(n.items, sref{raw: it, loc: loc + "/items"})
	case []any: // a draft 07 tuple
		n.unsupported = append(n.unsupported, loc+"/items")
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		arr, ok := o.vals[kw].([]any)
		if !ok {
			continue
		}
		var list []sref
		for i, v := range arr {
			list = append(list, sref{raw: v, loc: loc + "/" + kw + "/" + strconv.Itoa(i)})
		}
		if kw == "anyOf" {
			n.anyOf = list
		} else {
			n.oneOf = list
		}
	}
}

// condProps adds the properties that the "then" and "else" of an
// if/then/else declare and the schema does not: the form shows them as
// optional fields, and the validator (Options.Check) keeps the condition.
func (n *node) condProps(o *omap, loc string) {
	for _, kw := range []string{"then", "else"} {
		br, ok := o.vals[kw].(*omap)
		if !ok {
			continue
		}
		props, ok := br.vals["properties"].(*omap)
		if !ok {
			continue
		}
		for _, k := range props.keys {
			if slices.ContainsFunc(n.props, func(p *propDef) bool { return p.name == k }) {
				continue
			}
			n.props = append(n.props, &propDef{name: k, srcs: []sref{{raw: props.vals[k], loc: loc + "/" + kw + "/properties/" + jsonpointer.Escape(k)}}})
		}
	}
}

func intKeyword(o *omap, k string) int {
	if n, ok := o.vals[k].(json.Number); ok {
		if i, err := n.Int64(); err == nil && i >= 0 && i < math.MaxInt32 {
			return int(i)
		}
	}
	return -1
}

// merge adds what o says to n: n's own keywords win, constraints tighten,
// properties and required names add up.
func (n *node) merge(o *node) {
	if o.never {
		n.never = true
	}
	switch {
	case len(n.types) == 0:
		n.types = o.types
	case len(o.types) > 0:
		var both []string
		for _, t := range n.types {
			if slices.Contains(o.types, t) || (t == "integer" && slices.Contains(o.types, "number")) {
				both = append(both, t)
			} else if t == "number" && slices.Contains(o.types, "integer") {
				both = append(both, "integer")
			}
		}
		if len(both) > 0 {
			n.types = both
		}
	}
	fill := func(dst *string, src string) {
		if *dst == "" {
			*dst = src
		}
	}
	fill(&n.title, o.title)
	fill(&n.desc, o.desc)
	fill(&n.format, o.format)
	fill(&n.pattern, o.pattern)
	fill(&n.example, o.example)
	if !n.hasDef && o.hasDef {
		n.def, n.hasDef = o.def, true
	}
	if !n.hasConst && o.hasConst {
		n.cnst, n.hasConst = o.cnst, true
	}
	if !n.hasEnum && o.hasEnum {
		n.enum, n.hasEnum = o.enum, true
	}
	n.minLen = tighterInt(n.minLen, o.minLen, true)
	n.maxLen = tighterInt(n.maxLen, o.maxLen, false)
	n.mediaType = cmp.Or(n.mediaType, o.mediaType)
	n.minItems = tighterInt(n.minItems, o.minItems, true)
	n.maxItems = tighterInt(n.maxItems, o.maxItems, false)
	n.min = tighter(n.min, o.min, true)
	n.max = tighter(n.max, o.max, false)
	n.exMin = tighter(n.exMin, o.exMin, true)
	n.exMax = tighter(n.exMax, o.exMax, false)
	if !n.multipleOf.set {
		n.multipleOf = o.multipleOf
	}
	for _, p := range o.props {
		i := slices.IndexFunc(n.props, func(q *propDef) bool { return q.name == p.name })
		if i >= 0 {
			n.props[i] = &propDef{name: p.name, srcs: append(slices.Clip(n.props[i].srcs), p.srcs...)}
		} else {
			n.props = append(n.props, p)
		}
	}
	for _, r := range o.required {
		if !slices.Contains(n.required, r) {
			n.required = append(n.required, r)
		}
	}
	n.addl = append(slices.Clip(n.addl), o.addl...)
	n.addlFalse = n.addlFalse || o.addlFalse
	n.addlTrue = n.addlTrue || o.addlTrue
	n.items = append(slices.Clip(n.items), o.items...)
	n.unique = n.unique || o.unique
	n.readOnly = n.readOnly || o.readOnly
	n.writeOnly = n.writeOnly || o.writeOnly
	n.deprecated = n.deprecated || o.deprecated
	if len(o.anyOf) > 0 {
		if len(n.anyOf) == 0 {
			n.anyOf = o.anyOf
		} else {
			n.unsupported = append(n.unsupported, o.loc+"/anyOf")
		}
	}
	if len(o.oneOf) > 0 {
		if len(n.oneOf) == 0 {
			n.oneOf = o.oneOf
		} else {
			n.unsupported = append(n.unsupported, o.loc+"/oneOf")
		}
	}
	n.unsupported = append(slices.Clip(n.unsupported), o.unsupported...)
}

func tighterInt(a, b int, lower bool) int {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	case lower:
		return max(a, b)
	default:
		return min(a, b)
	}
}

func tighter(a, b bound, lower bool) bound {
	switch {
	case !a.set:
		return b
	case !b.set:
		return a
	case lower == (b.v > a.v):
		return b
	default:
		return a
	}
}

// clone returns a shallow copy whose slices can be changed freely.
func (n *node) clone() *node {
	c := *n
	c.types = slices.Clone(n.types)
	c.props = slices.Clone(n.props)
	c.required = slices.Clone(n.required)
	c.anyOf = slices.Clone(n.anyOf)
	c.oneOf = slices.Clone(n.oneOf)
	c.enum = slices.Clone(n.enum)
	c.refs = slices.Clone(n.refs)
	return &c
}

// prop resolves the schema of property name (merged when allOf declares it
// more than once).
func (d *doc) prop(p *propDef) *node {
	n := d.resolve(p.srcs[0])
	if len(p.srcs) == 1 {
		return n
	}
	n = n.clone()
	for _, s := range p.srcs[1:] {
		o := d.resolve(s)
		n.refs = append(n.refs, o.refs...)
		n.merge(o)
	}
	return n
}

// list resolves and merges a list of schemas (items, additionalProperties).
func (d *doc) list(srcs []sref) *node {
	if len(srcs) == 0 {
		return newNode("")
	}
	return d.prop(&propDef{srcs: srcs})
}

func (n *node) isRequired(name string) bool { return slices.Contains(n.required, name) }
