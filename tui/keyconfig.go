package tui

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
)

// The config's "keys" rebinds the console's keys by name: "list.run" is
// the Run binding of the tool list, "viewer.copy" the Copy binding of the
// output viewer. A name is the screen's prefix and the binding's field in
// snake case; docs/console.md lists them all, made from the same key maps.

// keyTarget is a key map the config may rebind, under its prefix.
type keyTarget struct {
	prefix string
	keys   any // a pointer to a struct of key.Binding fields
}

func (m *Model) keyTargets() []keyTarget {
	return []keyTarget{
		{"global", &m.c.global},
		{"list", &m.list.keys},
		{"detail", &m.detail.keys},
		{"result", &m.run.keys},
		{"viewer", &m.run.out.Keys},
		{"viewer", &m.call.out.Keys},
		{"viewer", &m.diff.out.Keys},
		{"diff", &m.diff.keys},
		{"history", &m.history.keys},
		{"call", &m.call.keys},
		{"runs", &m.runs.keys},
		{"board", &m.board.keys},
		{"servers", &m.servers.keys},
		{"problems", &m.problems.keys},
		{"ledger", &m.ledger.keys},
		{"record", &m.record.keys},
		{"environments", &m.envs.keys},
	}
}

var bindingType = reflect.TypeFor[key.Binding]()

// bindings are the key.Binding fields of the struct keys points to, those
// of its embedded structs too, by their names in snake case.
func bindings(keys any) map[string]*key.Binding {
	out := map[string]*key.Binding{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			switch {
			case f.Anonymous && f.Type.Kind() == reflect.Struct:
				walk(v.Field(i))
			case f.IsExported() && f.Type == bindingType:
				out[snakeCase(f.Name)] = v.Field(i).Addr().Interface().(*key.Binding)
			}
		}
	}
	walk(reflect.ValueOf(keys).Elem())
	return out
}

// snakeCase is PageUp as page_up, CopyCLI as copy_cli.
func snakeCase(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// keyNames lists every name the config may rebind, sorted, with the
// binding's help.
func (m *Model) keyNames() []string {
	var out []string
	for _, t := range m.keyTargets() {
		for name, b := range bindings(t.keys) {
			s := fmt.Sprintf("`%s.%s` (%s: %s)", t.prefix, name, b.Help().Key, b.Help().Desc)
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}

// rebind gives the named bindings the keys of the config; it returns a
// problem for each name no key map has.
func (m *Model) rebind(keys map[string][]string) []string {
	var problems []string
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		prefix, field, _ := strings.Cut(name, ".")
		found := false
		for _, t := range m.keyTargets() {
			if t.prefix != prefix {
				continue
			}
			if b, ok := bindings(t.keys)[field]; ok && len(keys[name]) > 0 {
				b.SetKeys(keys[name]...)
				b.SetHelp(strings.Join(keys[name], "/"), b.Help().Desc)
				found = true
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("config keys: the console has no key named %q (docs/console.md lists the names)", name))
		}
	}
	// A screen's own back key follows global.back unless the config
	// rebinds it by its own name.
	if back, ok := keys["global.back"]; ok && len(back) > 0 {
		for name, b := range map[string]*key.Binding{"runs.back": &m.runs.keys.Back, "result.back": &m.run.keys.Back,
			"history.back": &m.history.keys.Back, "call.back": &m.call.keys.Back, "diff.back": &m.diff.keys.Back,
			"ledger.back": &m.ledger.keys.Back, "record.back": &m.record.keys.Back} {
			if _, own := keys[name]; !own {
				b.SetKeys(back...)
				b.SetHelp(strings.Join(back, "/"), b.Help().Desc)
			}
		}
	}
	// The help of the result and of a kept call shows the viewer's keys.
	m.run.keys.out, m.call.keys.out, m.diff.keys.out = m.run.out.Keys, m.call.out.Keys, m.diff.out.Keys
	return problems
}
