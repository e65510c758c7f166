package history

import (
	"strings"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Matches reports whether e matches the search query: every word of
// query, ignoring case, occurs in its tool's name, its code (or status),
// or the text of its arguments. An empty query matches every entry.
func Matches(e *Entry, query string) bool {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return true
	}
	hay := SearchText(e)
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// SearchText is the text a query is looked for in, lower case: the tool's
// name, the code (or status) and the arguments. A program that searches
// the same entries again and again keeps it.
func SearchText(e *Entry) string {
	return strings.ToLower(e.Tool + " " + string(code(e)) + " " + string(e.Args))
}

// code is the entry's code, "ok" for a call that succeeded.
func code(e *Entry) codes.Code {
	if e.Result == nil {
		return ""
	}
	if e.Result.Code == "" {
		return codes.Code(e.Result.Status)
	}
	return e.Result.Code
}
