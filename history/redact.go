package history

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Redacted replaces the value of an argument that may be a secret.
const Redacted = "[redacted]"

// Redact returns args with every value that may be a secret replaced by
// "[redacted]", for storing. A value is a secret when, at any depth:
//
//   - the schema of its property says "writeOnly": true (the schema is
//     followed through properties, additionalProperties, items, local
//     $ref and the branches of allOf, anyOf and oneOf: writeOnly in any
//     branch makes the value secret), or
//   - its key is a secret's name (see SecretName).
//
// Arguments that are not a JSON object are returned as they are; arguments
// that are not JSON at all are replaced by "[redacted]" as a whole, since
// nothing in them can be told apart.
func Redact(schema, args json.RawMessage) json.RawMessage {
	out, _ := redactArgs(schema, args)
	return out
}

// SetArgs sets e.Args to args with their secrets redacted (see Redact),
// and replaces every value redacted there by "[redacted]" in e.Result too:
// in its output, invalid output, plan, message, hint, field errors, stack
// and governance, wherever a tool or a server echoed it. A value shorter
// than four characters is replaced only where a whole string (or number)
// of the output equals it, lest it blot out unrelated text. e.Result is
// copied, never changed.
func (e *Entry) SetArgs(schema, args json.RawMessage) {
	var secrets []string
	e.Args, secrets = redactArgs(schema, args)
	if e.Result != nil && len(secrets) > 0 {
		e.Result = redactResult(e.Result, secrets)
	}
}

// RedactValues replaces each of values wherever e.Result holds it, as
// SetArgs does for the values it redacts from the arguments: for secrets
// the call got from elsewhere than its arguments as kept (the variables of
// an environment). e.Result is copied, never changed.
func (e *Entry) RedactValues(values []string) {
	if e.Result != nil && len(values) > 0 {
		e.Result = redactResult(e.Result, values)
	}
}

// redactArgs is Redact, with the values it redacted: each string, and each
// number as written, under a redacted key.
func redactArgs(schema, args json.RawMessage) (json.RawMessage, []string) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		return args, nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(trimmed))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		q, _ := jsonenc.Marshal(Redacted)
		return q, nil
	}
	var s map[string]any
	if len(schema) > 0 {
		_ = json.Unmarshal(schema, &s)
	}
	r := redactor{root: s}
	if !r.value(r.resolve(s, 0), v) {
		return args, nil // nothing secret: stored as given
	}
	out, err := jsonenc.Marshal(v)
	if err != nil {
		q, _ := jsonenc.Marshal(Redacted)
		return q, r.values
	}
	return out, r.values
}

type redactor struct {
	root   map[string]any // the whole schema, for $ref
	values []string       // what was redacted
}

// maxSchemaDepth bounds how far $ref and the branches are followed (a
// schema that refers to itself).
const maxSchemaDepth = 16

// resolve returns s with the schemas it stands for: its local $ref, and
// the members of allOf, anyOf and oneOf, followed to maxSchemaDepth.
func (r *redactor) resolve(s map[string]any, depth int) []map[string]any {
	if s == nil || depth > maxSchemaDepth {
		return nil
	}
	out := []map[string]any{s}
	if ref, ok := s["$ref"].(string); ok {
		out = append(out, r.resolve(r.lookup(ref), depth+1)...)
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[kw].([]any)
		for _, b := range list {
			bs, _ := b.(map[string]any)
			out = append(out, r.resolve(bs, depth+1)...)
		}
	}
	return out
}

// lookup finds a local reference such as "#/$defs/auth".
func (r *redactor) lookup(ref string) map[string]any {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	cur := r.root
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if part == "" {
			continue
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		next, _ := cur[part].(map[string]any)
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

// value redacts in place the secrets under v, described by the schemas ss
// (none: unknown), and reports whether it changed anything.
func (r *redactor) value(ss []map[string]any, v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			var ps []map[string]any
			for _, s := range ss {
				props, _ := s["properties"].(map[string]any)
				p, _ := props[k].(map[string]any)
				if p == nil {
					p, _ = s["additionalProperties"].(map[string]any)
				}
				ps = append(ps, r.resolve(p, 0)...)
			}
			if SecretName(k) || writeOnly(ps) {
				if val != Redacted && !onlyReference(val) {
					r.collect(val)
					v[k] = Redacted
					changed = true
				}
				continue
			}
			if r.value(ps, val) {
				changed = true
			}
		}
	case []any:
		var items []map[string]any
		for _, s := range ss {
			is, _ := s["items"].(map[string]any)
			items = append(items, r.resolve(is, 0)...)
		}
		for _, val := range v {
			if r.value(items, val) {
				changed = true
			}
		}
	}
	return changed
}

// reference is a reference to a variable of an environment, {{name}},
// as package collection reads it.
var reference = regexp.MustCompile(`\{\{\s*[A-Za-z0-9_.-]+\s*\}\}`)

// onlyReference reports whether v is a string that holds references to
// variables and nothing else but an authorization scheme ("{{token}}",
// "Bearer {{token}}"): the secret is the variable's value, which is not
// in the arguments, and the reference is kept so that the call can be
// made again.
func onlyReference(v any) bool {
	s, ok := v.(string)
	if !ok || !reference.MatchString(s) {
		return false
	}
	rest := strings.TrimSpace(reference.ReplaceAllString(s, ""))
	switch strings.ToLower(rest) {
	case "", "bearer", "basic", "token", "digest":
		return true
	}
	return false
}

