package tooling

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestSettingsEnabled(t *testing.T) {
	tests := []struct {
		name   string
		s      Settings
		tool   string
		want   bool
		reason string
	}{
		{"default", Settings{}, "demo.echo", true, ""},
		{"master switch", Settings{Disabled: true}, "demo.echo", false,
			"every tool is disabled by the config (enabled: false)"},
		{"blacklisted", Settings{Blacklist: []string{"demo.*"}}, "demo.echo", false,
			`demo.echo is disabled by the config blacklist ("demo.*")`},
		{"not blacklisted", Settings{Blacklist: []string{"demo.fail"}}, "demo.echo", true, ""},
		{"whitelisted", Settings{Whitelist: []string{"demo.echo"}}, "demo.echo", true, ""},
		{"not whitelisted", Settings{Whitelist: []string{"demo.echo"}}, "demo.fail", false,
			"demo.fail is not in the config whitelist"},
		{"whitelist wins", Settings{Whitelist: []string{"demo.*"}, Blacklist: []string{"demo.echo"}}, "demo.echo", true, ""},
		{"override disables", Settings{Whitelist: []string{"*"}, Tools: map[string]Override{"demo.echo": {Disabled: true}}}, "demo.echo", false,
			"demo.echo is disabled by the config (tools.demo.echo.disabled)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, reason := tt.s.enabled(tt.tool)
			if ok != tt.want || reason != tt.reason {
				t.Fatalf("enabled(%q) = %v, %q; want %v, %q", tt.tool, ok, reason, tt.want, tt.reason)
			}
		})
	}
}

func TestWorkspaceDir(t *testing.T) {
	defer func(f func() int) { geteuid = f }(geteuid)
	geteuid = func() int { return 1000 }
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	def := filepath.Join(cache, "toolexplorer", "workspace")
	abs := filepath.Join(t.TempDir(), "ws")
	tests := []struct {
		name      string
		source    string // Settings.Source
		workspace string
		want      string
	}{
		{"default", "", "", def},
		{"default whatever the source", "/etc/toolexplorer/config.json", "", def},
		{"absolute", "/etc/toolexplorer/config.json", abs, abs},
		{"absolute, cleaned", "", abs + "/./x/..//", abs},
		{"relative to the config file", "/etc/toolexplorer/config.json", "ws", "/etc/toolexplorer/ws"},
		{"relative to the config file, upwards", "/etc/toolexplorer/config.json", "../ws/", "/etc/ws"},
		{"relative to a relative config file", "conf/f.json", "ws", filepath.Join(wd, "conf", "ws")},
		{"relative to a config file in the working directory", "f.json", "./ws", filepath.Join(wd, "ws")},
		{"relative without a source", "", "ws", filepath.Join(wd, "ws")},
		{"dot", "/etc/toolexplorer/config.json", ".", "/etc/toolexplorer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Settings{Source: tt.source, Confinement: ConfinementBounds{Workspace: tt.workspace}}
			if got, err := s.workspaceDir(); err != nil || got != tt.want {
				t.Fatalf("workspaceDir() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := os.Stat(def); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("workspaceDir() created %s (stat: %v)", def, err)
	}

	t.Run("NUL byte", func(t *testing.T) {
		s := Settings{Confinement: ConfinementBounds{Workspace: "a\x00b"}}
		if got, err := s.workspaceDir(); err == nil {
			t.Fatalf("workspaceDir() = %q, want an error", got)
		}
	})

	t.Run("no user cache directory", func(t *testing.T) {
		t.Setenv("XDG_CACHE_HOME", "")
		t.Setenv("HOME", "")
		var s Settings
		if got, err := s.workspaceDir(); err == nil {
			t.Fatalf("workspaceDir() = %q, want an error", got)
		}
		s.Confinement.Workspace = "/srv/ws"
		if got, err := s.workspaceDir(); err != nil || got != "/srv/ws" {
			t.Fatalf("workspaceDir() = %q, %v; want /srv/ws", got, err)
		}
	})
}

func TestWorkspaceDirOfRoot(t *testing.T) {
	defer func(f func() int) { geteuid = f }(geteuid)
	geteuid = func() int { return 0 }
	if got, err := (&Settings{}).workspaceDir(); err != nil || got != rootWorkspace {
		t.Fatalf("root default workspace %q, %v; want %q", got, err, rootWorkspace)
	}
	s := Settings{Confinement: ConfinementBounds{Workspace: "/srv/ws"}}
	if got, _ := s.workspaceDir(); got != "/srv/ws" {
		t.Fatalf("a configured workspace is kept for root: %q", got)
	}
}
