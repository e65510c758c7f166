package batch

import (
	"context"
	"testing"
)

// TestPlanThenTake: a batch gathers decisions while it plans only; each
// is taken once, by the store that added it and a spec that matches; a
// nil batch (a call without one) plans nothing and holds nothing.
func TestPlanThenTake(t *testing.T) {
	var none *Batch
	if none.Planning() || none.Take("s", func(any) bool { return true }) != nil || none.Undecided("s") != nil {
		t.Fatal("a nil batch holds something")
	}
	if From(context.Background()) != nil {
		t.Fatal("a plain context carries a batch")
	}
	b := New("reg", "t.pay")
	ctx := With(context.Background(), b)
	if From(ctx) != b || !b.Planning() {
		t.Fatal("the batch is not carried, or not planning")
	}
	if b.Take("s", func(any) bool { return true }) != nil {
		t.Fatal("a decision was taken while planning")
	}
	b.Add("s", 1)
	b.Add("other", 2)
	b.Add("s", 3)
	b.Planned()
	b.Add("s", 4) // too late: not planned
	if got := b.Undecided("s"); len(got) != 2 || got[0].Spec != 1 || got[1].Spec != 3 {
		t.Fatalf("undecided of s: %+v", got)
	}
	is := func(v int) func(any) bool { return func(s any) bool { return s == v } }
	it := b.Take("s", is(3))
	if it == nil || it.Spec != 3 {
		t.Fatalf("take 3: %+v", it)
	}
	if b.Take("s", is(3)) != nil || b.Take("s", is(2)) != nil || b.Take("s", is(4)) != nil {
		t.Fatal("a decision taken twice, of another store, or added too late")
	}
	it.Decided = true
	if got := b.Undecided("s"); len(got) != 1 || got[0].Spec != 1 {
		t.Fatalf("undecided of s after one was decided: %+v", got)
	}
}

type planner bool

func (p planner) Plans(*Batch) bool { return bool(p) }

// TestPlans: Plans asks a store whether it plans.
func TestPlans(t *testing.T) {
	if !Plans(planner(true), nil) || Plans(planner(false), nil) || Plans("a store that is no planner", nil) {
		t.Fatal("Plans misreads its store")
	}
}
