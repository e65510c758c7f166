package bindings

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

const shopYAML = `sources:
  api:
    http: {}
tools:
  - name: shop.get
    title: Get
    description: Get one.
    input:
      type: object
      properties:
        id: {type: integer}
      required: [id]
      additionalProperties: false
    meta:
      effects: [read, network]
      concurrency: read_only
      timeout: 5s
      tags: [shop]
    binding:
      http:
        source: api
`

func TestLoadRegistersAndRuns(t *testing.T) {
	useFakes(t)
	dir := writeFiles(t, map[string]string{
		"b.yaml":    shopYAML,
		"a.json":    `{"sources": {"db": {"sql": {}}}, "tools": [{"name": "db.count", "binding": {"sql": {"source": "db"}}}]}`,
		"notes.txt": "not a tools file",
	})
	s, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var read []string
	for _, lf := range s.files {
		read = append(read, lf.path)
	}
	if got := strings.Join(read, ","); got != filepath.Join(dir, "a.json")+","+filepath.Join(dir, "b.yaml") {
		t.Fatalf("files read: %s", got)
	}
	tools := s.Tools()
	if len(tools) != 2 || tools[0].Name != "db.count" || tools[1].Name != "shop.get" {
		t.Fatalf("tools: %+v", tools)
	}
	get := tools[1]
	if get.Source != "file:"+filepath.Join(dir, "b.yaml") || get.Meta.Timeout.String() != "5s" ||
		get.Meta.Effects != tooling.EffectRead|tooling.EffectNetwork || get.Meta.Concurrency != tooling.ReadOnly {
		t.Fatalf("shop.get: %+v", get)
	}
	if tools[0].Meta.Effects != tooling.EffectRead {
		t.Fatalf("a read binding with no effects declared gets read, got %v", tools[0].Meta.Effects)
	}
	r := tooling.NewRegistry()
	if err := r.Replace(nil, tools); err != nil {
		t.Fatal(err)
	}
	res, err := r.Execute(context.Background(), "shop.get", json.RawMessage(`{"id": 7}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Output) != `{"args":{"id":7}}` {
		t.Fatalf("output %s", res.Output)
	}
	// The registry's validation runs before the binding.
	if _, err := r.Execute(context.Background(), "shop.get", json.RawMessage(`{"id": "x"}`)); !errors.Is(err, codes.ValidationError) {
		t.Fatalf("invalid arguments: %v", err)
	}
	info, ok := s.Info("shop.get")
	if !ok || info.Kind != "http" || info.Source != "api" || info.Line != 5 || string(info.Binding) != `{"http":{"source":"api"}}` {
		t.Fatalf("info %+v", info)
	}
}

// TestLoadProblems checks that each mistake is reported with its file,
// line and path, every one of them at once.
func TestLoadProblems(t *testing.T) {
	cases := []struct {
		name, file string
		want       []string
	}{
		{"unknown key deep in a binding", `sources:
  api:
    http: {}
tools:
  - name: a.b
    binding:
      http:
        source: api
        nope: 1
`, []string{"f.yaml:9: tools[0].binding.http.nope: unknown key \"nope\" (known: "}},
		{"unknown keys everywhere, all reported", `sources:
  api:
    http: {}
    extra: 1
tools:
  - name: a.b
    titel: x
    meta: {effects: [read], colour: red}
    binding: {http: {source: api}}
`, []string{
			"f.yaml:4: sources.api.extra: unknown key \"extra\"",
			"f.yaml:7: tools[0].titel: unknown key \"titel\"",
			"f.yaml:8: tools[0].meta.colour: unknown key \"colour\""}},
		{"an unknown key and a bad source, both reported", `sources:
  api:
    http: {}
tools:
  - name: a.b
    titel: x
    binding: {http: {source: apx}}
`, []string{
			"f.yaml:6: tools[0].titel: unknown key \"titel\"",
			"f.yaml:7: tools[0].binding.http.source: no source \"apx\""}},
		{"wrong types", `tools:
  - name: [a]
    meta:
      timeout: 5
      consent: "yes"
      rate: {per_minute: lots}
    binding: {http: {source: api}}
`, []string{
			"f.yaml:2: tools[0].name: want a string, got a list",
			"f.yaml:4: tools[0].meta.timeout: want a duration with its unit",
			"f.yaml:5: tools[0].meta.consent: want true or false, got \"yes\"",
			"f.yaml:6: tools[0].meta.rate.per_minute: want a number, got \"lots\""}},
		{"no binding kind", `sources: {api: {http: {}}}
tools:
  - name: a.b
    binding: {}
`, []string{"f.yaml:4: tools[0].binding: a binding has exactly one of http, sql, queue, got none"}},
		{"two binding kinds", `sources: {api: {http: {}}, db: {sql: {}}}
tools:
  - name: a.b
    binding:
      http: {source: api}
      sql: {source: db}
`, []string{"f.yaml:5: tools[0].binding: a binding has exactly one of http, sql, queue, got http and sql"}},
		{"two source kinds", `sources:
  api: {http: {}, sql: {}}
tools: []
`, []string{"f.yaml:2: sources.api: a source has exactly one of http, sql, queue, got http and sql"}},
		{"unknown source", `sources: {api: {http: {}}}
tools:
  - name: a.b
    binding:
      http:
        source: apx
`, []string{`f.yaml:6: tools[0].binding.http.source: no source "apx" in this file (sources: api)`}},
		{"source of the wrong kind", `sources: {db: {sql: {}}}
tools:
  - name: a.b
    binding:
      http:
        source: db
`, []string{`f.yaml:6: tools[0].binding.http.source: source "db" is a sql source, not http`}},
		{"a write claiming read", `sources: {w: {http: {}}}
tools:
  - name: a.b
    meta:
      effects: [read]
    binding: {http: {source: w}}
  - name: a.c
    binding: {http: {source: w}}
`, []string{
			"f.yaml:5: tools[0].meta.effects: the binding writes (a fake write) but the effects declared are read: declare write",
			"f.yaml:7: tools[1].meta.effects: the binding writes (a fake write) but the effects declared are none: declare write"}},
		{"bad effect and concurrency", `sources: {api: {http: {}}}
tools:
  - name: a.b
    meta:
      effects: [read, teleport]
      concurrency: sometimes
    binding: {http: {source: api}}
`, []string{
			`f.yaml:5: tools[0].meta.effects[1]: unknown effect "teleport"`,
			`f.yaml:6: tools[0].meta.concurrency: unknown concurrency "sometimes"`}},
		{"what Register refuses", `sources: {api: {http: {}}}
tools:
  - name: Not A Name
    binding: {http: {source: api}}
  - name: a.b
    input: {type: array}
    binding: {http: {source: api}}
`, []string{`f.yaml:3: tools[0]: `, `f.yaml:5: tools[1]: `}},
		{"syntax error", "tools:\n  - name: a\n   bad: [\n", []string{"f.yaml:1: did not find expected"}},
		{"empty file", "", []string{"f.yaml: the file is empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := useFakes(t)
			f.set("w", &fakeBehaviour{writes: true})
			dir := writeFiles(t, map[string]string{"f.yaml": c.file})
			_, err := Load([]string{dir}, Options{})
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load: %v, want a *LoadError", err)
			}
			got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("error lacks %q:\n%s", w, got)
				}
			}
			if len(le.Problems) < len(c.want) {
				t.Errorf("%d problems, want at least %d:\n%s", len(le.Problems), len(c.want), got)
			}
		})
	}
}

func TestLoadDuplicateAcrossFiles(t *testing.T) {
	useFakes(t)
	dir := writeFiles(t, map[string]string{"a.yaml": shopYAML, "b.yaml": shopYAML})
	_, err := Load([]string{dir}, Options{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "b.yaml")+`:5: tools[0].name: tool "shop.get" is declared twice: also at `+filepath.Join(dir, "a.yaml")+":5") {
		t.Fatalf("Load: %v", err)
	}
}

func TestLoadKindErrorAtItsField(t *testing.T) {
	f := useFakes(t)
	f.compileErr = errors.New("source: {id} is not a property of the input")
	dir := writeFiles(t, map[string]string{"f.yaml": shopYAML})
	_, err := Load([]string{dir}, Options{})
	if err == nil || !strings.Contains(err.Error(), "f.yaml:21: tools[0].binding.http.source: {id} is not a property of the input") {
		t.Fatalf("Load: %v", err)
	}
}

func TestLoadMissingKind(t *testing.T) {
	useFakes(t)
	delete(kinds, "queue")
	dir := writeFiles(t, map[string]string{"f.yaml": "sources: {q: {queue: {}}}\ntools: []\n"})
	_, err := Load([]string{dir}, Options{})
	if err == nil || !strings.Contains(err.Error(), "f.yaml:1: sources.q.queue: this build has no queue binding") {
		t.Fatalf("Load: %v", err)
	}
}

func TestLoadMissingPath(t *testing.T) {
	useFakes(t)
	_, err := Load([]string{filepath.Join(t.TempDir(), "nope")}, Options{})
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("Load: %v", err)
	}
}
