package form

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const echoSchema = `{"type":"object","properties":{
	"message":{"type":"string","title":"Message","description":"The text to echo back.","minLength":1},
	"repeat":{"type":"integer","description":"How many times.","minimum":1,"maximum":5,"default":1},
	"uppercase":{"type":"boolean","description":"Shout it."},
	"format":{"enum":["text","json"],"default":"text","description":"How to print the echo."}},
	"required":["message"]}`

const deploySchema = `{"type":"object","$defs":{
	"k8s":{"type":"object","title":"Kubernetes","properties":{"kind":{"const":"k8s"},"namespace":{"type":"string"},"replicas":{"type":"integer","minimum":1}},"required":["kind","namespace"]},
	"vm":{"type":"object","title":"Virtual machine","properties":{"kind":{"const":"vm"},"host":{"type":"string","format":"hostname"}},"required":["kind","host"]}},
	"properties":{
	"app":{"type":"string","description":"The application to deploy."},
	"target":{"description":"Where it runs.","oneOf":[{"$ref":"#/$defs/k8s"},{"$ref":"#/$defs/vm"}]},
	"env":{"type":"object","description":"Environment variables.","additionalProperties":{"type":"string"}},
	"services":{"type":"array","description":"Ports to open.","items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer","minimum":1,"maximum":65535}},"required":["port"]}},
	"regions":{"type":"array","items":{"enum":["eu","us","ap"]},"uniqueItems":true},
	"options":{"type":"object","properties":{"timeout":{"type":["number","null"],"description":"Seconds, or null for none."},"dry_run":{"type":"boolean","default":false}}}},
	"required":["app","target"]}`

const deployValue = `{"app":"shop","target":{"kind":"k8s","namespace":"prod","replicas":0},
	"env":{"LOG":"debug"},"services":[{"name":"web","port":8080}],"regions":["eu","ap"],"options":{"timeout":null,"dry_run":true}}`

// largeSchema has 34 properties of mixed kinds.
func largeSchema() string {
	var props []string
	kinds := []string{
		`{"type":"string","description":"A line of text."}`,
		`{"type":"integer","minimum":0}`,
		`{"type":"boolean"}`,
		`{"enum":["low","mid","high"]}`,
		`{"type":"number","default":0.5}`,
		`{"type":"array","items":{"type":"string"}}`,
		`{"type":["string","null"]}`,
		`{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}}}`,
	}
	for i := range 34 {
		props = append(props, fmt.Sprintf(`"p%02d":%s`, i, kinds[i%len(kinds)]))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":["p00","p01"]}`
}

func TestGoldenViews(t *testing.T) {
	views := []struct {
		name   string
		schema string
		setup  func(t *testing.T, m *Model)
	}{
		{"echo", echoSchema, func(t *testing.T, m *Model) {
			typeText(m, "hello")
		}},
		{"deploy", deploySchema, func(t *testing.T, m *Model) {
			if err := m.SetValue([]byte(deployValue)); err != nil {
				t.Fatal(err)
			}
			m.SetErrors([]tooling.FieldError{{Path: "/target/replicas", Message: "must be >= 1 but found 0"}})
		}},
		{"large", largeSchema(), func(t *testing.T, m *Model) {
			for range 20 {
				press(m, "tab")
			}
		}},
	}
	for _, v := range views {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			name := fmt.Sprintf("%s_%dx%d", v.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				m := newTestForm(t, v.schema, size[0], size[1])
				v.setup(t, m)
				got := plain(m.View()) + "\n"
				if lines := strings.Count(got, "\n"); lines > size[1] {
					t.Errorf("%d lines, more than the height %d", lines, size[1])
				}
				for i, l := range strings.Split(got, "\n") {
					if w := textWidth(l); w > size[0] {
						t.Errorf("line %d is %d wide: %q", i, w, l)
					}
				}
				file := filepath.Join("testdata", name+".golden")
				if *update {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run go test ./tui/form/ -update)", err)
				}
				if got != string(want) {
					t.Errorf("view differs from %s:\n--- got\n%s\n--- want\n%s", file, got, want)
				}
			})
		}
	}
}
