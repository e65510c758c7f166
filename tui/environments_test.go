package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/history/collection"
)

// testEnvironments are two environments of variables: dev with a plain
// variable, a secret and one read from a process environment variable,
// and prod.
func testEnvironments() map[string]collection.Environment {
	return map[string]collection.Environment{
		"dev": {
			"base":  {Value: "http://127.0.0.1:8080"},
			"token": {Value: "s3cr3t-token-1", Secret: true},
			"user":  {FromEnv: "ENV_TEST_USER"},
		},
		"prod": {"base": {Value: "https://shop.example"}},
	}
}

func envGetenv(k string) string {
	if k == "ENV_TEST_USER" {
		return "alice"
	}
	return ""
}

// The {{references}} of the arguments take the values of the environment
// chosen with V: without one the call is not made and says why; with dev
// the tool gets the values, the header names dev, the history keeps the
// references and never the secret's value (nor its echo in the output),
// and the command line copied from the call names --env dev, not the
// secret.
func TestVariablesFillArguments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	store := history.Open(path)
	h := newHarnessWith(t, newTestRegistry(t), Options{History: store, Environments: testEnvironments(), Getenv: envGetenv}, 120, 40)
	args := `{"text":"{{base}} {{ token }} {{user}}"}`
	openRun(t, h, "demo.echo", args)
	h.mustContain("the arguments are not a call yet: {{base}} needs an environment, and none is chosen")
	h.press("ctrl+s")
	h.mustContain("{{base}} needs an environment, and none is chosen (V chooses an environment)")
	if len(h.m.c.history) != 0 {
		t.Fatal("a call was made without the variables' values")
	}
	h.press("esc", "V")
	if h.m.top() != h.m.envs {
		t.Fatal("V does not open the environments")
	}
	h.press("j")
	h.mustContain("Variables of dev", "http://127.0.0.1:8080", "•••••• secret", "alice (from $ENV_TEST_USER)")
	h.mustNotContain("s3cr3t-token-1")
	h.press("enter")
	h.mustContain("env dev")
	openRun(t, h, "demo.echo", args)
	h.mustContain("✓ would run")
	h.press("ctrl+s")
	res := h.runDone(1)
	if !strings.Contains(string(res.Output), "http://127.0.0.1:8080 s3cr3t-token-1 alice") {
		t.Fatalf("the tool got %s", res.Output)
	}
	var raw []byte
	for deadline := time.Now().Add(30 * time.Second); len(raw) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call was not kept")
		}
		raw, _ = os.ReadFile(path)
	}
	if strings.Contains(string(raw), "s3cr3t-token-1") {
		t.Errorf("the secret reached the history:\n%s", raw)
	}
	if !strings.Contains(string(raw), `{{ token }}`) || !strings.Contains(string(raw), `"env":"dev"`) {
		t.Errorf("the history does not keep the references and the environment:\n%s", raw)
	}
	cl := commandLine(h.m.c.record(1), nil, h.m.c)
	if !strings.Contains(cl, " --env dev") || strings.Contains(cl, "s3cr3t") || !strings.Contains(cl, "{{ token }}") {
		t.Errorf("the command line: %s", cl)
	}

	// Made again from the history in a later session, with prod chosen:
	// prod has no token, so the call says so.
	later := newHarnessWith(t, newTestRegistry(t), Options{History: store, Environments: testEnvironments(), Env: "prod"}, 120, 40)
	later.mustContain("env prod")
	later.press("H", "r")
	later.mustContain("{{token}} is not a variable of environment prod")
}

func TestEnvironmentsGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		h := newHarnessWith(t, newTestRegistry(t), Options{Environments: testEnvironments(), Getenv: envGetenv, Env: "prod"}, size[0], size[1])
		h.press("V", "k")
		golden(t, fmt.Sprintf("environments_%dx%d", size[0], size[1]), h.view())
		none := newHarness(t, newTestRegistry(t), size[0], size[1])
		none.press("V")
		golden(t, fmt.Sprintf("environments_none_%dx%d", size[0], size[1]), none.view())
	}
}
