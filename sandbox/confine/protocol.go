//go:build linux

package confine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"syscall"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The parent and the child talk over two pipes, fd 3 (parent to child) and fd 4 (child to parent),
// in frames: a 4-byte big-endian length, a type byte, then the payload (length counts type and
// payload). Payloads are flat sequences of fixed-size integers and length-prefixed strings.
//
//	parent -> child: setup, then one request (or, for a reused worker, several)
//	child -> parent: ready (confined, or why not), then one response per request

// Frame types.
const (
	frameSetup    byte = 1
	frameReady    byte = 2
	frameRequest  byte = 3
	frameResponse byte = 4
)

// MaxMessageBytes bounds a request and a response: a child cannot make the parent allocate more.
const MaxMessageBytes = 64 << 20

// maxFrame bounds a whole frame: a message plus its header fields.
const maxFrame = MaxMessageBytes + 1<<20

const protocolVersion = 10

// maxText bounds each text of an error response (what, detail): the child cuts longer ones, so
// that a response frame is at most its body's limit plus responseOverhead.
const maxText = 16 << 10

// responseOverhead is what a response frame holds besides the body: its type, the kind, the two
// texts and their lengths, the body's length, the last flag.
const responseOverhead = 1 + 8 + 4 + 2*(4+maxText) + 4 + 1

// setupMsg is what the child needs to confine itself.
type setupMsg struct {
	version   uint32
	parentPID int
	// uid and gid the child switches to; dropUID false keeps the parent's.
	dropUID bool
	uid     int
	gid     int
	tmpDir  string
	// tmpDev and tmpIno identify the private temp dir as the parent made it; the child checks
	// that tmpDir is that dir before it moves in. tmpFD is the child's descriptor of it (not
	// sent), from which Landlock's rule for it is made.
	tmpDev, tmpIno uint64
	tmpFD          int
	read           []string
	write          []string
	exec           []string
	// interp are the interpreters of exec's programs (their ELF PT_INTERP), resolved and
	// checked by the parent: the child grants them and nothing it reads from a program itself.
	interp []string
	// nsMode: the child runs in a user and mount namespace of its own (ModeNamespace), and
	// mounts each path of protect (protected entries under its write grants) read-only over
	// itself. grantsW are the write grants as the profile gave them (before any split), for
	// telling a refusal of a protected name from others.
	nsMode  bool
	protect []string
	// supervise: the child starts a supervisor that makes the names its calls make, and refuses
	// protected ones (ModeSupervised; nsMode is set too).
	supervise bool
	grantsW   []string
	// protectKey digests what the protection of this setup was made from (paths, devices and
	// inodes); not sent. A pooled worker whose key no longer matches the workspace is retired.
	protectKey string
	// env names the variables the child gets from the parent's environment; not sent.
	env []string
	// known are the protected entries found under the write grants and their objects; not
	// sent. What the call adds to them is moved aside after it (see sweepProtected).
	known map[string]dirID
	// ids are the device and inode of each path of read, write, exec, interp and protect, in that order, as the
	// parent found them ({0, 0}: it did not exist). The child's Landlock rule for a path is made
	// from a descriptor of that very object, or the child refuses.
	ids     []dirID
	connect []uint16
	bind    []uint16
	limits  Limits
	reuse   bool
	// procs is the GOMAXPROCS the child takes once confined (it starts with 1, so that fewer
	// threads need confining); goMaxProcs is the GOMAXPROCS variable the profile passes on, "" for
	// none.
	procs      uint32
	goMaxProcs string
	// seccomp is the filter program, built by the parent (once per policy).
	seccomp []bpf.RawInstruction
}

// readyMsg says whether the child is confined; reason says why not.
type readyMsg struct {
	ok     bool
	reason string
	notes  []string
}

// requestMsg asks the child to run a handler; deadline is in Unix nanoseconds, 0 for none. nonce
// is a random number the response must carry: a frame left over from an earlier call, or written
// by something that did not read this request, does not have it.
type requestMsg struct {
	nonce    uint64
	name     string
	deadline int64
	body     []byte
}

// responseMsg is a handler's outcome: kind 0 and body, or an error kind with what and detail.
// last says that a reused worker retires after this response.
type responseMsg struct {
	nonce  uint64
	kind   ErrorKind
	what   string
	detail string
	body   []byte
	last   bool
}

