package jsonenc

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without HTML escaping (json.RawMessage values
// inside v included).
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || !htmlEscaped(b) {
		return b, err // nothing was escaped: the common case costs what json.Marshal does
	}
	return MarshalIndent(v, "", "")
}

// htmlEscaped reports whether b may hold one of json.Marshal's HTML escapes.
func htmlEscaped(b []byte) bool {
	return bytes.Contains(b, []byte(`\u003c`)) || bytes.Contains(b, []byte(`\u003e`)) || bytes.Contains(b, []byte(`\u0026`))
}

// MarshalIndent is json.MarshalIndent without HTML escaping; with an empty
// prefix and indent it is Marshal.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
