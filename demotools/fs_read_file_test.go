package demotools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestFSReadFile(t *testing.T) {
	ws := confinedWorkspace(t)
	writeFile(t, filepath.Join(ws, "note.txt"), "inside\n")
	writeFile(t, filepath.Join(ws, "sub", "deep.txt"), "deeper")
	writeFile(t, filepath.Join(ws, "big.txt"), strings.Repeat("é", 40<<10)) // 80 KiB
	if err := os.Symlink("/etc/hostname", filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	type result struct {
		Path      string `json:"path"`
		Size      int64  `json:"size"`
		Text      string `json:"text"`
		Truncated bool   `json:"truncated"`
	}
	tests := []struct {
		name string
		args string
		code codes.Code
		want result
		msg  string // in the message of a failure
	}{
		{name: "file", args: `{"path":"note.txt"}`, want: result{Path: "note.txt", Size: 7, Text: "inside\n"}},
		{name: "nested", args: `{"path":"sub/../sub/deep.txt"}`, want: result{Path: "sub/../sub/deep.txt", Size: 6, Text: "deeper"}},
		{name: "absolute", args: `{"path":"/etc/hostname"}`, code: codes.ToolError, msg: "absolute"},
		{name: "climbing out", args: `{"path":"../x"}`, code: codes.ToolError, msg: "out of the workspace"},
		{name: "climbing out later", args: `{"path":"sub/../../x"}`, code: codes.ToolError, msg: "out of the workspace"},
		{name: "symlink out", args: `{"path":"escape"}`, code: codes.SandboxDenied, msg: "escape"},
		{name: "missing", args: `{"path":"nope.txt"}`, code: codes.ToolError, msg: "no such file"},
		{name: "directory", args: `{"path":"sub"}`, code: codes.ToolError, msg: "fs.list_dir"},
		{name: "no path", args: `{}`, code: codes.ValidationError},
		{name: "unknown argument", args: `{"path":"note.txt","mode":"x"}`, code: codes.ValidationError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := execute(t, "fs.read_file", tt.args, tt.code)
			if tt.code != codes.OK {
				if !strings.Contains(res.Message, tt.msg) {
					t.Errorf("message %q lacks %q", res.Message, tt.msg)
				}
				return
			}
			var got result
			decodeOutput(t, res, &got)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("truncated", func(t *testing.T) {
		res, _ := execute(t, "fs.read_file", `{"path":"big.txt"}`, codes.OK)
		var got result
		decodeOutput(t, res, &got)
		if !got.Truncated || got.Size != 80<<10 || len(got.Text) != 64<<10 || strings.ContainsRune(got.Text, '\uFFFD') {
			t.Errorf("size %d, %d bytes of text, truncated %v", got.Size, len(got.Text), got.Truncated)
		}
	})
}
