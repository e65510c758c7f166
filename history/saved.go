package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/history/collection"
	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Saved is a call kept under a name, to be made again.
type Saved struct {
	Name string `json:"name"`
	// Folder is where the call is filed, its levels separated by "/";
	// "" for the top.
	Folder string `json:"folder,omitempty"`
	Tool   string `json:"tool"`
	// Args are the arguments, with secrets redacted (see Redact); their
	// {{variable}} references are kept.
	Args json.RawMessage `json:"args"`
	// Origin is who the call is made as; "" is the caller's default.
	Origin tooling.Origin `json:"origin,omitempty"`
	// Consent and IdempotencyKey are the call's; Expect is what it must
	// come to when a collection of the saved calls is checked (nil: ok).
	Consent        bool               `json:"consent,omitempty"`
	IdempotencyKey string             `json:"idempotency_key,omitempty"`
	Expect         *collection.Expect `json:"expect,omitempty"`
	Time           time.Time          `json:"saved"`
}

// Path is the saved call's folder and name, "orders/refund one".
func (s Saved) Path() string { return s.call().Path() }

// call is s as a call of a collection file.
func (s Saved) call() collection.Call {
	return collection.Call{Name: s.Name, Folder: s.Folder, Tool: s.Tool, Args: s.Args, Origin: s.Origin,
		Consent: s.Consent, IdempotencyKey: s.IdempotencyKey, Expect: s.Expect}
}

// SplitPath splits "orders/refunds/refund one" into its folder and name:
// a name given with slashes files the call in a folder.
func SplitPath(p string) (folder, name string) {
	p = strings.Trim(strings.TrimSpace(p), "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return strings.Trim(strings.TrimSpace(p[:i]), "/"), strings.TrimSpace(p[i+1:])
	}
	return "", p
}

// SavedFile is where a project directory keeps its saved calls.
func SavedFile(dir string) string { return filepath.Join(dir, ".toolexplorer", "saved.json") }

// Collection is the saved calls of a file. The file holds a JSON object,
// {"saved": [...]}, sorted by name; it is rewritten whole on each change
// (a new file renamed over the old one).
type Collection struct {
	path string
}

// OpenSaved returns the collection in the file at path, created on the
// first Save.
func OpenSaved(path string) *Collection { return &Collection{path: path} }

// Path is the collection's file.
func (c *Collection) Path() string { return c.path }

type savedFile struct {
	Saved []Saved `json:"saved"`
}

// List returns the saved calls, sorted by name; none when the file does
// not exist.
func (c *Collection) List() ([]Saved, error) {
	b, err := os.ReadFile(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: saved calls: %w", err)
	}
	var f savedFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("history: saved calls: %s: %w", c.path, err)
	}
	for i := range f.Saved { // the file is indented: the arguments come back compact
		var b bytes.Buffer
		if json.Compact(&b, f.Saved[i].Args) == nil {
			f.Saved[i].Args = b.Bytes()
		}
	}
	slices.SortFunc(f.Saved, byPath)
	return f.Saved, nil
}

// byPath orders saved calls folder by folder, the calls at the top first.
func byPath(a, b Saved) int {
	if a.Folder != b.Folder {
		return strings.Compare(a.Folder, b.Folder)
	}
	return strings.Compare(a.Name, b.Name)
}

// Save keeps s, replacing the saved call of the same path (folder and
// name). Its arguments are redacted with schema, the tool's input schema
// (nil: by name only).
func (c *Collection) Save(s Saved, schema json.RawMessage) error {
	s.Name, s.Folder = strings.TrimSpace(s.Name), strings.Trim(strings.TrimSpace(s.Folder), "/")
	if s.Name == "" {
		return errors.New("history: a saved call needs a name")
	}
	s.Args = Redact(schema, s.Args)
	list, err := c.List()
	if err != nil {
		return err
	}
	list = slices.DeleteFunc(list, func(o Saved) bool { return o.Path() == s.Path() })
	list = append(list, s)
	return c.write(list)
}

// Delete removes the saved call of path (folder and name), if there is
// one.
func (c *Collection) Delete(path string) error {
	list, err := c.List()
	if err != nil {
		return err
	}
	return c.write(slices.DeleteFunc(list, func(o Saved) bool { return o.Path() == path }))
}

// Export writes the saved calls to a collection file at path (JSON, or
// YAML by its extension; see package collection), for a team to keep in
// its repository and check with collection run. It returns how many it
// wrote.
func (c *Collection) Export(path string) (int, error) {
	list, err := c.List()
	if err != nil {
		return 0, err
	}
	f := collection.File{Calls: make([]collection.Call, 0, len(list))}
	for _, s := range list {
		f.Calls = append(f.Calls, s.call())
	}
	if err := f.Write(path); err != nil {
		return 0, err
	}
	return len(f.Calls), nil
}

// Import saves every call of the collection file at path, replacing the
// saved calls of the same paths, and returns how many. Their arguments
// are redacted by name (see Redact), references to variables kept.
func (c *Collection) Import(path string, now time.Time) (int, error) {
	f, err := collection.Read(path)
	if err != nil {
		return 0, err
	}
	list, err := c.List()
	if err != nil {
		return 0, err
	}
	for _, k := range f.Calls {
		s := Saved{Name: k.Name, Folder: k.Folder, Tool: k.Tool, Args: Redact(nil, k.Args), Origin: k.Origin,
			Consent: k.Consent, IdempotencyKey: k.IdempotencyKey, Expect: k.Expect, Time: now}
		if len(s.Args) == 0 {
			s.Args = json.RawMessage(`{}`)
		}
		list = slices.DeleteFunc(list, func(o Saved) bool { return o.Path() == s.Path() })
		list = append(list, s)
	}
	return len(f.Calls), c.write(list)
}

func (c *Collection) write(list []Saved) error {
	slices.SortFunc(list, byPath)
	if list == nil {
		list = []Saved{}
	}
	b, err := jsonenc.MarshalIndent(savedFile{Saved: list}, "", "  ")
	if err != nil {
		return fmt.Errorf("history: saved calls: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return fmt.Errorf("history: saved calls: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".saved-*.tmp")
	if err != nil {
		return fmt.Errorf("history: saved calls: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("history: saved calls: %w", err)
	}
	return nil
}
