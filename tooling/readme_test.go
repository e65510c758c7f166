package tooling_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmePrograms returns the Go code blocks of the documentation (README.md
// and docs/*.md) that are whole programs (they start with "package main"),
// by the heading of the section each is in.
func readmePrograms(t *testing.T) map[string]string {
	t.Helper()
	progs := map[string]string{}
	for heading, blocks := range readmeBlocks(t) {
		for _, src := range blocks {
			if !strings.HasPrefix(src, "package main\n") {
				continue
			}
			if _, dup := progs[heading]; dup {
				t.Fatalf("the docs have two programs under %q", heading)
			}
			progs[heading] = src
		}
	}
	return progs
}

// docPages returns the repository's documentation pages, README.md and
// docs/*.md, as paths relative to this package's directory.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join("..", "README.md")}, pages...)
}

// readmeBlocks returns the Go code blocks of the documentation pages, by
// the heading of the section each is in, in order. A heading is the key
// of its blocks, so no two pages may share one.
func readmeBlocks(t *testing.T) map[string][]string {
	t.Helper()
	blocks := map[string][]string{}
	where := map[string]string{} // heading: the page it is in
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		var heading string
		var block []string
		fence, goBlock := "", false
		for line := range strings.Lines(string(b)) {
			switch {
			case fence == "" && strings.HasPrefix(line, "```"):
				fence, goBlock, block = "```", strings.HasPrefix(line, "```go"), nil
			case fence != "" && strings.HasPrefix(line, fence):
				fence = ""
				if goBlock {
					blocks[heading] = append(blocks[heading], strings.Join(block, ""))
				}
			case fence != "":
				block = append(block, line)
			case strings.HasPrefix(line, "#"):
				heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
				if other, dup := where[heading]; dup {
					t.Fatalf("%s and %s both have a heading %q: the Go blocks under it would mix", other, page, heading)
				}
				where[heading] = page
			}
		}
		if fence != "" {
			t.Fatalf("%s: a code block is not closed", page)
		}
	}
	return blocks
}

// readmeModule writes files into a module of their own that requires this
// one, as a host's module does, and returns its directory.
func readmeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// A directory every user may enter: a confined child runs the binary
	// again as an unprivileged user.
	dir, err := os.MkdirTemp("", "toolexplorer-readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// This module's requirements, so that the build needs no module this
	// module's own build does not: nothing is looked up or fetched.
	const self = "module github.com/toolexplorer/toolexplorer\n"
	if !bytes.HasPrefix(mod, []byte(self)) {
		t.Fatalf("go.mod does not start with %q", self)
	}
	files["go.sum"] = string(sum)
	files["go.mod"] = "module example.com/readmehost\n" + string(mod[len(self):]) +
		"\nrequire github.com/toolexplorer/toolexplorer v0.0.0\n\nreplace github.com/toolexplorer/toolexplorer => " + root + "\n"
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goIn runs the go command with args in dir and returns its output.
func goIn(dir string, args ...string) ([]byte, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	return cmd.CombinedOutput()
}

// TestREADMEPrograms builds every Go program of the docs as a host would,
// in a module of its own, and runs those of "A host with tools from a file"
// (the front page's), "A host program" and "Confinement (Linux)": they do
// what the docs say they do.
func TestREADMEPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the programs with")
	}
	progs := readmePrograms(t)
	const fileSection, hostSection, confineSection = "A host with tools from a file", "A host program", "Confinement (Linux)"
	for _, s := range []string{fileSection, hostSection, confineSection} {
		if _, ok := progs[s]; !ok {
			t.Fatalf("the docs have no program under %q (programs under %v)", s, keys(progs))
		}
	}
	bins := map[string]string{}
	for name, src := range progs {
		dir := readmeModule(t, map[string]string{"main.go": src})
		if out, err := goIn(dir, "build", "-o", "host", "."); err != nil {
			t.Fatalf("the docs, %q: the program does not build: %v\n%s", name, err, out)
		}
		bins[name] = filepath.Join(dir, "host")
	}

	checkConfinedProgram(t, bins[confineSection])
	checkFileToolsProgram(t, bins[fileSection], progs[fileSection])

	host := bins[hostSection]
	dir := filepath.Dir(host)
	run := func(stdin string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(host, args...)
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return stdout.String(), stderr.String(), ee.ExitCode()
		case err != nil:
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), 0
	}
	write := func(name, data string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, stdin string
		args        []string
		status      int
		want        []string
	}{
		{"consent once", "o\n", nil, 0, []string{`"HI"`, "notes.add (write effects) with map[text:buy milk]", "notes: 1"}},
		// The answer need not end in a newline.
		{"consent once, no newline", "o", nil, 0, []string{"notes: 1"}},
		{"consent refused", "n\n", nil, 1, []string{`"HI"`, "consent_required"}},
		{"no one to ask", "", nil, 1, []string{"consent_required"}},
		{"config file", "", []string{write("narrow.json", `{"whitelist": ["text.*", "nope.x"]}`)}, 1,
			[]string{`config whitelist: "nope.x" matches no tool`, `"HI"`, "notes.add: disabled"}},
		{"bad config file", "", []string{write("bad.json", `{"default_timeout": "3 seconds"}`)}, 2,
			[]string{`bad.json: /default_timeout: "3 seconds" is not a duration`}},
	} {
		out, logged, status := run(c.stdin, c.args...)
		if status != c.status {
			t.Errorf("%s: exit status %d, want %d; stdout:\n%s", c.name, status, c.status, out)
		}
		// The observer saw both calls before the program exited.
		if c.status != 2 && strings.Count(logged, " INFO audit call=") != 2 {
			t.Errorf("%s: the observer logged %d calls, want 2:\n%s", c.name, strings.Count(logged, " INFO audit call="), logged)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", c.name, w, out)
			}
		}
	}
}

