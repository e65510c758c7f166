package viewer

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// plainStyles draw without colours, as the console does with NO_COLOR.
func plainStyles() *Styles {
	p := lipgloss.NewStyle()
	return &Styles{Faint: p.Faint(true), Label: p, Panel: p.Border(lipgloss.NormalBorder()).Padding(0, 1), Err: p.Bold(true),
		Selected: p.Reverse(true), Cursor: p.Bold(true), JSONKey: p, JSONString: p, JSONNumber: p, JSONBool: p, JSONNull: p, JSONPunct: p}
}

// harness drives a viewer with keys, running the commands they return
// and keeping the messages meant for the console.
type harness struct {
	t      testing.TB
	v      *Model
	status []StatusMsg
	copies []CopyMsg
	other  []tea.Msg
}

func newHarness(t testing.TB, w, h int, out json.RawMessage) *harness {
	t.Helper()
	v := New(plainStyles())
	v.SetSize(w, h)
	v.SetOutput(out, nil, nil, nil)
	return &harness{t: t, v: v}
}

func (h *harness) send(msg tea.Msg) {
	cmd, _ := h.v.Update(msg)
	h.exec(cmd)
}

// exec runs cmd and what it batches, keeping the messages; a message the
// viewer itself handles (a jq result) goes back to it.
func (h *harness) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.exec(c)
		}
	case StatusMsg:
		h.status = append(h.status, msg)
	case CopyMsg:
		h.copies = append(h.copies, msg)
	default:
		if _, used := h.v.Update(msg); !used {
			h.other = append(h.other, msg)
		}
	}
}

func (h *harness) press(keys ...string) {
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// lastStatus is the last status line the viewer asked for.
func (h *harness) lastStatus() string {
	if len(h.status) == 0 {
		return ""
	}
	return h.status[len(h.status)-1].Text
}

func (h *harness) view() string { return ansi.Strip(h.v.View()) }

func (h *harness) mustContain(subs ...string) {
	h.t.Helper()
	view := h.view()
	for _, s := range subs {
		if !strings.Contains(view, s) {
			h.t.Fatalf("the view lacks %q:\n%s", s, view)
		}
	}
}

func (h *harness) mustNotContain(subs ...string) {
	h.t.Helper()
	view := h.view()
	for _, s := range subs {
		if strings.Contains(view, s) {
			h.t.Fatalf("the view holds %q:\n%s", s, view)
		}
	}
}

// path is the JSON pointer of the line under the cursor.
func (h *harness) path() string {
	r := h.v.at()
	if r.part != partJSON {
		return fmt.Sprintf("(not JSON: %+v)", r)
	}
	return h.v.tree.lines[r.line].path
}

func keyMsg(k string) tea.KeyPressMsg {
	special := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "backspace": tea.KeyBackspace, "pgdown": tea.KeyPgDown,
		"pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd, "space": tea.KeySpace,
	}
	var mod tea.KeyMod
	name := k
	for {
		switch {
		case strings.HasPrefix(name, "ctrl+"):
			mod |= tea.ModCtrl
			name = name[5:]
			continue
		case strings.HasPrefix(name, "shift+"):
			mod |= tea.ModShift
			name = name[6:]
			continue
		case strings.HasPrefix(name, "alt+"):
			mod |= tea.ModAlt
			name = name[4:]
			continue
		}
		break
	}
	if r, ok := special[name]; ok {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	r := []rune(name)[0]
	if mod != 0 {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	return tea.KeyPressMsg{Code: r, Text: name}
}

// bigOutput is about n bytes of JSON holding one long string of lines.
func bigOutput(n int) json.RawMessage {
	var page strings.Builder
	for i := 0; page.Len() < n; i++ {
		fmt.Fprintf(&page, "paragraph %06d: lorem ipsum dolor sit amet, consectetur adipiscing elit.\n", i)
	}
	out, _ := json.Marshal(map[string]any{"status": 200, "body": page.String()})
	return out
}

// treeOutput is about n bytes of JSON in many small values: an array of
// records.
func treeOutput(n int) json.RawMessage {
	var recs []map[string]any
	size := 0
	for i := 0; size < n; i++ {
		r := map[string]any{"id": i, "name": fmt.Sprintf("item %06d", i), "tags": []string{"a", "b"}, "ok": i%2 == 0, "score": float64(i) / 7}
		b, _ := json.Marshal(r)
		size += len(b) + 1
		recs = append(recs, r)
	}
	out, _ := json.Marshal(map[string]any{"items": recs})
	return out
}

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/NAME.golden.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
