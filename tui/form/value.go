package form

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// valueError is input that does not parse, at a JSON pointer.
type valueError struct {
	path string
	msg  string
}

func (e *valueError) Error() string { return pathText(e.path) + ": " + e.msg }

func errAt(path, format string, a ...any) error {
	return &valueError{path: path, msg: fmt.Sprintf(format, a...)}
}

func pathText(p string) string {
	if p == "" {
		return "(arguments)"
	}
	return p
}

// typeName is the JSON type of a decoded value.
func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if isInteger(x) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case *omap:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func isInteger(n json.Number) bool {
	if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return true
	}
	f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
	return err == nil && f.IsInt()
}

func typeErr(path, want string, v any) error {
	return errAt(path, "expected %s, got %s", want, typeName(v))
}

// fitsType reports whether v has JSON type t.
func fitsType(t string, v any) bool {
	got := typeName(v)
	return got == t || (t == "number" && got == "integer")
}

// equalJSON compares two decoded values, numbers by value.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, _, e1 := big.ParseFloat(string(x), 10, 256, big.ToNearestEven)
		fy, _, e2 := big.ParseFloat(string(y), 10, 256, big.ToNearestEven)
		return e1 == nil && e2 == nil && fx.Cmp(fy) == 0
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equalJSON)
	case *omap:
		y, ok := b.(*omap)
		if !ok || len(x.vals) != len(y.vals) {
			return false
		}
		for k, v := range x.vals {
			w, ok := y.vals[k]
			if !ok || !equalJSON(v, w) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// fromPlain converts a value decoded by encoding/json (maps, float64) into
// the form's representation.
func fromPlain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		o := newOmap(len(x))
		for _, k := range keys {
			o.set(k, fromPlain(x[k]))
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromPlain(e)
		}
		return out
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	case int:
		return json.Number(strconv.Itoa(x))
	}
	return v
}

// encodeJSON writes v compactly; objects keep their key order.
func encodeJSON(buf *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case json.Number:
		if x == "" {
			buf.WriteString("0")
		} else {
			buf.WriteString(string(x))
		}
	case string:
		b, _ := jsonenc.Marshal(x)
		buf.Write(b)
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			encodeJSON(buf, e)
		}
		buf.WriteByte(']')
	case *omap:
		buf.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			b, _ := jsonenc.Marshal(k)
			buf.Write(b)
			buf.WriteByte(':')
			encodeJSON(buf, x.vals[k])
		}
		buf.WriteByte('}')
	default:
		b, err := jsonenc.Marshal(fromPlain(x))
		if err != nil {
			buf.WriteString("null")
			return
		}
		buf.Write(b)
	}
}

func compactJSON(v any) string {
	var buf bytes.Buffer
	encodeJSON(&buf, v)
	return buf.String()
}

// scalarText shows a value in a field: strings as they are, others as JSON.
func scalarText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compactJSON(v)
}

// choiceText shows an enum choice; strings that would read as another type
// are quoted.
func choiceText(v any) string {
	s, ok := v.(string)
	if !ok {
		return compactJSON(v)
	}
	if s == "" || s == "null" || s == "true" || s == "false" || strings.TrimSpace(s) != s {
		return strconv.Quote(s)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.Quote(s)
	}
	return s
}

// score says how well v fits schema n: -1 when it cannot, higher is better.
// It picks the variant of a union that a loaded value belongs to.
func (d *doc) score(n *node, v any, depth int) int {
	if n.never || depth > 16 {
		return -1
	}
	if v == nil {
		if in, ok := d.nullSplit(n); ok && in != nil {
			return 3
		}
	}
	if in, ok := d.nullSplit(n); ok {
		n = in
	}
	switch {
	case n.hasConst:
		if equalJSON(n.cnst, v) {
			return 20
		}
		return -1
	case n.hasEnum:
		if slices.ContainsFunc(n.enum, func(e any) bool { return equalJSON(e, v) }) {
			return 8
		}
		return -1
	}
	if len(n.anyOf) > 0 || len(n.oneOf) > 0 {
		best := -1
		for _, vr := range d.variants(n) {
			best = max(best, d.score(vr.n, v, depth+1))
		}
		return best
	}
	types := n.effectiveTypes()
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return fitsType(t, v) }) {
		return -1
	}
	s := 1
	if len(types) > 0 {
		s = 2
		if slices.Contains(types, typeName(v)) {
			s = 3
		}
	}
	o, ok := v.(*omap)
	if !ok {
		return s
	}
	for _, p := range n.props {
		pv, has := o.get(p.name)
		if !has {
			if n.isRequired(p.name) {
				s -= 3
			}
			continue
		}
		pn := d.prop(p)
		if pn.hasConst {
			if !equalJSON(pn.cnst, pv) {
				return -1
			}
			s += 20
			continue
		}
		if d.score(pn, pv, depth+1) < 0 {
			s -= 2
			continue
		}
		s += 2
	}
	if n.addlFalse {
		for _, k := range o.keys {
			if !slices.ContainsFunc(n.props, func(p *propDef) bool { return p.name == k }) {
				s -= 5
			}
		}
	}
	return max(s, 0)
}