func (m *setupMsg) encode() []byte {
	var e encoder
	e.u32(m.version)
	e.u64(uint64(m.parentPID))
	e.bool(m.dropUID)
	e.u64(uint64(m.uid))
	e.u64(uint64(m.gid))
	e.str(m.tmpDir)
	e.u64(m.tmpDev)
	e.u64(m.tmpIno)
	e.strs(m.read)
	e.strs(m.write)
	e.strs(m.exec)
	e.strs(m.interp)
	e.bool(m.nsMode)
	e.bool(m.supervise)
	e.strs(m.protect)
	e.strs(m.grantsW)
	e.u32(uint32(len(m.ids)))
	for _, id := range m.ids {
		e.u64(id.dev)
		e.u64(id.ino)
	}
	e.ports(m.connect)
	e.ports(m.bind)
	e.u64(m.limits.CPUSeconds)
	e.u64(m.limits.MemoryBytes)
	e.u64(m.limits.OpenFiles)
	e.u64(m.limits.FileSizeBytes)
	e.u64(m.limits.Processes)
	e.u64(m.limits.ResponseBytes)
	e.u64(m.limits.TmpBytes)
	e.u64(m.limits.TmpInodes)
	e.bool(m.reuse)
	e.u32(m.procs)
	e.str(m.goMaxProcs)
	e.u32(uint32(len(m.seccomp)))
	for _, ins := range m.seccomp {
		e.b = binary.BigEndian.AppendUint16(e.b, ins.Op)
		e.b = append(e.b, ins.Jt, ins.Jf)
		e.u32(ins.K)
	}
	return e.b
}

func (m *setupMsg) decode(b []byte) error {
	d := decoder{b: b}
	m.version = d.u32()
	if d.err == nil && m.version != protocolVersion {
		return fmt.Errorf("protocol version %d, want %d", m.version, protocolVersion)
	}
	m.parentPID = int(d.u64())
	m.dropUID = d.bool()
	m.uid = int(d.u64())
	m.gid = int(d.u64())
	m.tmpDir = d.str()
	m.tmpDev = d.u64()
	m.tmpIno = d.u64()
	m.tmpFD = -1
	m.read = d.strs()
	m.write = d.strs()
	m.exec = d.strs()
	m.interp = d.strs()
	m.nsMode = d.bool()
	m.supervise = d.bool()
	m.protect = d.strs()
	m.grantsW = d.strs()
	if n := d.count(); n > 0 {
		m.ids = make([]dirID, 0, min(n, len(m.read)+len(m.write)+len(m.exec)+len(m.interp)+len(m.protect)))
		for i := 0; i < n && d.err == nil; i++ {
			m.ids = append(m.ids, dirID{dev: d.u64(), ino: d.u64()})
		}
	}
	m.connect = d.ports()
	m.bind = d.ports()
	m.limits.CPUSeconds = d.u64()
	m.limits.MemoryBytes = d.u64()
	m.limits.OpenFiles = d.u64()
	m.limits.FileSizeBytes = d.u64()
	m.limits.Processes = d.u64()
	m.limits.ResponseBytes = d.u64()
	m.limits.TmpBytes = d.u64()
	m.limits.TmpInodes = d.u64()
	m.reuse = d.bool()
	m.procs = d.u32()
	m.goMaxProcs = d.str()
	n := d.count()
	if n > 0 {
		m.seccomp = make([]bpf.RawInstruction, 0, min(n, bpfMaxInsns))
	}
	for i := 0; i < n && d.err == nil; i++ {
		if v := d.take(8); v != nil {
			m.seccomp = append(m.seccomp, bpf.RawInstruction{Op: binary.BigEndian.Uint16(v), Jt: v[2], Jf: v[3], K: binary.BigEndian.Uint32(v[4:])})
		}
	}
	return d.end()
}

func (m *readyMsg) encode() []byte {
	var e encoder
	e.bool(m.ok)
	e.str(m.reason)
	e.strs(m.notes)
	return e.b
}

func (m *readyMsg) decode(b []byte) error {
	d := decoder{b: b}
	m.ok = d.bool()
	m.reason = d.str()
	m.notes = d.strs()
	return d.end()
}

func (m *requestMsg) encode() []byte {
	var e encoder
	e.u64(m.nonce)
	e.str(m.name)
	e.u64(uint64(m.deadline))
	e.bytes(m.body)
	return e.b
}

func (m *requestMsg) decode(b []byte) error {
	d := decoder{b: b}
	m.nonce = d.u64()
	m.name = d.str()
	m.deadline = int64(d.u64())
	m.body = d.bytes()
	return d.end()
}

func (m *responseMsg) encode() []byte {
	var e encoder
	e.u64(m.nonce)
	e.u32(uint32(m.kind))
	e.str(m.what)
	e.str(m.detail)
	e.bytes(m.body)
	e.bool(m.last)
	return e.b
}

