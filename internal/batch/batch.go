package batch

import "context"

// Batch is what the middleware of one call will ask of shared stores. It
// belongs to that call: it is not safe for concurrent use, as a call's
// middleware run one after another.
type Batch struct {
	// Registry (a *tooling.Registry) and Tool are the call's.
	Registry any
	Tool     string

	planning bool
	items    []*Item
}

// Item is one decision of a batch, as the store that makes it describes
// it.
type Item struct {
	// Store is the store that decides it; Spec what it decides.
	Store any
	Spec  any
	// Decided is set once the store made the batch's decisions; Outcome
	// and Err are then its.
	Decided bool
	Outcome any
	Err     error

	taken bool
}

// New returns the batch of a call, planning.
func New(registry any, tool string) *Batch {
	return &Batch{Registry: registry, Tool: tool, planning: true}
}

type key struct{}

// With returns ctx carrying b.
func With(ctx context.Context, b *Batch) context.Context { return context.WithValue(ctx, key{}, b) }

// From returns the batch ctx carries, nil when none.
func From(ctx context.Context) *Batch {
	b, _ := ctx.Value(key{}).(*Batch)
	return b
}

// Planning reports whether b is gathering what its middleware will ask:
// they then add it and spend nothing.
func (b *Batch) Planning() bool { return b != nil && b.planning }

// Planned ends the planning of b: from now on its decisions are made.
func (b *Batch) Planned() { b.planning = false }

// Add adds the decision spec of store, while b is planning.
func (b *Batch) Add(store, spec any) {
	if b.planning {
		b.items = append(b.items, &Item{Store: store, Spec: spec})
	}
}

// Undecided returns, in the order they were added, the decisions of store
// not made yet: those it makes together.
func (b *Batch) Undecided(store any) []*Item {
	if b == nil {
		return nil
	}
	var out []*Item
	for _, it := range b.items {
		if it.Store == store && !it.Decided {
			out = append(out, it)
		}
	}
	return out
}

// Take returns the first decision of store that match accepts and that
// no one took yet, and marks it taken; nil when there is none (the
// middleware then asks its store itself).
func (b *Batch) Take(store any, match func(spec any) bool) *Item {
	if b == nil || b.planning {
		return nil
	}
	for _, it := range b.items {
		if it.Store == store && !it.taken && match(it.Spec) {
			it.taken = true
			return it
		}
	}
	return nil
}

// Planner is a store that adds its decisions to a batch that is planning
// (package policy's Store, on Redis): a middleware whose store is one
// plans (Declare), and one whose store is not passes a planning call on,
// asking nothing.
type Planner interface {
	// Plans reports whether the store adds its decisions to b (nil: to
	// the batches of calls).
	Plans(b *Batch) bool
}

// Plans reports whether store is a Planner that adds its decisions to b.
func Plans(store any, b *Batch) bool {
	p, ok := store.(Planner)
	return ok && p.Plans(b)
}
