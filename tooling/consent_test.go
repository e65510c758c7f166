package tooling_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func consentRegistry(t *testing.T, ran *[]string) *tooling.Registry {
	t.Helper()
	r := tooling.NewRegistry()
	for _, name := range []string{"t.delete", "t.move"} {
		r.Register(tooling.Tool{Name: name, Meta: tooling.Meta{Effects: tooling.EffectWrite | tooling.EffectFilesystem},
			Input: raw(`{"type":"object","properties":{"path":{"type":"string"},"force":{"type":"boolean","default":false}},"required":["path"]}`),
			Run: func(_ context.Context, c tooling.Call) (any, error) {
				*ran = append(*ran, fmt.Sprintf("%s %s consent=%v", c.Tool, callargs.String(c.Args, "path"), c.Consent))
				return "done", nil
			}})
	}
	r.Register(tooling.Tool{Name: "t.read", Meta: tooling.Meta{Effects: tooling.EffectRead}, Run: run})
	return r
}

func TestConsentFuncDecisions(t *testing.T) {
	var ran []string
	r := consentRegistry(t, &ran)
	var asked []tooling.ConsentRequest
	answer := tooling.ConsentDeny
	r.SetConsentFunc(func(_ context.Context, req tooling.ConsentRequest) (tooling.ConsentDecision, error) {
		asked = append(asked, req)
		return answer, nil
	})
	exec := func(tool string, opts ...tooling.Option) *tooling.Result {
		res, _ := r.Execute(context.Background(), tool, raw(`{"path":"/tmp/x"}`), opts...)
		return res
	}
	// Deny: consent_required, and the tool does not run.
	res := exec("t.delete", tooling.WithOrigin(tooling.OriginLLM), tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: "acme"}))
	if res.Code != codes.ConsentRequired || res.Message != "t.delete has write|filesystem effects at medium risk and needs consent, which was refused" || len(ran) != 0 {
		t.Fatalf("deny: %q %q ran %v", res.Code, res.Message, ran)
	}
	want := tooling.ConsentRequest{Tool: "t.delete", Effects: tooling.EffectWrite | tooling.EffectFilesystem, Safety: tooling.SafetyMedium,
		Args: map[string]any{"path": "/tmp/x", "force": false}, Origin: tooling.OriginLLM, Principal: tooling.Principal{Subject: "alice", Tenant: "acme"}}
	if len(asked) != 1 || fmt.Sprint(asked[0]) != fmt.Sprint(want) {
		t.Fatalf("asked %+v\nwant %+v", asked, want)
	}
	// Once: this call runs; the next one asks again.
	answer = tooling.ConsentOnce
	if res := exec("t.delete"); res.Status != "ok" || !hasDecision(res, "consent", "given for this call") {
		t.Fatalf("once: %+v", res)
	}
	answer = tooling.ConsentDeny
	if res := exec("t.delete"); res.Code != codes.ConsentRequired {
		t.Fatalf("after once: %q", res.Code)
	}
	// Session: scoped to the tool and the origin.
	answer = tooling.ConsentSession
	if res := exec("t.delete", tooling.WithOrigin(tooling.OriginUI)); res.Status != "ok" {
		t.Fatalf("session: %+v", res)
	}
	answer = tooling.ConsentDeny
	n := len(asked)
	if res := exec("t.delete", tooling.WithOrigin(tooling.OriginUI)); res.Status != "ok" || len(asked) != n ||
		!hasDecision(res, "consent", "given earlier for this session") {
		t.Fatalf("session, second call: %q asked %d times", res.Code, len(asked)-n)
	}
	if res := exec("t.delete", tooling.WithOrigin(tooling.OriginLLM)); res.Code != codes.ConsentRequired {
		t.Fatalf("another origin: %q", res.Code)
	}
	if res := exec("t.move", tooling.WithOrigin(tooling.OriginUI)); res.Code != codes.ConsentRequired {
		t.Fatalf("another tool: %q", res.Code)
	}
	// Session consent is the principal's: alice's never serves bob, nor
	// alice of another tenant, nor the anonymous principal.
	alice := tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: "acme"})
	answer = tooling.ConsentSession
	if res := exec("t.move", tooling.WithOrigin(tooling.OriginUI), alice); res.Status != "ok" ||
		!hasDecision(res, "consent", "given for this session (tool, origin ui and principal alice@acme)") {
		t.Fatalf("alice, session: %+v", res)
	}
	answer = tooling.ConsentDeny
	for _, p := range []tooling.Principal{{Subject: "bob", Tenant: "acme"}, {Subject: "alice", Tenant: "initech"}, {}, {Subject: "alice\x00acme"}} {
		if res := exec("t.move", tooling.WithOrigin(tooling.OriginUI), tooling.WithPrincipal(p)); res.Code != codes.ConsentRequired {
			t.Fatalf("%v after alice's session consent: %q %q", p, res.Code, res.Message)
		}
	}
	if res := exec("t.move", tooling.WithOrigin(tooling.OriginUI), alice); res.Status != "ok" {
		t.Fatalf("alice again: %q", res.Code)
	}
	// Calls with WithConsent, and tools without effects, never ask.
	n = len(asked)
	exec("t.move", tooling.WithConsent())
	exec("t.read")
	if len(asked) != n {
		t.Fatalf("asked %d times more", len(asked)-n)
	}
	if got := strings.Join(ran, "; "); got != "t.delete /tmp/x consent=true; t.delete /tmp/x consent=true; t.delete /tmp/x consent=true; t.move /tmp/x consent=true; t.move /tmp/x consent=true; t.move /tmp/x consent=true" {
		t.Fatalf("ran: %s", got)
	}
}

