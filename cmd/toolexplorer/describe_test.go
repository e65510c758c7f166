package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{
			name: "echo",
			args: []string{"describe", "demo.echo"},
			code: exitOK,
			stdout: []string{
				"demo.echo: Echo\n", "MCP name demo.echo; OpenAI and Anthropic name demo__echo\n", "Returns the given text",
				"concurrency  read_only", "resources    none", "effects      none\n",
				"risk         low (derived from the effects)", "consent      not needed",
				"timeout      default (30s)\n", "rate         unlimited\n", "origins      all\n",
				"idempotent   yes\n", "tags         demo, basics\n", "version      1.0.0\n",
				"Availability (origin app):\n  available\n",
				"Input schema:\n  {\n", `"repeat": {`, "Output schema:\n  {\n",
			},
		},
		{
			name:   "exported spelling",
			args:   []string{"describe", "demo__echo"},
			code:   exitOK,
			stdout: []string{"demo.echo: Echo\n"},
		},
		{
			name:   "declared timeout",
			args:   []string{"describe", "demo.slow"},
			code:   exitOK,
			stdout: []string{"timeout      500ms\n"},
		},
		{
			name: "consent and resources",
			args: []string{"describe", "demo.write_note"},
			code: exitOK,
			stdout: []string{"concurrency  exclusive", "resources    notes\n", "effects      write\n",
				"risk         medium (derived from the effects)", "consent      required (declared)", "idempotent   no"},
		},
		{
			name:   "restricted origins",
			args:   []string{"describe", "demo.llm_only"},
			code:   exitOK,
			stdout: []string{"origins      llm\n", "Availability (origin llm):\n  available\n"},
		},
		{
			name:   "availability for another origin",
			args:   []string{"describe", "demo.llm_only", "--origin", "app"},
			code:   exitOK,
			stdout: []string{"Availability (origin app):\n  origin_denied: "},
		},
		{
			name:   "unavailable",
			args:   []string{"describe", "demo.unavailable"},
			code:   exitOK,
			stdout: []string{"Availability (origin app):\n  unavailable: "},
		},
		{
			name:   "unknown tool",
			args:   []string{"describe", "demo.ecoh"},
			code:   exitRefused,
			stderr: []string{"toolexplorer: describe demo.ecoh: not_found: ", `did you mean "demo.echo"?`},
		},
		{
			name:   "tool name without its group",
			args:   []string{"describe", "echo"},
			code:   exitRefused,
			stderr: []string{`toolexplorer: describe echo: not_found: no tool named "echo" (did you mean "demo.echo"?)`},
		},
		{
			name:   "unknown tool with --json",
			args:   []string{"describe", "--json", "demo.slwo"},
			code:   exitRefused,
			stderr: []string{`did you mean "demo.slow"?`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := cli(t, "", tt.args...)
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", o.code, tt.code, o)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(o.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
				}
			}
			for _, want := range tt.stderr {
				if !strings.Contains(o.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
				}
			}
			if tt.code == exitRefused && o.stdout != "" {
				t.Errorf("stdout of an unknown tool is not empty:\n%s", o.stdout)
			}
		})
	}
}