func (m *responseMsg) decode(b []byte) error {
	d := decoder{b: b}
	m.nonce = d.u64()
	m.kind = ErrorKind(d.u32())
	m.what = d.str()
	m.detail = d.str()
	m.body = d.bytes()
	m.last = d.bool()
	return d.end()
}

// pipeAtomic is the most a pipe is sure to take at once without a reader (POSIX PIPE_BUF).
const pipeAtomic = 4096

// writeFrame writes one frame with a single Write.
func writeFrame(w io.Writer, typ byte, payload []byte) error {
	if len(payload)+1 > maxFrame {
		return fmt.Errorf("frame of %d bytes is over the limit of %d", len(payload)+1, maxFrame)
	}
	_, err := w.Write(appendFrame(make([]byte, 0, 5+len(payload)), typ, payload))
	return err
}

// appendFrame appends the frame of typ and payload to b. The caller checks the size.
func appendFrame(b []byte, typ byte, payload []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)+1))
	b = append(b, typ)
	return append(b, payload...)
}

// frameReader reads frames from a stream through a buffer of its own; it is not safe for
// concurrent use.
type frameReader struct {
	src  source
	buf  []byte
	r, w int // the unread bytes are buf[r:w]
	// max bounds a frame (type and payload): a longer one is refused from its header, before
	// anything is allocated or read for it.
	max uint32
}

// tooLargeError is a frame refused for its size.
type tooLargeError struct{ size, max uint32 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("a frame of %d bytes is over the limit of %d", e.size, e.max)
}

// source is what a frameReader reads from. spin is how long a read may poll for data before it
// waits the ordinary way; readers that cannot poll ignore it. (0, nil) is the end of the stream.
type source interface {
	read(p []byte, spin time.Duration) (int, error)
}

// keepBuffer is the largest buffer a frameReader keeps between frames.
const keepBuffer = 1 << 20

// newFrameReader reads frames of at most max bytes (type and payload) from src.
func newFrameReader(src source, max uint32) *frameReader {
	return &frameReader{src: src, buf: make([]byte, 4096), max: min(max, maxFrame)}
}

// next reads one frame; payload is valid until the next call. io.EOF means the stream ended
// before a frame began.
// buffered is how many bytes the reader holds unread.
func (fr *frameReader) buffered() int { return fr.w - fr.r }

func (fr *frameReader) next(spin time.Duration) (typ byte, payload []byte, err error) {
	if fr.r == fr.w && cap(fr.buf) > keepBuffer {
		fr.buf, fr.r, fr.w = make([]byte, 4096), 0, 0
	}
	if err := fr.need(5, spin); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, errors.New("truncated frame header")
		}
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(fr.buf[fr.r:])
	if n == 0 {
		return 0, nil, fmt.Errorf("bad frame length %d", n)
	}
	if n > fr.max {
		return 0, nil, &tooLargeError{n, fr.max}
	}
	end := 4 + int(n)
	if end > keepBuffer && end > len(fr.buf) {
		return fr.nextLarge(end, spin)
	}
	if err := fr.need(end, spin); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, fmt.Errorf("truncated frame: %w", err)
	}
	typ, payload = fr.buf[fr.r+4], fr.buf[fr.r+5:fr.r+end:fr.r+end]
	fr.r += end
	return typ, payload, nil
}

// nextLarge reads a frame of end bytes (header included) larger than the buffer kept between
// frames into an allocation of its own, which the caller's payload alone keeps alive.
func (fr *frameReader) nextLarge(end int, spin time.Duration) (typ byte, payload []byte, err error) {
	frame := make([]byte, end)
	have := copy(frame, fr.buf[fr.r:fr.w])
	fr.r, fr.w = 0, 0
	for have < end {
		n, err := fr.src.read(frame[have:], spin)
		if err != nil {
			return 0, nil, fmt.Errorf("truncated frame: %w", err)
		}
		if n == 0 {
			return 0, nil, fmt.Errorf("truncated frame: %w", io.ErrUnexpectedEOF)
		}
		have += n
	}
	return frame[4], frame[5:end:end], nil
}

// need reads until k bytes are unread. At the end of the stream it returns io.EOF when nothing
// was unread, io.ErrUnexpectedEOF otherwise.
func (fr *frameReader) need(k int, spin time.Duration) error {
	for fr.w-fr.r < k {
		if len(fr.buf)-fr.r < k {
			// Move the unread bytes to the front, into a larger buffer when they need one.
			b := fr.buf
			if len(b) < k {
				b = make([]byte, max(k, min(2*len(b), int(fr.max)+4)))
			}
			fr.w = copy(b, fr.buf[fr.r:fr.w])
			fr.r, fr.buf = 0, b
		}
		n, err := fr.src.read(fr.buf[fr.w:], spin)
		if err != nil {
			return err
		}
		if n == 0 {
			if fr.w == fr.r {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
		fr.w += n
	}
	return nil
}

// readerSource reads from an io.Reader; it never spins.
type readerSource struct{ r io.Reader }

func (s readerSource) read(p []byte, _ time.Duration) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		return n, nil
	}
	return n, err
}

