package dryrun

import (
	"context"
	"testing"
)

func TestFlagAndDeclare(t *testing.T) {
	ctx := context.Background()
	if Is(ctx) || Declaring(ctx) {
		t.Fatal("a plain context is marked")
	}
	if !Is(With(ctx)) || Declaring(With(ctx)) {
		t.Fatal("With does not mark the context as explained only")
	}
	type handler func(context.Context, *int) (*string, error)
	var got context.Context
	var h handler = func(ctx context.Context, c *int) (*string, error) {
		got = ctx
		if c != nil {
			t.Error("Declare passed a call")
		}
		return nil, nil
	}
	Declare(h)
	if got == nil || !Declaring(got) || Is(got) {
		t.Fatalf("Declare passed %v", got)
	}
}

// TestDeclarePlan: DeclarePlan passes a context that Declaring knows too
// (a handler returns at once), and that DeclaringPlan tells apart.
func TestDeclarePlan(t *testing.T) {
	var got context.Context
	DeclarePlan(func(ctx context.Context, c *int) (*string, error) {
		got = ctx
		if c != nil {
			t.Error("DeclarePlan passed a call")
		}
		return nil, nil
	})
	if got == nil || !Declaring(got) || !DeclaringPlan(got) || Is(got) {
		t.Fatalf("DeclarePlan passed %v", got)
	}
	Declare(func(ctx context.Context, _ *int) (*string, error) { got = ctx; return nil, nil })
	if DeclaringPlan(got) || DeclaringPlan(context.Background()) {
		t.Fatal("DeclaringPlan takes another context for its own")
	}
}
