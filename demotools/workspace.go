package demotools

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// maxText is how much of a file or a response body the demo tools return.
const maxText = 64 << 10

// inWorkspace turns a path relative to the call's workspace into an
// absolute one. It refuses absolute paths and paths that climb out with
// "..": a first line of defence, the confinement of the call being the
// second (it also stops symbolic links that lead out).
func inWorkspace(c tooling.Call, p string) (string, error) {
	ws := c.Workspace
	if ws == "" {
		return "", errors.New("no workspace: this tool runs only confined")
	}
	switch {
	case p == "":
		return "", errors.New("the path is empty: give a path relative to the workspace, such as \"notes/todo.txt\"")
	case strings.ContainsRune(p, 0):
		return "", errors.New("the path contains a NUL byte")
	case filepath.IsAbs(p):
		return "", fmt.Errorf("%q is absolute: paths are relative to the workspace", p)
	case !filepath.IsLocal(p):
		return "", fmt.Errorf("%q leads out of the workspace: paths may not climb above it with \"..\"", p)
	}
	return filepath.Join(ws, p), nil
}

// cutText returns b as text, cut to at most n bytes on a character
// boundary, and whether it was cut.
func cutText(b []byte, n int) (string, bool) {
	if len(b) <= n {
		return string(b), false
	}
	b = b[:n]
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		r, size := utf8.DecodeLastRune(b)
		if r != utf8.RuneError || size > 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return string(b), true
}
