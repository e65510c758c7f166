package tui

import (
	"errors"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// fakeToolFiles adds a tool on each reload, or fails when told to.
type fakeToolFiles struct {
	mu       sync.Mutex
	reg      *tooling.Registry
	shadow   bool
	fail     error
	n        int
	reloaded chan ToolFilesReload
}

func (f *fakeToolFiles) Reload() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return "", f.fail
	}
	f.n++
	name := "file.added"
	if err := f.reg.Replace(nil, []tooling.Tool{{Name: name, Title: "Added by a reload", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: testTools()[0].Run}}); err != nil {
		return "", err
	}
	return "tools files reloaded: added " + name, nil
}

func (f *fakeToolFiles) Reloaded() <-chan ToolFilesReload { return f.reloaded }

func (f *fakeToolFiles) Shadow() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.shadow
}

func (f *fakeToolFiles) SetShadow(on bool) {
	f.mu.Lock()
	f.shadow = on
	f.mu.Unlock()
}

// TestToolFilesKeys: with tools files, W turns shadow mode over (the
// footer says which), and L reloads them: the list gains the new tool and
// the status line says what changed, or why nothing did.
func TestToolFilesKeys(t *testing.T) {
	reg := newTestRegistry(t)
	f := &fakeToolFiles{reg: reg}
	h := newHarnessWith(t, reg, Options{ToolFiles: f}, 120, 30)
	h.mustContain("W shadow:off")
	h.press("W")
	if !f.Shadow() {
		t.Fatal("W did not turn shadow mode on")
	}
	h.mustContain("shadow mode on", "W shadow:ON")
	h.press("W")
	if f.Shadow() {
		t.Fatal("W did not turn shadow mode off")
	}
	h.mustNotContain("file.added")
	h.press("L")
	h.waitFor("the reload", func(m tea.Msg) bool { _, ok := m.(toolFilesReloadedMsg); return ok })
	h.mustContain("tools files reloaded: added file.added", "file.added")
	f.mu.Lock()
	f.fail = errors.New("shop.yaml:3: tools[0].nme: unknown key")
	f.mu.Unlock()
	h.press("L")
	reloads := 0
	h.waitFor("the failed reload", func(m tea.Msg) bool {
		if _, ok := m.(toolFilesReloadedMsg); ok {
			reloads++
		}
		return reloads == 2
	})
	h.mustContain("not reloaded", "file.added")
}

// A reload made outside the console (a SIGHUP) is said on the status line
// and the list follows it.
func TestToolFilesReloadedElsewhere(t *testing.T) {
	reg := newTestRegistry(t)
	f := &fakeToolFiles{reg: reg, reloaded: make(chan ToolFilesReload, 1)}
	h := newHarnessWith(t, reg, Options{ToolFiles: f}, 120, 30)
	t.Cleanup(func() { close(f.reloaded) }) // before the harness waits for its commands
	text, err := f.Reload()
	if err != nil {
		t.Fatal(err)
	}
	f.reloaded <- ToolFilesReload{Text: text}
	h.waitFor("the reload", func(m tea.Msg) bool { _, ok := m.(toolFilesWatchedMsg); return ok })
	h.mustContain("tools files reloaded: added file.added", "file.added")
	f.reloaded <- ToolFilesReload{Err: errors.New("f.yaml:1: broken")}
	n := 0
	h.waitFor("the failed reload", func(m tea.Msg) bool {
		if _, ok := m.(toolFilesWatchedMsg); ok {
			n++
		}
		return n == 2
	})
	h.mustContain("not reloaded", "f.yaml:1: broken")
}

// Without tools files, L and W do nothing and are not shown.
func TestToolFilesKeysOff(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	h.mustNotContain("shadow")
	h.press("W")
	h.press("L")
	h.mustNotContain("shadow", "reload")
}