func TestDescribeJSON(t *testing.T) {
	o := cli(t, "", "describe", "demo.write_note", "--json")
	if o.code != exitOK {
		t.Fatalf("exit %d\n%s", o.code, o)
	}
	var got struct {
		Name         string `json:"name"`
		ExportName   string `json:"export_name"`
		Title        string `json:"title"`
		Description  string `json:"description"`
		NeedsConsent bool   `json:"needs_consent"`
		Meta         struct {
			Concurrency    string   `json:"concurrency"`
			Resources      []string `json:"resources"`
			Effects        []string `json:"effects"`
			Safety         string   `json:"safety"`
			SafetyDeclared string   `json:"safety_declared"`
			Timeout        string   `json:"timeout"`
			TimeoutSource  string   `json:"timeout_source"`
			Rate           struct {
				Unlimited bool `json:"unlimited"`
			} `json:"rate"`
			Origins []string `json:"origins"`
			Tags    []string `json:"tags"`
		} `json:"meta"`
		Availability struct {
			Origin    string `json:"origin"`
			Available bool   `json:"available"`
		} `json:"availability"`
		Input  map[string]any `json:"input_schema"`
		Output map[string]any `json:"output_schema"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, o.stdout)
	}
	m := got.Meta
	switch {
	case got.Name != "demo.write_note", got.ExportName != "demo__write_note", got.Title != "Write note", got.Description == "":
		t.Errorf("identity: %+v", got)
	case !got.NeedsConsent, m.Concurrency != "exclusive", strings.Join(m.Resources, ",") != "notes",
		strings.Join(m.Effects, ",") != "write", m.Safety != "medium", m.SafetyDeclared != "auto":
		t.Errorf("meta: %+v", m)
	case m.Timeout != "30s", m.TimeoutSource != "config default", !m.Rate.Unlimited, m.Origins == nil, len(m.Origins) != 0:
		t.Errorf("meta zero values: %+v", m)
	case got.Availability.Origin != "app", !got.Availability.Available:
		t.Errorf("availability: %+v", got.Availability)
	case got.Input["type"] != "object", got.Output["type"] != "object":
		t.Errorf("schemas: input %v, output %v", got.Input, got.Output)
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []string // tool names, in order
		flagsOf map[string]string
	}{
		{name: "all", args: nil,
			want: []string{"demo.counter", "demo.echo", "demo.fail", "demo.host_status", "demo.kv_get", "demo.kv_put", "demo.limited",
				"demo.llm_only", "demo.slow", "demo.unavailable", "demo.write_note", "fs.list_dir", "fs.read_file", "fs.write_file",
				"net.http_get", "proc.run"},
			flagsOf: map[string]string{"demo.write_note": "consent", "demo.unavailable": "unavailable", "demo.llm_only": "origins=llm",
				"fs.write_file": "consent", "proc.run": "consent"}},
		{name: "filter", args: []string{"--filter", "echo"}, want: []string{"demo.echo", "proc.run"}},
		{name: "filter on a parameter name", args: []string{"--filter", "ignore_cancel"}, want: []string{"demo.slow"}},
		{name: "filter with no match", args: []string{"--filter", "no such words"}, want: nil},
		{name: "tag", args: []string{"--tag", "timing"}, want: []string{"demo.slow"}},
		{name: "effects", args: []string{"--effects", "write"}, want: []string{"demo.counter", "demo.kv_put", "demo.write_note", "fs.write_file"}},
		{name: "origin", args: []string{"--origin", "llm", "--filter", "llm"}, want: []string{"demo.llm_only"}},
		{name: "origin excludes", args: []string{"--origin", "app", "--filter", "llm"}, want: nil},
		{name: "available", args: []string{"--available", "--filter", "unavailable"}, want: nil},
		{name: "no effects", args: []string{"--effects", "none"},
			want: []string{"demo.echo", "demo.fail", "demo.limited", "demo.llm_only", "demo.slow", "demo.unavailable"}},
		{name: "no effects or read", args: []string{"--effects", "none|read", "--filter", "demo"},
			want: []string{"demo.echo", "demo.fail", "demo.host_status", "demo.kv_get", "demo.limited", "demo.llm_only", "demo.slow", "demo.unavailable"}},
		// The table checks demo.llm_only for its own origin, llm, and shows
		// it available: --available agrees.
		{name: "available as the table checks", args: []string{"--available"},
			want: []string{"demo.counter", "demo.echo", "demo.fail", "demo.host_status", "demo.kv_get", "demo.kv_put", "demo.limited",
				"demo.llm_only", "demo.slow", "demo.write_note", "fs.list_dir", "fs.read_file", "fs.write_file", "net.http_get", "proc.run"}},
		{name: "available for an origin", args: []string{"--available", "--origin", "llm", "--effects", "none"},
			want: []string{"demo.echo", "demo.fail", "demo.limited", "demo.llm_only", "demo.slow"}},
		{name: "available for the app", args: []string{"--available", "--origin", "app", "--filter", "llm"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := cli(t, "", append([]string{"list"}, tt.args...)...)
			if o.code != exitOK || o.stderr != "" {
				t.Fatalf("want exit 0 and nothing on stderr\n%s", o)
			}
			var got []string
			flags := map[string]string{}
			lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
			if len(tt.want) == 0 {
				if !strings.HasPrefix(o.stdout, "no tools match") {
					t.Errorf("want \"no tools match\":\n%s", o.stdout)
				}
				return
			}
			if !strings.HasPrefix(lines[0], "NAME ") {
				t.Fatalf("no header:\n%s", o.stdout)
			}
			for _, line := range lines[1:] {
				f := strings.Fields(line)
				got = append(got, f[0])
				flags[f[0]] = strings.Join(f[4:], " ")
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			for name, want := range tt.flagsOf {
				if !strings.Contains(flags[name], want) {
					t.Errorf("flags of %s: %q, want %q", name, flags[name], want)
				}
			}

			o = cli(t, "", append([]string{"list", "--json"}, tt.args...)...)
			var infos []struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal([]byte(o.stdout), &infos); err != nil {
				t.Fatalf("list --json: %v\n%s", err, o.stdout)
			}
			got = got[:0]
			for _, info := range infos {
				got = append(got, info.Name)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("--json: got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestListJSONEmptyIsArray(t *testing.T) {
	o := cli(t, "", "list", "--json", "--filter", "no such tool")
	if strings.TrimSpace(o.stdout) != "[]" {
		t.Errorf("want [], got %q", o.stdout)
	}
}

// TestRiskWording: what people read calls the level risk: "high safety"
// would read as "very safe" for what is the riskiest.
func TestRiskWording(t *testing.T) {
	o := cli(t, "", "list")
	if header, _, _ := strings.Cut(o.stdout, "\n"); !strings.Contains(header, "RISK") || strings.Contains(header, "SAFETY") {
		t.Errorf("list header %q, want a RISK column", header)
	}
	o = cli(t, "", "describe", "proc.run")
	if !strings.Contains(o.stdout, "risk         high") || strings.Contains(o.stdout, "safety") {
		t.Errorf("describe proc.run does not say its risk:\n%s", o.stdout)
	}
}