func hasDecision(res *tooling.Result, step, detail string) bool {
	for _, d := range res.Governance {
		if d.Step == step && strings.HasPrefix(d.Detail, detail) {
			return true
		}
	}
	return false
}

func TestConsentFuncFailures(t *testing.T) {
	var ran []string
	r := consentRegistry(t, &ran)
	// Without a consent function, the refusal is as it always was.
	res, err := r.Execute(context.Background(), "t.delete", raw(`{"path":"a"}`))
	if !errors.Is(err, codes.ConsentRequired) || res.Message != "t.delete has write|filesystem effects at medium risk and needs consent" ||
		res.Hint != "ask first, then call again with consent (WithConsent, or --consent on the command line)" {
		t.Fatalf("no func: %v %q", err, res.Hint)
	}
	errAsk := errors.New("no person at the terminal")
	r.SetConsentFunc(func(context.Context, tooling.ConsentRequest) (tooling.ConsentDecision, error) {
		return tooling.ConsentSession, errAsk
	})
	res, err = r.Execute(context.Background(), "t.delete", raw(`{"path":"a"}`))
	if !errors.Is(err, codes.ConsentRequired) || !errors.Is(err, errAsk) || res.Status != "denied" ||
		res.Message != "t.delete needs consent, and asking for it failed: no person at the terminal (the consent function also answered allow for this session, which an error overrides)" {
		t.Fatalf("error: %v", err)
	}
	// An error wins over every decision, and the message says which one it overrode.
	for d, note := range map[tooling.ConsentDecision]string{
		tooling.ConsentOnce: " (the consent function also answered allow once, which an error overrides)",
		tooling.ConsentDeny: "",
	} {
		r.SetConsentFunc(func(context.Context, tooling.ConsentRequest) (tooling.ConsentDecision, error) { return d, errAsk })
		res, err = r.Execute(context.Background(), "t.delete", raw(`{"path":"a"}`))
		if !errors.Is(err, codes.ConsentRequired) || !errors.Is(err, errAsk) ||
			res.Message != "t.delete needs consent, and asking for it failed: no person at the terminal"+note {
			t.Fatalf("decision %d with an error: %v", d, err)
		}
	}
	if len(ran) != 0 {
		t.Fatalf("a call refused for an error ran: %v", ran)
	}
	r.SetConsentFunc(func(context.Context, tooling.ConsentRequest) (tooling.ConsentDecision, error) {
		return tooling.ConsentDeny, nil
	})
	if _, err = r.Execute(context.Background(), "t.delete", raw(`{"path":"a"}`)); !errors.Is(err, codes.ConsentRequired) {
		t.Fatalf("a session decision that came with an error was kept: %v", err)
	}
	r.SetConsentFunc(func(context.Context, tooling.ConsentRequest) (tooling.ConsentDecision, error) { panic("dialog bug") })
	if _, err = r.Execute(context.Background(), "t.delete", raw(`{"path":"a"}`)); !errors.Is(err, codes.ConsentRequired) || !strings.Contains(err.Error(), "the consent function panicked: dialog bug") {
		t.Fatalf("panic: %v", err)
	}
	// The caller gives up while the person thinks: canceled, nothing ran.
	ctx, cancel := context.WithCancel(context.Background())
	r.SetConsentFunc(func(ctx context.Context, _ tooling.ConsentRequest) (tooling.ConsentDecision, error) {
		cancel()
		<-ctx.Done()
		return tooling.ConsentOnce, nil
	})
	res, err = r.Execute(ctx, "t.delete", raw(`{"path":"a"}`))
	if !errors.Is(err, codes.Canceled) || res.Status != "denied" {
		t.Fatalf("canceled: %v %q", err, res.Status)
	}
	if len(ran) != 0 {
		t.Fatalf("ran: %v", ran)
	}
}
