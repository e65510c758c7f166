package collection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// ref is a reference to a variable in a string: {{name}}, spaces allowed
// inside the braces.
var ref = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}`)

func validVarName(s string) bool {
	return s != "" && ref.MatchString("{{"+s+"}}") && !strings.ContainsAny(s, " \t")
}

// Vars are the variables of one environment with their values, resolved.
// The zero Vars is the empty environment (none chosen): a reference to a
// variable is then an error.
type Vars struct {
	// Env is the environment's name, "" for none.
	Env     string
	values  map[string]string
	secret  map[string]bool
	missing map[string]string // a variable whose value could not be read, and why
}

// Resolve reads the values of environment e, named name: a variable's
// from_env is read with getenv. A from_env that is not set leaves the
// variable without a value: a call that uses it fails, saying why.
func Resolve(name string, e Environment, getenv func(string) string) Vars {
	v := Vars{Env: name, values: map[string]string{}, secret: map[string]bool{}, missing: map[string]string{}}
	for k, x := range e {
		v.secret[k] = x.Secret
		switch {
		case x.FromEnv != "" && getenv(x.FromEnv) != "":
			v.values[k] = getenv(x.FromEnv)
		case x.FromEnv != "" && x.Value == "":
			v.missing[k] = "$" + x.FromEnv + " is not set"
		default:
			v.values[k] = x.Value
		}
	}
	return v
}

// Environment returns the variables of the file's environment name
// resolved with getenv; "" is none. An unknown name is an error that lists
// the file's environments.
func (f *File) Environment(name string, getenv func(string) string) (Vars, error) {
	if name == "" {
		return Vars{}, nil
	}
	e, ok := f.Environments[name]
	if !ok {
		if len(f.Environments) == 0 {
			return Vars{}, fmt.Errorf("collection: no environment %q: the collection defines none", name)
		}
		return Vars{}, fmt.Errorf("collection: no environment %q (there are %s)", name, strings.Join(sortedKeys(f.Environments), ", "))
	}
	return Resolve(name, e, getenv), nil
}

// Names are the variables, sorted.
func (v Vars) Names() []string {
	out := make([]string, 0, len(v.secret))
	for k := range v.secret {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Lookup returns the value of the variable name, and false when it has
// none.
func (v Vars) Lookup(name string) (string, bool) {
	s, ok := v.values[name]
	return s, ok
}

// Secret reports whether the variable name is a secret.
func (v Vars) Secret(name string) bool { return v.secret[name] }

// Secrets are the values of the secret variables, for redacting them
// wherever they are echoed.
func (v Vars) Secrets() []string {
	var out []string
	for k, s := range v.values {
		if v.secret[k] && s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// Refs lists the variables args refer to, sorted, each once.
func Refs(args json.RawMessage) []string {
	if !bytes.Contains(args, []byte("{{")) {
		return nil
	}
	var out []string
	for _, m := range ref.FindAllSubmatch(args, -1) {
		out = append(out, string(m[1]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Expand returns args with every {{name}} in its strings replaced by the
// variable's value. Keys are left as they are. A reference to a variable
// the environment does not define, or whose value could not be read, is
// an error naming it; args without a reference are returned as they are.
// Arguments that are not JSON are returned as they are, for the call to
// refuse.
func (v Vars) Expand(args json.RawMessage) (json.RawMessage, error) {
	if !bytes.Contains(args, []byte("{{")) {
		return args, nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return args, nil
	}
	x, err := v.expand(x)
	if err != nil {
		return nil, err
	}
	return jsonenc.Marshal(x)
}

func (v Vars) expand(x any) (any, error) {
	switch x := x.(type) {
	case string:
		return v.ExpandString(x)
	case map[string]any:
		for k, e := range x {
			e, err := v.expand(e)
			if err != nil {
				return nil, err
			}
			x[k] = e
		}
	case []any:
		for i, e := range x {
			e, err := v.expand(e)
			if err != nil {
				return nil, err
			}
			x[i] = e
		}
	}
	return x, nil
}

// ExpandString replaces each {{name}} of s by the variable's value.
func (v Vars) ExpandString(s string) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var err error
	out := ref.ReplaceAllStringFunc(s, func(m string) string {
		name := ref.FindStringSubmatch(m)[1]
		if val, ok := v.values[name]; ok {
			return val
		}
		if err == nil {
			err = v.unknown(name)
		}
		return m
	})
	return out, err
}

func (v Vars) unknown(name string) error {
	if why, ok := v.missing[name]; ok {
		return fmt.Errorf("collection: {{%s}} of environment %s has no value: %s", name, v.Env, why)
	}
	if v.Env == "" {
		return fmt.Errorf("collection: {{%s}} needs an environment, and none is chosen", name)
	}
	return fmt.Errorf("collection: {{%s}} is not a variable of environment %s", name, v.Env)
}
