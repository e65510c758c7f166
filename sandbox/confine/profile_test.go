//go:build linux

package confine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/bpf"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

func TestNarrow(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A symlink inside the allowed root that points outside it.
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	// An allowed root given through a symlink.
	rootLink := filepath.Join(t.TempDir(), "rootlink")
	if err := os.Symlink(root, rootLink); err != nil {
		t.Fatal(err)
	}
	p := Profile{
		ReadPaths: []string{
			filepath.Join(root, "data"),
			filepath.Join(root, "data") + "/",                // same path, unclean
			filepath.Join(root, "data", "..", "..", "etc"),   // ".." out of the root
			filepath.Join(root, "escape", "secret"),          // symlink out of the root
			filepath.Join(root, "not", "yet", "there"),       // missing, under the root
			filepath.Join(root, "escape", "missing", "file"), // missing, behind the symlink
			"relative/path",
			"/etc/passwd",
		},
		WritePaths: []string{filepath.Join(root, "data", "out")},
		Exec:       []string{"/bin/sh"},
		ConnectTCP: []uint16{443, 80, 443, 8080},
		BindTCP:    []uint16{9000},
		Env:        []string{"HOME", "", "A=B", "TMPDIR", "HOME"},
		Limits:     Limits{CPUSeconds: 60, OpenFiles: 10},
	}
	pol := Bounds{
		AllowedRoots: []string{rootLink},
		AllowedPorts: []uint16{80, 443},
		MaxLimits:    Limits{CPUSeconds: 10, MemoryBytes: 1 << 28, OpenFiles: 100},
	}
	got, dropped := p.Narrow(pol)
	want := Profile{
		ReadPaths:  []string{filepath.Join(root, "data"), filepath.Join(root, "not", "yet", "there")},
		WritePaths: []string{filepath.Join(root, "data", "out")},
		ConnectTCP: []uint16{80, 443},
		Env:        []string{"HOME"},
		Limits:     Limits{CPUSeconds: 10, MemoryBytes: 1 << 28, OpenFiles: 10, FileSizeBytes: DefaultFileSizeBytes, ResponseBytes: MaxMessageBytes, TmpBytes: DefaultTmpBytes, TmpInodes: DefaultTmpInodes},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Narrow:\n got %+v\nwant %+v", got, want)
	}
	for _, w := range []string{
		`read "` + filepath.Join(root, "data", "..", "..", "etc") + `": outside the allowed roots`,
		`read "relative/path": not an absolute path`,
		`read "/etc/passwd": outside the allowed roots`,
		`exec "/bin/sh": outside the allowed roots`,
		`connect port 8080: not an allowed port`,
		`bind port 9000: not an allowed port`,
		`env "": empty name`,
		`env "A=B": not a variable name`,
		`env "TMPDIR": set by the parent itself`,
		`limit cpu: 60 lowered to 10 by the policy`,
		`limit memory: 1073741824 lowered to 268435456 by the policy`,
	} {
		if !slices.Contains(dropped, w) {
			t.Errorf("dropped lacks %q; got:\n%s", w, strings.Join(dropped, "\n"))
		}
	}

	// Behind the symlink: dropped, as outside the roots when the link is followed (a root
	// host's own link), as a link not to follow otherwise (a link an ordinary user owns).
	for _, path := range []string{filepath.Join(root, "escape", "secret"), filepath.Join(root, "escape", "missing", "file")} {
		if !slices.ContainsFunc(dropped, func(d string) bool { return strings.HasPrefix(d, `read "`+path+`": `) }) {
			t.Errorf("dropped lacks %s; got:\n%s", path, strings.Join(dropped, "\n"))
		}
	}

	// Narrowing is idempotent, and never widens.
	again, more := got.Narrow(pol)
	if !reflect.DeepEqual(again, got) || len(more) != 0 {
		t.Errorf("second Narrow changed the profile: %+v, %v", again, more)
	}
	// Nil policy slices do not restrict; empty ones allow nothing.
	open, _ := p.Narrow(Bounds{})
	if len(open.ConnectTCP) != 3 || !slices.Contains(open.Exec, mustResolve(t, "/bin/sh")) {
		t.Errorf("the zero policy narrowed: %+v", open)
	}
	closed, _ := p.Narrow(Bounds{AllowedRoots: []string{}, AllowedPorts: []uint16{}})
	if len(closed.ReadPaths)+len(closed.WritePaths)+len(closed.Exec)+len(closed.ConnectTCP)+len(closed.BindTCP) != 0 {
		t.Errorf("an empty policy allowed something: %+v", closed)
	}
}

