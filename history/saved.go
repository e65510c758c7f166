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

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Saved is a call kept under a name, to be made again.
type Saved struct {
	Name string `json:"name"`
	Tool string `json:"tool"`
	// Args are the arguments, with secrets redacted (see Redact).
	Args json.RawMessage `json:"args"`
	// Origin is who the call is made as; "" is the caller's default.
	Origin tooling.Origin `json:"origin,omitempty"`
	Time   time.Time      `json:"saved"`
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
	slices.SortFunc(f.Saved, func(a, b Saved) int { return strings.Compare(a.Name, b.Name) })
	return f.Saved, nil
}

// Save keeps s, replacing the saved call of the same name. Its arguments
// are redacted with schema, the tool's input schema (nil: by name only).
func (c *Collection) Save(s Saved, schema json.RawMessage) error {
	s.Name = strings.TrimSpace(s.Name)
	if s.Name == "" {
		return errors.New("history: a saved call needs a name")
	}
	s.Args = Redact(schema, s.Args)
	list, err := c.List()
	if err != nil {
		return err
	}
	list = slices.DeleteFunc(list, func(o Saved) bool { return o.Name == s.Name })
	list = append(list, s)
	return c.write(list)
}

// Delete removes the saved call named name, if there is one.
func (c *Collection) Delete(name string) error {
	list, err := c.List()
	if err != nil {
		return err
	}
	return c.write(slices.DeleteFunc(list, func(o Saved) bool { return o.Name == name }))
}

func (c *Collection) write(list []Saved) error {
	slices.SortFunc(list, func(a, b Saved) int { return strings.Compare(a.Name, b.Name) })
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
