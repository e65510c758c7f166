package bindings

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// A tmpl is a value of a tools file split into literal text, {param}
// references to arguments and ${NAME} references to credentials. It is
// parsed once, so an argument's text is never read as a reference.
type tmpl []seg

type segKind uint8

const (
	segLit segKind = iota
	segArg         // {name}
	segEnv         // ${NAME} or ${NAME:-default}
)

type seg struct {
	kind   segKind
	text   string // the literal, the argument or the variable
	def    string // the default of ${NAME:-default}
	hasDef bool
}

// parseTemplate splits s; env says whether ${NAME} references are allowed.
// A brace that does not enclose a name is literal text.
func parseTemplate(s string, env bool) (tmpl, error) {
	var t tmpl
	lit := func(x string) {
		if x == "" {
			return
		}
		if n := len(t); n > 0 && t[n-1].kind == segLit {
			t[n-1].text += x
			return
		}
		t = append(t, seg{kind: segLit, text: x})
	}
	for s != "" {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			lit(s)
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			if env && strings.Contains(s, "${") {
				return nil, fmt.Errorf("%s: ${ is not closed", s[strings.Index(s, "${"):])
			}
			lit(s)
			break
		}
		inner := s[i+1 : i+j]
		if i > 0 && s[i-1] == '$' {
			if !env {
				return nil, fmt.Errorf("${%s}: credentials are resolved only in headers", inner)
			}
			name, def, hasDef := strings.Cut(inner, ":-")
			if !isIdent(name) {
				return nil, fmt.Errorf("${%s}: %q is not a variable name", inner, name)
			}
			lit(s[:i-1])
			t = append(t, seg{kind: segEnv, text: name, def: def, hasDef: hasDef})
			s = s[i+j+1:]
			continue
		}
		if !isIdent(inner) {
			lit(s[:i+1])
			s = s[i+1:]
			continue
		}
		lit(s[:i])
		t = append(t, seg{kind: segArg, text: inner})
		s = s[i+j+1:]
	}
	return t, nil
}

// isIdent reports whether s is a name of an argument or a variable:
// letters, digits and _, not starting with a digit.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !(i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// single returns the argument of a template that is exactly "{param}".
func (t tmpl) single() (string, bool) {
	if len(t) == 1 && t[0].kind == segArg {
		return t[0].text, true
	}
	return "", false
}

// checkArgs checks that every {param} of t is a property of the input
// (and, for path parameters, a required scalar).
func checkArgs(field string, t tmpl, in Input, required bool) error {
	for _, sg := range t {
		if sg.kind != segArg {
			continue
		}
		typ, ok := in.Properties[sg.text]
		if !ok {
			return fmt.Errorf("%s: {%s} is not a property of the input", field, sg.text)
		}
		if required {
			if !slices.Contains(in.Required, sg.text) {
				return fmt.Errorf("%s: {%s} is not required by the input", field, sg.text)
			}
			if typ == "object" || typ == "array" {
				return fmt.Errorf("%s: {%s} is an %s, not one path segment", field, sg.text, typ)
			}
		} else if typ == "object" {
			return fmt.Errorf("%s: {%s} is an object, not text", field, sg.text)
		}
	}
	return nil
}

type renderMode uint8

const (
	renderPath   renderMode = iota // each argument escaped as one path segment
	renderQuery                    // plain text
	renderHeader                   // plain text without control characters
)

// render writes t with the arguments and credentials. ok is false when an
// argument t refers to is absent (or null): the parameter is left out.
func (t tmpl) render(args map[string]any, env Env, redact bool, mode renderMode) (s string, ok bool, err error) {
	var b strings.Builder
	for _, sg := range t {
		switch sg.kind {
		case segLit:
			b.WriteString(sg.text)
		case segArg:
			v, present := args[sg.text]
			if !present || v == nil {
				if mode == renderPath {
					return "", false, fmt.Errorf("argument %s is missing", sg.text)
				}
				return "", false, nil
			}
			text, err := scalarText(sg.text, v)
			if err != nil {
				return "", false, err
			}
			switch mode {
			case renderPath:
				if text == "" || text == "." || text == ".." {
					return "", false, fmt.Errorf("argument %s is %q, which is not a path segment", sg.text, text)
				}
				text = url.PathEscape(text)
			case renderHeader:
				if !validHeaderValue(text) {
					return "", false, fmt.Errorf("argument %s holds a control character (CR, LF or another)", sg.text)
				}
			}
			b.WriteString(text)
		case segEnv:
			val, set := lookupEnv(env, sg.text)
			if !set {
				if !sg.hasDef {
					return "", false, &MissingEnvError{Name: sg.text}
				}
				val = sg.def
			}
			if redact {
				val = "${" + sg.text + "}"
			} else if !validHeaderValue(val) {
				return "", false, fmt.Errorf("the value of ${%s} holds a control character", sg.text)
			}
			b.WriteString(val)
		}
	}
	return b.String(), true, nil
}

func lookupEnv(env Env, name string) (string, bool) {
	if env == nil {
		return "", false
	}
	return env(name)
}

// addQuery adds the parameter to q: once, or once per item when the
// template is exactly "{param}" and the argument an array.
func (t tmpl) addQuery(q url.Values, name string, args map[string]any) error {
	if arg, ok := t.single(); ok {
		if items, isArray := args[arg].([]any); isArray {
			for _, it := range items {
				s, err := scalarText(arg, it)
				if err != nil {
					return err
				}
				q.Add(name, s)
			}
			return nil
		}
	}
	s, ok, err := t.render(args, nil, false, renderQuery)
	if ok {
		q.Add(name, s)
	}
	return err
}

