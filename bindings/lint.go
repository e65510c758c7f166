package bindings

import (
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LintReport is what Lint finds in tools files beyond what keeps them
// from loading.
type LintReport struct {
	// Problems are plaintext secrets and text spliced into SQL, with file,
	// line and path.
	Problems []Problem `json:"problems"`
	// Env lists, per file, the variables its ${NAME} references use.
	Env map[string][]string `json:"env,omitempty"`
}

// secretPatterns are what a credential written out in a tools file looks
// like; a ${NAME} reference is what it should be instead.
var secretPatterns = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}`), "a bearer token"},
	{regexp.MustCompile(`\b(sk-|ghp_|gho_|glpat-|xox[bp]-)[A-Za-z0-9_-]{8,}`), "an API key"},
	{regexp.MustCompile(`(?i)\bpassword=[^&\s;$'"]`), "a password in a DSN"},
	{regexp.MustCompile(`://[^/\s:@]+:[^/\s@$]+@`), "a password in a URL"},
}

// Lint reads the tools files at paths (as Load does) and reports plaintext
// secrets, text interpolated into SQL statements, and the credentials each
// file uses. A file that does not parse is skipped: Load reports it.
func Lint(paths []string) LintReport {
	files, _ := toolFiles(paths)
	rep := LintReport{Problems: []Problem{}, Env: map[string][]string{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
			continue
		}
		vars := map[string]bool{}
		walkPaths(doc.Content[0], "", func(n *yaml.Node, path string) {
			names, _ := envVars(n.Value)
			for _, v := range names {
				vars[v] = true
			}
			for _, p := range secretPatterns {
				if p.re.MatchString(n.Value) {
					rep.Problems = append(rep.Problems, Problem{Pos: Pos{File: f, Line: n.Line}, Path: path,
						Message: "looks like " + p.what + " written out: put it in the environment or the env file and write ${NAME}"})
					break
				}
			}
			if strings.Contains(path, ".sql.") && isStatementKey(path) {
				for _, m := range sqlInterpolation(n.Value) {
					rep.Problems = append(rep.Problems, Problem{Pos: Pos{File: f, Line: n.Line}, Path: path, Message: m})
				}
				if why := sqliteStateChange(n.Value); why != "" {
					rep.Problems = append(rep.Problems, Problem{Pos: Pos{File: f, Line: n.Line}, Path: path, Message: why + " (refused in SQLite)"})
				}
			}
		})
		if len(vars) > 0 {
			for v := range vars {
				rep.Env[f] = append(rep.Env[f], v)
			}
			sort.Strings(rep.Env[f])
		}
	}
	return rep
}

func isStatementKey(path string) bool {
	i := strings.LastIndexByte(path, '.')
	switch path[i+1:] {
	case "statement", "query", "sql":
		return true
	}
	return false
}

// walkPaths calls f with every scalar value under n and its path.
func walkPaths(n *yaml.Node, path string, f func(*yaml.Node, string)) {
	switch n.Kind {
	case yaml.ScalarNode:
		f(n, path)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkPaths(n.Content[i+1], join(path, n.Content[i].Value), f)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walkPaths(c, path+"["+itoa(i)+"]", f)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
