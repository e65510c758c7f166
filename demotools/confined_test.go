package demotools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// confinedWorkspace configures the default registry for the confined demo
// tools: a fresh workspace, a child per call, and the ports given as the
// allowed ones. It restores the configuration when the test ends, and
// skips the test (fails it under TOOLEXPLORER_REQUIRE_LANDLOCK=1) when
// this machine cannot confine.
func confinedWorkspace(t *testing.T, ports ...uint16) string {
	t.Helper()
	ws := t.TempDir()
	// Confined children run as an unprivileged user when the tests run as
	// root: it must be able to reach the workspace (t.TempDir makes its
	// parent private).
	for _, d := range []string{ws, filepath.Dir(ws)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The host hands over only a new or empty workspace; the tests fill it
	// as they go, so they hand it over to the children's user (65534)
	// themselves, as an operator would.
	if os.Geteuid() == 0 {
		if err := os.Chown(ws, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	cfg := tooling.Settings{Confinement: tooling.ConfinementBounds{Workspace: ws, PoolSize: -1, AllowedPorts: ports}}
	if _, err := tooling.Default().Configure(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := tooling.Default().Configure(tooling.Settings{}); err != nil {
			t.Errorf("restoring the config: %v", err)
		}
	})
	res, err := tooling.ExecuteTool(t.Context(), "fs.list_dir", nil)
	if res != nil && res.Code == codes.SandboxUnavailable {
		if os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") == "1" {
			t.Fatalf("confinement unavailable: %s", res.Message)
		}
		t.Skipf("confinement unavailable here: %s", res.Message)
	}
	if err != nil {
		t.Fatalf("probe call fs.list_dir: %v", err)
	}
	return ws
}

// writeFile writes a file of the workspace as the test (not as a tool).
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
