package policy

import "time"

// Option configures Limits, Budgets and Cedar.
type Option func(*options)

type options struct {
	store   Store
	now     func() time.Time
	tenants map[string]map[string]any
}

// WithStore keeps the counts in s, which several processes may share;
// default: a MemoryStore of their own.
func WithStore(s Store) Option { return func(o *options) { o.store = s } }

// WithClock makes now the clock; default time.Now. Tests pass one so as not
// to wait for a window to pass. Cedar reads the time of a call from it, in
// the time zone of the times it returns.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithTenants gives Cedar policies the attributes of each tenant, by
// tenant name: context.tenant of a call is the attributes of its
// principal's tenant. The entry "*" holds those of every tenant, listed or
// not (a tenant's own win): an attribute it has is in every call's
// context.tenant, and one it lacks is optional (a policy tests it with
// has). An attribute is a string, an integer, a boolean or a list of one
// of those, of the same type for every tenant; its name is an identifier.
func WithTenants(attrs map[string]map[string]any) Option {
	return func(o *options) { o.tenants = attrs }
}

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
