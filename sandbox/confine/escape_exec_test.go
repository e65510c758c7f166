//go:build linux

package confine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func init() {
	// test.setinterp rewrites the ELF interpreter (PT_INTERP) of the program A to B, in place:
	// what a call may do to a program that lies in its write grant.
	Handle("test.setinterp", func(ctx context.Context, req []byte) ([]byte, error) {
		var op fsOp
		if err := json.Unmarshal(req, &op); err != nil {
			return nil, err
		}
		return nil, setInterp(op.A, op.B)
	})
}

// setInterp overwrites the PT_INTERP string of the 64-bit ELF file path with interp.
func setInterp(path, interp string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var hdr [64]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return err
	}
	le := binary.LittleEndian
	phoff, phentsize, phnum := int64(le.Uint64(hdr[32:])), int64(le.Uint16(hdr[54:])), int64(le.Uint16(hdr[56:]))
	ph := make([]byte, 56)
	for i := int64(0); i < phnum; i++ {
		if _, err := f.ReadAt(ph, phoff+i*phentsize); err != nil {
			return err
		}
		if le.Uint32(ph[0:]) != 3 { // PT_INTERP
			continue
		}
		off, size := int64(le.Uint64(ph[8:])), int(le.Uint64(ph[32:]))
		if len(interp)+1 > size {
			return fmt.Errorf("%q does not fit in the %d bytes of PT_INTERP", interp, size)
		}
		b := make([]byte, size)
		copy(b, interp)
		_, err := f.WriteAt(b, off)
		return err
	}
	return fmt.Errorf("%s has no PT_INTERP", path)
}

// dynamicProgram returns a dynamically linked program of this machine, or "".
func dynamicProgram() string {
	for _, name := range []string{"true", "echo", "ls"} {
		if p, err := exec.LookPath(name); err == nil {
			if r, err := filepath.EvalSymlinks(p); err == nil && elfInterp(r) != "" {
				return r
			}
		}
	}
	return ""
}

// TestExecProgramSwap: a tool may write a directory that holds a program it lists in Exec. One
// call rewrites the program's ELF interpreter to "/" (or to a symlink to /), and the next child
// granted read and execute on the whole file system through it. The control reads the file
// outside every grant unconfined; confined, a program inside a write grant, an interpreter
// that is not a regular file and one reached through a symlink that is not root's are refused,
// for the tool that writes there and for a read-only tool listing the same program alike.
func TestExecProgramSwap(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	src := dynamicProgram()
	if src == "" {
		record("rewrite the ELF interpreter of a granted program", "denied", "not applicable: no dynamically linked program here", true)
		t.Skip("no dynamically linked program on this machine")
	}
	f := newFixture(t)
	chown := func(paths ...string) {
		if os.Geteuid() == 0 {
			for _, p := range paths {
				os.Chown(p, UnprivilegedID, UnprivilegedID)
			}
		}
	}
	bin := filepath.Join(f.rw, "bin")
	prog := filepath.Join(bin, "prog")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(src, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	chown(bin, prog)
	control(t, "read a file outside every grant", "test.read", []byte(f.outFile))

	writer := Profile{WritePaths: []string{f.rw}}
	call(t, "rewrite the ELF interpreter of a program in a write grant to /", full, 0, "test.setinterp", writer, fsReq("", prog, "/"))
	if got := elfInterp(prog); got != "/" {
		t.Fatalf("the program's interpreter is %q after the call, want /", got)
	}
	withProg := writer
	withProg.Exec = []string{prog}
	_, e := call(t, "read outside through a program in a write grant", full, Unavailable, "test.read", withProg, []byte(f.outFile))
	if e != nil && !strings.Contains(e.What, "inside the write grant") {
		t.Errorf("refusal %q does not say the program lies in a write grant", e.What)
	}
	_, e = call(t, "read outside: read-only tool lists the rewritten program", full, Unavailable, "test.read", Profile{ReadPaths: []string{f.ro}, Exec: []string{prog}}, []byte(f.outFile))
	if e != nil && !strings.Contains(e.What, "not a regular file") {
		t.Errorf("refusal %q does not say the interpreter is no regular file", e.What)
	}

	// A program outside every write grant whose interpreter path goes through a symlink that a
	// call made (to /).
	safe := filepath.Join(f.ro, "prog")
	if err := copyFile(src, safe, 0o755); err != nil {
		t.Fatal(err)
	}
	// PT_INTERP holds a short path (28 bytes for the usual loader): a write grant of a short name.
	short, err := os.MkdirTemp("/tmp", "c")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	os.Chmod(short, 0o755)
	chown(short)
	link := filepath.Join(short, "l")
	call(t, "make a symlink to / in a write grant", full, 0, "test.fs", Profile{WritePaths: []string{short}}, fsReq("swap", link, "/"))
	if err := setInterp(safe, link); err != nil {
		t.Fatal(err)
	}
	_, e = call(t, "read outside: interpreter through a child's symlink", full, Unavailable, "test.read", Profile{ReadPaths: []string{f.ro}, Exec: []string{safe}}, []byte(f.outFile))
	if e != nil && !strings.Contains(e.What, "symlink") {
		t.Errorf("refusal %q does not name the symlink", e.What)
	}

	// The program itself reached through a child's symlink, and a script whose interpreter is.
	call(t, "exec a program through a child's symlink", full, Unavailable, "test.read", Profile{Exec: []string{filepath.Join(link, strings.TrimPrefix(src, "/"))}}, []byte(f.outFile))
	script := filepath.Join(f.ro, "script")
	if err := os.WriteFile(script, []byte("#!"+filepath.Join(link, "bin", "sh")+"\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	call(t, "exec a script whose interpreter is through a child's symlink", full, Unavailable, "test.read", Profile{Exec: []string{script, "/bin/sh"}}, []byte(f.outFile))

	// The ordinary case: the same program, untouched, outside every write grant, runs.
	plain := filepath.Join(f.ro, "plain")
	if err := copyFile(src, plain, 0o755); err != nil {
		t.Fatal(err)
	}
	call(t, "run a program outside every write grant (ordinary case)", full, 0, "test.kernel", Profile{ReadPaths: []string{f.ro}, WritePaths: []string{f.rw}, Exec: []string{plain}}, kernelReq("exec", plain, 0))
	if b, err := os.ReadFile(f.outFile); err != nil || string(b) != "outside data" {
		t.Errorf("outside file: %q %v", b, err)
	}
}
