package form

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Coverage returns the JSON pointers, into the schema document, of the
// keywords the form cannot render natively: a location that uses one is
// edited as a JSON box. They are "not",
// "patternProperties", "dependentSchemas", schema-valued "dependencies",
// tuples ("prefixItems", or "items" as an array), "$dynamicRef" and
// "$recursiveRef", a "$ref" that does not resolve inside the document, and
// anyOf/oneOf that allOf would have to multiply out. Every other construct
// renders natively, so for most schemas the list is empty. A schema with no
// structure at all (no type, no keywords) is an any-value field, which is
// native too. A schema that is not JSON gives [""]: the whole document.
func Coverage(schema json.RawMessage) []string {
	if len(strings.TrimSpace(string(schema))) == 0 {
		return nil
	}
	root, err := decodeOrdered(schema)
	if err != nil {
		return []string{""}
	}
	c := &coverage{d: newDoc(root), seen: map[string]bool{}, out: map[string]bool{}}
	c.walk(c.d.resolve(sref{raw: root}), 0)
	out := make([]string, 0, len(c.out))
	for p := range c.out {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

type coverage struct {
	d    *doc
	seen map[string]bool
	out  map[string]bool
}

// walk visits what the form would build for n, each schema location once.
func (c *coverage) walk(n *node, depth int) {
	k := c.d.classify(n)
	id := n.loc + "|" + strings.Join(n.types, ",") + "|" + strconv.Itoa(int(k))
	if c.seen[id] || depth > 4*maxDepth {
		return
	}
	c.seen[id] = true
	for _, u := range n.unsupported {
		c.out[u] = true
	}
	switch k {
	case kindNullable:
		in, _ := c.d.nullSplit(n)
		c.walk(in, depth+1)
	case kindUnion:
		for _, v := range c.d.variants(n) {
			c.walk(v.n, depth+1)
		}
	case kindObject, kindMap:
		for _, p := range n.props {
			c.walk(c.d.prop(p), depth+1)
		}
		if len(n.addl) > 0 {
			c.walk(c.d.list(n.addl), depth+1)
		}
	case kindArray, kindMulti:
		if len(n.items) > 0 {
			c.walk(c.d.list(n.items), depth+1)
		}
	}
}
