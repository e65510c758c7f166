package policy

import "time"

// Option configures Limits and Budgets.
type Option func(*options)

type options struct {
	store Store
	now   func() time.Time
}

// WithStore keeps the counts in s, which several processes may share;
// default: a MemoryStore of their own.
func WithStore(s Store) Option { return func(o *options) { o.store = s } }

// WithClock makes now the clock; default time.Now. Tests pass one so as not
// to wait for a window to pass.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

func optionsOf(opts []Option) options {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.store == nil {
		o.store = NewMemoryStore(o.now)
	}
	return o
}