// scalarText is an argument's value as text: strings as they are, numbers
// as written, booleans as true/false.
func scalarText(name string, v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("argument %s is not a string, number or boolean", name)
}

func validHeaderValue(v string) bool { return httpguts.ValidHeaderFieldValue(v) }

// headers the binding may not set: the transport owns them.
var reservedHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Te": true, "Trailer": true, "Upgrade": true, "Keep-Alive": true,
	"Proxy-Authorization": true, "Proxy-Connection": true,
}

// parseHeaders parses header templates; in is nil for a source's headers,
// which may not refer to arguments.
func parseHeaders(field string, m map[string]string, in *Input) ([]headerTmpl, error) {
	var out []headerTmpl
	for _, name := range sortedKeys(m) {
		if !httpguts.ValidHeaderFieldName(name) {
			return nil, fmt.Errorf("%s: %q is not a header name", field, name)
		}
		canon := http.CanonicalHeaderKey(name)
		if reservedHeaders[canon] {
			return nil, fmt.Errorf("%s: %s is set by the client, not by a tools file", field, canon)
		}
		t, err := parseTemplate(m[name], true)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %v", field, name, err)
		}
		for _, sg := range t {
			if sg.kind == segLit && !validHeaderValue(sg.text) {
				return nil, fmt.Errorf("%s.%s: a control character (CR, LF or another) in the value", field, name)
			}
			if sg.kind == segEnv && sg.hasDef && !validHeaderValue(sg.def) {
				return nil, fmt.Errorf("%s.%s: a control character in the default of ${%s}", field, name, sg.text)
			}
			if sg.kind == segArg && in == nil {
				return nil, fmt.Errorf("%s.%s: {%s}: a source's headers cannot use arguments", field, name, sg.text)
			}
		}
		if in != nil {
			if err := checkArgs(field+"."+name, t, *in, false); err != nil {
				return nil, err
			}
		}
		out = append(out, headerTmpl{name: canon, t: t})
	}
	return out, nil
}

// mergeHeaders returns the source's headers overridden by the binding's.
func mergeHeaders(src, own []headerTmpl) []headerTmpl {
	out := make([]headerTmpl, 0, len(src)+len(own))
	for _, h := range src {
		if !containsHeader(own, h.name) {
			out = append(out, h)
		}
	}
	return append(out, own...)
}

func containsHeader(hs []headerTmpl, name string) bool {
	for _, h := range hs {
		if h.name == name {
			return true
		}
	}
	return false
}

// bodyArg returns the argument a body template value stands for: a string
// that is exactly "{param}" or an object {"$arg": "param"}.
func bodyArg(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		if len(v) > 2 && v[0] == '{' && v[len(v)-1] == '}' && isIdent(v[1:len(v)-1]) {
			return v[1 : len(v)-1], true
		}
	case map[string]any:
		if len(v) == 1 {
			if s, ok := v["$arg"].(string); ok {
				return s, true
			}
		}
	}
	return "", false
}

// checkBody checks that every argument a body template places is a
// property of the input, and that the template is JSON.
func checkBody(at string, v any, in Input) error {
	if name, ok := bodyArg(v); ok {
		if _, known := in.Properties[name]; !known {
			return fmt.Errorf("%s: {%s} is not a property of the input", at, name)
		}
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["$arg"]; ok {
			return fmt.Errorf("%s: $arg takes the name of a property, alone in its object", at)
		}
		for _, k := range sortedKeys(v) {
			if err := checkBody(at+"."+k, v[k], in); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := checkBody(at+"["+strconv.Itoa(i)+"]", e, in); err != nil {
				return err
			}
		}
	case map[any]any:
		return fmt.Errorf("%s: an object with keys that are not strings", at)
	case nil, string, bool, float64, int, int64, uint64, json.Number:
	default:
		return fmt.Errorf("%s: %T is not a JSON value", at, v)
	}
	return nil
}

// fillBody places the arguments in a body template; present is false when
// v stands for an absent argument.
func fillBody(v any, args map[string]any) (out any, present bool) {
	if name, ok := bodyArg(v); ok {
		a, present := args[name]
		return a, present
	}
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			if f, ok := fillBody(e, args); ok {
				m[k] = f
			}
		}
		return m, true
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i], _ = fillBody(e, args)
		}
		return s, true
	}
	return v, true
}

// parsePath parses a response path: a JSON pointer ("/a/0/b") or a dotted
// path ("a.0.b", "$.a.0.b"). "" is the whole body (nil).
func parsePath(p string) ([]string, error) {
	switch {
	case p == "" || p == "$" || p == "/":
		return nil, nil
	case strings.HasPrefix(p, "/"):
		parts := strings.Split(p[1:], "/")
		for i, s := range parts {
			if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(s, "~0", ""), "~1", ""), "~") {
				return nil, fmt.Errorf("%q: ~ must be written ~0 in a JSON pointer", p)
			}
			parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		}
		return parts, nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "$."), ".")
	for _, s := range parts {
		if s == "" {
			return nil, fmt.Errorf("%q: an empty step", p)
		}
	}
	return parts, nil
}

// pointer writes a parsed path as a JSON pointer.
func pointer(path []string) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
