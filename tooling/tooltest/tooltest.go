package tooltest

import (
	"context"
	"errors"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// Option sets what the call carries.
type Option func(*options)

type options struct {
	call      []tooling.Option
	workspace string
	ctx       context.Context
}

// WithContext sets the ctx Run is called with (default: the test's
// context), for per-call values under typed context keys.
func WithContext(ctx context.Context) Option { return func(o *options) { o.ctx = ctx } }

// WithOrigin sets Call.Origin (default tooling.OriginApp).
func WithOrigin(o tooling.Origin) Option {
	return func(c *options) { c.call = append(c.call, tooling.WithOrigin(o)) }
}

// WithPrincipal sets Call.Principal (default: the anonymous principal).
func WithPrincipal(p tooling.Principal) Option {
	return func(c *options) { c.call = append(c.call, tooling.WithPrincipal(p)) }
}

// WithConsent sets Call.Consent.
func WithConsent() Option { return func(c *options) { c.call = append(c.call, tooling.WithConsent()) } }

// WithWorkspace sets the directory Call.Workspace returns.
func WithWorkspace(dir string) Option { return func(c *options) { c.workspace = dir } }

// WithCallID sets Call.ID (default "test-call").
func WithCallID(id string) Option {
	return func(c *options) { c.call = append(c.call, tooling.WithCallID(id)) }
}

// Run checks args (a JSON object; "" for none) against tool's input schema
// as the registry does, fills in schema defaults and calls tool.Run with
// the resulting Call. It returns what Run returns; arguments that do not
// pass return a *tooling.Error with code validation_error (its
// Result.Fields name every failing field) and Run is not called. A tool
// that the registry would refuse to register fails the test.
func Run(tb testing.TB, tool tooling.Tool, args string, opts ...Option) (any, error) {
	tb.Helper()
	o := options{call: []tooling.Option{tooling.WithCallID("test-call")}, ctx: tb.Context()}
	for _, f := range opts {
		f(&o)
	}
	c, err := tooling.Prepare(tool, []byte(args), o.workspace, o.call...)
	var re *tooling.RegisterError
	if errors.As(err, &re) {
		tb.Fatalf("tooltest: %v", err)
	}
	if err != nil {
		return nil, err
	}
	return tool.Run(o.ctx, c)
}
