package form

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// omap is a JSON object that keeps its keys in document order: a form lists
// properties as the schema declares them, and Value writes them that way.
type omap struct {
	keys []string
	vals map[string]any
}

func newOmap(n int) *omap { return &omap{keys: make([]string, 0, n), vals: make(map[string]any, n)} }

func (o *omap) get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// set adds or replaces k; a replaced key keeps its position.
func (o *omap) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *omap) str(k string) (string, bool) {
	v, ok := o.get(k)
	s, isStr := v.(string)
	return s, ok && isStr
}

// decodeOrdered decodes one JSON value: objects as *omap, numbers as
// json.Number, arrays as []any. Trailing data is an error.
func decodeOrdered(data []byte) (any, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // for the message
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			// Where: a text of many lines is otherwise searched by eye.
			off := min(max(int(se.Offset)-1, 0), len(data))
			line := bytes.Count(data[:off], []byte("\n")) + 1
			col := utf8.RuneCount(data[bytes.LastIndexByte(data[:off], '\n')+1:off]) + 1
			return nil, fmt.Errorf("line %d, column %d: %w", line, col, err)
		case err == nil:
			err = errors.New("invalid JSON")
		}
		return nil, err
	}
	p := parser{data: data}
	return p.value(), nil
}

// parser reads JSON already checked by json.Valid.
type parser struct {
	data []byte
	i    int
}

func (p *parser) skip() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() any {
	p.skip()
	switch c := p.data[p.i]; c {
	case '{':
		p.i++
		o := newOmap(4)
		for {
			p.skip()
			if p.data[p.i] == '}' {
				p.i++
				return o
			}
			if p.data[p.i] == ',' {
				p.i++
				p.skip()
			}
			k := p.str()
			p.skip()
			p.i++ // ':'
			o.set(k, p.value())
		}
	case '[':
		p.i++
		a := []any{}
		for {
			p.skip()
			if p.data[p.i] == ']' {
				p.i++
				return a
			}
			if p.data[p.i] == ',' {
				p.i++
			}
			a = append(a, p.value())
		}
	case '"':
		return p.str()
	case 't':
		p.i += 4
		return true
	case 'f':
		p.i += 5
		return false
	case 'n':
		p.i += 4
		return nil
	default:
		j := p.i
		for p.i < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.i]) >= 0 {
			p.i++
		}
		return json.Number(p.data[j:p.i])
	}
}

func (p *parser) str() string {
	j := p.i + 1
	esc := false
	for k := j; k < len(p.data); k++ {
		switch p.data[k] {
		case '\\':
			esc = true
			k++
		case '"':
			p.i = k + 1
			if !esc {
				return string(p.data[j:k])
			}
			var s string
			_ = json.Unmarshal(p.data[j-1:k+1], &s)
			return s
		}
	}
	p.i = len(p.data)
	return ""
}
