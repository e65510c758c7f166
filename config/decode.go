package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a config file; a valid one nests three
// levels deep.
const maxDepth = 64

// document is a decoded config file that remembers where each key and value
// starts, so that problems can name a line and a column.
type document struct {
	data   []byte
	root   any            // map[string]any, []any, string, json.Number, bool or nil
	values map[string]int // JSON pointer → offset of the value
	keys   map[string]int // JSON pointer → offset of the key naming the value
	dups   []string       // JSON pointers of keys given twice (their second time)
}

// syntaxError is malformed JSON at a byte offset.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string { return e.msg }

// decodeDocument reads exactly one JSON value from data, keeping numbers as
// json.Number.
func decodeDocument(data []byte) (*document, error) {
	d := &document{data: data, values: map[string]int{}, keys: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root, err := d.value(dec, "", 0)
	if err != nil {
		return d, d.syntax(dec, err)
	}
	d.root = root
	off := d.skip(int(dec.InputOffset()))
	if off < len(data) {
		return d, &syntaxError{off, "unexpected data after the JSON object (only one object may be in the file)"}
	}
	return d, nil
}

func (d *document) value(dec *json.Decoder, ptr string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, &syntaxError{d.skip(int(dec.InputOffset())), fmt.Sprintf("nested more than %d levels deep", maxDepth)}
	}
	off := d.skip(int(dec.InputOffset()))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d.values[ptr] = off
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch delim {
	case '{':
		obj := map[string]any{}
		for dec.More() {
			koff := d.skip(int(dec.InputOffset()))
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			at := ptr + "/" + jsonpointer.Escape(key)
			if _, dup := obj[key]; dup {
				d.dups = append(d.dups, at)
			}
			d.keys[at] = koff
			v, err := d.value(dec, at, depth+1)
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return obj, nil
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := d.value(dec, ptr+"/"+strconv.Itoa(len(arr)), depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return arr, nil
	}
	return nil, &syntaxError{off, fmt.Sprintf("unexpected %q", rune(delim))}
}

// syntax turns a decoding error into a syntaxError with an offset. The
// Decoder's token errors lack context and place, so the data is checked
// again with json.Unmarshal, whose error names the offending byte.
func (d *document) syntax(dec *json.Decoder, err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return se
	}
	eof := &syntaxError{len(d.data), "unexpected end of file (is a closing } or ] missing?)"}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return eof
	}
	var jse *json.SyntaxError
	if uerr := json.Unmarshal(d.data, new(any)); errors.As(uerr, &jse) {
		// Offset counts the bytes read, the offending one included.
		if off := int(jse.Offset) - 1; off >= 0 && off < len(d.data) && !strings.HasPrefix(jse.Error(), "unexpected end") {
			return &syntaxError{off, jse.Error()}
		}
		return eof
	}
	return &syntaxError{d.skip(int(dec.InputOffset())), err.Error()}
}

// skip returns the offset of the next token at or after off: past white
// space and the separators ':' and ','.
func (d *document) skip(off int) int {
	for off < len(d.data) {
		switch d.data[off] {
		case ' ', '\t', '\n', '\r', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// offset returns where the value at ptr starts, or its key when key is
// true (falling back on the value); -1 when unknown.
func (d *document) offset(ptr string, key bool) int {
	if key {
		if off, ok := d.keys[ptr]; ok {
			return off
		}
	}
	if off, ok := d.values[ptr]; ok {
		return off
	}
	return -1
}

// lineColumn turns a byte offset into a 1-based line and column (in
// characters).
func (d *document) lineColumn(off int) (line, col int) {
	off = min(off, len(d.data))
	start := bytes.LastIndexByte(d.data[:off], '\n') + 1
	return bytes.Count(d.data[:off], []byte{'\n'}) + 1, utf8.RuneCount(d.data[start:off]) + 1
}

// lookup returns the value at the unescaped pointer tokens of root.
func lookup(root any, tokens []string) (any, bool) {
	v := root
	for _, t := range tokens {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[t]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
