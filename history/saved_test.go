package history_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/history/collection"
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

// Saved calls are filed in folders; exported, they are a collection file
// that collection.Read reads (and collection run checks), and importing
// one saves its calls, their expectations and references kept.
func TestSavedCallsExportImport(t *testing.T) {
	dir := t.TempDir()
	c := history.OpenSaved(history.SavedFile(dir))
	folder, name := history.SplitPath(" orders / refunds/refund one ")
	if folder != "orders / refunds" || name != "refund one" {
		t.Fatalf("SplitPath = %q, %q", folder, name)
	}
	for _, s := range []history.Saved{
		{Name: "list", Folder: "orders", Tool: "shop.list", Args: json.RawMessage(`{"auth":"Bearer {{token}}"}`)},
		{Name: "ping", Tool: "demo.echo", Args: json.RawMessage(`{"text":"hi"}`)},
		{Name: "list", Folder: "users", Tool: "shop.users", Args: json.RawMessage(`{}`), IdempotencyKey: "k1"},
	} {
		if err := c.Save(s, nil); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := c.List()
	var paths []string
	for _, s := range list {
		paths = append(paths, s.Path())
	}
	if strings.Join(paths, ",") != "ping,orders/list,users/list" {
		t.Fatalf("listed %q, want the top first, then folder by folder", paths)
	}
	if string(list[1].Args) != `{"auth":"Bearer {{token}}"}` {
		t.Errorf("the reference was not kept: %s", list[1].Args)
	}
	out := filepath.Join(dir, "team", "shop.yaml")
	if n, err := c.Export(out); err != nil || n != 3 {
		t.Fatalf("Export = %d, %v", n, err)
	}
	f, err := collection.Read(out)
	if err != nil || len(f.Calls) != 3 || f.Calls[2].Path() != "users/list" || f.Calls[2].IdempotencyKey != "k1" {
		t.Fatalf("the export reads back as %+v, %v", f, err)
	}

	f.Calls[0].Expect = &collection.Expect{Status: "ok", JQ: []string{".text == \"hi\""}}
	f.Calls[0].Args = json.RawMessage(`{"text":"hi","password":"p4ss"}`)
	if err := f.Write(out); err != nil {
		t.Fatal(err)
	}
	other := history.OpenSaved(filepath.Join(t.TempDir(), "saved.json"))
	if n, err := other.Import(out, time.Now()); err != nil || n != 3 {
		t.Fatalf("Import = %d, %v", n, err)
	}
	got, _ := other.List()
	if len(got) != 3 || got[0].Expect == nil || got[0].Expect.JQ[0] != `.text == "hi"` || string(got[0].Args) != `{"password":"[redacted]","text":"hi"}` {
		t.Fatalf("imported %+v", got)
	}
	if _, err := other.Import(filepath.Join(dir, "missing.json"), time.Now()); err == nil {
		t.Error("a missing file was imported")
	}
	if err := c.Delete("orders/list"); err != nil {
		t.Fatal(err)
	}
	if list, _ := c.List(); len(list) != 2 {
		t.Errorf("Delete by path left %d", len(list))
	}
}
