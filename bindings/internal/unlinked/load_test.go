// Package unlinked_test loads tools files in a program that links no SQL
// driver and no queue client, as a host with HTTP tools only does.
package unlinked_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/bindings"
)

// TestDriverNotLinked: a tools file naming a driver or a client that the
// program does not link is refused when it loads, with the import that
// links it.
func TestDriverNotLinked(t *testing.T) {
	for source, pkg := range map[string]string{
		`sql: {driver: sqlite, dsn: /tmp/x.db}`:                     "bindings/sqlite",
		`sql: {driver: postgres, dsn: "postgres://h/db"}`:           "bindings/postgres",
		`queue: {provider: redis, url: "redis://127.0.0.1:6379/0"}`: "bindings/redis",
		`queue: {provider: nats, url: "nats://127.0.0.1:4222"}`:     "bindings/nats",
	} {
		path := filepath.Join(t.TempDir(), "tools.yaml")
		doc := "sources:\n  s:\n    " + source + "\ntools: []\n"
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		set, err := bindings.Load([]string{path}, bindings.Options{})
		if set != nil {
			set.Close()
		}
		want := `is not linked into this program: its main package imports _ "github.com/toolexplorer/toolexplorer/` + pkg + `"`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", source, err, want)
		}
	}
}

// TestHTTPHostLinksNoDriver: package bindings itself links no database
// driver and no queue client.
func TestHTTPHostLinksNoDriver(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies")
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/toolexplorer/toolexplorer/bindings").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, driver := range []string{"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/redis/go-redis", "github.com/nats-io/nats.go"} {
			if strings.HasPrefix(dep, driver) {
				t.Errorf("package bindings links %s", dep)
			}
		}
	}
}
