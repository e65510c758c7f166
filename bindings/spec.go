package bindings

// SourceSpec is one entry of a tools file's sources: exactly one of its
// kinds is set.
type SourceSpec struct {
	HTTP  *HTTPSource  `yaml:"http,omitempty" json:"http,omitempty"`
	SQL   *SQLSource   `yaml:"sql,omitempty" json:"sql,omitempty"`
	Queue *QueueSource `yaml:"queue,omitempty" json:"queue,omitempty"`
	// Shadow makes every write of the source's tools a shadow call.
	Shadow bool `yaml:"shadow,omitempty" json:"shadow,omitempty"`
}

// BindingSpec is a tool's binding in a tools file: exactly one of its kinds
// is set.
type BindingSpec struct {
	HTTP  *HTTPBinding  `yaml:"http,omitempty" json:"http,omitempty"`
	SQL   *SQLBinding   `yaml:"sql,omitempty" json:"sql,omitempty"`
	Queue *QueueBinding `yaml:"queue,omitempty" json:"queue,omitempty"`
}
