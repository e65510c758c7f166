package bindings

import (
	"fmt"
	"strings"
)

// envRef is one ${NAME} or ${NAME:-default} of a string, at s[start:end].
type envRef struct {
	start, end int
	name, def  string
	hasDef     bool
}

// parseEnvRefs finds the ${...} references of s, refusing one that is not
// closed or whose name is not a variable name.
func parseEnvRefs(s string) ([]envRef, error) {
	var refs []envRef
	for i := 0; ; {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			return refs, nil
		}
		start := i + j
		k := strings.IndexByte(s[start:], '}')
		if k < 0 {
			return nil, fmt.Errorf("%q: ${ is not closed", s)
		}
		end := start + k + 1
		body := s[start+2 : end-1]
		r := envRef{start: start, end: end, name: body}
		if n, d, ok := strings.Cut(body, ":-"); ok {
			r.name, r.def, r.hasDef = n, d, true
		}
		if !isEnvName(r.name) {
			return nil, fmt.Errorf("%q: %q is not a variable name", s, r.name)
		}
		refs = append(refs, r)
		i = end
	}
}

func isEnvName(s string) bool {
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

// expandEnvRefs resolves the references of s through env: the variable's
// value, else the default, else a *MissingEnvError.
func expandEnvRefs(s string, env Env) (string, error) {
	refs, err := parseEnvRefs(s)
	if err != nil || len(refs) == 0 {
		return s, err
	}
	var b strings.Builder
	last := 0
	for _, r := range refs {
		b.WriteString(s[last:r.start])
		v, ok := env(r.name)
		switch {
		case ok:
		case r.hasDef:
			v = r.def
		default:
			return "", &MissingEnvError{Name: r.name}
		}
		b.WriteString(v)
		last = r.end
	}
	b.WriteString(s[last:])
	return b.String(), nil
}
