package bindings

// SQLSource is a SQL source in a tools file.
type SQLSource struct{}

// SQLBinding is a tool's SQL binding in a tools file.
type SQLBinding struct {
	// Source names the source, one of the file's sources of this kind.
	Source string `yaml:"source" json:"source"`
}
