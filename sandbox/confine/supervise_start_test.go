//go:build linux

package confine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func init() {
	// test.supervisor-hold writes its pid to req/pid, waits until req/go exists, and then makes
	// req/made (through its supervisor).
	Handle("test.supervisor-hold", func(ctx context.Context, req []byte) ([]byte, error) {
		dir := string(req)
		if err := os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			return nil, err
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
		return nil, os.WriteFile(filepath.Join(dir, "made"), nil, 0o644)
	})
}

// procStatus reads the fields of /proc/PID/status.
func procStatus(pid int) (map[string]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	fields := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	return fields, nil
}

// TestSupervisorRights: the supervisor starts as the child's packages are initialised, long
// before the child has confined itself, and must still have no more rights than the child once
// it serves: the child's uids, gids and groups, its user and mount namespaces, every one of its
// resource limits, no capability in any set, no_new_privs and a seccomp filter. Read from
// outside (/proc) while the child's handler waits, before its one name made through the
// supervisor. (That the supervisor's thread that makes names holds the child's Landlock
// ruleset the attacks show: a name outside the write grants is refused.)
func TestSupervisorRights(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("the supervisor's rights against the child's", "same or fewer", "not applicable: "+why, true)
		t.Skip(why)
	}
	ws, mk := protectFixture(t)
	dir := filepath.Dir(mk(false, "rights", "keep"))
	type result struct {
		resp []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := Run(ctxTimeout(t, 60*time.Second), "test.supervisor-hold", Profile{WritePaths: []string{ws}}, []byte(dir))
		done <- result{resp, err}
	}()
	var pid int
	for pid == 0 { // until the child has written its pid (or the call failed)
		select {
		case r := <-done:
			t.Fatalf("the call ended before the child wrote its pid: %s", outcome(r.resp, r.err))
		case <-time.After(5 * time.Millisecond):
		}
		b, _ := os.ReadFile(filepath.Join(dir, "pid"))
		pid, _ = strconv.Atoi(string(b))
	}
	var problems []string
	sups := childrenOf(pid)
	if len(sups) != 1 {
		problems = append(problems, fmt.Sprintf("the child has %d processes of its own, want its supervisor alone", len(sups)))
	} else {
		problems = compareRights(pid, sups[0])
	}
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	r := <-done
	if r.err != nil {
		problems = append(problems, "the call: "+outcome(r.resp, r.err))
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err != nil {
		problems = append(problems, "the name made through the supervisor: "+err.Error())
	}
	record("the supervisor's rights against the child's (uids, gids, groups, namespaces, limits, capabilities, no_new_privs, seccomp)", "same or fewer",
		strings.Join(append([]string{"checked"}, problems...), "; "), len(problems) == 0)
	for _, p := range problems {
		t.Error(p)
	}
}

// compareRights compares what /proc shows of the supervisor sup with what it shows of the child.
func compareRights(child, sup int) (problems []string) {
	cs, err := procStatus(child)
	if err != nil {
		return []string{"the child's status: " + err.Error()}
	}
	ss, err := procStatus(sup)
	if err != nil {
		return []string{"the supervisor's status: " + err.Error()}
	}
	for _, k := range []string{"Uid", "Gid", "Groups", "NoNewPrivs", "Seccomp"} {
		if ss[k] != cs[k] {
			problems = append(problems, fmt.Sprintf("%s: the supervisor's %q, the child's %q", k, ss[k], cs[k]))
		}
	}
	if ss["NoNewPrivs"] != "1" || ss["Seccomp"] != "2" {
		problems = append(problems, fmt.Sprintf("the supervisor's no_new_privs %q and seccomp mode %q, want 1 and 2", ss["NoNewPrivs"], ss["Seccomp"]))
	}
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if ss[k] != "0000000000000000" {
			problems = append(problems, fmt.Sprintf("the supervisor's %s is %s", k, ss[k]))
		}
	}
	cl, err1 := os.ReadFile(fmt.Sprintf("/proc/%d/limits", child))
	sl, err2 := os.ReadFile(fmt.Sprintf("/proc/%d/limits", sup))
	if err := errors.Join(err1, err2); err != nil {
		problems = append(problems, "limits: "+err.Error())
	} else if !bytes.Equal(cl, sl) {
		problems = append(problems, fmt.Sprintf("limits: the supervisor's\n%s\nthe child's\n%s", sl, cl))
	}
	for _, ns := range []string{"user", "mnt"} {
		c, err1 := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", child, ns))
		s, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", sup, ns))
		if err := errors.Join(err1, err2); err != nil {
			if errors.Is(err, os.ErrPermission) && os.Geteuid() != 0 {
				continue // an ordinary host may not look into processes that are not dumpable
			}
			problems = append(problems, ns+" namespace: "+err.Error())
		} else if c != s {
			problems = append(problems, fmt.Sprintf("%s namespace: the supervisor's %s, the child's %s", ns, s, c))
		}
	}
	return problems
}