// collect keeps the strings and numbers of a redacted value.
func (r *redactor) collect(v any) {
	switch v := v.(type) {
	case string:
		if v != "" && v != Redacted {
			r.values = append(r.values, v)
		}
	case json.Number:
		r.values = append(r.values, v.String())
	case map[string]any:
		for _, e := range v {
			r.collect(e)
		}
	case []any:
		for _, e := range v {
			r.collect(e)
		}
	}
}

func writeOnly(ss []map[string]any) bool {
	for _, s := range ss {
		if w, _ := s["writeOnly"].(bool); w {
			return true
		}
	}
	return false
}

// minEchoed is the shortest redacted value replaced inside a longer text
// of a result; shorter ones are replaced only where they stand alone.
const minEchoed = 4

// redactResult is a copy of res with every one of the values replaced by
// "[redacted]" where the result shows content: not in its call id, tool,
// status, code or times.
func redactResult(res *tooling.Result, values []string) *tooling.Result {
	c := *res
	text := func(s string) string {
		for _, v := range values {
			if len(v) < minEchoed {
				if s == v {
					return Redacted
				}
				continue
			}
			for _, f := range textForms(v) {
				s = strings.ReplaceAll(s, f, Redacted)
			}
		}
		return s
	}
	c.Message, c.Hint, c.Stack = text(c.Message), text(c.Hint), text(c.Stack)
	if c.Fields != nil {
		c.Fields = append([]tooling.FieldError(nil), c.Fields...)
		for i := range c.Fields {
			c.Fields[i].Message = text(c.Fields[i].Message)
		}
	}
	if c.Governance != nil {
		c.Governance = append([]tooling.Decision(nil), c.Governance...)
		for i := range c.Governance {
			c.Governance[i].Detail = text(c.Governance[i].Detail)
		}
	}
	c.Output = redactJSON(c.Output, values, text)
	c.InvalidOutput = redactJSON(c.InvalidOutput, values, text)
	c.Plan = redactJSON(c.Plan, values, text)
	return &c
}

// textForms are the ways a message may quote v: as it is, and escaped as
// a Go or JSON string.
func textForms(v string) []string {
	forms := []string{v}
	if q := strconv.Quote(v); q[1:len(q)-1] != v {
		forms = append(forms, q[1:len(q)-1])
	}
	if j, err := jsonenc.Marshal(v); err == nil && string(j[1:len(j)-1]) != v {
		forms = append(forms, string(j[1:len(j)-1]))
	}
	return forms
}

// redactJSON redacts a JSON text on its decoded values: strings and keys
// with text, numbers equal to a redacted number replaced whole. A text that
// is not JSON is redacted as text and kept as a JSON string.
func redactJSON(raw json.RawMessage, values []string, text func(string) string) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		s := text(string(raw))
		if s == string(raw) {
			return raw
		}
		q, _ := jsonenc.Marshal(s)
		return q
	}
	var walk func(v any) (any, bool)
	walk = func(v any) (any, bool) {
		switch v := v.(type) {
		case string:
			s := text(v)
			return s, s != v
		case json.Number:
			for _, x := range values {
				if v.String() == x {
					return Redacted, true
				}
			}
		case []any:
			changed := false
			for i, e := range v {
				var c bool
				if v[i], c = walk(e); c {
					changed = true
				}
			}
			return v, changed
		case map[string]any:
			changed := false
			out := make(map[string]any, len(v))
			for k, e := range v {
				ne, c := walk(e)
				nk := text(k)
				out[nk] = ne
				changed = changed || c || nk != k
			}
			return out, changed
		}
		return v, false
	}
	nv, changed := walk(v)
	if !changed {
		return raw
	}
	out, err := jsonenc.Marshal(nv)
	if err != nil {
		q, _ := jsonenc.Marshal(Redacted)
		return q
	}
	return out
}

// SecretName reports whether an argument named key is taken for a secret.
// The key is split into words at _ - . spaces and changes of case; it is a
// secret's name when a word is one of password, passwd, pwd, passphrase,
// passcode, secret, token, credential(s), authorization, auth, bearer,
// cookie(s), jwt, otp, totp, pin, apikey, sessionid or privatekey, or when
// two words in a row are api key, private key, access key, secret key,
// signing key, session id or session key ("api_key",
// "apiKey", "access_token", "client_secret", "X-Auth-Token", "session_id";
// not "max_tokens", "author" or "keyboard").
func SecretName(key string) bool {
	words := splitWords(key)
	for i, w := range words {
		switch w {
		case "password", "passwd", "pwd", "passphrase", "passcode", "secret", "token", "credential", "credentials",
			"authorization", "auth", "bearer", "cookie", "cookies", "jwt", "otp", "totp", "pin",
			"apikey", "sessionid", "privatekey":
			return true
		case "key", "id":
			if i > 0 {
				switch words[i-1] + " " + w {
				case "api key", "private key", "access key", "secret key", "signing key", "session key", "session id":
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
