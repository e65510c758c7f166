package bindings

// QueueSource is a Queue source in a tools file.
type QueueSource struct{}

// QueueBinding is a tool's Queue binding in a tools file.
type QueueBinding struct {
	// Source names the source, one of the file's sources of this kind.
	Source string `yaml:"source" json:"source"`
}
