//go:build linux

package confine

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// suiteTests are the tests TestNoCgoSuite runs again in a binary built without cgo.
const suiteTests = "^(TestEcho|TestWhoAmI|TestHandlerErrors|TestFileSystem|TestProcEnviron|TestEnvironment|" +
	"TestLeakedDescriptor|TestNetwork|TestAbstractUnixSocket|TestSignal|TestLimits|TestCPULimit|TestMemoryLimit|" +
	"TestTimeoutKillsGroup|TestParentDeath|TestCancel|TestEarlyThread|TestRuntimeAfterConfinement|TestUnavailableFailsClosed|TestPool.*|" +
	"TestThreadBomb|TestProcessBound|TestFastOpenConnect|TestFastOpenControlInterrupted)$"

// TestNoCgoSuite runs the escape suite again in this package's test binary built with
// CGO_ENABLED=0, the way the host program is built (make build): there the all-threads calls go
// through syscall.AllThreadsSyscall instead of libpsx, and RLIMIT_AS applies (the race detector
// needs cgo and does not fit an address-space limit). It does nothing inside that binary.
func TestNoCgoSuite(t *testing.T) {
	if allThreadsSyscallWorks() {
		t.Skip("this binary is built without cgo already")
	}
	if testing.Short() {
		t.Skip("builds a second test binary; skipped with -short")
	}
	requireConfinement(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv(envRequireLandlock) == "1" {
			t.Fatalf("no go command to build the cgo-free test binary: %v", err)
		}
		t.Skipf("no go command to build the cgo-free test binary: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "confine-nocgo.test")
	build := exec.Command(goCmd, "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the cgo-free test binary: %v\n%s", err, out)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// The binary lives in a 0700 temp dir: the child, running as another user, is started
	// through /proc/self/exe, which needs no search permission on the directories.
	run := exec.Command(bin, "-test.run", suiteTests, "-test.count=1", "-test.v")
	run.Env = append(os.Environ(), envRequireLandlock+"=1") // it must not skip: this binary did not
	var out bytes.Buffer
	run.Stdout = &out
	run.Stderr = &out
	err = run.Run()
	text := out.String()
	if i := strings.Index(text, "\nconfine attack table"); i >= 0 {
		os.Stdout.WriteString("\n[cgo-free binary]" + text[i:])
	}
	if err != nil {
		t.Fatalf("the suite failed in the cgo-free binary: %v\n%s", err, text)
	}
	if strings.Contains(text, "--- SKIP") {
		t.Errorf("a case was skipped in the cgo-free binary:\n%s", text)
	}
}