// pipeSource reads a non-blocking pipe end that the Go poller watches. It first polls the
// descriptor for up to spin, yielding the CPU between tries after the first spinAlone, and only
// then parks in the poller: a worker that answers within microseconds is read without the
// thread wake-ups that parking costs (tens of microseconds each on a virtual machine).
// Deadlines and Close of the file stop a read as usual.
type pipeSource struct{ rc syscall.RawConn }

// spinAlone is how long a poller polls before it starts yielding the CPU between tries.
const spinAlone = 10 * time.Microsecond

func newPipeSource(f *os.File) (pipeSource, error) {
	rc, err := f.SyscallConn()
	return pipeSource{rc}, err
}

func (s pipeSource) read(p []byte, spin time.Duration) (n int, err error) {
	var start time.Time
	werr := s.rc.Read(func(fd uintptr) bool {
		for {
			n, err = unix.Read(int(fd), p)
			if err == unix.EINTR {
				continue
			}
			if err != unix.EAGAIN {
				return true
			}
			if spin <= 0 {
				return false // wait in the poller
			}
			if start.IsZero() {
				start = time.Now()
				continue
			}
			switch waited := time.Since(start); {
			case waited > spin:
				spin = 0
				return false
			case waited > spinAlone:
				// Let the other side run if this CPU is what it waits for: on a busy machine
				// a poller that never yields only delays the answer it polls for.
				unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
			}
		}
	})
	if werr != nil {
		return 0, werr
	}
	if err != nil {
		return 0, os.NewSyscallError("read", err)
	}
	return n, nil
}

type encoder struct{ b []byte }

func (e *encoder) u32(v uint32) { e.b = binary.BigEndian.AppendUint32(e.b, v) }
func (e *encoder) u64(v uint64) { e.b = binary.BigEndian.AppendUint64(e.b, v) }

func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *encoder) bytes(v []byte) {
	e.u32(uint32(len(v)))
	e.b = append(e.b, v...)
}

func (e *encoder) str(v string) {
	e.u32(uint32(len(v)))
	e.b = append(e.b, v...)
}

func (e *encoder) strs(v []string) {
	e.u32(uint32(len(v)))
	for _, s := range v {
		e.str(s)
	}
}

func (e *encoder) ports(v []uint16) {
	e.u32(uint32(len(v)))
	for _, p := range v {
		e.b = binary.BigEndian.AppendUint16(e.b, p)
	}
}

// decoder reads what encoder wrote; the first error sticks and later reads return zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = errors.New("truncated message")
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) u32() uint32 {
	if v := d.take(4); v != nil {
		return binary.BigEndian.Uint32(v)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if v := d.take(8); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

func (d *decoder) bool() bool {
	v := d.take(1)
	return v != nil && v[0] == 1
}

func (d *decoder) count() int {
	n := d.u32()
	if n > math.MaxInt32 || int(n) > len(d.b) {
		if d.err == nil {
			d.err = errors.New("truncated message")
		}
		return 0
	}
	return int(n)
}

func (d *decoder) bytes() []byte {
	n := d.count()
	v := d.take(n)
	if v == nil {
		return nil
	}
	return append([]byte(nil), v...)
}

func (d *decoder) str() string { return string(d.take(d.count())) }

func (d *decoder) strs() []string {
	n := d.count()
	var out []string
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.str())
	}
	return out
}

func (d *decoder) ports() []uint16 {
	n := d.count()
	var out []uint16
	for i := 0; i < n && d.err == nil; i++ {
		if v := d.take(2); v != nil {
			out = append(out, binary.BigEndian.Uint16(v))
		}
	}
	return out
}

// end reports the first error, or trailing bytes.
func (d *decoder) end() error {
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%d trailing bytes", len(d.b))
	}
	return nil
}

// seccompPolicy is the filter policy a setup calls for.
func (m *setupMsg) seccompPolicy() SeccompPolicy {
	return SeccompPolicy{
		AllowExec:   len(m.exec) > 0,
		AllowInet:   len(m.connect)+len(m.bind) > 0,
		AllowListen: len(m.bind) > 0,
		AllowTimes:  len(m.write) > 0,
	}
}