func mustResolve(t *testing.T, p string) string {
	t.Helper()
	r, err := resolvePath(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHash(t *testing.T) {
	a := Profile{ReadPaths: []string{"/a", "/b"}, ConnectTCP: []uint16{80, 443}, Env: []string{"X", "Y"}}
	b := Profile{ReadPaths: []string{"/b", "/a", "/a"}, ConnectTCP: []uint16{443, 80}, Env: []string{"Y", "X"},
		Limits: Limits{CPUSeconds: DefaultCPUSeconds}}
	if a.Hash() != b.Hash() {
		t.Errorf("same grants, different hashes: %s %s", a.Hash(), b.Hash())
	}
	if len(a.Hash()) != 16 {
		t.Errorf("hash %q is not 16 hex digits", a.Hash())
	}
	variants := []Profile{
		{ReadPaths: []string{"/a"}},
		{WritePaths: []string{"/a"}},
		{Exec: []string{"/a"}},
		{ConnectTCP: []uint16{80}},
		{BindTCP: []uint16{80}},
		{Env: []string{"a"}},
		{Limits: Limits{OpenFiles: 1}},
		{Reuse: true},
		{},
	}
	seen := map[string]int{}
	for i, v := range variants {
		h := v.Hash()
		if j, dup := seen[h]; dup {
			t.Errorf("profiles %d and %d hash the same", i, j)
		}
		seen[h] = i
	}
}

func TestProtocolRoundTrip(t *testing.T) {
	s := setupMsg{version: protocolVersion, parentPID: 42, dropUID: true, uid: 65534, gid: 65534, tmpDir: "/tmp/x", tmpDev: 2049, tmpIno: 1 << 40, tmpFD: -1,
		read: []string{"/a", "/b"}, write: []string{"/c"}, exec: nil, connect: []uint16{1, 65535}, bind: []uint16{0},
		limits: Limits{1, 2, 3, 4, 5, 6, 7, 8}, reuse: true, seccomp: []bpf.RawInstruction{{Op: 0x20, K: 4}, {Op: 0x15, Jt: 1, Jf: 2, K: 0xc000003e}, {Op: 6, K: 0x7fff0000}}}
	var s2 setupMsg
	if err := s2.decode(s.encode()); err != nil || !reflect.DeepEqual(s, s2) {
		t.Errorf("setup round trip: %+v %v", s2, err)
	}
	r := responseMsg{kind: Denied, what: "open /x", detail: "open /x: permission denied", body: []byte{0, 1, 2}, last: true}
	var r2 responseMsg
	if err := r2.decode(r.encode()); err != nil || !reflect.DeepEqual(r, r2) {
		t.Errorf("response round trip: %+v %v", r2, err)
	}
	q := requestMsg{name: "x", deadline: -5, body: bytes.Repeat([]byte("a"), 1000)}
	var q2 requestMsg
	if err := q2.decode(q.encode()); err != nil || !reflect.DeepEqual(q, q2) {
		t.Errorf("request round trip: %+v %v", q2, err)
	}
	// Truncations and trailing bytes are errors, never panics.
	enc := s.encode()
	for i := range enc {
		var m setupMsg
		if m.decode(enc[:i]) == nil {
			t.Fatalf("decoding %d of %d bytes succeeded", i, len(enc))
		}
	}
	if err := s2.decode(append(enc, 0)); err == nil {
		t.Error("trailing byte accepted")
	}
	// Frames.
	var buf bytes.Buffer
	if err := writeFrame(&buf, frameRequest, q.encode()); err != nil {
		t.Fatal(err)
	}
	fr := newFrameReader(readerSource{&buf}, maxFrame)
	typ, payload, err := fr.next(0)
	if err != nil || typ != frameRequest || !bytes.Equal(payload, q.encode()) {
		t.Errorf("frame: %d %v", typ, err)
	}
	if _, _, err := fr.next(0); !errors.Is(err, io.EOF) {
		t.Errorf("empty stream: %v, want EOF", err)
	}
	if _, _, err := newFrameReader(readerSource{bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff, 1})}, maxFrame).next(0); err == nil {
		t.Error("oversized frame accepted")
	}
	if _, _, err := newFrameReader(readerSource{bytes.NewReader([]byte{0, 0, 0, 9, 1, 2})}, maxFrame).next(0); err == nil {
		t.Error("truncated frame accepted")
	}
}

