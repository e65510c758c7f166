package ledger

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/dryrun"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Failure is what a ledger does when it cannot write its records (a full
// or failing disk) or falls too far behind (a slow one).
type Failure int

const (
	// Refuse refuses new calls, with code unavailable and a message naming
	// the ledger and why, until the ledger writes again. Records of calls
	// already running, and of the refusals, wait in memory (up to
	// MaxPending) and are written once it can; beyond that they are lost
	// and counted.
	Refuse Failure = iota
	// Continue lets calls go on; records that cannot be kept in memory
	// until the ledger writes again are lost, counted in Stats.Lost, and
	// the count is written to the ledger (a "lost" record) once it can.
	Continue
)

// Options configure a Ledger. The zero value of each field but Path is the
// default its comment names.
type Options struct {
	// Path is the ledger's file (JSON Lines). Rotated files are kept beside
	// it as PATH.000001, PATH.000002, ..., the oldest first; its signed
	// head is PATH.head and its lock PATH.lock.
	Path string
	// Key signs checkpoints and the head. Nil: the key in KeyPath.
	Key ed25519.PrivateKey
	// KeyPath is the file of the signing key, made (mode 0600, with its
	// public half in KeyPath.pub) when it does not exist. "": Path.key.
	KeyPath string
	// Policy is the digest of the policy in force, recorded with every
	// call; the host says what it hashes. "": none recorded.
	Policy string
	// OnFailure is what happens when records cannot be written. Zero:
	// Refuse.
	OnFailure Failure
	// MaxBytes is the size past which the file is rotated. Zero: 64 MiB.
	MaxBytes int64
	// SyncInterval is the group commit: records are written to the file
	// in batches, each about a millisecond after its first record came
	// (so a process killed outright loses at most the records of its last
	// millisecond or so, and the kernel keeps the rest), and the file is
	// fsynced, and the signed head updated, at most this often while
	// records arrive, and on Sync and Close. Zero: 100ms.
	SyncInterval time.Duration
	// CheckpointEvery is how many records lie between two signed
	// checkpoints in the file; the file's last records are covered by the
	// signed head. Zero: 1000.
	CheckpointEvery int
	// MaxPending is how many records may wait in memory for the writer.
	// Past it the ledger counts as failing (OnFailure) and further
	// records are lost and counted. Zero: 65536.
	MaxPending int
	// RetryInterval is how long a ledger that failed to write waits before
	// it tries again. Zero: 1s.
	RetryInterval time.Duration
}

func (o Options) withDefaults() Options {
	if o.KeyPath == "" {
		o.KeyPath = o.Path + ".key"
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 20
	}
	if o.SyncInterval <= 0 {
		o.SyncInterval = 100 * time.Millisecond
	}
	if o.CheckpointEvery <= 0 {
		o.CheckpointEvery = 1000
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 65536
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = time.Second
	}
	return o
}

// Ledger appends the records of calls to a file. Its methods are safe for
// concurrent use, and several processes may append to the same file (they
// take turns under a file lock, and the chain goes on across them).
type Ledger struct {
	opts    Options
	key     ed25519.PrivateKey
	keyFP   string
	session string

	mu       sync.Mutex
	pending  []entry
	closed   bool
	lostHere int64  // lost records not yet written as a lost record
	lostWhy  string // why they were lost
	detach   []func()
	attached []*attachment
	npending atomic.Int64 // len(pending), for the middleware
	guarding atomic.Bool  // a goroutine is putting the middleware in place

	wake  chan struct{}
	syncs chan chan error
	quit  chan struct{}
	done  chan struct{}

	written  atomic.Int64
	lost     atomic.Int64
	failing  atomic.Pointer[string]
	seq      atomic.Uint64
	lastSync atomic.Pointer[time.Time]
	closeErr error

	w writer // the writer goroutine's own
}

