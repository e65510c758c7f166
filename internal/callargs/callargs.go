package callargs

import (
	"encoding/json"
	"strconv"
)

// String returns the string argument name of args, "" when absent or not a
// string.
func String(args map[string]any, name string) string {
	s, _ := args[name].(string)
	return s
}

// Bool returns the boolean argument name of args, false when absent or not
// a boolean.
func Bool(args map[string]any, name string) bool {
	b, _ := args[name].(bool)
	return b
}

// Int returns the integer argument name of args, 0 when absent or not an
// integer.
func Int(args map[string]any, name string) int64 {
	switch n := args[name].(type) {
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || f != float64(int64(f)) {
			return 0
		}
		return int64(f)
	case float64:
		return int64(n)
	case int:
		return int64(n)
	case int64:
		return n
	}
	return 0
}
