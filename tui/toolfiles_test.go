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
	mu     sync.Mutex
	reg    *tooling.Registry
	shadow bool
	fail   error
	n      int
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
	h.mustContain("W shadow: off")
	h.press("W")
	if !f.Shadow() {
		t.Fatal("W did not turn shadow mode on")
	}
	h.mustContain("shadow mode on", "W shadow: ON")
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
	h.waitFor("the failed reload", func(m tea.Msg) bool { _, ok := m.(toolFilesReloadedMsg); return ok })
	h.mustContain("not reloaded", "file.added")
}

// Without tools files, L and W do nothing and are not shown.
func TestToolFilesKeysOff(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	h.mustNotContain("shadow")
	h.press("W")
	h.press("L")
	h.mustNotContain("shadow", "reload")
}
