//go:build unix

package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// A writer that cannot keep up (here: stuck waiting for the ledger's lock,
// which the test holds, as a stuck disk would keep it in a write) makes a
// ledger told to refuse refuse new calls once MaxPending records wait, and
// one told to go on count the records it drops; once the writer moves
// again, the count is written and the chain is intact.
func TestSlowDisk(t *testing.T) {
	for _, c := range []struct {
		name string
		mode ledger.Failure
	}{{"refuse", ledger.Refuse}, {"continue", ledger.Continue}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			l := open(t, dir, ledger.Options{MaxPending: 10, OnFailure: c.mode})
			defer l.Close()
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			lock, err := os.OpenFile(l.Path()+".lock", os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Close()
			if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
				t.Fatal(err)
			}
			r := registry(nil)
			l.Attach(r)
			ctx := context.Background()
			refused := false
			deadline := time.Now().Add(time.Minute)
			for i := 0; !refused && time.Now().Before(deadline); i++ {
				res, err := r.Execute(ctx, "t.echo", nil)
				if errors.Is(err, codes.Unavailable) {
					if !strings.Contains(res.Message, "records wait to be written") {
						t.Fatalf("refused with %q", res.Message)
					}
					refused = true
				} else if err != nil {
					t.Fatal(err)
				}
				if c.mode == ledger.Continue && i == 100 {
					break
				}
			}
			if refused != (c.mode == ledger.Refuse) {
				t.Fatalf("refused: %v in mode %s", refused, c.name)
			}
			lost := l.Stats().Lost
			if lost == 0 {
				t.Fatalf("no record lost: %+v", l.Stats())
			}
			syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Execute(ctx, "t.echo", nil); err != nil {
				t.Fatalf("a call once the writer moves again: %v", err)
			}
			l.Close()
			rep := verify(t, l.Path())
			if !rep.OK() {
				t.Fatalf("verify: %v", rep.Problem)
			}
			raw, _ := os.ReadFile(l.Path())
			var written int64
			for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
				var rec ledger.Record
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatal(err)
				}
				written += rec.Lost
			}
			if total := l.Stats().Lost; written != total || total < lost {
				t.Fatalf("lost records say %d were lost; Stats says %d (%d before the writer moved)", written, total, lost)
			}
		})
	}
}

// TestRefusalWhileTheWriterIsStuck: Refusal, which a gateway asks before
// serving a prompt or a resource it records with Record, refuses once
// MaxPending records wait for a stuck writer when OnFailure is Refuse, never
// when it is Continue, and refuses no more once the writer moves again.
func TestRefusalWhileTheWriterIsStuck(t *testing.T) {
	for _, c := range []struct {
		name string
		mode ledger.Failure
	}{{"refuse", ledger.Refuse}, {"continue", ledger.Continue}} {
		t.Run(c.name, func(t *testing.T) {
			l := open(t, t.TempDir(), ledger.Options{MaxPending: 10, OnFailure: c.mode})
			defer l.Close()
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			if err := l.Refusal(); err != nil {
				t.Fatalf("a ledger that writes refuses: %v", err)
			}
			lock, err := os.OpenFile(l.Path()+".lock", os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Close()
			if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
				t.Fatal(err)
			}
			var refused error
			for i := 0; i < 100 && refused == nil; i++ {
				l.Record(context.Background(), tooling.Event{CallID: "access-" + string(rune('a'+i%26)), Tool: "prompts/get docs.greet", Time: time.Now()})
				refused = l.Refusal()
			}
			if (refused != nil) != (c.mode == ledger.Refuse) {
				t.Fatalf("refusal %v in mode %s", refused, c.name)
			}
			if refused != nil && !strings.Contains(refused.Error(), "records wait to be written") {
				t.Errorf("refused with %q", refused)
			}
			syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			if err := l.Refusal(); err != nil {
				t.Errorf("once the writer moves again: %v", err)
			}
		})
	}
}
