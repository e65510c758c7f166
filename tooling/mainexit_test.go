package tooling_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMainWaitsForObservers: a host's run returns while a slow observer
// still has events queued; Main lets it see them before the process exits.
func TestMainWaitsForObservers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the program with")
	}
	dir := readmeModule(t, map[string]string{"main.go": `package main

import (
	"context"
	"fmt"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func main() {
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "demo.ok", Run: func(context.Context, tooling.Call) (any, error) { return "ok", nil }})
	reg.Audit(func(_ context.Context, ev tooling.Event) {
		time.Sleep(20 * time.Millisecond)
		if ev.End {
			fmt.Println("seen", ev.CallID)
		}
	})
	tooling.Main(reg, func() int {
		for i := range 5 {
			reg.Execute(context.Background(), "demo.ok", nil, tooling.WithCallID(fmt.Sprint("c", i)))
		}
		return 3
	})
}
`})
	if out, err := goIn(dir, "build", "-o", "host", "."); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(dir + "/host").Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v\n%s", err, out)
	}
	if want := "seen c0\nseen c1\nseen c2\nseen c3\nseen c4\n"; string(out) != want {
		t.Fatalf("the observer saw\n%s\nwant\n%s", out, strings.TrimSpace(want))
	}
}