// TestREADMETypedTool builds the typed tool of "Typed tools and their
// tests" (docs/host.md) in a package of a host's module, with the docs'
// test of it as its test, and runs that test.
func TestREADMETypedTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to run the test with")
	}
	const section = "Typed tools and their tests"
	blocks := readmeBlocks(t)[section]
	if len(blocks) != 2 {
		t.Fatalf("the docs, %q: %d Go blocks, want 2 (the tool, its test)", section, len(blocks))
	}
	// The imports the blocks leave out, as the file of a tool package has
	// them.
	dir := readmeModule(t, map[string]string{
		"shout.go":      "package tools\n\nimport (\n\t\"context\"\n\t\"encoding/json\"\n\t\"strings\"\n\n\t\"github.com/toolexplorer/toolexplorer/tooling\"\n)\n\n" + blocks[0],
		"shout_test.go": "package tools\n\nimport (\n\t\"errors\"\n\t\"testing\"\n\n\t\"github.com/toolexplorer/toolexplorer/tooling\"\n\t\"github.com/toolexplorer/toolexplorer/tooling/codes\"\n\t\"github.com/toolexplorer/toolexplorer/tooling/tooltest\"\n)\n\n" + blocks[1],
	})
	if out, err := goIn(dir, "test", "-count=1", "-v", "."); err != nil || !bytes.Contains(out, []byte("--- PASS: TestShout")) {
		t.Fatalf("the docs, %q: go test: %v\n%s", section, err, out)
	}
}

// checkConfinedProgram runs the program of "Confinement (Linux)": its
// confined tool reads the workspace and is denied the rest (or, where
// confinement cannot be applied, every call is sandbox_unavailable).
func checkConfinedProgram(t *testing.T, bin string) {
	t.Helper()
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("the confined program: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte("sandbox_unavailable")) && os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") != "1" {
		t.Logf("confinement is not available here:\n%s", out)
		return
	}
	for _, w := range []string{"note.txt \"hello\" <nil>\n", "/etc/hostname  tooling: fs.read_file: sandbox_denied: "} {
		if !bytes.Contains(out, []byte(w)) {
			t.Errorf("the confined program's output lacks %q:\n%s", w, out)
		}
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
