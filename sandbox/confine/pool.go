//go:build linux

package confine

import (
	"context"
	"errors"
	"sync"
	"time"
)

// readyTimeout bounds how long a pre-started worker may take to confine itself.
const readyTimeout = 10 * time.Second

// Pool keeps pre-started, already confined workers, a set per profile (by [Profile.Hash]), so that
// a call does not wait for a process to start and confine itself. A worker serves one call and is
// replaced in the background, unless its profile has Reuse: then it goes back to the pool after a
// call that left it healthy (a success, or a Denied or Failed error, no goroutine of the handler
// left running, nothing sent after its response) and serves the next call of the same handler
// name and [Profile.ReuseKey].
//
// A worker copies the values of the profile's Env variables when it starts, not when it serves a
// call. Its protection of [ProtectedNames] is made when it starts too: before a worker of a
// profile with write paths serves a call, the parent looks again for the protected entries (as
// a cold start would) and retires the worker when they are not the ones it was started with
// (paths, devices and inodes), so that a .git made between two calls is protected in the next. A call that finds no ready worker starts one itself, like [Run]. The zero Pool is not
// usable; use NewPool.
//
// A reused worker runs no code of an earlier call while it serves a later one, as far as the
// Go runtime lets it see: it retires after a call during which any goroutine was made (by the
// handler, or by a timer or cleanup of an earlier call firing), and leaves the request to a
// fresh worker when a goroutine was made while it waited for it. A timer that an earlier call
// armed (time.AfterFunc, a context.WithTimeout never canceled) is invisible until it fires: if
// it fires while a later call runs, it runs beside that call, which is the worker's last.
// Reuse is for handlers that arm nothing that outlives their call.
type Pool struct {
	size   int
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	sets   map[string]*workerSet
	closed bool
	wg     sync.WaitGroup
}

// workerSet holds the ready workers of one profile.
type workerSet struct {
	prof Profile

	mu sync.Mutex
	// idle is a stack: a call takes the worker that served last. A steady
	// stream of calls to a Reuse profile then keeps going to one worker, which
	// is still spinning for its next request, instead of taking turns with
	// workers that have gone to sleep (a wake-up costs more than the call).
	idle     []*proc
	starting int
	lastErr  error // the last pre-start failure; pre-starting stops after one
}

// ready is how many workers wait in the set.
func (s *workerSet) ready() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.idle)
}

// NewPool returns a pool that keeps size ready workers per profile (at least 1).
func NewPool(size int) *Pool {
	if size < 1 {
		size = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{size: size, ctx: ctx, cancel: cancel, sets: map[string]*workerSet{}}
}

// Run is like [Run], served by a ready worker of the profile when there is one. The first call
// with a profile starts its workers.
func (p *Pool) Run(ctx context.Context, name string, prof Profile, req []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err, "")
	}
	if err := checkRunnable(name, req); err != nil {
		return nil, err
	}
	set, err := p.set(name, prof)
	if err != nil {
		return nil, err
	}
	w := set.take()
	if w != nil && !w.current(prof) {
		// Started for a workspace that has changed since (a .git made, removed or replaced):
		// its protection no longer fits. It retires; the call starts a child for it as it is.
		w.release()
		w = nil
	}
	cold := w == nil
	if cold {
		p.fill(set)
		if w, err = startProc(prof); err != nil {
			return nil, err
		}
	}
	resp, err := w.call(ctx, name, req)
	if err == errStale {
		// The worker ran nothing of this call: a fresh one runs it.
		w.release()
		p.fill(set)
		if w, err = startProc(prof); err != nil {
			return nil, err
		}
		cold = true
		resp, err = w.call(ctx, name, req)
	}
	if !cold && !prof.Reuse {
		// The replacement starts once the call is answered, so as not to compete with it.
		p.fill(set)
	}
	if cold && err == nil {
		set.mu.Lock()
		set.lastErr = nil // pre-starting may work again
		set.mu.Unlock()
	}
	if len(w.grantsW) > 0 {
		// Protected names the call created are moved aside once nothing of it runs: a reused
		// worker waits for its next request (it may start no process), any other is killed first.
		if !prof.Reuse || !healthy(err) || !w.alive() {
			w.release()
			<-w.dead
		}
		if e := w.sweep(); e != nil {
			resp, err = nil, e
			w.release() // no further call for a worker that made one
		}
	}
	if prof.Reuse && healthy(err) && p.put(set, w) {
		return resp, err
	}
	w.release()
	if prof.Reuse && !cold {
		p.fill(set) // the worker retired or broke: a fresh one replaces it
	}
	return resp, err
}

