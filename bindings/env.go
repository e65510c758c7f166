package bindings

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// credRef is a credential reference in a source or binding string:
// ${NAME}, or ${NAME:-default} with a default used when NAME is unset.
var credRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expand replaces the ${NAME} and ${NAME:-default} references of s with
// their values from env. A reference with no value and no default is a
// *MissingEnvError. Bindings call it at call time, on every string of their
// source and binding that may hold a reference; what they return (outputs,
// errors, shadow requests) shows the string before expand, never after.
func expand(s string, env Env) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var missing error
	out := credRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := credRef.FindStringSubmatch(ref)
		if env != nil {
			if v, ok := env(m[1]); ok {
				return v
			}
		}
		if m[2] != "" {
			return m[3]
		}
		if missing == nil {
			missing = &MissingEnvError{Name: m[1]}
		}
		return ""
	})
	if missing != nil {
		return "", missing
	}
	return out, nil
}

// envVars returns the variables s refers to, and which of them have a
// default.
func envVars(s string) (names []string, defaulted map[string]bool) {
	for _, m := range credRef.FindAllStringSubmatch(s, -1) {
		names = append(names, m[1])
		if m[2] != "" {
			if defaulted == nil {
				defaulted = map[string]bool{}
			}
			defaulted[m[1]] = true
		}
	}
	return names, defaulted
}

// EnvFile returns an Env that resolves a variable from the process
// environment or, when it is not set there, from the env file at path:
// lines NAME=VALUE, with blank lines and lines starting with # skipped, an
// optional "export " before the name and the value optionally in single or
// double quotes. An error names the file and line; it never shows a value.
func EnvFile(path string) (Env, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bindings: env file: %w", err)
	}
	defer f.Close()
	vals := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, val, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !validVarName(name) {
			return nil, fmt.Errorf("bindings: env file %s:%d: want NAME=VALUE", path, n)
		}
		val = strings.TrimSpace(val)
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			val = val[1 : len(val)-1]
		}
		vals[name] = val
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bindings: env file %s: %w", path, err)
	}
	return func(name string) (string, bool) {
		if v, ok := os.LookupEnv(name); ok {
			return v, true
		}
		v, ok := vals[name]
		return v, ok
	}, nil
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// secrets is what a tool must never show of its credentials: the values
// its ${NAME} references resolve to now, longest first, each with the
// reference that replaces it.
type secrets []secret

type secret struct{ value, ref string }

// minSecret is the shortest value redacted: shorter values (a port, a
// flag) would blot out unrelated text.
const minSecret = 4

func resolvedSecrets(vars []string, env Env) secrets {
	var out secrets
	if env == nil {
		return nil
	}
	for _, name := range vars {
		if v, ok := env(name); ok && len(v) >= minSecret {
			out = append(out, secret{v, "${" + name + "}"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i].value) > len(out[j].value) })
	return out
}

// redact replaces every form of every secret in s with its reference (see
// forms).
func (ss secrets) redact(s string) string {
	for _, x := range ss {
		s = x.pattern().ReplaceAllLiteralString(s, x.ref)
	}
	return s
}

// redactJSON redacts the secrets of a JSON text on its decoded values, in
// strings and object keys at any depth, and encodes it again when it
// changed: a secret holding a character that JSON escapes (" \ < > & a
// control character, U+2028) is found whatever the encoder wrote. A text
// that is not JSON is redacted as text.
func (ss secrets) redactJSON(b []byte) []byte {
	if len(ss) == 0 {
		return b
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return []byte(ss.redact(string(b)))
	}
	v, changed := ss.redactValue(v)
	if !changed {
		return b
	}
	out, err := jsonenc.Marshal(v)
	if err != nil {
		return []byte(ss.redact(string(b)))
	}
	return out
}

