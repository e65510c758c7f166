package bindings

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
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

// redact replaces every secret value in s with its reference.
func (ss secrets) redact(s string) string {
	for _, x := range ss {
		if strings.Contains(s, x.value) {
			s = strings.ReplaceAll(s, x.value, x.ref)
		}
	}
	return s
}
