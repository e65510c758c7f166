package tooling

import (
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// defaultsPlan fills schema defaults into decoded arguments: for each
// property of an object schema (following $ref), an absent property with a
// "default" gets a copy of it, and a present object property gets its own
// defaults in turn. Defaults inside array items, allOf, anyOf and oneOf are
// not filled: which branch applies is the tool's business.
type defaultsPlan struct {
	props []defaultProp
}

type defaultProp struct {
	name       string
	value      any
	hasDefault bool
	nested     *defaultsPlan
}

const maxDefaultsDepth = 16

func planDefaults(s *jsonschema.Schema, depth int) *defaultsPlan {
	for i := 0; s != nil && s.Ref != nil && i < maxDefaultsDepth; i++ {
		s = s.Ref
	}
	if s == nil || depth > maxDefaultsDepth || len(s.Properties) == 0 {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	p := &defaultsPlan{}
	for _, n := range names {
		ps := s.Properties[n]
		dp := defaultProp{name: n}
		target := ps
		for i := 0; target != nil && target.Ref != nil && target.Default == nil && i < maxDefaultsDepth; i++ {
			target = target.Ref
		}
		if ps.Default != nil {
			dp.value, dp.hasDefault = *ps.Default, true
		} else if target != nil && target.Default != nil {
			dp.value, dp.hasDefault = *target.Default, true
		}
		dp.nested = planDefaults(ps, depth+1)
		if dp.hasDefault || dp.nested != nil {
			p.props = append(p.props, dp)
		}
	}
	if len(p.props) == 0 {
		return nil
	}
	return p
}

// apply fills defaults into obj and reports whether it changed anything.
func (p *defaultsPlan) apply(obj map[string]any) bool {
	if p == nil || obj == nil {
		return false
	}
	changed := false
	for _, d := range p.props {
		v, ok := obj[d.name]
		if !ok {
			if d.hasDefault {
				obj[d.name] = deepCopy(d.value)
				changed = true
			}
			continue
		}
		if m, isObj := v.(map[string]any); isObj && d.nested != nil {
			if d.nested.apply(m) {
				changed = true
			}
		}
	}
	return changed
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}