func FuzzDecode(f *testing.F) {
	s := setupMsg{version: protocolVersion, read: []string{"/a"}, connect: []uint16{80}}
	f.Add(s.encode())
	f.Add((&responseMsg{kind: Limit, what: "cpu"}).encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		var a setupMsg
		var r responseMsg
		var q requestMsg
		var y readyMsg
		_ = a.decode(b)
		_ = r.decode(b)
		_ = q.decode(b)
		_ = y.decode(b)
	})
}

func TestRulesetFor(t *testing.T) {
	if a := rulesetFor(6); a.HandledAccessFS != handledFS || a.HandledAccessNet != handledNet || a.Scoped != scoped {
		t.Errorf("ABI 6: %+v", a)
	}
	if a := rulesetFor(7); a != rulesetFor(6) {
		t.Errorf("ABI 7 handles more than ABI 6: %+v", a)
	}
	if a := rulesetFor(9); a.HandledAccessFS&ll.AccessFSResolveUnix == 0 {
		t.Errorf("ABI 9 does not handle pathname unix sockets: %+v", a)
	}
	if a := rulesetFor(10); a.HandledAccessNet&(ll.AccessNetBindUDP|ll.AccessNetConnectSendUDP) == 0 {
		t.Errorf("ABI 10 does not handle UDP: %+v", a)
	}
	// No rule grants a right outside the handled ones (the kernel would refuse the rule).
	for _, r := range []uint64{readRights, writeRights, tmpRights, execRights, fileRights} {
		if r&^handledFS != 0 {
			t.Errorf("rights %#x are not all handled", r)
		}
	}
}

// chunkSource hands out its data n bytes per read.
type chunkSource struct {
	data []byte
	n    int
}

func (s *chunkSource) read(p []byte, _ time.Duration) (int, error) {
	k := min(s.n, len(p), len(s.data))
	copy(p, s.data[:k])
	s.data = s.data[k:]
	return k, nil
}

