package history

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// Redacted replaces the value of an argument that may be a secret.
const Redacted = "[redacted]"

// Redact returns args with every value that may be a secret replaced by
// "[redacted]", for storing. A value is a secret when, at any depth:
//
//   - the schema of its property says "writeOnly": true (the schema is
//     followed through properties, additionalProperties and items, not
//     through $ref), or
//   - its key, split into words at _ - . and changes of case, has a word
//     password, passwd, secret, token, credential(s) or authorization, or
//     the words api key, private key or access key in a row ("api_key",
//     "apiKey", "access_token", "client_secret"; not "max_tokens").
//
// Arguments that are not a JSON object are returned as they are; arguments
// that are not JSON at all are replaced by "[redacted]" as a whole, since
// nothing in them can be told apart.
func Redact(schema, args json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		return args
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(trimmed))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		q, _ := jsonenc.Marshal(Redacted)
		return q
	}
	var s map[string]any
	if len(schema) > 0 {
		_ = json.Unmarshal(schema, &s)
	}
	if !redactValue(s, v) {
		return args // nothing secret: stored as given
	}
	out, err := jsonenc.Marshal(v)
	if err != nil {
		q, _ := jsonenc.Marshal(Redacted)
		return q
	}
	return out
}

// redactValue redacts in place the secrets under v, described by schema s
// (nil: unknown), and reports whether it changed anything.
func redactValue(s map[string]any, v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		extra, _ := s["additionalProperties"].(map[string]any)
		for k, val := range v {
			ps, _ := props[k].(map[string]any)
			if ps == nil {
				ps = extra
			}
			if SecretName(k) || isWriteOnly(ps) {
				if val != Redacted {
					v[k] = Redacted
					changed = true
				}
				continue
			}
			if redactValue(ps, val) {
				changed = true
			}
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for _, val := range v {
			if redactValue(items, val) {
				changed = true
			}
		}
	}
	return changed
}

func isWriteOnly(s map[string]any) bool {
	w, _ := s["writeOnly"].(bool)
	return w
}

// SecretName reports whether an argument named key is taken for a secret
// (see Redact).
func SecretName(key string) bool {
	words := splitWords(key)
	for i, w := range words {
		switch w {
		case "password", "passwd", "secret", "token", "credential", "credentials", "authorization", "apikey", "passphrase":
			return true
		case "key":
			if i > 0 {
				switch words[i-1] {
				case "api", "private", "access", "secret":
					return true
				}
			}
		}
	}
	return false
}

// splitWords splits a key into lower-case words at _ - . spaces and at a
// lower-case letter or digit followed by an upper-case one.
func splitWords(key string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	var prev rune
	for _, r := range key {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur.WriteRune(unicode.ToLower(r))
		default:
			cur.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	flush()
	return words
}
