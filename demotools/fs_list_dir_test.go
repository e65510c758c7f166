package demotools_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestFSListDir(t *testing.T) {
	ws := confinedWorkspace(t)
	writeFile(t, filepath.Join(ws, "b.txt"), "12345")
	writeFile(t, filepath.Join(ws, "a", "inner.txt"), "x")
	if err := os.Symlink("/etc", filepath.Join(ws, "etc")); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
		Size int64  `json:"size"`
	}
	type result struct {
		Path      string  `json:"path"`
		Entries   []entry `json:"entries"`
		Truncated bool    `json:"truncated"`
	}
	list := func(t *testing.T, args string) result {
		t.Helper()
		res, _ := execute(t, "fs.list_dir", args, codes.OK)
		var got result
		decodeOutput(t, res, &got)
		return got
	}
	t.Run("workspace", func(t *testing.T) {
		got := list(t, "")
		var names, kinds []string
		for _, e := range got.Entries {
			names, kinds = append(names, e.Name), append(kinds, e.Kind)
		}
		if got.Path != "." || !slices.Equal(names, []string{"a", "b.txt", "etc"}) || !slices.Equal(kinds, []string{"dir", "file", "symlink"}) ||
			got.Entries[1].Size != 5 || got.Truncated {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("subdirectory", func(t *testing.T) {
		got := list(t, `{"path":"a"}`)
		if len(got.Entries) != 1 || got.Entries[0] != (entry{Name: "inner.txt", Kind: "file", Size: 1}) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("symlink out", func(t *testing.T) {
		res, _ := execute(t, "fs.list_dir", `{"path":"etc"}`, codes.SandboxDenied)
		if !strings.Contains(res.Message, "/etc") {
			t.Errorf("message %q", res.Message)
		}
	})
	for _, args := range []string{`{"path":"/"}`, `{"path":".."}`, `{"path":"a/../.."}`} {
		t.Run("refused "+args, func(t *testing.T) {
			execute(t, "fs.list_dir", args, codes.ToolError)
		})
	}
	execute(t, "fs.list_dir", `{"path":""}`, codes.ValidationError)
}
