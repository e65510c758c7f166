package bindings

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The strict check of a tools file walks its YAML tree against the Go
// types it decodes into, so that every unknown key and every value of the
// wrong type is reported with its line and path, all of them at once
// (yaml.v3's KnownFields stops at the first, names no path, and is not
// carried into nested decoders).

var (
	durationType  = reflect.TypeFor[time.Duration]()
	nodeType      = reflect.TypeFor[yaml.Node]()
	unmarshalType = reflect.TypeFor[yaml.Unmarshaler]()
)

// testKeys are keys accepted in any mapping: the fields of the tests' fake
// kind of binding. Empty outside tests.
var testKeys map[string]bool

// checkNode reports what in n does not fit t; path is n's path.
func checkNode(n *yaml.Node, t reflect.Type, path string, add func(n *yaml.Node, path, msg string)) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return
		}
		checkNode(n.Content[0], t, path, add)
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nodeType || t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalType) {
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // the zero value
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			add(n, path, "want a mapping, got "+describe(n))
			return
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok && testKeys[k.Value] {
				continue
			}
			if !ok {
				add(k, join(path, k.Value), unknownKey(k.Value, fields))
				continue
			}
			checkNode(v, f, join(path, k.Value), add)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			add(n, path, "want a mapping, got "+describe(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			checkNode(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), add)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			add(n, path, "want a list, got "+describe(n))
			return
		}
		for i, e := range n.Content {
			checkNode(e, t.Elem(), path+"["+strconv.Itoa(i)+"]", add)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			add(n, path, "want a string, got "+describe(n))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			add(n, path, "want true or false, got "+describe(n))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if t == durationType {
			if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
				add(n, path, "want a duration with its unit, like \"500ms\" or \"5s\", got "+describe(n))
			} else if _, err := time.ParseDuration(n.Value); err != nil {
				add(n, path, fmt.Sprintf("%q is no duration: want one with its unit, like \"500ms\" or \"5s\"", n.Value))
			}
			return
		}
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			add(n, path, "want a whole number, got "+describe(n))
		}
	case reflect.Float32, reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
			add(n, path, "want a number, got "+describe(n))
		}
	}
}

// yamlFields maps the YAML keys of struct t to their types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range yamlFields(ft) {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func unknownKey(k string, fields map[string]reflect.Type) string {
	known := make([]string, 0, len(fields))
	for name := range fields {
		known = append(known, name)
	}
	sort.Strings(known)
	return fmt.Sprintf("unknown key %q (known: %s)", k, strings.Join(known, ", "))
}

// describe says what a node holds, for "want X, got Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!str":
		return strconv.Quote(clip(n.Value))
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!bool":
		return n.Value
	case "!!null":
		return "null"
	}
	return clip(n.Value)
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// join appends key to path: "tools[0]" + "name" is "tools[0].name"; a key
// that is no identifier is quoted.
func join(path, key string) string {
	if !plainKey.MatchString(key) {
		key = strconv.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// child returns the value of key in mapping n, nil when absent.
func child(n *yaml.Node, key string) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// keyNode returns the key node of key in mapping n, nil when absent.
func keyNode(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

// item returns element i of sequence n, nil when absent.
func item(n *yaml.Node, i int) *yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
		return nil
	}
	return n.Content[i]
}

// scalars calls f with every scalar under n.
func scalars(n *yaml.Node, f func(*yaml.Node)) {
	if n == nil {
		return
	}
	if n.Kind == yaml.ScalarNode {
		f(n)
		return
	}
	for _, c := range n.Content {
		scalars(c, f)
	}
}

func lineOf(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return n.Line
}
