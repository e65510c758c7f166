package tooling

import "github.com/toolexplorer/toolexplorer/tooling/internal/schema"

// FieldError is one failing field: a JSON pointer into the arguments (or the
// output) and a message a person understands. Path "" is the whole value.
type FieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	Keyword string `json:"keyword,omitempty"`
}

func (f FieldError) String() string {
	p := f.Path
	if p == "" {
		p = "(arguments)"
	}
	return p + ": " + f.Message
}

// fieldErrors converts what the schema package reports.
func fieldErrors(fs []schema.FieldError) []FieldError {
	if fs == nil {
		return nil
	}
	out := make([]FieldError, len(fs))
	for i, f := range fs {
		out[i] = FieldError(f)
	}
	return out
}
