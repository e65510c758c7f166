package wirename

// Valid reports whether name is 1 to max ASCII letters, digits, '_' and
// '-', and also '.' when dots is set: the names the model APIs (64, no dots)
// and MCP (128, dots) accept. A loop, not a regular expression: a bounded
// repetition such as {1,128} compiles to a program of that many copies,
// which cost every start of the program a millisecond.
func Valid(name string, max int, dots bool) bool {
	if name == "" || len(name) > max {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		case c == '.' && dots:
		default:
			return false
		}
	}
	return true
}
