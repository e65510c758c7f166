package demotools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/tooltest"
)

// A unit test of a tool's Run, without a registry or a confined child:
// the logic of fs.read_file on a workspace of the test's own.
func TestFSReadFileRunAlone(t *testing.T) {
	tool, ok := tooling.Default().Lookup("fs.read_file")
	if !ok {
		t.Fatal("fs.read_file is not registered")
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "note.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := tooltest.Run(t, tool, `{"path":"note.txt"}`, tooltest.WithWorkspace(ws))
	if err != nil || !strings.Contains(toJSON(t, out), `"text":"inside"`) {
		t.Fatalf("%v %v", toJSON(t, out), err)
	}
	if _, err := tooltest.Run(t, tool, `{"path":"../out.txt"}`, tooltest.WithWorkspace(ws)); err == nil || !strings.Contains(err.Error(), "leads out of the workspace") {
		t.Fatalf("climbing out: %v", err)
	}
	if _, err := tooltest.Run(t, tool, `{"path":"note.txt"}`); err == nil || !strings.Contains(err.Error(), "no workspace") {
		t.Fatalf("no workspace: %v", err)
	}
	// demo.echo is a typed handler (tooling.Func); its defaults are filled as the registry fills them.
	echo, _ := tooling.Default().Lookup("demo.echo")
	if out, err := tooltest.Run(t, echo, `{"text":"hi","upper":true}`); err != nil || toJSON(t, out) != `{"text":"HI","length":2}` {
		t.Fatalf("echo: %s %v", toJSON(t, out), err)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
