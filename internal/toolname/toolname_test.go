package toolname

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestMatchesTheConfigSchema checks the grammar against the regular
// expressions of config/schema.json ($defs/name and $defs/pattern), which
// state it for editors and other readers of the config.
func TestMatchesTheConfigSchema(t *testing.T) {
	b, err := os.ReadFile("../../config/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			Pattern string `json:"pattern"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	name, pattern := regexp.MustCompile(doc.Defs["name"].Pattern), regexp.MustCompile(doc.Defs["pattern"].Pattern)
	if name.String() == "" || pattern.String() == "" {
		t.Fatalf("no $defs/name or $defs/pattern in config/schema.json")
	}
	inputs := []string{"", ".", "a", "a.b", "demo.echo", "fs.read_file", "net.http_get", "a.b.c", "a1.b2", "1a.b",
		"a_.b", "a__b.c", "_a.b", "a.b_", "A.b", "a.B", "a..b", ".a.b", "a.b.", "a-b.c", "a b.c", "é.b", "*", "*.*",
		"demo.*", "*.read", "demo.ec*", "**", "a.*.b", "*.", "x.y_z_1", "x.y_1_", strings.Repeat("a.", 40) + "a"}
	for c := 0; c < 128; c++ {
		inputs = append(inputs, "a.b"+string(rune(c)), string(rune(c))+"a.b", "a"+string(rune(c))+"b")
	}
	for _, s := range inputs {
		if got, want := Valid(s), name.MatchString(s); got != want {
			t.Errorf("Valid(%q) = %v, the schema says %v", s, got, want)
		}
		if got, want := ValidPattern(s), pattern.MatchString(s); got != want {
			t.Errorf("ValidPattern(%q) = %v, the schema says %v", s, got, want)
		}
	}
}

func TestExportRoundTrip(t *testing.T) {
	for _, n := range []string{"demo.echo", "fs.read_file", "a.b.c_d"} {
		e := Export(n)
		if strings.Contains(e, ".") || ParseExport(e) != n {
			t.Errorf("%s -> %s -> %s", n, e, ParseExport(e))
		}
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"Demo.ReadFile":   "demo.read_file",
		"demo.read-file":  "demo.read_file",
		"echo":            "echo",
		"defaultTimeout":  "default_timeout",
		"Default-Timeout": "default_timeout",
		"default timeout": "default_timeout",
		"max_concurrent":  "max_concurrent",
		"max__concurrent": "max_concurrent",
		"_pool_size_":     "pool_size",
		"HTTPGet":         "httpget",
		"v2Name":          "v2_name",
	} {
		if got := Snake(in); got != want {
			t.Errorf("Snake(%q) = %q, want %q", in, got, want)
		}
	}
}
