package history_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
)

func TestSavedCalls(t *testing.T) {
	dir := t.TempDir()
	c := history.OpenSaved(history.SavedFile(dir))
	if list, err := c.List(); err != nil || len(list) != 0 {
		t.Fatalf("a new collection lists %v, %v", list, err)
	}
	if err := c.Save(history.Saved{Name: " ", Tool: "demo.echo"}, nil); err == nil {
		t.Error("a saved call without a name was kept")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Save(history.Saved{Name: "zeta", Tool: "demo.echo", Args: json.RawMessage(`{"text":"z"}`)}, nil))
	must(c.Save(history.Saved{Name: "alpha", Tool: "demo.login", Args: json.RawMessage(`{"user":"u","password":"p"}`)}, nil))
	must(c.Save(history.Saved{Name: "zeta", Tool: "demo.echo", Args: json.RawMessage(`{"text":"z2"}`)}, nil))
	list, err := history.OpenSaved(filepath.Join(dir, ".toolexplorer", "saved.json")).List()
	must(err)
	if len(list) != 2 || list[0].Name != "alpha" || list[1].Name != "zeta" || string(list[1].Args) != `{"text":"z2"}` {
		t.Fatalf("listed %+v", list)
	}
	if string(list[0].Args) != `{"password":"[redacted]","user":"u"}` {
		t.Errorf("a saved secret: %s", list[0].Args)
	}
	must(c.Delete("alpha"))
	if list, _ := c.List(); len(list) != 1 || list[0].Name != "zeta" {
		t.Fatalf("after delete: %+v", list)
	}
}
