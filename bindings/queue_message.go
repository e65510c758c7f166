package bindings

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// template is a compiled JSON template: constants, and argRef where an
// argument's value goes. It places values; it never splices text.
type template struct{ root any }

// argRef is the place of an argument's value in a template.
type argRef struct{ name string }

var (
	// wholeRef is a value that is exactly one reference: "{name}".
	wholeRef = regexp.MustCompile(`^\{([^{}\s]+)\}$`)
	// innerRef is a reference inside longer text, which is never replaced.
	innerRef = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_.-]*\}`)
)

// compileTemplate compiles a template decoded from YAML or JSON. Its errors
// start with the path of the faulty value (".lines[2]: ...") so that the
// caller prefixes the field's name.
func compileTemplate(v any, in Input) (*template, error) {
	root, err := compileNode(v, "", in)
	if err != nil {
		return nil, err
	}
	return &template{root: root}, nil
}

func compileNode(v any, path string, in Input) (any, error) {
	switch v := v.(type) {
	case string:
		if m := wholeRef.FindStringSubmatch(v); m != nil {
			return argRefTo(m[1], path, in)
		}
		if ref := innerRef.FindString(v); ref != "" {
			return nil, fmt.Errorf("%s: %s inside text is not replaced; a value that is exactly %q places the argument", pathOrRoot(path), ref, ref)
		}
		return v, nil
	case map[string]any:
		if len(v) == 1 {
			if a, ok := v["$arg"]; ok {
				name, ok := a.(string)
				if !ok {
					return nil, fmt.Errorf("%s.$arg: names an argument, a string", path)
				}
				return argRefTo(name, path, in)
			}
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, err := compileNode(e, path+"."+k, in)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			s, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("%s: the key %v is not a string", pathOrRoot(path), k)
			}
			m[s] = e
		}
		return compileNode(m, path, in)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, err := compileNode(e, path+"["+strconv.Itoa(i)+"]", in)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		// Numbers, booleans, null (and what else a decoder gives for a
		// scalar) are constants; the encoder refuses what JSON cannot hold.
		if _, err := json.Marshal(v); err != nil {
			return nil, fmt.Errorf("%s: %v is not a JSON value", pathOrRoot(path), v)
		}
		return v, nil
	}
}

func pathOrRoot(path string) string {
	if path == "" {
		return ":"
	}
	return path
}

func argRefTo(name, path string, in Input) (argRef, error) {
	if _, ok := in.Properties[name]; !ok {
		return argRef{}, fmt.Errorf("%s: {%s} is not a property of the input", pathOrRoot(path), name)
	}
	return argRef{name: name}, nil
}

// place returns the template's value for these arguments. An absent
// argument leaves its member out of an object, and is null in an array or
// at the root.
func (t *template) place(args map[string]any) any {
	v, _ := placeNode(t.root, args)
	return v
}

func placeNode(n any, args map[string]any) (any, bool) {
	switch n := n.(type) {
	case argRef:
		v, ok := args[n.name]
		return v, ok
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, e := range n {
			if v, ok := placeNode(e, args); ok {
				out[k] = v
			}
		}
		return out, true
	case []any:
		out := make([]any, len(n))
		for i, e := range n {
			out[i], _ = placeNode(e, args)
		}
		return out, true
	default:
		return n, true
	}
}

// headerField is one compiled header: a constant, or the text of an
// argument (arg != "").
type headerField struct {
	name, value, arg string
}

// compileHeaders checks the headers' names and constants and the
// properties they take. Names are sorted so messages are built the same way
// every time.
func compileHeaders(h map[string]string, provider string, in Input) ([]headerField, error) {
	out := make([]headerField, 0, len(h))
	for name, value := range h {
		path := "headers." + name
		if err := checkHeaderName(name, provider); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if m := wholeRef.FindStringSubmatch(value); m != nil {
			ref, err := argRefTo(m[1], path, in)
			if err != nil {
				return nil, err
			}
			switch typ := in.Properties[ref.name]; typ {
			case "", "string", "number", "integer", "boolean":
			default:
				return nil, fmt.Errorf("%s: {%s} is of type %s; a header is text (a string, number, integer or boolean)", path, ref.name, typ)
			}
			out = append(out, headerField{name: name, arg: ref.name})
			continue
		}
		if ref := innerRef.FindString(value); ref != "" {
			return nil, fmt.Errorf("%s: %s inside text is not replaced; a value that is exactly %q places the argument", path, ref, ref)
		}
		if err := checkHeaderValue(value); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, headerField{name: name, value: value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// checkHeaderName takes HTTP's token characters (NATS headers follow HTTP's
// form). The names NATS acts on (Nats-Msg-Id, Nats-Rollup, ...) are the
// binding's to set, never a file's: a rollup header would purge a stream.
// For Redis, "message" is the field that holds the message.
func checkHeaderName(name, provider string) error {
	if name == "" {
		return errors.New("a header has a name")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return fmt.Errorf("%q is not a header name (letters, digits and !#$%%&'*+-.^_`|~)", name)
		}
	}
	switch {
	case provider == "nats" && len(name) >= 5 && strings.EqualFold(name[:5], "nats-"):
		return fmt.Errorf("%q: headers starting with Nats- direct the server; the binding sets those it needs", name)
	case provider == "redis" && name == "message":
		return errors.New(`"message" is the stream field of the message itself`)
	}
	return nil
}

// checkHeaderValue refuses what would end a header early or smuggle
// another one in: line breaks and NUL; and values too long to be headers.
func checkHeaderValue(v string) error {
	if strings.ContainsAny(v, "\r\n\x00") {
		return errors.New("the value holds a line break or a NUL")
	}
	if len(v) > queueMaxHeader {
		return fmt.Errorf("the value is %d bytes, over the limit of %d", len(v), queueMaxHeader)
	}
	return nil
}

// placeHeaders returns the headers of a call; an absent argument leaves its
// header out.
func placeHeaders(fields []headerField, args map[string]any) ([][2]string, error) {
	out := make([][2]string, 0, len(fields))
	for _, f := range fields {
		value := f.value
		if f.arg != "" {
			v, ok := args[f.arg]
			if !ok || v == nil {
				continue
			}
			s, ok := headerText(v)
			if !ok {
				return nil, fmt.Errorf("queue: header %s: the argument %s is not text, a number or a boolean", f.name, f.arg)
			}
			if err := checkHeaderValue(s); err != nil {
				return nil, fmt.Errorf("queue: header %s from the argument %s: %w", f.name, f.arg, err)
			}
			value = s
		}
		out = append(out, [2]string{f.name, value})
	}
	return out, nil
}

func headerText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}

func marshalJSON(v any) ([]byte, error) { return jsonenc.Marshal(v) }

// rawJSON shows JSON already encoded as itself in an output.
func rawJSON(b []byte) json.RawMessage { return json.RawMessage(b) }