// Open opens (or creates) the ledger at opts.Path and starts its writer.
// The directory is made (mode 0700) when missing.
func Open(opts Options) (*Ledger, error) {
	if opts.Path == "" {
		return nil, errors.New("ledger: no path")
	}
	opts = opts.withDefaults()
	if err := os.MkdirAll(filepath.Dir(opts.Path), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	key := opts.Key
	if key == nil {
		var err error
		if key, err = LoadKey(opts.KeyPath); err != nil {
			return nil, err
		}
	}
	var sid [6]byte
	_, _ = rand.Read(sid[:])
	l := &Ledger{opts: opts, key: key, keyFP: fingerprint(key.Public().(ed25519.PublicKey)), session: hex.EncodeToString(sid[:]),
		wake: make(chan struct{}, 1), syncs: make(chan chan error), quit: make(chan struct{}), done: make(chan struct{})}
	l.w.l, l.w.batch = l, make([]entry, 0, queueCap)
	if err := l.w.open(); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	l.pending = make([]entry, 0, queueCap)
	l.pending = append(l.pending, entry{rec: &Record{Kind: KindOpen, Time: time.Now().UTC(), PID: os.Getpid(), Host: host}})
	go l.loop()
	l.signal()
	return l, nil
}

// Path is the ledger's file.
func (l *Ledger) Path() string { return l.opts.Path }

// PublicKey is the key Verify checks the ledger's signatures with.
func (l *Ledger) PublicKey() ed25519.PublicKey { return l.key.Public().(ed25519.PublicKey) }

// Attach records every call of r from now on, through r's audit hook.
// When OnFailure is Refuse, r's calls are refused while the ledger cannot
// write, by a middleware it adds to r the first time it cannot (so calls
// pay nothing for it until then); detach turns that into a pass-through,
// since a registry's middleware cannot be removed. Close detaches too.
func (l *Ledger) Attach(r *tooling.Registry) (detach func()) {
	at := &attachment{r: r}
	remove := r.Audit(func(_ context.Context, ev tooling.Event) { l.add(&ev) })
	var once sync.Once
	d := func() { once.Do(func() { at.off.Store(true); remove() }) }
	l.mu.Lock()
	l.attached = append(l.attached, at)
	l.detach = append(l.detach, d)
	l.mu.Unlock()
	if l.refusal() != "" {
		l.guard()
	}
	return d
}

// Record records ev as Attach records the events of a registry's calls:
// for what is served without a registry's call, such as a gateway's
// prompts/get and resources/read (mcp.Options.Audit). Its signature is
// that of an audit hook.
func (l *Ledger) Record(_ context.Context, ev tooling.Event) { l.add(&ev) }

// Refusal says why the ledger refuses calls now, as the middleware Attach
// puts in front of a registry's calls does: an error when OnFailure is
// Refuse and the ledger cannot write, nil otherwise. It is for what is
// served without a registry's call and recorded with Record, such as a
// gateway's prompts/get and resources/read (mcp.Options.Refusal), so that
// those are refused alike.
func (l *Ledger) Refusal() error {
	if l.opts.OnFailure != Refuse {
		return nil
	}
	if why := l.refusal(); why != "" {
		return errors.New(why)
	}
	return nil
}

// attachment is a registry the ledger is attached to.
type attachment struct {
	r       *tooling.Registry
	off     atomic.Bool // detached
	guarded bool        // the refusing middleware is in place; under Ledger.mu
}

// guard puts the middleware that refuses calls while the ledger cannot
// write in front of every registry it is attached to that lacks it, when
// OnFailure is Refuse.
func (l *Ledger) guard() {
	if l.opts.OnFailure != Refuse {
		return
	}
	l.mu.Lock()
	var todo []*attachment
	for _, at := range l.attached {
		if !at.guarded {
			at.guarded = true
			todo = append(todo, at)
		}
	}
	l.mu.Unlock()
	for _, at := range todo {
		at.r.Use(func(next tooling.Handler) tooling.Handler {
			dryrun.Declare(next) // it only looks: Explain may ask it
			return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
				if dryrun.Declaring(ctx) {
					return nil, nil
				}
				if !at.off.Load() {
					if why := l.refusal(); why != "" {
						return nil, &tooling.Error{Code: codes.Unavailable, Tool: c.Tool, Message: why}
					}
				}
				return next(ctx, c)
			}
		})
	}
}

// refusal says why calls are refused now, "" when they are not.
func (l *Ledger) refusal() string {
	if p := l.failing.Load(); p != nil {
		return fmt.Sprintf("ledger %s cannot record the call: %s (calls are refused until it can: ledger on_failure is refuse)", l.opts.Path, *p)
	}
	if n := l.npending.Load(); n >= int64(l.opts.MaxPending) {
		return fmt.Sprintf("ledger %s cannot record the call: %d records wait to be written (calls are refused until they are: ledger on_failure is refuse)", l.opts.Path, n)
	}
	return ""
}

// entry is a record on its way to the writer: a call's event as the audit
// hook got it, made a record, encoded, hashed and chained by the writer
// goroutine, so that the caller pays for a copy of the event only; or one
// of the ledger's own records (rec).
type entry struct {
	ev  tooling.Event
	rec *Record // nil for an event
}

// queueCap is the room the queue and the writer's batch start with: the
// records of a millisecond of calls at a few microseconds each, so that
// they do not grow while calls come at that pace.
const queueCap = 256

// add queues ev for the writer, or counts it lost when the queue is full
// or the ledger closed.
func (l *Ledger) add(ev *tooling.Event) {
	l.mu.Lock()
	if l.closed || len(l.pending) >= l.opts.MaxPending {
		l.lostHere++
		if l.closed {
			l.lostWhy = "the ledger was closed"
		} else {
			l.lostWhy = fmt.Sprintf("%d records were waiting to be written", len(l.pending))
		}
		l.mu.Unlock()
		l.lost.Add(1)
		// A slow disk: the writer may be stuck in a write, so the
		// middleware that refuses calls is put in place from here, not
		// from the audit hook itself.
		if l.opts.OnFailure == Refuse && l.guarding.CompareAndSwap(false, true) {
			go l.guard()
		}
		return
	}
	l.pending = append(l.pending, entry{ev: *ev})
	l.npending.Store(int64(len(l.pending)))
	first := len(l.pending) == 1
	l.mu.Unlock()
	if first {
		l.signal()
	}
}

