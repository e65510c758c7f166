package bindings

import (
	"strings"
)

// A SQL tool's statement runs on a pooled connection that the source's
// other tools share. In SQLite, ATTACH and DETACH change which databases
// that connection sees, and a PRAGMA that sets something changes how it
// behaves (query_only, foreign_keys, ...): the change would outlive the
// call and reach the next call of any tool on that connection (a database
// attached by one tool read through another). Such statements are refused
// when the tools file is loaded, and lint says why.

// pragmaSelectors are the pragmas that take an argument only to say what
// to read (a table, an index, a limit on the rows checked).
var pragmaSelectors = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true, "index_info": true,
	"index_xinfo": true, "foreign_key_list": true, "foreign_key_check": true, "integrity_check": true, "quick_check": true,
}

// pragmaActions are the pragmas that act even without an argument.
var pragmaActions = map[string]bool{
	"optimize": true, "shrink_memory": true, "wal_checkpoint": true, "incremental_vacuum": true,
}

// sqliteStateChange says why a SQLite statement would change the state of
// its connection, "" when it would not: ATTACH, DETACH, a PRAGMA that sets
// a value or acts, also under EXPLAIN (a pragma may act when prepared).
func sqliteStateChange(stmt string) string {
	toks, err := sqlTokens(stmt)
	if err != nil {
		return ""
	}
	var words []string // the statement's first words and symbols, in code
	for _, t := range toks {
		if !t.code {
			if t.literal || strings.HasPrefix(t.text, `"`) || strings.HasPrefix(t.text, "`") {
				words = append(words, "?") // a value or a quoted name
			}
			continue
		}
		s := t.text
		for i := 0; i < len(s) && len(words) < 12; i++ {
			switch c := s[i]; {
			case isSpace(c):
			case identStart(c):
				w := leadingWord(s[i:])
				words = append(words, strings.ToLower(w))
				i += len(w) - 1
			default:
				words = append(words, string(c))
			}
		}
	}
	for len(words) > 0 && (words[0] == "explain" || words[0] == "query" || words[0] == "plan") {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	switch words[0] {
	case "attach", "detach":
		return strings.ToUpper(words[0]) + " changes which databases the connection sees, and the connection is shared: " +
			"the change would outlive the call and reach the next call of any tool of the source; " +
			"give each database a source of its own"
	case "pragma":
		name, rest := "", words[1:]
		if len(rest) > 0 {
			name, rest = rest[0], rest[1:]
		}
		if len(rest) >= 2 && rest[0] == "." { // schema.name
			name, rest = rest[1], rest[2:]
		}
		sets := len(rest) > 0 && (rest[0] == "=" || rest[0] == "(")
		if (sets && !pragmaSelectors[name]) || pragmaActions[name] {
			return "PRAGMA " + name + " changes the connection's settings or state, and the connection is shared: " +
				"the change would outlive the call and reach the next call of any tool of the source; " +
				"set connection settings in the source's dsn (_pragma=...), or read them with PRAGMA " + name + " alone"
		}
	}
	return ""
}
