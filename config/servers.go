package config

// Server says how to reach an MCP server whose tools join the registry:
// either a command to start (stdio) or the URL of a streamable HTTP
// endpoint, never both. It is the shape of one entry of the "mcpServers"
// object that MCP hosts keep in their configuration files.
type Server struct {
	// Command is the program to start; the server speaks MCP on its stdin
	// and stdout. Empty for an HTTP server.
	Command string
	// Args are the program's arguments.
	Args []string
	// Env holds variables added to the program's environment.
	Env map[string]string
	// URL is the endpoint of a streamable HTTP server. Empty for a command.
	URL string
	// Headers are sent with every HTTP request (such as Authorization).
	Headers map[string]string
}
