package bindings

// HTTPSource is a HTTP source in a tools file.
type HTTPSource struct{}

// HTTPBinding is a tool's HTTP binding in a tools file.
type HTTPBinding struct {
	// Source names the source, one of the file's sources of this kind.
	Source string `yaml:"source" json:"source"`
}
