package collection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// File is a collection: its environments and its calls, in order.
type File struct {
	// Environments are the sets of variables the calls' arguments use, by
	// name. Nil when none.
	Environments map[string]Environment `json:"environments,omitempty"`
	// Calls are the saved calls, in the order they are made.
	Calls []Call `json:"calls"`
}

// Call is one saved call.
type Call struct {
	// Name names the call within its folder.
	Name string `json:"name"`
	// Folder is where the call is filed, its levels separated by "/"
	// ("orders/refunds"); "" for the top.
	Folder string `json:"folder,omitempty"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Args are the arguments, a JSON object whose strings may hold
	// {{variable}} references. Nil: {}.
	Args json.RawMessage `json:"args,omitempty"`
	// Origin is who the call is made as; "" is the caller's default.
	Origin tooling.Origin `json:"origin,omitempty"`
	// Consent makes the call with consent to the tool's side effects.
	Consent bool `json:"consent,omitempty"`
	// IdempotencyKey is the call's idempotency key, "" for none.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Expect is what the call must come to; nil: status ok.
	Expect *Expect `json:"expect,omitempty"`
}

// Path is the call's folder and name, "orders/refunds/refund one".
func (c Call) Path() string {
	if c.Folder == "" {
		return c.Name
	}
	return c.Folder + "/" + c.Name
}

// Expect is what a call must come to.
type Expect struct {
	// Status is the result's status: ok, denied or error. "": ok, unless
	// Code is set.
	Status string `json:"status,omitempty"`
	// Code is the result's code; "": any code of Status.
	Code codes.Code `json:"code,omitempty"`
	// JQ are jq filters over the output, each of which must yield at
	// least one value and only true (".items | length > 0").
	JQ []string `json:"jq,omitempty"`
}

// Environment is a set of variables, by name.
type Environment map[string]Var

// Var is a variable: written as a string (its value), or as an object.
type Var struct {
	// Value is the variable's value.
	Value string `json:"value,omitempty"`
	// FromEnv names an environment variable of the process whose value the
	// variable takes, read when the environment is resolved; it wins over
	// Value when it is set.
	FromEnv string `json:"from_env,omitempty"`
	// Secret marks a value that is never shown nor kept: the console masks
	// it and history keeps the {{name}} reference.
	Secret bool `json:"secret,omitempty"`
}

// UnmarshalJSON reads a variable written as a string or as an object.
func (v *Var) UnmarshalJSON(b []byte) error {
	if s := bytes.TrimSpace(b); len(s) > 0 && s[0] == '"' {
		*v = Var{}
		return json.Unmarshal(s, &v.Value)
	}
	type plain Var
	var p plain
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&p); err != nil {
		return err
	}
	*v = Var(p)
	return nil
}

// MarshalJSON writes a plain variable as its value.
func (v Var) MarshalJSON() ([]byte, error) {
	if v.FromEnv == "" && !v.Secret {
		return jsonenc.Marshal(v.Value)
	}
	type plain Var
	return jsonenc.Marshal(plain(v))
}

// Read reads the collection file at path: YAML when its name ends in
// .yaml or .yml, else JSON. Unknown keys, a call without a name or a tool,
// two calls of the same path, arguments that are not an object and a jq
// filter that does not compile are errors that name the call.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("collection: %w", err)
	}
	f, err := parse(b, isYAML(path))
	if err != nil {
		return nil, fmt.Errorf("collection: %s: %w", path, err)
	}
	return f, nil
}

func isYAML(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// Parse reads a collection from data, YAML when yamlText is set.
func Parse(data []byte, yamlText bool) (*File, error) {
	f, err := parse(data, yamlText)
	if err != nil {
		return nil, fmt.Errorf("collection: %w", err)
	}
	return f, nil
}

func parse(data []byte, yamlText bool) (*File, error) {
	if yamlText {
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		j, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("not JSON-shaped YAML: %w", err)
		}
		data = j
	}
	var f File
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Validate checks what the file's shape does not: every call has a name
// and a tool, no two calls share a path, the arguments are an object, and
// every jq filter compiles.
func (f *File) Validate() error {
	var errs []error
	seen := make(map[string]bool, len(f.Calls))
	for i := range f.Calls {
		c := &f.Calls[i]
		c.Folder = strings.Trim(c.Folder, "/")
		at := fmt.Sprintf("call %d", i+1)
		if c.Name != "" {
			at += fmt.Sprintf(" (%s)", c.Path())
		}
		switch {
		case strings.TrimSpace(c.Name) == "":
			errs = append(errs, fmt.Errorf("%s: a call needs a name", at))
		case seen[c.Path()]:
			errs = append(errs, fmt.Errorf("%s: two calls are named %q", at, c.Path()))
		}
		seen[c.Path()] = true
		if c.Tool == "" {
			errs = append(errs, fmt.Errorf("%s: a call needs a tool", at))
		}
		if a := bytes.TrimSpace(c.Args); len(a) > 0 && a[0] != '{' && string(a) != "null" {
			errs = append(errs, fmt.Errorf("%s: the arguments must be a JSON object", at))
		}
		if e := c.Expect; e != nil {
			switch e.Status {
			case "", "ok", "denied", "error":
			default:
				errs = append(errs, fmt.Errorf("%s: expect.status must be ok, denied or error, got %q", at, e.Status))
			}
			for _, src := range e.JQ {
				if _, err := compileJQ(src); err != nil {
					errs = append(errs, fmt.Errorf("%s: expect.jq %q: %v", at, src, err))
				}
			}
		}
	}
	for _, name := range sortedKeys(f.Environments) {
		for _, v := range sortedKeys(f.Environments[name]) {
			if !validVarName(v) {
				errs = append(errs, fmt.Errorf("environment %s: %q is not a variable name (letters, digits, _ - .)", name, v))
			}
		}
	}
	return errors.Join(errs...)
}

// Write writes f to path, indented, as YAML when its name ends in .yaml
// or .yml, else as JSON; a new file renamed over the old one.
func (f *File) Write(path string) error {
	out := *f
	if out.Calls == nil {
		out.Calls = []Call{}
	}
	b, err := jsonenc.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	b = append(b, '\n')
	if isYAML(path) {
		if b, err = toYAML(b); err != nil {
			return fmt.Errorf("collection: %w", err)
		}
	}
	return writeAtomic(path, b)
}

// toYAML turns indented JSON into YAML, keeping the order of its keys.
func toYAML(j []byte) ([]byte, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(j, &n); err != nil {
		return nil, err
	}
	plainStyle(&n)
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(&n); err != nil {
		return nil, err
	}
	return b.Bytes(), e.Close()
}

// plainStyle drops the flow style and the quotes JSON parses into, so
// that YAML is written in blocks; the encoder quotes a string that would
// read as another type.
func plainStyle(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle | yaml.DoubleQuotedStyle
	for _, c := range n.Content {
		plainStyle(c)
	}
}

func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".collection-*.tmp")
	if err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("collection: %w", err)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