// TestFrameReaderChunks reads the same frames however the stream is cut: a byte at a time, in
// odd chunks, all at once; a frame larger than the buffer grows it, and a truncated tail is an
// error, not a frame.
func TestFrameReaderChunks(t *testing.T) {
	payloads := [][]byte{[]byte("a"), bytes.Repeat([]byte("b"), 5000), {}, bytes.Repeat([]byte("c"), keepBuffer+10), []byte("tail")}
	var stream []byte
	for i, p := range payloads {
		stream = appendFrame(stream, byte(i+1), p)
	}
	for _, n := range []int{1, 3, 4096, 7000, len(stream)} {
		fr := newFrameReader(&chunkSource{data: stream, n: n}, maxFrame)
		for i, want := range payloads {
			typ, got, err := fr.next(0)
			if err != nil || typ != byte(i+1) || !bytes.Equal(got, want) {
				t.Fatalf("chunks of %d, frame %d: type %d, %d bytes, %v; want type %d, %d bytes", n, i, typ, len(got), err, i+1, len(want))
			}
		}
		if _, _, err := fr.next(0); !errors.Is(err, io.EOF) {
			t.Errorf("chunks of %d: after the last frame %v, want EOF", n, err)
		}
		if cap(fr.buf) > keepBuffer {
			t.Errorf("chunks of %d: the reader kept a buffer of %d bytes", n, cap(fr.buf))
		}
	}
	for cut := 1; cut < 12; cut++ {
		fr := newFrameReader(&chunkSource{data: appendFrame(nil, frameResponse, []byte("complete"))[:cut], n: 2}, maxFrame)
		if _, _, err := fr.next(0); err == nil || errors.Is(err, io.EOF) {
			t.Errorf("a frame cut after %d bytes: %v, want a truncation error", cut, err)
		}
	}
}

// claimSource is a stream that starts with the header of a frame of size bytes and then yields
// bytes forever; it counts what was read from it.
type claimSource struct {
	header []byte
	got    int
}

func (s *claimSource) read(p []byte, _ time.Duration) (int, error) {
	n := copy(p, s.header)
	s.header = s.header[n:]
	for i := n; i < len(p); i++ {
		p[i] = 'x'
	}
	s.got += len(p)
	return len(p), nil
}

// TestFrameLimit: a frame whose header claims more than the reader's limit is refused from the
// header, before anything is allocated or read for it. The control reads the same stream with the
// protocol's own bound, which allocates the whole frame.
func TestFrameLimit(t *testing.T) {
	const claim = 60 << 20
	header := appendFrame(nil, frameResponse, nil)
	binary.BigEndian.PutUint32(header, claim)
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}

	src := &claimSource{header: slices.Clone(header)}
	var err error
	n := allocated(func() { _, _, err = newFrameReader(src, 1<<20).next(0) })
	var tl *tooLargeError
	if !errors.As(err, &tl) || tl.size != claim || tl.max != 1<<20 {
		t.Fatalf("a frame claiming %d bytes: %v, want it refused for its size", claim, err)
	}
	if n > 4<<20 || src.got > 64<<10 {
		t.Errorf("refusing the frame allocated %d bytes and read %d", n, src.got)
	}

	src = &claimSource{header: slices.Clone(header)}
	var payload []byte
	n = allocated(func() { _, payload, err = newFrameReader(src, maxFrame).next(0) })
	if err != nil || len(payload) != claim-1 || n < claim {
		t.Fatalf("control: %d payload bytes, %d allocated, %v; want the whole frame read", len(payload), n, err)
	}
}

// TestResolvePathSymlinks: resolvePath follows only symlinks no child could have made or moved.
func TestResolvePathSymlinks(t *testing.T) {
	dir := t.TempDir() // the test user's, mode 0700
	link := filepath.Join(dir, "l")
	if err := os.Symlink("/etc", link); err != nil {
		t.Fatal(err)
	}
	got, err := resolvePath(filepath.Join(link, "passwd"))
	if os.Geteuid() != 0 {
		if err == nil {
			t.Fatalf("a link of uid %d followed to %s", os.Geteuid(), got)
		}
		return
	}
	if err != nil || got != mustResolve(t, "/etc/passwd") {
		t.Fatalf("root's link in a dir only root changes: %q %v", got, err)
	}
	if err := os.Lchown(link, UnprivilegedID, UnprivilegedID); err != nil {
		t.Fatal(err)
	}
	if got, err := resolvePath(filepath.Join(link, "passwd")); err == nil {
		t.Errorf("a link of uid %d followed to %s", UnprivilegedID, got)
	}
	if err := os.Lchown(link, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if got, err := resolvePath(filepath.Join(link, "passwd")); err == nil {
		t.Errorf("a root link in a world-writable dir followed to %s", got)
	}
}
