//go:build linux

package confine

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nonRootHostUID is the uid (and gid) TestNonRootHost runs the suite as: an ordinary user, not
// the children's 65534 of a root host, with no entry in /etc/passwd needed.
const nonRootHostUID = 65533

// TestNonRootHost runs this package's tests again with the host as an ordinary user, when they
// run as root (as CI does): the children then keep the host's uid, so that only Landlock and
// seccomp stand between them and that user's files, processes and limits. The re-run gets a
// home and a temp dir of its own. Tests that build programs with the go command (whose caches
// belong to root) are left out: the seccomp suite's helper runs as an unprivileged user
// anyway, and the cgo-free binary is a build variant, not a host variant.
func TestNonRootHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the tests run as an ordinary user already: this is the non-root host run")
	}
	if testing.Short() {
		t.Skip("runs the package's tests again; skipped with -short")
	}
	requireConfinement(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary, a home and a temp dir the user can reach.
	base, err := os.MkdirTemp("", "confine-nonroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "confine.test")
	if err := copyFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	home, tmp := filepath.Join(base, "home"), filepath.Join(base, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, nonRootHostUID, nonRootHostUID); err != nil {
			t.Fatal(err)
		}
	}
	run := exec.Command(bin, "-test.count=1", "-test.v",
		// The walks over 20,001 and 100,000 entries are the parent's, whatever its uid: they run
		// once, as root, to keep the package within the test timeout on a loaded machine.
		"-test.skip", "^(TestSeccompEscapeSuite|TestNoCgoSuite|TestNonRootHost|TestHostForkBomb|TestProtectedManyEntries|TestProtectBudgetFailsClosed)$")
	run.Dir = home
	run.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "TMPDIR=" + tmp,
		envRequireLandlock + "=1"} // confinement is there: the run must not skip for want of it
	run.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nonRootHostUID, Gid: nonRootHostUID, Groups: []uint32{}}}
	var out bytes.Buffer
	run.Stdout = &out
	run.Stderr = &out
	err = run.Run()
	text := out.String()
	if i := strings.Index(text, "\nconfine attack table"); i >= 0 {
		os.Stdout.WriteString("\n[non-root host, uid 65533]" + text[i:])
	}
	if err != nil {
		t.Fatalf("the suite failed with the host as uid %d: %v\n%s", nonRootHostUID, err, text)
	}
	if !strings.Contains(text, "euid 65533") {
		t.Errorf("the re-run did not print its attack table as euid %d:\n%s", nonRootHostUID, text)
	}
}

func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
