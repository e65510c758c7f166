package bindings

import (
	"time"
)

// File is one tools file: named sources (connections) and the tools that
// use them. YAML (.yaml, .yml) or JSON (.json); every key is checked.
type File struct {
	// Sources are the file's connections by name; a tool's binding names
	// one of them.
	Sources map[string]SourceSpec `yaml:"sources,omitempty" json:"sources,omitempty"`
	Tools   []ToolSpec            `yaml:"tools" json:"tools"`
}

// ToolSpec is one tool of a tools file: what a Go tool declares in a
// tooling.Tool, and its binding in place of a Run func.
type ToolSpec struct {
	Name        string `yaml:"name" json:"name"`
	Title       string `yaml:"title,omitempty" json:"title,omitempty"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Input is the JSON Schema of the arguments (root "type": "object").
	Input map[string]any `yaml:"input,omitempty" json:"input,omitempty"`
	// Output is the JSON Schema of the output, optional.
	Output map[string]any `yaml:"output,omitempty" json:"output,omitempty"`
	Meta   MetaSpec       `yaml:"meta,omitempty" json:"meta,omitempty"`
	// Shadow makes every write of this tool a shadow call: built and
	// returned, never sent.
	Shadow  bool        `yaml:"shadow,omitempty" json:"shadow,omitempty"`
	Binding BindingSpec `yaml:"binding" json:"binding"`
}

// MetaSpec is tooling.Meta as a tools file spells it. Zero values are
// tooling.Meta's, except Effects: left out, a binding that reads gets
// [read], and one that writes must declare write.
type MetaSpec struct {
	Effects     []string      `yaml:"effects,omitempty" json:"effects,omitempty"`         // read, write, network, filesystem, process
	Safety      string        `yaml:"safety,omitempty" json:"safety,omitempty"`           // low, medium, high
	Concurrency string        `yaml:"concurrency,omitempty" json:"concurrency,omitempty"` // exclusive, read_only, main_thread
	Resources   []string      `yaml:"resources,omitempty" json:"resources,omitempty"`
	Rate        RateSpec      `yaml:"rate,omitempty" json:"rate,omitempty"`
	Timeout     time.Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"` // "5s"
	Origins     []string      `yaml:"origins,omitempty" json:"origins,omitempty"`
	Consent     bool          `yaml:"consent,omitempty" json:"consent,omitempty"`
	Idempotent  bool          `yaml:"idempotent,omitempty" json:"idempotent,omitempty"`
	Additive    bool          `yaml:"additive,omitempty" json:"additive,omitempty"` // writes only add: never overwrite or delete
	Tags        []string      `yaml:"tags,omitempty" json:"tags,omitempty"`
	Version     string        `yaml:"version,omitempty" json:"version,omitempty"`
}

// RateSpec is tooling.Rate as a tools file spells it.
type RateSpec struct {
	PerMinute float64 `yaml:"per_minute,omitempty" json:"per_minute,omitempty"`
	Burst     int     `yaml:"burst,omitempty" json:"burst,omitempty"`
	Key       string  `yaml:"key,omitempty" json:"key,omitempty"`
}

// kinds lists the kinds set in s.
func (s *SourceSpec) kinds() []string {
	var k []string
	if s.HTTP != nil {
		k = append(k, "http")
	}
	if s.SQL != nil {
		k = append(k, "sql")
	}
	if s.Queue != nil {
		k = append(k, "queue")
	}
	return k
}

// kinds lists the kinds set in b.
func (b *BindingSpec) kinds() []string {
	var k []string
	if b.HTTP != nil {
		k = append(k, "http")
	}
	if b.SQL != nil {
		k = append(k, "sql")
	}
	if b.Queue != nil {
		k = append(k, "queue")
	}
	return k
}

// sourceName is the source the binding names.
func (b *BindingSpec) sourceName() string {
	switch {
	case b.HTTP != nil:
		return b.HTTP.Source
	case b.SQL != nil:
		return b.SQL.Source
	case b.Queue != nil:
		return b.Queue.Source
	}
	return ""
}