func (l *Ledger) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Stats is what a ledger has done.
type Stats struct {
	Path     string
	Written  int64     // records this process wrote
	Pending  int       // records waiting for the writer
	Lost     int64     // records that could not be written, ever
	Failing  string    // why the ledger cannot write now; "" when it can
	Seq      uint64    // the sequence number of the last record written
	LastSync time.Time // when the file was last fsynced
}

// Stats returns the ledger's counters now.
func (l *Ledger) Stats() Stats {
	s := Stats{Path: l.opts.Path, Written: l.written.Load(), Pending: int(l.npending.Load()), Lost: l.lost.Load(), Seq: l.seq.Load()}
	if p := l.failing.Load(); p != nil {
		s.Failing = *p
	}
	if t := l.lastSync.Load(); t != nil {
		s.LastSync = *t
	}
	return s
}

// Sync writes every record queued so far, fsyncs the file and updates its
// signed head. It returns why it could not.
func (l *Ledger) Sync() error {
	ch := make(chan error, 1)
	select {
	case l.syncs <- ch:
		return <-ch
	case <-l.done:
		return errors.New("ledger: closed")
	}
}

// Close detaches the ledger from every registry, writes what is queued, a
// close record and a checkpoint, fsyncs and stops the writer. It reports
// records that could not be written.
func (l *Ledger) Close() error {
	l.mu.Lock()
	detach := l.detach
	l.detach = nil
	l.mu.Unlock()
	for _, d := range detach {
		d()
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		<-l.done
		return l.closeErr
	}
	l.pending = append(l.pending, entry{rec: &Record{Kind: KindClose, Time: time.Now().UTC()}})
	l.closed = true
	l.mu.Unlock()
	close(l.quit)
	<-l.done
	return l.closeErr
}

// linger is how long the writer lets records gather before it writes
// them: a record reaches the file about this long after it came.
const linger = time.Millisecond

// loop is the writer goroutine.
func (l *Ledger) loop() {
	defer close(l.done)
	defer l.w.close()
	var syncT, retryT *time.Timer
	var syncC, retryC <-chan time.Time
	stop := func(t *time.Timer) {
		if t != nil {
			t.Stop()
		}
	}
	defer func() { stop(syncT); stop(retryT) }()
	for {
		var reply chan error
		wantSync := false
		select {
		case <-l.wake:
			if retryC != nil {
				continue // failing: wait for the retry
			}
			// Let a batch gather: one write and one lock for the records
			// of a millisecond, not for each.
			time.Sleep(linger)
		case <-syncC:
			syncC = nil
			wantSync = true
		case <-retryC:
			// Retry what failed, the fsync and the signed head included:
			// with calls refused meanwhile there may be nothing new to
			// write, and the ledger would stay failing.
			retryC = nil
			wantSync = true
		case reply = <-l.syncs:
			wantSync = true
		case <-l.quit:
			err := l.w.flush(true, true)
			if n := l.lost.Load(); n > 0 && err == nil {
				err = fmt.Errorf("ledger %s: %d records could not be written", l.opts.Path, n)
			}
			l.closeErr = err
			return
		}
		err := l.w.flush(wantSync, false)
		if reply != nil {
			reply <- err
		}
		if err != nil {
			stop(retryT)
			retryT = time.NewTimer(l.opts.RetryInterval)
			retryC = retryT.C
			continue
		}
		if l.w.dirty && syncC == nil {
			wait := l.opts.SyncInterval - time.Since(l.w.lastSync)
			stop(syncT)
			syncT = time.NewTimer(max(wait, 0))
			syncC = syncT.C
		}
	}
}

// take removes the queued records, with a lost record first when some
// were lost since the last batch.
func (l *Ledger) take(buf []entry) []entry {
	// The queue and buf trade places rather than entries being copied
	// (an entry is some hundreds of bytes): buf, written, becomes the
	// queue, emptied so that it holds on to nothing.
	clear(buf)
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.pending
	l.pending = buf[:0]
	if l.lostHere > 0 {
		lost := &Record{Kind: KindLost, Time: time.Now().UTC(), Lost: l.lostHere, Note: l.lostWhy}
		out = append(out, entry{})
		copy(out[1:], out)
		out[0] = entry{rec: lost}
		l.lostHere = 0
	}
	l.npending.Store(0)
	return out
}

// giveBack puts records that could not be written back in front of the
// queue, counting as lost those that no longer fit.
func (l *Ledger) giveBack(recs []entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(recs) > 0 && recs[0].rec != nil && recs[0].rec.Kind == KindLost {
		l.lostHere += recs[0].rec.Lost
		recs = recs[1:]
	}
	room := l.opts.MaxPending - len(l.pending)
	if room < 0 {
		room = 0
	}
	if len(recs) > room {
		n := int64(len(recs) - room)
		l.lostHere += n
		l.lostWhy = "the ledger could not write them and no more could wait"
		l.lost.Add(n)
		recs = recs[:room]
	}
	l.pending = append(recs[:len(recs):len(recs)], l.pending...)
	l.npending.Store(int64(len(l.pending)))
}
