package ledger_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// smallDisk mounts a 64 KiB tmpfs for the test, or skips it where that is
// not possible (not root, no mount namespace rights) outside CI.
func smallDisk(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cannot mount a small tmpfs for the disk-full test: %v", err)
		}
		t.Skipf("not applicable here: cannot mount a small tmpfs (%v)", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file on dir until the disk is full and returns it.
func fill(t *testing.T, dir string) string {
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 1024)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return name
		}
	}
}

// On a full disk, a ledger told to refuse refuses new calls with
// unavailable, naming itself, and one told to go on counts what it lost
// and writes the count once it can; either way the chain stays intact.
func TestDiskFull(t *testing.T) {
	for _, c := range []struct {
		name string
		mode ledger.Failure
	}{{"refuse", ledger.Refuse}, {"continue", ledger.Continue}} {
		t.Run(c.name, func(t *testing.T) {
			disk := smallDisk(t)
			path := filepath.Join(disk, "ledger.jsonl")
			l := open(t, "", ledger.Options{Path: path, KeyPath: filepath.Join(t.TempDir(), "key"), OnFailure: c.mode, MaxPending: 50})
			defer l.Close()
			r := registry(nil)
			l.Attach(r)
			ctx := context.Background()
			if _, err := r.Execute(ctx, "t.echo", nil); err != nil {
				t.Fatal(err)
			}
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			filler := fill(t, disk)
			r.Execute(ctx, "t.echo", nil)
			if err := l.Sync(); !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("sync on a full disk: %v, want ENOSPC", err)
			}
			if s := l.Stats(); !strings.Contains(s.Failing, "no space") {
				t.Fatalf("stats on a full disk: %+v", s)
			}
			res, err := r.Execute(ctx, "t.echo", nil)
			switch c.mode {
			case ledger.Refuse:
				if !errors.Is(err, codes.Unavailable) || !strings.Contains(res.Message, "ledger "+path) {
					t.Fatalf("a call on a full disk: %v; want unavailable naming the ledger", err)
				}
				if s := l.Stats(); s.Lost != 0 {
					t.Fatalf("lost %d records while refusing", s.Lost)
				}
			case ledger.Continue:
				if err != nil {
					t.Fatalf("a call on a full disk: %v; want it to go on", err)
				}
				for i := 0; i < 50; i++ {
					r.Execute(ctx, "t.echo", nil)
				}
				if s := l.Stats(); s.Lost == 0 {
					t.Fatalf("stats after 100 records on a full disk: %+v; want some lost", s)
				}
			}
			lost := l.Stats().Lost
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			if err := l.Sync(); err != nil {
				t.Fatalf("sync once there is room: %v", err)
			}
			if _, err := r.Execute(ctx, "t.echo", nil); err != nil {
				t.Fatalf("a call once there is room: %v", err)
			}
			if err := l.Close(); err != nil && c.mode == ledger.Refuse {
				t.Fatal(err)
			}
			rep, err := ledger.Verify(path, l.PublicKey())
			if err != nil || !rep.OK() {
				t.Fatalf("verify: %v %v", err, rep.Problem)
			}
			raw, _ := os.ReadFile(path)
			hasLost := strings.Contains(string(raw), `"kind":"lost"`)
			if (lost > 0) != hasLost {
				t.Fatalf("lost %d records; a lost record in the ledger: %v", lost, hasLost)
			}
			if c.mode == ledger.Refuse {
				if es, _ := ledger.Read(path, ledger.Filter{Code: codes.Unavailable}); len(es) != 1 {
					t.Fatalf("the refused call in the ledger: %+v", es)
				}
			}
		})
	}
}

// TestDiskFullRecoversOnItsOwn: a ledger that refuses calls because its
// disk is full serves them again once there is room, on its own retry: no
// Sync from outside, no new record to write (the calls being refused).
// The disk fills between a record's write and the fsync of the signed
// head, so the write that failed is the head's.
func TestDiskFullRecoversOnItsOwn(t *testing.T) {
	disk := smallDisk(t)
	path := filepath.Join(disk, "ledger.jsonl")
	l := open(t, "", ledger.Options{Path: path, KeyPath: filepath.Join(t.TempDir(), "key"), OnFailure: ledger.Refuse,
		SyncInterval: time.Hour, RetryInterval: 5 * time.Millisecond})
	defer l.Close()
	r := registry(nil)
	l.Attach(r)
	ctx := context.Background()
	if _, err := r.Execute(ctx, "t.echo", nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	r.Execute(ctx, "t.echo", nil) // written, not yet fsynced: the sync interval is an hour
	filler := fill(t, disk)
	if err := l.Sync(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("sync on a full disk: %v, want ENOSPC", err)
	}
	if l.Refusal() == nil {
		t.Fatal("a ledger that cannot write its head does not refuse")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); l.Refusal() != nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still refusing a minute after the disk had room: %v", l.Refusal())
		}
	}
	if _, err := r.Execute(ctx, "t.echo", nil); err != nil {
		t.Fatalf("a call once the ledger recovered: %v", err)
	}
}
