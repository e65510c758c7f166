package tooling_test

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
)

// TestConfinedToolWithoutMainSaysWhy: in a host whose main does not hand
// over to tooling.Main, a confined call is sandbox_unavailable with a hint
// that names tooling.Main (the message alone named confine.Main, which a
// host never calls). And in a host that does not import tooling/confined,
// it is sandbox_unavailable naming that package, and the binary links
// none of the confinement: no landlock, and no cgo (it is static).
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
	const src = `package main

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
`
	build := func(src string) (bin string, out []string) {
		t.Helper()
		dir := readmeModule(t, map[string]string{"main.go": src})
		if out, err := goIn(dir, "build", "-o", "host", "."); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		b, err := exec.Command(dir + "/host").CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		return dir + "/host", strings.Split(string(b), "\n")
	}
	const confined = "github.com/toolexplorer/toolexplorer/tooling/confined"
	withConfined, lines := build(strings.Replace(src, "\"github.com/toolexplorer/toolexplorer/tooling\"\n",
		"\"github.com/toolexplorer/toolexplorer/tooling\"\n\t_ \""+confined+"\"\n", 1))
	if len(lines) < 2 || lines[0] != "sandbox_unavailable" || !strings.Contains(lines[1], "tooling.Main(reg, run)") {
		t.Fatalf("want sandbox_unavailable with a hint naming tooling.Main, got:\n%s", strings.Join(lines, "\n"))
	}
	without, lines := build(src)
	if len(lines) < 2 || lines[0] != "sandbox_unavailable" || !strings.Contains(lines[1], confined) {
		t.Fatalf("without %s: want sandbox_unavailable with a hint naming it, got:\n%s", confined, strings.Join(lines, "\n"))
	}
	// The control: the host that imports tooling/confined links landlock.
	if !linksLandlock(t, withConfined) {
		t.Fatal("the host that imports tooling/confined does not link landlock: the check sees nothing")
	}
	if linksLandlock(t, without) {
		t.Error("a host without tooling/confined links landlock")
	}
	if f, err := elf.Open(without); err != nil {
		t.Fatal(err)
	} else {
		defer f.Close()
		if f.Section(".interp") != nil {
			t.Error("a host without tooling/confined is dynamically linked")
		}
	}
}

// linksLandlock says whether the binary at bin links go-landlock, as go
// version -m lists its modules.
func linksLandlock(t *testing.T, bin string) bool {
	t.Helper()
	out, err := goIn(filepath.Dir(bin), "version", "-m", bin)
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, out)
	}
	return strings.Contains(string(out), "github.com/landlock-lsm/go-landlock")
}