// Close stops every idle worker and waits for them; calls in flight finish on their own.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.cancel()
	sets := p.sets
	p.sets = nil
	p.mu.Unlock()
	p.wg.Wait()
	for _, s := range sets {
		s.mu.Lock()
		idle := s.idle
		s.idle = nil
		s.mu.Unlock()
		for _, w := range idle {
			w.stop()
		}
	}
}

// take returns the ready worker that served last and is still alive, or nil.
func (s *workerSet) take() *proc {
	for {
		s.mu.Lock()
		n := len(s.idle)
		if n == 0 {
			s.mu.Unlock()
			return nil
		}
		w := s.idle[n-1]
		s.idle[n-1] = nil
		s.idle = s.idle[:n-1]
		s.mu.Unlock()
		if w.alive() && w.quiet() {
			return w
		}
		w.release()
	}
}

// healthy reports whether a worker that returned err may serve again.
func healthy(err error) bool {
	var e *Error
	return err == nil || errors.As(err, &e) && (e.Kind == Denied || e.Kind == Failed)
}

func (p *Pool) set(name string, prof Profile) (*workerSet, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, &Error{Kind: Unavailable, What: "the pool is closed"}
	}
	h := prof.Hash()
	if prof.Reuse {
		h += "\x00" + name // Hash covers ReuseKey
	}
	s := p.sets[h]
	if s == nil {
		s = &workerSet{prof: prof, idle: make([]*proc, 0, p.size)}
		p.sets[h] = s
	}
	return s, nil
}

// put returns a worker to the top of its set; false when the set is full or
// the pool closed. Locks in the order of fill: the set's, then the pool's.
func (p *Pool) put(s *workerSet, w *proc) bool {
	if !w.alive() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed || len(s.idle) >= p.size {
		return false
	}
	s.idle = append(s.idle, w)
	return true
}

// fill starts workers in the background until the set has size ready or starting ones.
func (p *Pool) fill(s *workerSet) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastErr != nil {
		return
	}
	for len(s.idle)+s.starting < p.size {
		// Counted under p.mu with the check, so that Close, which sets closed under p.mu
		// before it waits, never waits while a start is being added.
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		p.wg.Add(1)
		p.mu.Unlock()
		s.starting++
		go p.startWorker(s)
	}
}

func (p *Pool) startWorker(s *workerSet) {
	defer p.wg.Done()
	w, err := startProc(s.prof)
	if err == nil {
		ctx, cancel := context.WithTimeout(p.ctx, readyTimeout)
		stop := w.watch(ctx)
		err = w.awaitReady()
		if !stop() && err == nil {
			// The deadline or Close came as the worker got ready: it is being killed.
			w.broken.Store(true)
			err = ctxError(ctx.Err(), "")
		}
		cancel()
		if err != nil {
			w.stop()
		}
	}
	s.mu.Lock()
	s.starting--
	if err != nil {
		s.lastErr = err
	}
	s.mu.Unlock()
	if err != nil || !p.put(s, w) {
		if err == nil {
			w.stop()
		}
	}
}

// current reports whether the worker's protection still fits prof's write grants as they are
// now: it builds the setup a cold start would and compares what its protection was made from.
func (pr *proc) current(prof Profile) bool {
	if len(prof.WritePaths) == 0 {
		return true
	}
	s, err := buildSetup(prof, pr.mode)
	return err == nil && s.protectKey == pr.protectKey
}
