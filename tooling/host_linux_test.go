package tooling_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
)

// TestConfinedToolWithoutMainSaysWhy: in a host whose main does not hand
// over to tooling.Main, a confined call is sandbox_unavailable with a hint
// that names tooling.Main (the message alone named confine.Main, which a
// host never calls).
func TestConfinedToolWithoutMainSaysWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the program with")
	}
	if err := confine.Available(); err != nil {
		t.Skipf("confinement is unavailable here: %v", err)
	}
	dir := readmeModule(t, map[string]string{"main.go": `package main

import (
	"context"
	"fmt"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func main() {
	tooling.Register(tooling.Tool{
		Name: "demo.confined",
		Meta: tooling.Meta{Confine: &tooling.Confinement{}},
		Run:  func(context.Context, tooling.Call) (any, error) { return "ran", nil },
	})
	res, err := tooling.ExecuteTool(context.Background(), "demo.confined", nil)
	fmt.Printf("%s\n%s\n%v\n", res.Code, res.Hint, err)
}
`})
	if out, err := goIn(dir, "build", "-o", "host", "."); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(dir + "/host").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) < 2 || lines[0] != "sandbox_unavailable" || !strings.Contains(lines[1], "tooling.Main(reg, run)") {
		t.Fatalf("want sandbox_unavailable with a hint naming tooling.Main, got:\n%s", out)
	}
}