// redactValue redacts the strings and keys of a decoded JSON value.
func (ss secrets) redactValue(v any) (any, bool) {
	switch v := v.(type) {
	case string:
		r := ss.redact(v)
		return r, r != v
	case []any:
		changed := false
		for i, e := range v {
			var c bool
			if v[i], c = ss.redactValue(e); c {
				changed = true
			}
		}
		return v, changed
	case map[string]any:
		changed := false
		out := make(map[string]any, len(v))
		for k, e := range v {
			nv, c := ss.redactValue(e)
			nk := ss.redact(k)
			out[nk] = nv
			changed = changed || c || nk != k
		}
		return out, changed
	}
	return v, false
}

// patterns caches each secret's pattern: compiled once per value, not per
// call. It is emptied when it grows past maxPatterns (rotated secrets).
var patterns struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const maxPatterns = 256

// pattern matches every form of the secret the project or a server may
// show: the value in any letter case (a server that upper-cases it), its
// URL escapes, and its base64 encodings, standard and URL-safe, padded or
// not, alone or inside a longer encoded text (an HTTP Basic credential
// "user:value" sent as base64), and, when the value is itself base64 (a
// Basic credential given whole), the text it decodes to.
func (x secret) pattern() *regexp.Regexp {
	patterns.Lock()
	defer patterns.Unlock()
	if re, ok := patterns.m[x.value]; ok {
		return re
	}
	// The value in any letter case, each character as it is or escaped as
	// a JSON encoder may write it (a server's JSON error body read as text,
	// with or without HTML escapes, non-ASCII as \uXXXX or not).
	alts := []string{`(?i:` + jsonEscaped(x.value) + `)`}
	add := func(f string) {
		if f != x.value && len(f) >= minSecret {
			alts = append(alts, regexp.QuoteMeta(f))
		}
	}
	add(url.QueryEscape(x.value))
	add(url.PathEscape(x.value))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		add(enc.EncodeToString([]byte(x.value)))
		add(enc.WithPadding(base64.NoPadding).EncodeToString([]byte(x.value)))
		for _, core := range base64Cores(enc, []byte(x.value)) {
			add(core)
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(x.value); err == nil && len(d) >= minSecret && utf8.Valid(d) {
			add(string(d))
		}
	}
	// Longest first: a form that holds another is replaced whole.
	sort.SliceStable(alts[1:], func(i, j int) bool { return len(alts[1+i]) > len(alts[1+j]) })
	re := regexp.MustCompile(strings.Join(alts, "|"))
	if patterns.m == nil || len(patterns.m) >= maxPatterns {
		patterns.m = map[string]*regexp.Regexp{}
	}
	patterns.m[x.value] = re
	return re
}

// jsonEscaped is a pattern matching v with each of its characters as it
// is or in any of its JSON escapes.
func jsonEscaped(v string) string {
	var b strings.Builder
	for _, r := range v {
		b.WriteString("(?:")
		b.WriteString(regexp.QuoteMeta(string(r)))
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `|\\u%04x\\u%04x`, r1, r2)
		} else {
			fmt.Fprintf(&b, `|\\u%04x`, r)
		}
		if e, ok := shortEscapes[r]; ok {
			b.WriteString("|" + regexp.QuoteMeta(e))
		}
		b.WriteString(")")
	}
	return b.String()
}

var shortEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

// base64Cores are the parts of the base64 encoding of v that are the same
// wherever v stands in a longer text: for each of the three offsets v may
// start at, the characters whose six bits all come from v. Cores shorter
// than 8 characters are left out: they would match unrelated text.
func base64Cores(enc *base64.Encoding, v []byte) []string {
	var out []string
	for k := 0; k < 3; k++ {
		padded := append(make([]byte, k), v...)
		s := enc.WithPadding(base64.NoPadding).EncodeToString(padded)
		first := (8*k + 5) / 6
		last := 8 * (k + len(v)) / 6 // one past the last whole character
		if last-first >= 8 && last <= len(s) {
			out = append(out, s[first:last])
		}
	}
	return out
}
