package schema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"github.com/toolexplorer/toolexplorer/internal/jsonschema"
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
	schema     *jsonschema.Schema // the schema the default belongs to
	nested     *defaultsPlan
}

const maxDefaultsDepth = 16

// planDefaults plans the defaults of s. Each schema is planned once (plans
// are memoized by schema), so a recursive schema gives a plan graph with a
// cycle rather than an exponential tree; apply follows it only as deep as
// the arguments go.
func planDefaults(s *jsonschema.Schema) *defaultsPlan {
	memo := map[*jsonschema.Schema]*defaultsPlan{}
	p := planDefaultsMemo(s, memo)
	if p == nil || p.empty(map[*defaultsPlan]bool{}) {
		return nil
	}
	return p
}

func planDefaultsMemo(s *jsonschema.Schema, memo map[*jsonschema.Schema]*defaultsPlan) *defaultsPlan {
	for i := 0; s != nil && s.Ref != nil && i < maxDefaultsDepth; i++ {
		s = s.Ref
	}
	if s == nil || len(s.Properties) == 0 {
		return nil
	}
	if p, ok := memo[s]; ok {
		return p
	}
	p := &defaultsPlan{}
	memo[s] = p
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ps := s.Properties[n]
		dp := defaultProp{name: n}
		target := ps
		for i := 0; target != nil && target.Ref != nil && target.Default == nil && i < maxDefaultsDepth; i++ {
			target = target.Ref
		}
		if ps.Default != nil {
			dp.value, dp.hasDefault, dp.schema = *ps.Default, true, ps
		} else if target != nil && target.Default != nil {
			dp.value, dp.hasDefault, dp.schema = *target.Default, true, target
		}
		dp.nested = planDefaultsMemo(ps, memo)
		if dp.hasDefault || dp.nested != nil {
			p.props = append(p.props, dp)
		}
	}
	return p
}

// empty reports whether applying p can never fill anything.
func (p *defaultsPlan) empty(seen map[*defaultsPlan]bool) bool {
	if p == nil || seen[p] {
		return true
	}
	seen[p] = true
	for _, d := range p.props {
		if d.hasDefault || !d.nested.empty(seen) {
			return false
		}
	}
	return true
}

// check validates every default against the schema it belongs to, so that
// a tool never receives a default its own schema refuses.
func (p *defaultsPlan) check(path string, seen map[*defaultsPlan]bool) []string {
	if p == nil || seen[p] {
		return nil
	}
	seen[p] = true
	var problems []string
	for _, d := range p.props {
		at := path + "/properties/" + jsonpointer.Escape(d.name)
		if d.hasDefault && d.schema != nil {
			if err := d.schema.Validate(d.value); err != nil {
				problems = append(problems, fmt.Sprintf("the default at %s does not match its own schema: %s", at, firstLine(err.Error())))
			}
		}
		problems = append(problems, d.nested.check(at, seen)...)
	}
	return problems
}

// forget drops the plan's references to the schemas its defaults belong
// to, which check needs and nothing after it: they would keep the whole
// compiled schema alive.
func (p *defaultsPlan) forget(seen map[*defaultsPlan]bool) {
	if p == nil || seen[p] {
		return
	}
	seen[p] = true
	for i := range p.props {
		p.props[i].schema = nil
		p.props[i].nested.forget(seen)
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	lines := strings.Split(s, "\n")
	return strings.TrimSpace(strings.TrimPrefix(lines[len(lines)-1], "- "))
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
