package dryrun

import "context"

type dryKey struct{}

type declareKey struct{}

// declaring and declaringPlan are the contexts Declare and DeclarePlan
// pass to the next handler.
var (
	declaring     = context.WithValue(context.Background(), declareKey{}, "dry run")
	declaringPlan = context.WithValue(context.Background(), declareKey{}, "plan")
)

// With returns ctx marked as the context of a call that is only explained.
func With(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryKey{}, true)
}

// Is reports whether ctx is the context of a call that is only explained.
func Is(ctx context.Context) bool {
	v, _ := ctx.Value(dryKey{}).(bool)
	return v
}

// Declare tells the registry that builds a chain of middleware that the
// middleware given next, and being built now, honours the flag: it calls
// next with the context Declaring recognises and the zero call.
func Declare[C, R any](next func(context.Context, C) (R, error)) {
	var zero C
	_, _ = next(declaring, zero)
}

// DeclarePlan tells the registry that builds a chain of middleware that
// the middleware given next, and being built now, plans what it asks of a
// shared store (internal/batch): it calls next with the context
// DeclaringPlan recognises and the zero call.
func DeclarePlan[C, R any](next func(context.Context, C) (R, error)) {
	var zero C
	_, _ = next(declaringPlan, zero)
}

// Declaring reports whether ctx is the context Declare or DeclarePlan
// passes: a handler called with it returns at once, doing nothing.
func Declaring(ctx context.Context) bool {
	return ctx == declaring || ctx == declaringPlan
}

// DeclaringPlan reports whether ctx is the context DeclarePlan passes.
func DeclaringPlan(ctx context.Context) bool { return ctx == declaringPlan }
